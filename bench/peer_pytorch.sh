#!/usr/bin/env bash
# Peer comparison: `rooflens measure` (oneDNN) against PyTorch 1.13 eager CPU inference on
# the same torchvision models, same batch, same thread count, measured in the same run
# (the two tools alternate per model). Not a test: it takes minutes.
#
# usage: [THREADS=2] [MAX_SECONDS=10] bench/peer_pytorch.sh ROOFLENS_BINARY [--markdown]
# needs: python3-torch, python3-torchvision, libopenblas0-openmp (scripts/install-deps.sh --with-fixtures)
set -euo pipefail
BIN=$(realpath "$1"); shift || true
MD=${1:-}
cd "$(dirname "$0")/.."
THREADS=${THREADS:-2}
MAX_SECONDS=${MAX_SECONDS:-10}
MODELS=${MODELS:-"resnet50 mobilenet_v2 efficientnet_b0 densenet121 vgg16"}
BATCHES=${BATCHES:-"1 32"}
dpkg -s libopenblas0-openmp >/dev/null 2>&1 || { echo "libopenblas0-openmp is not installed: PyTorch would use the reference BLAS" >&2; exit 2; }
export OMP_NUM_THREADS=$THREADS
OUT=$(mktemp)
for b in $BATCHES; do
  for m in $MODELS; do
    r=$("$BIN" measure "models/$m.onnx" --batch "$b" --threads "$THREADS" --max-seconds "$MAX_SECONDS" --format json)
    t=$(/usr/bin/python3 bench/torch_infer.py "$m" "$b" "$THREADS" "$MAX_SECONDS")
    /usr/bin/python3 - "$r" "$t" >> "$OUT" <<'PY'
import json, sys
r, t = json.loads(sys.argv[1]), json.loads(sys.argv[2])
print(json.dumps({"model": t["model"], "batch": t["batch"], "rooflens": r["throughput"],
                  "rooflens_iqr": r["throughput_iqr"], "torch": t["throughput"],
                  "torch_median_s": t["median_s"], "rooflens_median_s": r["latency_s"],
                  "ratio": r["throughput"] / t["throughput"], "noisy": r["noisy"]}))
PY
    tail -1 "$OUT" >&2
  done
done
/usr/bin/python3 - "$OUT" "$MD" "$THREADS" <<'PY'
import json, subprocess, sys, datetime
rows = [json.loads(l) for l in open(sys.argv[1])]
md = sys.argv[2] == "--markdown"
if md:
    cpu = [l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")][0]
    print(f"Machine: {cpu}, {subprocess.check_output(['nproc']).decode().strip()} cores; {datetime.datetime.utcnow():%Y-%m-%d %H:%M} UTC; "
          f"threads {sys.argv[3]}; PyTorch 1.13 eager (inference_mode, OpenBLAS-OpenMP) vs rooflens measure (oneDNN 2.6).")
    print()
    print("| model | batch | rooflens (img/s) | PyTorch (img/s) | rooflens / PyTorch |")
    print("|---|---:|---:|---:|---:|")
for r in rows:
    if md:
        print(f"| {r['model']} | {r['batch']} | {r['rooflens']:.1f} | {r['torch']:.1f} | {r['ratio']:.2f}{' (noisy)' if r['noisy'] else ''} |")
    else:
        print(f"{r['model']:16} batch {r['batch']:3}  rooflens {r['rooflens']:9.1f} img/s  torch {r['torch']:9.1f} img/s  ratio {r['ratio']:.2f}")
PY
rm -f "$OUT"
