#!/bin/bash
# The second batch-1 zoo run against the same probe, at least 20 minutes after the first
# ended: repeatability at batch 1.
D=$(realpath "${1:?output folder}")
cd "$(dirname "$D")/../.."
V="./build/rooflens validate --zoo --keep-going --max-seconds 0.5 --device $D/device-probe.json --format json"
s=$(date +%s)
$V --repeat 3 --batch 1 -o $D/run2-b1.json > $D/run2-b1.log 2>&1
echo "run2-b1 $(date -u -d @$s) - $(date -u)" >> $D/meas.times
echo finished2 >> $D/meas.times
