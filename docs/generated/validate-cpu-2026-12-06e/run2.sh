#!/bin/bash
# The repeat: batch 8 (--repeat 3) against the same probe, at least 20 minutes after protocol.sh.
D=$(realpath "${1:?output folder}")
cd "$(dirname "$0")/../../.."
V="./build/rooflens validate --zoo --keep-going --max-seconds 0.5 --device $D/device-probe.json --format json"
s8=$(date +%s)
$V --repeat 3 --batch 8 -o $D/run2-b8.json > $D/run2-b8.log 2>&1
echo "run2-b8 $(date -u -d @$s8) - $(date -u)" >> $D/meas.times
