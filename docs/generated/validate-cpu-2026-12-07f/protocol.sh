#!/bin/bash
# Issue 30, thirty-first pass, on a Zen 4 (AVX-512) 2-vCPU guest new to this project: a probe
# with the code of the thirtieth pass (every timed run paired with a pass of the reference's
# convolutions), then the zoo at batch 1 (--repeat 3) twice, starting at least 20.5 minutes
# apart, then at batch 8 (--repeat 1). The second batch-8 run (run2-b8) was started by hand
# after the per-layer measurements and the build: the same validate line with --repeat 1 --batch 8.
# Usage: protocol.sh FOLDER [BINARY] (run from a copy outside the tree: the script is not edited while it runs)
D=$(realpath "${1:?output folder}")
B=${2:-./build/rooflens}
cd "$(dirname "$D")/../.."
s=$(date +%s)
$B probe cpu --kernels --out $D/device-probe.json --kernel-samples $D/kernel-samples.json > $D/probe.txt 2>&1
echo "probe $(date -u -d @$s) - $(date -u)" >> $D/meas.times
V="$B validate --zoo --keep-going --max-seconds 0.5 --device $D/device-probe.json --format json"
run() {  # NAME BATCH REPEAT
  local s=$(date +%s)
  $V --repeat $3 --batch $2 -o $D/$1.json > $D/$1.log 2>&1
  echo "$1 $(date -u -d @$s) - $(date -u)" >> $D/meas.times
}
s1=$(date +%s)
run run1-b1 1 3
while [ $(( $(date +%s) - s1 )) -lt 1230 ]; do sleep 10; done
run run2-b1 1 3
run run1-b8 8 1
