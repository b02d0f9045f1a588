# Fidelity of each level variant (level-variants.sh) against the normalised measurements of
# run1-b1.json and run1-b8.json (validate's per-model medians). Usage: compare-variants.py FOLDER
import json, statistics, sys

d, sub = sys.argv[1], (sys.argv[2] if len(sys.argv) > 2 else "variants")
runs = {b: {m["name"]: m["normalized"] for m in json.load(open(f"{d}/run1-b{b}.json"))["models"] if m.get("runs")}
        for b in (1, 8)}
print("| variant | batch | median abs error | within 10% | within 25% | one scale: within 10% |")
print("|---|---:|---:|---:|---:|---:|")
for v in ("none", "overall", "per-class", "per-class-grouped-overall"):
    for b in (1, 8):
        pred = {r["model"]: r["throughput"] for r in json.load(open(f"{d}/{sub}/{v}-b{b}.json"))}
        ratio = [pred[n] / runs[b][n] for n in runs[b] if n in pred]
        err = [abs(r - 1) for r in ratio]
        s = statistics.median(ratio)
        share = lambda es, t: 100 * sum(e <= t for e in es) / len(es)
        print(f"| {v} | {b} | {100 * statistics.median(err):.1f}% | {share(err, .1):.0f}% | {share(err, .25):.0f}% | "
              f"{share([abs(r / s - 1) for r in ratio], .1):.0f}% |")
