# Fidelity of each level variant (level-variants.sh here, four variants) against the normalised medians of each
# pair of runs (run1-bN.json, run2-bN.json where there is one). Usage: compare-variants.py FOLDER
import json, os, statistics, sys

d = sys.argv[1]
print("| variant | run | batch | median abs error | within 10% | within 25% | one common scale: within 10% |")
print("|---|---|---:|---:|---:|---:|---:|")
for v in ("none", "per-class", "nineteenth", "by-position"):
    for run in (1, 2):
        for b in (1, 8):
            if not os.path.exists(f"{d}/run{run}-b{b}.json"):
                continue
            meas = {m["name"]: m["normalized"] for m in json.load(open(f"{d}/run{run}-b{b}.json"))["models"] if m.get("runs")}
            pred = {r["model"]: r["throughput"] for r in json.load(open(f"{d}/variants/{v}-b{b}.json"))}
            ratio = [pred[n] / meas[n] for n in meas if n in pred]
            err = [abs(r - 1) for r in ratio]
            s = statistics.median(ratio)
            share = lambda es, t: 100 * sum(e <= t for e in es) / len(es)
            print(f"| {v} | {run} | {b} | {100 * statistics.median(err):.1f}% | {share(err, .1):.0f}% | "
                  f"{share(err, .25):.0f}% | {share([abs(r / s - 1) for r in ratio], .1):.0f}% |")
