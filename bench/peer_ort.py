#!/opt/rooflens-venv/bin/python
"""Peer comparison on this CPU: `rooflens measure` (oneDNN) against ONNX Runtime's CPU
execution provider (the PyPI wheel `onnxruntime`, pinned in scripts/venv-requirements.txt) on
the SAME ONNX files WITH weights, same batch, same intra-op threads, the two tools alternating
per model within one run, so the ratio is fair on a shared machine. Not a test: it takes minutes.

usage: [THREADS=2] [MAX_SECONDS=10] [REPEATS=3] [MODELS="..."] [BATCHES="1 32"] [PROFILE=1]
       [LAYOUT=auto] [DENORMALS=flush] bench/peer_ort.py ROOFLENS_BINARY [--markdown] [--json FILE]
       bench/peer_ort.py --ort-infer MODEL.onnx BATCH THREADS MAX_SECONDS [PROFILE_PREFIX]

Each (model, batch) pair is timed REPEATS times, the order of the two tools swapped every
repeat; the ratio reported is the median of the per-repeat ratios, with their range, because
on a shared 2-core machine one pair of runs can move by 30%. Each tool runs in a fresh process
(ONNX Runtime through `--ort-infer`, which times itself the way `rooflens measure` does:
warm-up of 3 runs or min(1 s, MAX_SECONDS/4), then at least 5 runs and up to MAX_SECONDS).
LAYOUT is rooflens measure's --layout: auto by default (each layer in the layout it runs
faster in, Winograd included; chosen once per model, batch and thread count and cached), as
ONNX Runtime picks its own blocked layout; channels-last is `measure`'s default.
DENORMALS=flush (the default) runs both tools with denormal floats flushed to zero
(rooflens's default; ONNX Runtime's session option session.set_denormal_as_zero),
DENORMALS=keep both with IEEE denormals (ONNX Runtime's default; rooflens --keep-denormals),
so that the two always compute the same arithmetic. PROFILE=1 also writes ONNX Runtime's
per-node profile (JSON) beside each model; bench/ort_layers.py sets it beside `rooflens measure --format json`.

Setup, once: `scripts/install-deps.sh --with-venv` (the venv /opt/rooflens-venv with
onnxruntime); the models with weights are exported into $PEER_DIR/models (default
~/.cache/rooflens/peer-ort) by scripts/export_zoo.py --with-weights (python3-torch,
python3-torchvision, python3-onnx) when missing.
"""
import datetime
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DEFAULT_MODELS = "resnet50 mobilenet_v2 efficientnet_b0 densenet121 shufflenet_v2_x1_0 vgg16"


def flush_denormals():
    mode = os.environ.get("DENORMALS", "flush")
    if mode not in ("flush", "keep"):
        sys.exit(f"peer_ort: DENORMALS={mode}: expected flush or keep")
    return mode == "flush"


