#!/usr/bin/env python3
"""Repeatability and fidelity from two `rooflens validate --format json` runs of the same
models (issue 30): for each model the change between the runs, raw and normalised (the host's
drift against the device file's host_reference divided out), and each run's prediction error
against the normalised throughput.

usage: scripts/repeatability.py RUN1.json RUN2.json [--markdown]
Prints the share of models whose two runs agree within +-5% and +-10% (relative to their
mean), raw and normalised, and the share predicted within +-10% and +-25% of the normalised
measurement in each run. With the per-run host readings (`host_per_run`, validate since
2026-12-03), also which reading moved as the models moved between the runs: the median ratio
run 2 / run 1 of the throughput and of each reading (clock, triad, GEMM), their rank
correlation over the models, and how many runs agree within +-5% when divided by each
reading alone (the dispatch, validate since 2026-12-04 15:00 UTC, reads higher in the slow
state: its ratio runs against the throughput's; the reference's convolutions, `kernels_s`, as a
speed, paired with every run since the thirtieth pass). Runs in the slower dispatch state
(`other_state_runs`, left out of the normalised medians) are counted per run. When the runs
had several rounds (`validate --repeat N`), also the shares for
the first round of each run alone, which is what a single-round run would have measured.
"""
import json
import statistics
import sys


def load(path):
    with open(path) as f:
        j = json.load(f)
    return {m["name"]: m for m in j["models"]}, j


def host_mean(m, key):
    runs = m.get("host_per_run") or []
    xs = [h[key] for h in runs if h.get(key, 0) > 0]
    return sum(xs) / len(xs) if xs else None


def ranks(xs):
    order = sorted(range(len(xs)), key=lambda i: xs[i])
    r = [0.0] * len(xs)
    for k, i in enumerate(order):
        r[i] = float(k)
    return r


def spearman(xs, ys):
    if len(xs) < 3:
        return float("nan")
    rx, ry = ranks(xs), ranks(ys)
    mx, my = statistics.mean(rx), statistics.mean(ry)
    num = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    den = (sum((a - mx) ** 2 for a in rx) * sum((b - my) ** 2 for b in ry)) ** 0.5
    return num / den if den else float("nan")


def signals(r1, r2, names):
    """Which host reading moved as the models moved between the two runs."""
    thr_all = [r2[n]["measured"] / r1[n]["measured"] for n in names if r1[n]["measured"] > 0 and r2[n]["measured"] > 0]
    header = False
    for k in ("fma_flops", "clock_hz", "stream_bytes", "gemm_flops", "dispatch_s", "kernels_s"):
        pairs = []
        for n in names:
            a, b = r1[n], r2[n]
            ha, hb = host_mean(a, k), host_mean(b, k)
            if ha and hb and a["measured"] > 0 and b["measured"] > 0:
                # kernels_s is a time: its speed ratio is run 1 / run 2
                pairs.append((b["measured"] / a["measured"], ha / hb if k == "kernels_s" else hb / ha))
        if not pairs:
            continue
        if not header:
            print(f"host readings of both runs: run 2 / run 1 throughput median {statistics.median(thr_all):.3f}")
            header = True
        thr, rk = [p[0] for p in pairs], sorted(p[1] for p in pairs)
        agree = sum(abs(t / x - 1) <= 0.05 for t, x in pairs) / len(pairs)
        print(f"  {k:13s} ratio median {statistics.median(rk):.3f} (10-90%: {rk[len(rk) // 10]:.3f}-"
              f"{rk[9 * len(rk) // 10]:.3f}); Spearman with the throughput ratio "
              f"{spearman(thr, [p[1] for p in pairs]):+.2f}; runs within +-5% once divided by it alone: "
              f"{100 * agree:.0f}% (of {len(pairs)})")


