#!/bin/bash
# Issue 30, thirtieth pass, on the Zen 3 (AVX2) 2-vCPU guest: the twenty-ninth pass's probe
# (validate-cpu-2026-12-07d, copied here), every timed run paired with a pass of the
# reference's convolutions; the zoo at batch 1 (--repeat 3) twice, starting at least 20
# minutes apart, then at batch 8 (--repeat 1).
# Usage: protocol.sh FOLDER [BINARY] (run from a copy outside the tree: the script is not edited while it runs)
D=$(realpath "${1:?output folder}")
B=${2:-./build/rooflens}
cd "$(dirname "$D")/../.."
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
