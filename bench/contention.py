#!/opt/rooflens-venv/bin/python
"""rooflens against ONNX Runtime on a contended CPU: the pairs of bench/peer_ort.py (the
tools alternating, in the same minutes) under each condition in turn:

  quiet     nothing started beside the bench
  busy1     one single-threaded busy process
  busy2     two single-threaded busy processes
  openmp    an OpenMP competitor: a LibTorch (GNU OpenMP) training loop with 2 threads

usage: [CONDITIONS="quiet busy1 busy2 openmp"] [MODELS="resnet50 mobilenet_v2 efficientnet_b0"]
       [BATCHES="1 32"] [REPEATS=2] [MAX_SECONDS=3] [THREADS=2] [BASELINE_SPIN=""]
       [BASELINE_FIXED="busy1 busy2 openmp"]
       bench/contention.py ROOFLENS_BINARY [--json FILE]

BASELINE_SPIN (the conditions named) also times rooflens with GOMP_SPINCOUNT=300000 (libgomp's
default, set explicitly) in each repeat of those conditions, as a third tool; BASELINE_FIXED
does the same with `measure --fixed-threads` (no fewer threads under contention, what rooflens
did before it adapted its thread count); "" for none. Run it under
/work/bin/rllock on a shared machine so that builds do not join the competitors.
"""
import json
import os
import signal
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import peer_ort  # noqa: E402

BUSY = "while True: pass"
OPENMP = """
import torch, torch.nn as nn
torch.set_num_threads(2)
torch.manual_seed(0)
m = nn.Sequential(nn.Conv2d(3, 32, 3, padding=1), nn.ReLU(), nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(),
                  nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(64, 10))
opt = torch.optim.SGD(m.parameters(), lr=0.01)
x, y = torch.randn(32, 3, 32, 32), torch.randint(0, 10, (32,))
while True:
    opt.zero_grad(); nn.functional.cross_entropy(m(x), y).backward(); opt.step()
"""


def start(condition):
    procs = []
    if condition in ("busy1", "busy2"):
        for _ in range(1 if condition == "busy1" else 2):
            procs.append(subprocess.Popen(["/usr/bin/python3", "-c", BUSY]))
    elif condition == "openmp":
        procs.append(subprocess.Popen(["/usr/bin/python3", "-c", OPENMP],
                                      env=dict(os.environ, OMP_NUM_THREADS="2")))
    elif condition != "quiet":
        sys.exit(f"contention: unknown condition {condition}")
    time.sleep(2 if procs else 0)  # the competitors reach their steady state
    return procs


def stop(procs):
    for p in procs:
        p.send_signal(signal.SIGTERM)
    for p in procs:
        p.wait()


def main(argv):
    if not argv or argv[0].startswith("-"):
        sys.exit(__doc__)
    binary = os.path.realpath(argv[0])
    json_out = argv[argv.index("--json") + 1] if "--json" in argv else None
    conditions = os.environ.get("CONDITIONS", "quiet busy1 busy2 openmp").split()
    models = os.environ.get("MODELS", "resnet50 mobilenet_v2 efficientnet_b0").split()
    batches = [int(b) for b in os.environ.get("BATCHES", "1 32").split()]
    repeats = int(os.environ.get("REPEATS", "2"))
    max_seconds = float(os.environ.get("MAX_SECONDS", "3"))
    threads = int(os.environ.get("THREADS", "2"))
    layout = os.environ.get("LAYOUT", "channels-last")
    baseline_spin = os.environ.get("BASELINE_SPIN", "").split()
    baseline_fixed = os.environ.get("BASELINE_FIXED", "busy1 busy2 openmp").split()
    peer_dir = os.environ.get("PEER_DIR", os.path.expanduser("~/.cache/rooflens/peer-ort"))
    peer_ort.export_models(peer_dir, models, threads)
    rows = []
    for cond in conditions:
        procs = start(cond)
        try:
            for b in batches:
                for m in models:
                    path = os.path.join(peer_dir, "models", m + ".onnx")
                    for rep in range(1, repeats + 1):
                        row = peer_ort.pair(binary, path, m, b, rep, threads, max_seconds, layout)
                        row["condition"] = cond
                        if cond in baseline_spin:
                            old = peer_ort.run_rooflens(binary, path, b, threads, max_seconds, layout,
                                                        env=dict(os.environ, GOMP_SPINCOUNT="300000"))
                            row["rooflens_default_spin"] = old["throughput"]
                            row["ratio_default_spin"] = old["throughput"] / row["ort"]
                        if cond in baseline_fixed:
                            fixed = peer_ort.run_rooflens(binary, path, b, threads, max_seconds, layout,
                                                          extra=["--fixed-threads"])
                            row["rooflens_fixed_threads"] = fixed["throughput"]
                            row["ratio_fixed_threads"] = fixed["throughput"] / row["ort"]
                        rows.append(row)
                        print(json.dumps(row), file=sys.stderr)
        finally:
            stop(procs)
    if json_out:
        with open(json_out, "w") as f:
            json.dump({"machine": peer_ort.machine_line(peer_ort.summarize(rows), threads), "runs": rows}, f,
                      indent=1)
    keys = list(dict.fromkeys((x["model"], x["batch"]) for x in rows))
    print(peer_ort.machine_line(peer_ort.summarize(rows), threads) + "\n")
    print("| condition | " + " | ".join(f"{m} b{b}" for m, b in keys) + " |")
    print("|---|" + "---:|" * len(keys))
    for cond in conditions:
        for label, field, named in (("", "ratio", None), (" (libgomp default spin)", "ratio_default_spin", baseline_spin),
                                    (" (fixed threads)", "ratio_fixed_threads", baseline_fixed)):
            if named is not None and cond not in named:
                continue
            cells = []
            for k in keys:
                g = [x for x in rows if x["condition"] == cond and (x["model"], x["batch"]) == k]
                v = sorted(x[field] for x in g)
                flag = sum(1 for x in g if x.get("rooflens_contended"))
                fewer = sum(1 for x in g if x.get("rooflens_threads", threads) < threads)
                streams = sum(1 for x in g if x.get("rooflens_streams", 1) > 1)
                cells.append(f"{statistics.median(v):.2f} ({v[0]:.2f}-{v[-1]:.2f})" +
                             (f" c{flag}/{len(g)} t{fewer}" + (f" s{streams}" if streams else "")
                              if field == "ratio" else ""))
            print(f"| {cond}{label} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
