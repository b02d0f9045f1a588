#!/usr/bin/env python3
"""The measurement corpus of scripts/gpu-corpus.sh from its raw files.

usage: gpu_corpus_csv.py LAYERS_DIR CORPUS_DIR [PEER_JSON] > summary.txt

LAYERS_DIR holds one rooflens.measure/1 JSON per model, batch and mode
(MODEL-DTYPE-bBATCH-MODE.json, from `rooflens validate --layers-dir`) and the validate JSONs
(validate-DTYPE-bBATCH.json, for the failures). Writes into CORPUS_DIR:
  corpus.csv              one row per model, dtype, batch and mode (eager, graph)
  study-DTYPE-bBATCH.csv  per model the faster mode: model,batch,throughput,... as
                          `rooflens study --measurements` reads it
and prints the summary: coverage, ResNet-50 at batch 256, rooflens against PyTorch's best
mode (eager, graph, compile) on the peer's models.
"""
import csv
import glob
import json
import os
import sys


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    layers, out = sys.argv[1], sys.argv[2]
    peer = load(sys.argv[3]) if len(sys.argv) > 3 else None
    rows, failures = [], []
    for f in sorted(glob.glob(os.path.join(layers, "*.json"))):
        j = load(f)
        if not j:
            failures.append((os.path.basename(f), "unreadable JSON"))
            continue
        if j.get("schema") == "rooflens.validate/1":
            failures += [(x["model"], f"b{j.get('batch')}: {x['error']}") for x in j.get("failures", [])]
            continue
        if j.get("schema") != "rooflens.measure/1":
            continue
        rows.append({
            "model": j["model"], "dtype": j.get("dtype", ""), "batch": j["batch"],
            "mode": "graph" if j.get("cuda_graph") else "eager", "throughput": j["throughput"],
            "latency_ms": 1e3 * j.get("latency_s", 0), "predicted_throughput": j.get("predicted_throughput", 0),
            "utilization": j.get("utilization", 0), "gpu": j.get("gpu", ""), "layers": len(j.get("layers", [])),
        })
    os.makedirs(out, exist_ok=True)
    cols = ["model", "dtype", "batch", "mode", "throughput", "latency_ms", "predicted_throughput", "utilization",
            "gpu", "layers"]
    with open(os.path.join(out, "corpus.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=cols)
        w.writeheader()
        w.writerows(rows)
    best = {}
    for r in rows:
        k = (r["dtype"], r["batch"], r["model"])
        if k not in best or r["throughput"] > best[k]["throughput"]:
            best[k] = r
    # One study file per dtype and batch; a model run at a smaller batch only because the large
    # one did not fit (gpu-corpus.sh halves it) joins the large batch's file with its own batch.
    top = max((k[1] for k in best), default=1)
    study = {}
    for (d, b, m), r in sorted(best.items()):
        group = (d, 1 if b == 1 else top)
        if (group, m) not in study or b > study[(group, m)][0]:
            study[(group, m)] = (b, r)
    for dt, b in sorted({g for g, _ in study}):
        with open(os.path.join(out, f"study-{dt}-b{b}.csv"), "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["model", "batch", "throughput", "mode", "predicted_throughput"])
            for ((d, g), m), (bb, r) in sorted(study.items()):
                if (d, g) == (dt, b):
                    w.writerow([m, bb, f"{r['throughput']:.2f}", r["mode"], f"{r['predicted_throughput']:.2f}"])

    print(f"corpus: {len(rows)} measurements of {len({r['model'] for r in rows})} models")
    for (dt, b, mode) in sorted({(r["dtype"], r["batch"], r["mode"]) for r in rows}):
        n = sum(1 for r in rows if (r["dtype"], r["batch"], r["mode"]) == (dt, b, mode))
        print(f"  {dt} batch {b} {mode}: {n} models")
    for m, e in failures:
        print(f"  failed: {m}: {e}")
    r50 = best.get(("fp16", 256, "resnet50"))
    if r50:
        print(f"ResNet-50 fp16 batch 256: {r50['throughput']:.0f} img/s ({r50['mode']}); issue 27 asks >= 40,000 "
              f"on an H200: {'met' if r50['throughput'] >= 40000 else 'NOT met'}")
    if peer:
        pt = {}
        for r in peer.get("results", []):
            if "throughput" in r and r.get("dtype") == "fp16":
                k = (r["model"], r["batch"])
                if k not in pt or r["throughput"] > pt[k][0]:
                    pt[k] = (r["throughput"], r["mode"])
        print(f"\n{'model':20s} {'batch':>5s} {'rooflens':>10s} {'mode':5s} {'PyTorch best':>12s} {'mode':7s} "
              f"{'ratio':>6s}")
        for (m, b), (t, mode) in sorted(pt.items()):
            r = best.get(("fp16", b, m))
            ratio = f"{r['throughput'] / t:6.2f}" if r else "     -"
            rl = f"{r['throughput']:10.1f} {r['mode']:5s}" if r else f"{'-':>10s} {'':5s}"
            print(f"{m:20s} {b:5d} {rl} {t:12.1f} {mode:7s} {ratio}")
        for s in peer.get("skipped", []) + peer.get("errors", []):
            print(f"  peer: {s}")


if __name__ == "__main__":
    main()
