# Fidelity of `predict --zoo --format json` output against recorded `validate` runs: raw,
# against normalised measurements, and after one common scale (the median predicted/measured
# divided out: the table's shape apart from its level). Usage: fidelity_of.py PRED:RUN ...
import json, statistics, sys


def stats(pred, meas):
    names = [n for n in meas if n in pred]
    ratio = [pred[n] / meas[n] for n in names]
    scale = statistics.median(ratio)
    raw = [r - 1 for r in ratio]
    scaled = [r / scale - 1 for r in ratio]
    share = lambda es, t: sum(abs(x) <= t for x in es) / len(es)
    text = (f"within 10% {share(raw, .1):.2f}, median |error| {statistics.median(abs(x) for x in raw):.3f}; "
            f"one scale ({scale:.3f}) within 10% {share(scaled, .1):.2f}")
    return text, sorted(zip(names, raw), key=lambda t: -abs(t[1]))


for pair in sys.argv[1:]:
    pred_file, run_file = pair.split(":")
    pred = {r["model"].split("/")[-1].removesuffix(".onnx"): r["throughput"] for r in json.load(open(pred_file))}
    run = json.load(open(run_file))
    meas = {m["name"]: m["measured"] for m in run["models"]}
    norm = {m["name"]: m["normalized"] for m in run["models"] if m.get("normalized")}
    raw_text, worst = stats(pred, meas)
    norm_text, _ = stats(pred, norm)
    print(f"{run_file}\n  raw: {raw_text}\n  normalised: {norm_text}")
    print("  furthest (raw):", ", ".join(f"{n} {x:+.2f}" for n, x in worst[:8]))
