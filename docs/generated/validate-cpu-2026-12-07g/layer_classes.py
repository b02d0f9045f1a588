#!/usr/bin/env python3
"""Post hoc, per level class: the zoo's measured layer times against the predicted ones, from a
folder of `rooflens measure MODEL --device D --dtype fp32 --threads 2 --batch B --max-seconds 1.5
--format json -o DIR/NAME.json` and `rooflens predict MODEL --device D --dtype fp32 --batch B
--format json -o DIR/NAME.pred.json` files (one pair per model). Per key (kernel class / level
class @ position): the median over models of measured / predicted, and each model's
(measured - predicted) of that key over its predicted total (its contribution to the model's
error). Keys given after the folder are listed per model. Analysis only.
Usage: layer_classes.py DIR [KEY ...]"""
import collections
import glob
import json
import os
import statistics as st
import sys

folder, keys = sys.argv[1], sys.argv[2:]
per = collections.defaultdict(dict)  # key -> model -> [measured, predicted, layers]
tot = {}
for pf in sorted(glob.glob(os.path.join(folder, "*.pred.json"))):
    m = os.path.basename(pf)[: -len(".pred.json")]
    mf = os.path.join(folder, m + ".json")
    if not os.path.exists(mf):
        continue
    p, d = json.load(open(pf)), json.load(open(mf))
    measured = {l["name"]: l["time_s"] for l in d["layers"]}
    tot[m] = (sum(l["time_s"] for l in p["layers"]), d["normalized_throughput"] / d["predicted_throughput"] - 1)
    for l in p["layers"]:
        if l["name"] not in measured:
            continue
        kt = l.get("kernel_table") or {}
        pos = int(kt.get("level_position", 0))
        key = f'{kt.get("class", "-")}/{kt.get("level_class", "?")}' + (f"@{pos}" if pos else "")
        x = per[key].setdefault(m, [0.0, 0.0, 0])
        x[0] += measured[l["name"]]
        x[1] += l["time_s"]
        x[2] += 1
rows = []
for key, mm in per.items():
    contrib = [(v[0] - v[1]) / tot[m][0] for m, v in mm.items()]
    ratios = [v[0] / v[1] for v in mm.values() if v[1] > 0]
    rows.append((sum(abs(c) for c in contrib), key, len(mm), st.median(ratios) if ratios else 0, st.mean(contrib),
                 max(contrib, key=abs)))
print("key, models, median measured/predicted, mean and largest contribution to a model's time, sum of |contribution|")
for a, key, n, r, mc, mx in sorted(rows, reverse=True)[:40]:
    print(f"{key:34s} n={n:3d} r={r:5.2f} mean {mc * 100:+6.2f}% max {mx * 100:+6.1f}% sumabs {a * 100:6.1f}")
for key in keys:
    print("==", key, "(model err: normalised measured / predicted - 1, whole model)")
    for m, v in sorted(per[key].items(), key=lambda kv: (kv[1][0] - kv[1][1]) / tot[kv[0]][0]):
        print(f"  {m:22s} n={v[2]:3d} meas {v[0] * 1e3:8.2f} pred {v[1] * 1e3:8.2f} r {v[0] / v[1]:.2f} "
              f"contrib {(v[0] - v[1]) / tot[m][0] * 100:+6.1f}%  model err {tot[m][1] * 100:+6.1f}")
