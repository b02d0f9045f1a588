#!/bin/bash
# A second batch-8 run against the same probe (the check of the first pair's 89%), 50 minutes
# after the first: as protocol.sh's batch-8 line.
D=$(realpath "${1:?output folder}")
cd "$(dirname "$0")/../../.."
s9=$(date +%s)
./build/rooflens validate --zoo --keep-going --max-seconds 0.5 --device $D/device-probe.json --format json \
  --repeat 1 --batch 8 -o $D/run2-b8.json > $D/run2-b8.log 2>&1
echo "run2-b8 $(date -u -d @$s9) - $(date -u)" >> $D/meas.times
