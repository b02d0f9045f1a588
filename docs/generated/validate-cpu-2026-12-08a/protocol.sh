#!/bin/bash
# Issue 30, thirty-third pass, on the Zen 4 (AVX-512) 2-vCPU guest of the thirty-first and
# thirty-second: the probe of the thirty-second pass (device-probe.json, copied from
# ../validate-cpu-2026-12-07g, probed 2026-12-07 22:19 UTC) and the code of this pass, whose
# validate waits up to 60 s before each run for the kernel table's dispatch state
# (--state-wait, its default); the zoo at batch 1 (--repeat 3) and batch 8 (--repeat 1
# --state-repeat 2), twice.
# Usage: protocol.sh FOLDER [BINARY] (run from a copy outside the tree: the script is not edited while it runs)
D=$(realpath "${1:?output folder}")
B=${2:-./build/rooflens}
cd "$(dirname "$D")/../.."
V="$B validate --zoo --keep-going --max-seconds 0.5 --device $D/device-probe.json --format json"
run() {  # NAME BATCH ARGS...
  local s=$(date +%s) name=$1 batch=$2
  shift 2
  $V --batch $batch "$@" -o $D/$name.json > $D/$name.log 2>&1
  echo "$name $(date -u -d @$s) - $(date -u)" >> $D/meas.times
}
run run1-b1 1 --repeat 3
run run1-b8 8 --repeat 1 --state-repeat 2
run run2-b1 1 --repeat 3
run run2-b8 8 --repeat 1 --state-repeat 2
