#!/usr/bin/env bash
# Peer comparison on this CPU: `rooflens measure` (oneDNN) against ONNX Runtime 1.30's CPU
# execution provider (the npm package onnxruntime-node, which ships ONNX Runtime's CPU
# library) on the SAME ONNX files WITH weights, same batch, same intra-op threads, the two
# tools alternating per model within one run, so the ratio is fair on a shared machine.
# Not a test: it takes minutes.
#
# usage: [THREADS=2] [MAX_SECONDS=10] [REPEATS=3] [MODELS="..."] [BATCHES="1 32"] [PROFILE=1] [LAYOUT=auto] \
#          bench/peer_ort.sh ROOFLENS_BINARY [--markdown]
# Each (model, batch) pair is timed REPEATS times, the order of the two tools swapped every
# repeat; the ratio reported is the median of the per-repeat ratios, with their range, because
# on a shared 2-core machine one pair of runs can move by 30%.
# LAYOUT is rooflens measure's --layout (channels-last, blocked or auto; default channels-last).
# PROFILE=1 also writes ONNX Runtime's per-node profile (JSON) beside each model; bench/ort_layers.py
# sets it beside `rooflens measure MODEL --format json`, per kind of layer and per convolution.
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
REPEATS=${REPEATS:-3}
MODELS=${MODELS:-"resnet50 mobilenet_v2 efficientnet_b0 densenet121 shufflenet_v2_x1_0 vgg16"}
BATCHES=${BATCHES:-"1 32"}
LAYOUT=${LAYOUT:-channels-last}
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
    prof=""
    [[ ${PROFILE:-0} == 1 ]] && prof=$PEER_DIR/profile-$m-b$b
    for ((rep = 1; rep <= REPEATS; rep++)); do
      if (( rep % 2 == 1 )); then
        r=$("$BIN" measure "$f" --batch "$b" --threads "$THREADS" --max-seconds "$MAX_SECONDS" --layout "$LAYOUT" --format json)
        o=$(node bench/ort_infer.js "$f" "$b" "$THREADS" "$MAX_SECONDS" $prof)
      else
        o=$(node bench/ort_infer.js "$f" "$b" "$THREADS" "$MAX_SECONDS")
        r=$("$BIN" measure "$f" --batch "$b" --threads "$THREADS" --max-seconds "$MAX_SECONDS" --layout "$LAYOUT" --format json)
      fi
      prof=""
      /usr/bin/python3 - "$r" "$o" "$m" "$rep" >> "$OUT" <<'PY'
import json, sys
r, o = json.loads(sys.argv[1]), json.loads(sys.argv[2])
print(json.dumps({"model": sys.argv[3], "batch": r["batch"], "repeat": int(sys.argv[4]),
                  "rooflens": r["throughput"], "ort": o["throughput"],
                  "ratio": r["throughput"] / o["throughput"], "rooflens_noisy": r["noisy"],
                  "ort_iqr_pct": 100 * (o["throughput_q3"] - o["throughput_q1"]) / o["throughput"],
                  "ort_version": o["ort_version"]}))
PY
      tail -1 "$OUT" >&2
    done
  done
done
/usr/bin/python3 - "$OUT" "$MD" "$THREADS" <<'PY'
import json, subprocess, sys, datetime
import statistics
runs = [json.loads(l) for l in open(sys.argv[1])]
md, threads = sys.argv[2] == "--markdown", sys.argv[3]
rows = []  # one row per (model, batch): medians over the repeats
for key in dict.fromkeys((x["model"], x["batch"]) for x in runs):
    g = [x for x in runs if (x["model"], x["batch"]) == key]
    ratios = sorted(x["ratio"] for x in g)
    rows.append({"model": key[0], "batch": key[1], "n": len(g),
                 "rooflens": statistics.median(x["rooflens"] for x in g),
                 "ort": statistics.median(x["ort"] for x in g),
                 "ratio": statistics.median(ratios), "lo": ratios[0], "hi": ratios[-1],
                 "ort_version": g[0]["ort_version"]})
cpu = [l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")][0]
load = open("/proc/loadavg").read().split()[:3]
head = (f"Machine: {cpu}, {subprocess.check_output(['nproc']).decode().strip()} cores; "
        f"{datetime.datetime.utcnow():%Y-%m-%d %H:%M} UTC; {threads} threads each; ONNX Runtime "
        f"{rows[0]['ort_version'] if rows else '?'} (onnxruntime-node); "
        f"{rows[0]['n'] if rows else 0} alternating repeats per pair; load average at the end {' '.join(load)}")
if md:
    print(head + "\n")
    print("| model | batch | rooflens (img/s, median) | ONNX Runtime (img/s, median) | rooflens / ORT (median of repeats) | range |")
    print("|---|---:|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r['model']} | {r['batch']} | {r['rooflens']:.1f} | {r['ort']:.1f} | {r['ratio']:.2f} | {r['lo']:.2f}-{r['hi']:.2f} |")
else:
    print(head)
    print(f"{'model':<22}{'batch':>6}{'rooflens':>12}{'ORT':>12}{'ratio':>8}{'range':>12}")
    for r in rows:
        print(f"{r['model']:<22}{r['batch']:>6}{r['rooflens']:>12.1f}{r['ort']:>12.1f}{r['ratio']:>8.2f}{r['lo']:>6.2f}-{r['hi']:.2f}")
PY