def first_round(r1, r2, names, share):
    """With several rounds per run: the repeatability of the first round alone beside the median."""
    counts = [len(r[n].get("runs", [])) for r in (r1, r2) for n in names]
    rounds = min(counts) if counts else 0
    if rounds < 2:
        return
    told = f"{rounds}" if max(counts) == rounds else f"{rounds}-{max(counts)}"  # validate --max-repeat
    for key, label in (("runs", "raw"), ("runs_normalized", "normalised")):
        ch = [change(r1[n][key][0], r2[n][key][0]) for n in names if r1[n].get(key) and r2[n].get(key)]
        print(f"first round of each run alone ({label}): within +-5% {share(ch, 0.05):.0f}%, "
              f"within +-10% {share(ch, 0.10):.0f}% (the lines above: the median of each model's {told} rounds)")


def change(a, b):
    return abs(a - b) / ((a + b) / 2) if a > 0 and b > 0 else float("inf")


def main(argv):
    md = "--markdown" in argv
    paths = [a for a in argv if not a.startswith("--")]
    if len(paths) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    (r1, j1), (r2, _) = load(paths[0]), load(paths[1])
    names = sorted(set(r1) & set(r2))
    rows, raw_ch, norm_ch, fid = [], [], [], {0: [], 1: []}
    for n in names:
        a, b = r1[n], r2[n]
        rc = change(a["measured"], b["measured"])
        nc = change(a["normalized"], b["normalized"]) if "normalized" in a and "normalized" in b else None
        raw_ch.append(rc)
        if nc is not None:
            norm_ch.append(nc)
        for i, m in enumerate((a, b)):
            if "error_normalized" in m:
                fid[i].append(abs(m["error_normalized"]))
        rows.append((n, a["measured"], b["measured"], rc, a.get("normalized"), b.get("normalized"), nc,
                     a.get("error_normalized"), b.get("error_normalized")))

    def share(xs, lim):
        return 100 * sum(x <= lim for x in xs) / len(xs) if xs else float("nan")

    if md:
        print("| model | run 1 raw | run 2 raw | change raw (%) | run 1 norm. | run 2 norm. | change norm. (%) "
              "| error norm. run 1 (%) | run 2 (%) |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
        f = lambda x, k=1: "-" if x is None else f"{x:.{k}f}"
        for n, a, b, rc, na, nb, nc, ea, eb in rows:
            print(f"| {n} | {a:.1f} | {b:.1f} | {100 * rc:.1f} | {f(na)} | {f(nb)} | "
                  f"{f(None if nc is None else 100 * nc)} | {f(None if ea is None else 100 * ea)} | "
                  f"{f(None if eb is None else 100 * eb)} |")
        print()
    print(f"models in both runs: {len(names)}")
    print(f"two runs within +-5%:  raw {share(raw_ch, 0.05):.0f}%, normalised {share(norm_ch, 0.05):.0f}% "
          f"(of {len(norm_ch)})")
    print(f"two runs within +-10%: raw {share(raw_ch, 0.10):.0f}%, normalised {share(norm_ch, 0.10):.0f}%")
    for i in (0, 1):
        e = fid[i]
        if e:
            print(f"run {i + 1}: prediction vs normalised measurement: median |error| "
                  f"{100 * statistics.median(e):.1f}%, within +-10% {share(e, 0.10):.0f}%, "
                  f"within +-25% {share(e, 0.25):.0f}% (of {len(e)})")
    for i, r in enumerate((r1, r2)):
        runs = sum(len(r[n].get("host_per_run") or []) for n in names)
        other = sum(r[n].get("other_state_runs", 0) for n in names)
        if any("other_state_runs" in r[n] for n in names):
            none_in = sum(1 for n in names if r[n].get("host_per_run") and
                          r[n].get("other_state_runs", 0) == len(r[n]["host_per_run"]))
            print(f"run {i + 1}: {other} of {runs} runs in the slower dispatch state (left out of the normalised medians); "
                  f"{none_in} models with none in the faster")
    first_round(r1, r2, names, share)
    signals(r1, r2, names)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
