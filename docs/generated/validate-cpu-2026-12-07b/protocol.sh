#!/bin/bash
# Issue 30, twenty-seventh pass: the zoo at batch 1 (--repeat 3) against this folder's probe.
# Usage: protocol.sh FOLDER NAME [BATCH [REPEAT]]
D=$(realpath "${1:?output folder}")
N=${2:?run name}
B=${3:-1}
R=${4:-3}
cd "$(dirname "$D")/../.."
V="./build/rooflens validate --zoo --keep-going --max-seconds 0.5 --device $D/device-probe.json --format json"
s=$(date +%s)
$V --repeat $R --batch $B -o $D/$N.json > $D/$N.log 2>&1
echo "$N $(date -u -d @$s) - $(date -u)" >> $D/meas.times
