#!/usr/bin/env python3
"""Fits engine-profile constants on the fit rows of the corpora (data/engines/corpus) by grid
search over `rooflens validate --engine FILE --measurements CSV`, and reports leave-one-model-
out (LOMO) errors on the fit rows and errors on the held-out rows with the constants fitted on
all fit rows. Loss: mean squared log ratio predicted/measured. Each grid point is predicted
once; LOMO picks, for each model, the grid point best on the other models' rows.
Usage: scripts/fit-engines.py ROOFLENS_BINARY ENGINE [--write] (run under /work/bin/rllock)."""
import csv, itertools, json, math, os, statistics, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GRIDS = {
    "rooflens-cuda": {"gemm_efficiency": [0.3, 0.45, 0.6, 0.75], "kernel_gap_s": [5e-6, 10e-6, 20e-6],
                      "host_library_call_s": [30e-6, 50e-6, 70e-6, 100e-6]},
    "pytorch-eager": {"gemm_efficiency": [0.6, 0.75, 0.9], "host_library_call_s": [15e-6, 30e-6, 45e-6],
                      "host_kernel_call_s": [8e-6, 15e-6, 22e-6]},
}
SHARED = {"pytorch-eager": ["pytorch-graph"]}  # profiles that take the fitted constants too
# The corpora each engine is fitted and checked on. rooflens-cuda changes with the backend, so
# it takes only the newest corpus of its own measurements (the whole zoo, 2026-12-04: split by
# model into halves); the PyTorch engines take every corpus.
ALL_CORPORA = ("h200-2026-11-30.csv", "h200-2026-12-04.csv", "published.csv")
CORPORA = {"rooflens-cuda": ("h200-2026-12-04.csv",)}


def rows_for(engine, split):
    out = []
    for f in CORPORA.get(engine, ALL_CORPORA):
        for r in csv.DictReader(open(os.path.join(ROOT, "data/engines/corpus", f))):
            eng = r["engine"]
            if eng == engine or (engine in SHARED and eng in SHARED[engine]):
                if (r.get("split") or "fit") == split:
                    r = dict(r)
                    if eng != engine:  # a sharing profile differs only in captured: say so per row
                        r["mode"] = r["mode"] or "graph"
                        r["engine"] = engine
                    out.append(r)
    return out


def predict(binary, profile, rows, tmp):
    pf = os.path.join(tmp, profile["id"] + ".json")
    json.dump(profile, open(pf, "w"))
    cf = os.path.join(tmp, "corpus.csv")
    with open(cf, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)
    out = subprocess.run([binary, "validate", "--engine", pf, "--measurements", cf, "--format", "json"],
                         capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(out.stderr)
    return [(p["model"], p["measured"], p["predicted"]) for p in json.loads(out.stdout)["points"]]


def loss(points):
    return sum(math.log(p / m) ** 2 for _, m, p in points) / max(1, len(points))


def stats(points):
    if not points:
        return "no points"
    err = [abs(p / m - 1) for _, m, p in points]
    within = sum(e <= 0.25 for e in err) / len(err)
    ms, ps = [m for _, m, _ in points], [p for _, _, p in points]
    rank = lambda v: [sorted(v).index(x) for x in v]
    rm, rp = rank(ms), rank(ps)
    n = len(points)
    rho = 1 - 6 * sum((a - b) ** 2 for a, b in zip(rm, rp)) / (n * (n * n - 1)) if n > 1 else float("nan")
    return f"n {n}, median |err| {100 * statistics.median(err):.1f}%, within +-25% {100 * within:.0f}%, Spearman {rho:.3f}"


def main():
    binary, engine = sys.argv[1], sys.argv[2]
    base = json.load(open(os.path.join(ROOT, "data/engines", engine + ".json")))
    fit, held = rows_for(engine, "fit"), rows_for(engine, "heldout")
    grid = GRIDS.get(engine, {})
    keys = list(grid)
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for values in itertools.product(*[grid[k] for k in keys]) if keys else [()]:
            prof = json.loads(json.dumps(base))
            prof["constants"].update(dict(zip(keys, values)))
            results.append((dict(zip(keys, values)), predict(binary, prof, fit, tmp) if fit else []))
        best = min(results, key=lambda r: loss(r[1]))
        print(f"{engine}: fitted on {len(fit)} fit rows: {best[0]}")
        print(f"  fit rows, all-data fit: {stats(best[1])}")
        models = sorted({m for m, _, _ in best[1]})
        lomo = []
        for m in models:
            pick = min(results, key=lambda r: loss([p for p in r[1] if p[0] != m]))
            lomo += [p for p in pick[1] if p[0] == m]
        print(f"  leave-one-model-out on the fit rows ({len(models)} models): {stats(lomo)}")
        for m in models:
            print(f"    {m}: {stats([p for p in lomo if p[0] == m])}")
        if held:
            prof = json.loads(json.dumps(base))
            prof["constants"].update(best[0])
            hp = predict(binary, prof, held, tmp)
            print(f"  held-out rows: {stats(hp)}")
            for m, meas, pred in hp:
                print(f"    {m}: measured {meas:.0f}, predicted {pred:.0f}, ratio {pred / meas:.2f}")
        if "--write" in sys.argv and keys:
            for eid in [engine] + SHARED.get(engine, []):
                path = os.path.join(ROOT, "data/engines", eid + ".json")
                prof = json.load(open(path))
                prof["constants"].update(best[0])
                with open(path, "w") as f:
                    json.dump(prof, f, indent=2)
                    f.write("\n")


main()
