# Issue 30, seventeenth pass: one validate run (or two) normalised three ways from what the
# run recorded per repeat (host_per_run): raw; by the FMA loop and the triad (the drift
# before this pass, recomputed here: 1 / (f / fma_ratio + (1 - f) / triad_ratio)); by the
# reference's three convolutions (kernels_s, the drift validate applies from this pass on).
# Usage: normalisations.py DEVICE_JSON RUN_JSON [RUN_JSON_20_MIN_LATER]
import json, statistics, sys


def baseline(device_file):
    d = json.load(open(device_file))
    kt = d.get("kernel_table", d)
    return kt["host_reference"]


def drifts(h, base):
    f = h["compute_share"]
    fma = h["fma_flops"] / base["fma_flops"]
    triad = h["stream_bytes"] / base["stream_bytes"]
    old = 1 / (f / fma + (1 - f) / triad)
    new = base["kernels_s"] / h["kernels_s"] if h.get("kernels_s") and base.get("kernels_s") else float("nan")
    return old, new


def per_model(run, base):
    out = {}
    for m in run["models"]:
        if not m.get("runs"):
            continue
        old, new = [], []
        for x, h in zip(m["runs"], m["host_per_run"]):
            o, n = drifts(h, base)
            old.append(x / o)
            new.append(x / n)
        out[m["name"]] = {"pred": m["predicted"], "raw": statistics.median(m["runs"]),
                          "fma_triad": statistics.median(old), "kernels": statistics.median(new)}
    return out


def fidelity(models, key):
    ratio = [v["pred"] / v[key] for v in models.values()]
    err = [r - 1 for r in ratio]
    scale = statistics.median(ratio)
    share = lambda es, t: 100 * sum(abs(x) <= t for x in es) / len(es)
    return (f"median |error| {100 * statistics.median(abs(e) for e in err):.1f}%, within 10% {share(err, .1):.0f}%, "
            f"within 25% {share(err, .25):.0f}%; one scale ({scale:.3f}) within 10% "
            f"{share([r / scale - 1 for r in ratio], .1):.0f}%")


base = baseline(sys.argv[1])
runs = [per_model(json.load(open(f)), base) for f in sys.argv[2:]]
for f, models in zip(sys.argv[2:], runs):
    print(f"{f} ({len(models)} models)")
    for key in ("raw", "fma_triad", "kernels"):
        print(f"  {key:9s}: {fidelity(models, key)}")
if len(runs) == 2:
    a, b = runs
    names = [n for n in a if n in b]
    print(f"repeatability, {len(names)} models")
    for key in ("raw", "fma_triad", "kernels"):
        ch = [abs(b[n][key] / a[n][key] - 1) for n in names]
        print(f"  {key:9s}: within 5% {100 * sum(c <= .05 for c in ch) / len(ch):.0f}%, "
              f"within 10% {100 * sum(c <= .10 for c in ch) / len(ch):.0f}%, median change {100 * statistics.median(ch):.1f}%")
