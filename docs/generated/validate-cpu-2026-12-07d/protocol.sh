#!/bin/bash
# Issue 30, twenty-ninth pass, on the Zen 3 (AVX2) 2-vCPU guest: a fresh probe with the pool
# class's `max` feature and six pool kinds, and the heads' stream latency; then the zoo at
# batch 1 (--repeat 3) twice, starting at least 20 minutes apart, and at batch 8 (--repeat 1).
# Usage: protocol.sh FOLDER (run from a copy outside the tree: the script is not edited while it runs)
D=$(realpath "${1:?output folder}")
cd "$(dirname "$D")/../.."
s=$(date +%s)
./build/rooflens probe cpu --kernels --out $D/device-probe.json --kernel-samples $D/kernel-samples.json > $D/probe.txt 2>&1
echo "probe $(date -u -d @$s) - $(date -u)" >> $D/meas.times
V="./build/rooflens validate --zoo --keep-going --max-seconds 0.5 --device $D/device-probe.json --format json"
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
