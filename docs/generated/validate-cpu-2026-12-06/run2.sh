#!/bin/bash
# The second pair of the sequence (protocol.sh stopped after run1-b8 to settle the level's
# classes), with the final binary against the same probe: batch 1 then batch 8, as protocol.sh.
D=$(realpath "${1:?output folder}")
cd "$(dirname "$0")/../../.."
V="./build/rooflens validate --zoo --keep-going --max-seconds 0.5 --device $D/device-probe.json --format json"
s2=$(date +%s)
$V --repeat 4 --max-repeat 8 --batch 1 -o $D/run2-b1.json > $D/run2-b1.log 2>&1
echo "run2-b1 $(date -u -d @$s2) - $(date -u)" >> $D/meas.times
s9=$(date +%s)
$V --repeat 1 --batch 8 -o $D/run2-b8.json > $D/run2-b8.log 2>&1
echo "run2-b8 $(date -u -d @$s9) - $(date -u)" >> $D/meas.times
