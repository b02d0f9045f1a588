#!/usr/bin/env python3
"""Writes a corpus CSV for `rooflens validate --measurements` (and scripts/fit-engines.py) from
one folder of scripts/gpu-corpus.sh (docs/generated/gpu/<device>-<date>/): rooflens-cuda rows
from corpus.csv, PyTorch rows (pytorch-eager, pytorch-graph, pytorch-compile) from
peer_gpu.json. The split is by model, so that a fit on one half is checked on models it never
saw: the zoo's models in name order, alternately "fit" and "heldout" (the first is "fit").
usage: scripts/engine-corpus-gpu.py CORPUS_DIR DEVICE_ID OUT_CSV   (e.g. ... h200 data/engines/corpus/h200-2026-12-04.csv)"""
import csv, json, os, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
COLS = ["model", "device", "dtype", "batch", "engine", "mode", "throughput", "split", "source", "note"]
PEER_ENGINE = {"eager": "pytorch-eager", "graph": "pytorch-graph", "compile": "pytorch-compile"}


def halves():
    zoo = sorted(m["name"] for m in json.load(open(os.path.join(ROOT, "models/zoo.json")))["models"])
    return {m: ("fit" if i % 2 == 0 else "heldout") for i, m in enumerate(zoo)}


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    src, device, out = sys.argv[1:]
    rel = os.path.relpath(os.path.abspath(src), ROOT)
    split = halves()
    rows = []
    for r in csv.DictReader(open(os.path.join(src, "corpus.csv"))):
        if r["model"] not in split:
            continue
        rows.append(dict(model=r["model"], device=device, dtype=r["dtype"], batch=r["batch"], engine="rooflens-cuda",
                         mode=r["mode"], throughput=f"{float(r['throughput']):.1f}", split=split[r["model"]],
                         source=f"{rel}/corpus.csv (rooflens validate --backend cuda)", note=""))
    peer_path = os.path.join(src, "peer_gpu.json")
    if os.path.exists(peer_path):
        peer = json.load(open(peer_path))
        env = peer["env"]
        for r in peer["results"]:
            if r["model"] not in split or r["mode"] not in PEER_ENGINE:
                continue
            rows.append(dict(model=r["model"], device=device, dtype=r["dtype"], batch=r["batch"],
                             engine=PEER_ENGINE[r["mode"]], mode="" if r["mode"] == "compile" else r["mode"],
                             throughput=f"{r['throughput']:.1f}",
                             split=split[r["model"]],
                             source=f"{rel}/peer_gpu.json (PyTorch {env['torch']}, cuDNN {env['cudnn']}, "
                                    "channels_last, cudnn.benchmark)", note=""))
    with open(out, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLS)
        w.writeheader()
        w.writerows(rows)
    print(f"{out}: {len(rows)} rows", file=sys.stderr)


main()