def ort_infer(model, batch, threads, max_seconds, profile=None):
    """Times ONNX Runtime on MODEL; returns the result dict (one JSON line in --ort-infer)."""
    import numpy as np
    import onnxruntime as ort

    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    if flush_denormals():
        so.add_session_config_entry("session.set_denormal_as_zero", "1")
    if profile:
        so.enable_profiling = True
        so.profile_file_prefix = profile
    sess = ort.InferenceSession(model, so, providers=["CPUExecutionProvider"])
    inp = sess.get_inputs()[0]
    # The exported zoo's input is [batch, 3, H, W] with a symbolic batch: H and W from the model.
    dims = [d if isinstance(d, int) else batch for d in inp.shape]
    dims[0] = batch
    rng = np.random.default_rng(12345)  # the same kind of input as rooflens: uniform in [-1, 1)
    feeds = {inp.name: rng.uniform(-1, 1, size=dims).astype(np.float32)}
    t0 = time.perf_counter()
    i = 0
    while i < 3 or time.perf_counter() - t0 < min(1.0, max_seconds / 4):
        sess.run(None, feeds)
        i += 1
    times = []
    start = time.perf_counter()
    while len(times) < 5 or (time.perf_counter() - start < max_seconds and len(times) < 1000):
        a = time.perf_counter()
        sess.run(None, feeds)
        times.append(time.perf_counter() - a)
    times.sort()
    n = len(times)
    median, q1, q3 = times[n // 2], times[n // 4], times[(3 * n) // 4]
    out = {"model": model, "batch": batch, "threads": threads, "input": "x".join(map(str, dims)),
           "runs": n, "median_s": median, "throughput": batch / median,
           "throughput_q1": batch / q3, "throughput_q3": batch / q1, "ort_version": ort.__version__}
    if profile:
        out["profile"] = sess.end_profiling()
    return out


def run_ort(model, batch, threads, max_seconds, profile=None, env=None):
    """--ort-infer in a fresh process (as rooflens runs in one); returns its JSON."""
    cmd = [sys.executable, os.path.abspath(__file__), "--ort-infer", model, str(batch), str(threads),
           str(max_seconds)] + ([profile] if profile else [])
    return json.loads(subprocess.check_output(cmd, env=env))


def run_rooflens(binary, model, batch, threads, max_seconds, layout, env=None, extra=()):
    cmd = [binary, "measure", model, "--batch", str(batch), "--threads", str(threads), "--max-seconds",
           str(max_seconds), "--layout", layout, "--format", "json"] + list(extra)
    if not flush_denormals():
        cmd.append("--keep-denormals")
    return json.loads(subprocess.check_output(cmd, env=env))


def export_models(peer_dir, models, threads):
    os.makedirs(os.path.join(peer_dir, "models"), exist_ok=True)
    for m in models:
        if not os.path.exists(os.path.join(peer_dir, "models", m + ".onnx")):
            print(f"peer_ort: exporting {m} with weights", file=sys.stderr)
            subprocess.check_call(["/usr/bin/python3", os.path.join(ROOT, "scripts", "export_zoo.py"),
                                   "--with-weights", os.path.join(peer_dir, "models"), m],
                                  env=dict(os.environ, OMP_NUM_THREADS=str(threads)), stdout=sys.stderr)


def pair(binary, path, name, batch, rep, threads, max_seconds, layout, profile=None, env=None):
    """One alternating repeat: odd repeats run rooflens first, even ones ONNX Runtime first."""
    if rep % 2 == 1:
        r = run_rooflens(binary, path, batch, threads, max_seconds, layout, env)
        o = run_ort(path, batch, threads, max_seconds, profile, env)
    else:
        o = run_ort(path, batch, threads, max_seconds, None, env)
        r = run_rooflens(binary, path, batch, threads, max_seconds, layout, env)
    row = {"model": name, "batch": r["batch"], "repeat": rep, "rooflens": r["throughput"],
           "ort": o["throughput"], "ratio": r["throughput"] / o["throughput"],
           "rooflens_noisy": r["noisy"], "rooflens_threads": r["threads"], "rooflens_streams": r.get("streams", 1),
           "ort_iqr_pct": 100 * (o["throughput_q3"] - o["throughput_q1"]) / o["throughput"],
           "ort_version": o["ort_version"], "denormals": "flush" if flush_denormals() else "keep"}
    for k in ("contended", "contention", "host_reference", "normalized_throughput"):
        if k in r:
            row["rooflens_" + k] = r[k]
    return row


def summarize(runs):
    """One row per (model, batch): medians over the repeats, and the range of the ratios."""
    rows = []
    for key in dict.fromkeys((x["model"], x["batch"]) for x in runs):
        g = [x for x in runs if (x["model"], x["batch"]) == key]
        ratios = sorted(x["ratio"] for x in g)
        rows.append({"model": key[0], "batch": key[1], "n": len(g),
                     "rooflens": statistics.median(x["rooflens"] for x in g),
                     "ort": statistics.median(x["ort"] for x in g),
                     "ratio": statistics.median(ratios), "lo": ratios[0], "hi": ratios[-1],
                     "contended": sum(1 for x in g if x.get("rooflens_contended")),
                     "ort_version": g[0]["ort_version"]})
    return rows


def machine_line(rows, threads):
    cpu = [l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")][0]
    load = open("/proc/loadavg").read().split()[:3]
    return (f"Machine: {cpu}, {os.cpu_count()} cores; {datetime.datetime.utcnow():%Y-%m-%d %H:%M} UTC; "
            f"{threads} threads each; ONNX Runtime {rows[0]['ort_version'] if rows else '?'} "
            f"(onnxruntime wheel, CPU EP); {rows[0]['n'] if rows else 0} alternating repeats per pair; "
            f"load average at the end {' '.join(load)}")


def print_rows(rows, threads, markdown):
    head = machine_line(rows, threads)
    if markdown:
        print(head + "\n")
        print("| model | batch | rooflens (img/s, median) | ONNX Runtime (img/s, median) | "
              "rooflens / ORT (median of repeats) | range |")
        print("|---|---:|---:|---:|---:|---:|")
        for r in rows:
            print(f"| {r['model']} | {r['batch']} | {r['rooflens']:.1f} | {r['ort']:.1f} | "
                  f"{r['ratio']:.2f} | {r['lo']:.2f}-{r['hi']:.2f} |")
    else:
        print(head)
        print(f"{'model':<22}{'batch':>6}{'rooflens':>12}{'ORT':>12}{'ratio':>8}{'range':>12}")
        for r in rows:
            print(f"{r['model']:<22}{r['batch']:>6}{r['rooflens']:>12.1f}{r['ort']:>12.1f}"
                  f"{r['ratio']:>8.2f}{r['lo']:>6.2f}-{r['hi']:.2f}")


def main(argv):
    if argv[:1] == ["--ort-infer"]:
        if len(argv) < 5:
            sys.exit("usage: peer_ort.py --ort-infer MODEL.onnx BATCH THREADS MAX_SECONDS [PROFILE_PREFIX]")
        print(json.dumps(ort_infer(argv[1], int(argv[2]), int(argv[3]), float(argv[4]),
                                   argv[5] if len(argv) > 5 else None)))
        return 0
    if not argv or argv[0].startswith("-"):
        sys.exit(__doc__)
    try:
        import onnxruntime  # noqa: F401
    except ImportError:
        sys.exit("peer_ort: onnxruntime is not importable by %s; run scripts/install-deps.sh --with-venv "
                 "and use /opt/rooflens-venv/bin/python" % sys.executable)
    binary = os.path.realpath(argv[0])
    markdown = "--markdown" in argv
    json_out = argv[argv.index("--json") + 1] if "--json" in argv else None
    threads = int(os.environ.get("THREADS", "2"))
    max_seconds = float(os.environ.get("MAX_SECONDS", "10"))
    repeats = int(os.environ.get("REPEATS", "3"))
    models = os.environ.get("MODELS", DEFAULT_MODELS).split()
    batches = [int(b) for b in os.environ.get("BATCHES", "1 32").split()]
    layout = os.environ.get("LAYOUT", "auto")
    peer_dir = os.environ.get("PEER_DIR", os.path.expanduser("~/.cache/rooflens/peer-ort"))
    export_models(peer_dir, models, threads)
    runs = []
    for b in batches:
        for m in models:
            path = os.path.join(peer_dir, "models", m + ".onnx")
            prof = os.path.join(peer_dir, f"profile-{m}-b{b}") if os.environ.get("PROFILE") == "1" else None
            for rep in range(1, repeats + 1):
                runs.append(pair(binary, path, m, b, rep, threads, max_seconds, layout, prof))
                prof = None
                print(json.dumps(runs[-1]), file=sys.stderr)
    rows = summarize(runs)
    if json_out:
        with open(json_out, "w") as f:
            json.dump({"machine": machine_line(rows, threads), "runs": runs, "pairs": rows}, f, indent=1)
    print_rows(rows, threads, markdown)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
