#!/usr/bin/env python3
"""Writes data/engines/corpus/h200-2026-11-30.csv: the H200 measurements of 2026-11-30
(docs/generated/gpu/h200-2026-11-30) as a corpus for `rooflens validate --measurements`.
rooflens-cuda rows come from measure-run4.txt (final kernels), PyTorch rows from
peer-run1..3.json. Models not in the bundled zoo (resnet50_conv1pad8) are left out."""
import csv, json, os, sys

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
src = os.path.join(root, "docs/generated/gpu/h200-2026-11-30")
zoo = {f[:-5] for f in os.listdir(os.path.join(root, "models")) if f.endswith(".onnx")}
rows = []
with open(os.path.join(src, "measure-run4.txt")) as f:
    next(f)
    for line in f:
        p = line.split()
        if len(p) < 5 or p[0] not in zoo:
            continue
        rows.append(dict(model=p[0], device="h200", dtype=p[1], batch=p[2], engine="rooflens-cuda", mode=p[3],
                         throughput=p[4], split="fit",
                         source="docs/generated/gpu/h200-2026-11-30/measure-run4.txt (rooflens measure --backend cuda, run 4)",
                         note=""))
for run in (1, 2, 3):
    d = json.load(open(os.path.join(src, f"peer-run{run}.json")))
    env = d["env"]
    for r in d["results"]:
        if r["model"] not in zoo:
            continue
        rows.append(dict(model=r["model"], device="h200", dtype=r["dtype"], batch=r["batch"],
                         engine="pytorch-graph" if r["mode"] == "graph" else "pytorch-eager", mode=r["mode"],
                         throughput=f"{r['throughput']:.1f}", split="fit",
                         source=f"docs/generated/gpu/h200-2026-11-30/peer-run{run}.json (PyTorch {env['torch']}, "
                                f"cuDNN {env['cudnn']}, channels_last, cudnn.benchmark)",
                         note=""))
out = os.path.join(root, "data/engines/corpus/h200-2026-11-30.csv")
with open(out, "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=["model", "device", "dtype", "batch", "engine", "mode", "throughput", "split",
                                      "source", "note"])
    w.writeheader()
    w.writerows(rows)
print(f"{out}: {len(rows)} rows", file=sys.stderr)
