#!/bin/bash
# Issue 30, thirty-second pass, on the Zen 4 (AVX-512) 2-vCPU guest of the thirty-first: a new
# probe with the code of 01efeb3 (a classifier head whose weights stream takes its stream plus
# its FLOPs at the attainable peak; the probe's head latency is then the excess over both), then
# the zoo at batch 1 (--repeat 3) and at batch 8 (--repeat 1 --state-repeat 2).
# Usage: protocol.sh FOLDER [BINARY] (run from a copy outside the tree: the script is not edited while it runs)
D=$(realpath "${1:?output folder}")
B=${2:-./build/rooflens}
cd "$(dirname "$D")/../.."
s=$(date +%s)
$B probe cpu --kernels --out $D/device-probe.json --kernel-samples $D/kernel-samples.json > $D/probe.txt 2>&1
echo "probe $(date -u -d @$s) - $(date -u)" >> $D/meas.times
V="$B validate --zoo --keep-going --max-seconds 0.5 --device $D/device-probe.json --format json"
run() {  # NAME BATCH ARGS...
  local s=$(date +%s) name=$1 batch=$2
  shift 2
  $V --batch $batch "$@" -o $D/$name.json > $D/$name.log 2>&1
  echo "$name $(date -u -d @$s) - $(date -u)" >> $D/meas.times
}
run run1-b1 1 --repeat 3
run run1-b8 8 --repeat 1 --state-repeat 2
