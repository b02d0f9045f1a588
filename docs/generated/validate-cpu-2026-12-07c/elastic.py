#!/usr/bin/env python3
"""Post hoc: recorded validate runs (rooflens.validate/1, --repeat >= 2) normalised as validate now
does it (session/zoo_validation.cpp, normalize_by_elasticity: the session's level, the median of
its runs' batch-1 convolution ratio, times the exponents fitted on the other models' runs applied
to each run's readings less the session's median), beside the exponents alone ("elastic only",
the first version) and each run's own convolution ratio (what runs recorded before carry).

Usage: elastic.py [--predictions PRED.json] RUN1.json [RUN2.json]  -- fidelity of each run;
repeatability of the pair. PRED.json (`rooflens predict --zoo --format json` at the runs' batch)
replaces the predictions the runs recorded.
Analysis only: the library's implementation is the one validate runs."""
import json
import sys

import numpy as np

READINGS = [("kernels_s", True), ("fma_flops", False), ("gemm_flops", False), ("dispatch_s", True)]


def logs(h, base):
    out = []
    for key, is_time in READINGS:
        a, b = h.get(key, 0), base.get(key, 0)
        out.append(0.0 if a <= 0 or b <= 0 else float(np.log(b / a) if is_time else np.log(a / b)))
    return np.array(out)


def load(path):
    d = json.load(open(path))
    base = dict(d["host_baseline_rates"])
    base.setdefault("dispatch_s", d["dispatch_level_s"])  # older runs did not record it
    models = {}
    for m in d["models"]:
        hp, runs = m.get("host_per_run", []), m.get("runs", [])
        if not runs or len(hp) != len(runs):
            continue
        models[m["name"]] = dict(runs=np.array(runs), x=np.array([logs(h, base) for h in hp]),
                                 state=[h["in_dispatch_state"] for h in hp], pred=m["predicted"],
                                 current=m["normalized"])
    return models


def fit(models, skip=None):
    rows, ys = [], []
    for name, m in models.items():
        if name == skip or len(m["runs"]) < 2:
            continue
        y = np.log(m["runs"])
        rows.append(m["x"] - m["x"].mean(0))
        ys.append(y - y.mean())
    X, Y = np.vstack(rows), np.concatenate(ys)
    A = X.T @ X + 1e-9 * len(Y) * np.eye(X.shape[1])
    return np.linalg.solve(A, X.T @ Y)


def normalised_medians(models, mode):
    xs = np.vstack([m["x"] for m in models.values()])
    center = np.median(xs, 0)
    level = center[0]  # the median of the runs' own drift: their convolution ratio
    out = {}
    for name, m in models.items():
        if mode == "convolutions":
            norm = m["runs"] / np.exp(m["x"][:, 0])
        else:
            b = fit(models, skip=name)
            norm = m["runs"] / np.exp(m["x"] @ b if mode == "elastic only" else level + (m["x"] - center) @ b)
        kept = [v for v, s in zip(norm, m["state"]) if s] or list(norm)
        out[name] = float(np.median(kept))
    return out


def spearman(a, b):
    ra, rb = np.argsort(np.argsort(a)), np.argsort(np.argsort(b))
    return float(np.corrcoef(ra, rb)[0, 1])


def summary(pred, meas):
    names = sorted(meas)
    e = np.array([pred[n] / meas[n] - 1 for n in names])
    rho = spearman([pred[n] for n in names], [meas[n] for n in names])
    return (f"within +-10% {np.mean(abs(e) <= 0.1):.1%}, median |e| {np.median(abs(e)):.1%}, signed {np.median(e):+.1%}, "
            f"within +-25% {np.mean(abs(e) <= 0.25):.1%}, Spearman {rho:.3f}")


MODES = ("validate", "elastic only", "convolutions")
args = sys.argv[1:]
override = {}
if args and args[0] == "--predictions":
    P = json.load(open(args[1]))
    for m in P["models"] if isinstance(P, dict) and "models" in P else P:
        q = m["predictions"][0] if "predictions" in m else m
        override[m.get("model") or m.get("name")] = q["throughput"]
    args = args[2:]
sys.argv[1:] = args
runs = [load(p) for p in sys.argv[1:]]
for models in runs:
    for name, m in models.items():
        m["pred"] = override.get(name, m["pred"])
meds = []
for path, models in zip(sys.argv[1:], runs):
    b = fit(models)
    print(f"{path}: exponents (all models) " + ", ".join(f"{k[0]} {v:.3f}" for k, v in zip(READINGS, b)))
    pred = {n: m["pred"] for n, m in models.items()}
    per = {mode: normalised_medians(models, mode) for mode in MODES}
    per["recorded normalised"] = {n: m["current"] for n, m in models.items()}
    for mode, med in per.items():
        print(f"  {mode}: {summary(pred, med)}")
    meds.append(per)
if len(meds) == 2:
    for mode in meds[0]:
        a, b = meds[0][mode], meds[1][mode]
        r = np.array([a[n] / b[n] - 1 for n in a if n in b])
        print(f"repeatability {mode}: within +-5% {np.mean(abs(r) <= 0.05):.1%}, within +-10% {np.mean(abs(r) <= 0.1):.1%} ({len(r)} models)")
