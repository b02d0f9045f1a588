#!/bin/bash
# Issue 30, twenty-eighth pass: the zoo (--repeat R) at batch B against a probe folder's device file.
# Usage: protocol.sh FOLDER NAME [BATCH [REPEAT [PROBE_FOLDER]]]
D=$(realpath "${1:?output folder}")
N=${2:?run name}
B=${3:-1}
R=${4:-3}
P=$(realpath "${5:-$D}")
cd "$(dirname "$D")/../.."
V="./build/rooflens validate --zoo --keep-going --max-seconds 0.5 --device $P/device-probe.json --format json"
s=$(date +%s)
$V --repeat $R --batch $B -o $D/$N.json > $D/$N.log 2>&1
echo "$N $(date -u -d @$s) - $(date -u)" >> $D/meas.times
