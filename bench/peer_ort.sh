#!/usr/bin/env bash
# Peer comparison on this CPU: `rooflens measure` (oneDNN) against ONNX Runtime 1.30's CPU
# execution provider (the npm package onnxruntime-node, which ships ONNX Runtime's CPU
# library) on the SAME ONNX files WITH weights, same batch, same intra-op threads, the two
# tools alternating per model within one run, so the ratio is fair on a shared machine.
# Not a test: it takes minutes.
#
# usage: [THREADS=2] [MAX_SECONDS=10] [MODELS="..."] [BATCHES="1 32"] [PROFILE=1] \
#          bench/peer_ort.sh ROOFLENS_BINARY [--markdown]
# PROFILE=1 also writes ONNX Runtime's per-node profile (JSON) beside each model.
# Setup, once, outside the repository (in $PEER_DIR, default ~/.cache/rooflens/peer-ort):
#   npm install --ignore-scripts onnxruntime-node@1.30.0   (the registry; the CPU library is in the package)
#   scripts/export_zoo.py --with-weights DIR MODEL...      (python3-torch, python3-torchvision, python3-onnx)
# both done here when missing.
set -euo pipefail
BIN=$(realpath "$1"); shift || true
MD=${1:-}
cd "$(dirname "$0")/.."
THREADS=${THREADS:-2}
MAX_SECONDS=${MAX_SECONDS:-10}
MODELS=${MODELS:-"resnet50 mobilenet_v2 efficientnet_b0 densenet121 shufflenet_v2_x1_0 vgg16"}
BATCHES=${BATCHES:-"1 32"}
PEER_DIR=${PEER_DIR:-$HOME/.cache/rooflens/peer-ort}
ORT_VERSION=1.30.0
mkdir -p "$PEER_DIR/models"
command -v node >/dev/null || { echo "peer_ort: node is not installed (apt-get install nodejs npm)" >&2; exit 2; }
if [[ ! -f $PEER_DIR/node_modules/onnxruntime-node/package.json ]] ||
   ! grep -q "\"version\": \"$ORT_VERSION\"" "$PEER_DIR/node_modules/onnxruntime-node/package.json"; then
  echo "peer_ort: installing onnxruntime-node@$ORT_VERSION into $PEER_DIR" >&2
  (cd "$PEER_DIR" && npm install --ignore-scripts --no-audit --no-fund "onnxruntime-node@$ORT_VERSION" >&2)
fi
for m in $MODELS; do
  if [[ ! -f $PEER_DIR/models/$m.onnx ]]; then
    echo "peer_ort: exporting $m with weights" >&2
    OMP_NUM_THREADS=$THREADS /usr/bin/python3 scripts/export_zoo.py --with-weights "$PEER_DIR/models" "$m" >&2
  fi
done
export NODE_PATH=$PEER_DIR/node_modules
OUT=$(mktemp)
trap 'rm -f "$OUT"' EXIT
for b in $BATCHES; do
  for m in $MODELS; do
    f=$PEER_DIR/models/$m.onnx
    r=$("$BIN" measure "$f" --batch "$b" --threads "$THREADS" --max-seconds "$MAX_SECONDS" --format json)
    prof=""
    [[ ${PROFILE:-0} == 1 ]] && prof=$PEER_DIR/profile-$m-b$b
    o=$(node bench/ort_infer.js "$f" "$b" "$THREADS" "$MAX_SECONDS" $prof)
    /usr/bin/python3 - "$r" "$o" "$m" >> "$OUT" <<'PY'
import json, sys
r, o = json.loads(sys.argv[1]), json.loads(sys.argv[2])
print(json.dumps({"model": sys.argv[3], "batch": r["batch"], "rooflens": r["throughput"], "ort": o["throughput"],
                  "ratio": r["throughput"] / o["throughput"], "rooflens_noisy": r["noisy"],
                  "ort_iqr_pct": 100 * (o["throughput_q3"] - o["throughput_q1"]) / o["throughput"],
                  "ort_version": o["ort_version"]}))
PY
    tail -1 "$OUT" >&2
  done
done
/usr/bin/python3 - "$OUT" "$MD" "$THREADS" <<'PY'
import json, subprocess, sys, datetime
rows = [json.loads(l) for l in open(sys.argv[1])]
md, threads = sys.argv[2] == "--markdown", sys.argv[3]
cpu = [l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")][0]
load = open("/proc/loadavg").read().split()[:3]
head = (f"Machine: {cpu}, {subprocess.check_output(['nproc']).decode().strip()} cores; "
        f"{datetime.datetime.utcnow():%Y-%m-%d %H:%M} UTC; {threads} threads each; ONNX Runtime "
        f"{rows[0]['ort_version'] if rows else '?'} (onnxruntime-node); load average at the end {' '.join(load)}")
if md:
    print(head + "\n")
    print("| model | batch | rooflens (img/s) | ONNX Runtime (img/s) | rooflens / ORT |")
    print("|---|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r['model']} | {r['batch']} | {r['rooflens']:.1f} | {r['ort']:.1f} | {r['ratio']:.2f}"
              f"{' (noisy)' if r['rooflens_noisy'] else ''} |")
else:
    print(head)
    print(f"{'model':<22}{'batch':>6}{'rooflens':>12}{'ORT':>12}{'ratio':>8}")
    for r in rows:
        print(f"{r['model']:<22}{r['batch']:>6}{r['rooflens']:>12.1f}{r['ort']:>12.1f}{r['ratio']:>8.2f}")
PY
