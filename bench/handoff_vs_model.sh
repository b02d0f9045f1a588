#!/usr/bin/env bash
# Alternates the hand-off reading (bench/handoff.cpp) with a model's measurement at two
# threads, to see whether the model's slow windows on a shared host follow it (issue 30,
# sixth pass). One line per pair: time, hand-off before and after (ns per 64 KiB step),
# the model's throughput (img/s).
# usage: bench/handoff_vs_model.sh BUILD_DIR MODEL.onnx [PAIRS=20]
set -euo pipefail
build=$1 model=$2 pairs=${3:-20}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for ((i = 0; i < pairs; ++i)); do
  a=$("$build/bench/rooflens_handoff" 64 400)
  "$build/rooflens" measure "$model" --max-seconds 1 --no-host-reference --fixed-threads --threads 2 \
    --format json -o "$out" >/dev/null 2>&1
  t=$(python3 -c 'import json,sys; print(round(json.load(open(sys.argv[1]))["throughput"]))' "$out")
  b=$("$build/bench/rooflens_handoff" 64 400)
  echo "$(date -u +%H:%M:%S) $a $b $t"
done
