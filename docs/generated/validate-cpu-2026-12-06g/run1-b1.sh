#!/bin/bash
# Batch 1 against the second probe, run alone (12:26 UTC) after the batch-8 run was stopped (README).
D=$(realpath "${1:?output folder}")
cd "$(dirname "$0")/../../.."
s=$(date +%s)
./build/rooflens validate --zoo --keep-going --max-seconds 0.5 --device $D/device-probe.json --format json \
  --repeat 4 --max-repeat 8 --batch 1 -o $D/run1-b1.json > $D/run1-b1.log 2>&1
echo "run1-b1 $(date -u -d @$s) - $(date -u)" >> $D/meas.times
