#!/usr/bin/env python3
"""Post hoc: the fidelity of a recorded validate run (rooflens.validate/1) against its recorded
normalised measurements, with the predictions it recorded or those of a `rooflens predict --zoo
--format json` file at the run's batch (--predictions PRED.json). Works on one-round runs too
(elastic.py, which refits the normalisation, needs two rounds or more). Analysis only.
Usage: fidelity.py [--predictions PRED.json] RUN.json [RUN.json ...]"""
import json
import sys

import numpy as np

args = sys.argv[1:]
override = {}
if args and args[0] == "--predictions":
    P = json.load(open(args[1]))
    for m in P["models"] if isinstance(P, dict) and "models" in P else P:
        q = m["predictions"][0] if "predictions" in m else m
        override[m.get("model") or m.get("name")] = q["throughput"]
    args = args[2:]
for path in args:
    d = json.load(open(path))
    pred, meas = [], []
    for m in d["models"]:
        if not m.get("normalized") or not m.get("predicted"):
            continue
        pred.append(override.get(m["name"], m["predicted"]))
        meas.append(m["normalized"])
    e = np.array(pred) / np.array(meas) - 1
    ra, rb = np.argsort(np.argsort(pred)), np.argsort(np.argsort(meas))
    print(f"{path}: {len(e)} models, within +-10% {np.mean(abs(e) <= 0.1):.1%}, median |e| {np.median(abs(e)):.1%}, "
          f"signed {np.median(e):+.1%}, within +-25% {np.mean(abs(e) <= 0.25):.1%}, Spearman {np.corrcoef(ra, rb)[0, 1]:.3f}")
