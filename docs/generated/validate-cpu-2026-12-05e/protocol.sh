#!/bin/bash
D=$(realpath "${1:?output folder}")
cd "$(dirname "$0")/../../.."
V="./build/rooflens validate --zoo --keep-going --max-seconds 0.5 --device $D/device-probe.json --format json"
date -u > $D/meas.times
# PROBE_ARGS: more flags for the probe (the seventeenth pass keeps its samples with them).
./build/rooflens probe cpu --kernels --out $D/device-probe.json $PROBE_ARGS > $D/probe.txt 2>&1
echo "probe done $(date -u)" >> $D/meas.times
s1=$(date +%s)
$V --repeat 4 --max-repeat 8 --batch 1 -o $D/run1-b1.json > $D/run1-b1.log 2>&1
echo "run1-b1 $(date -u -d @$s1) - $(date -u)" >> $D/meas.times
s8=$(date +%s)
$V --repeat 1 --batch 8 -o $D/run1-b8.json > $D/run1-b8.log 2>&1
echo "run1-b8 $(date -u -d @$s8) - $(date -u)" >> $D/meas.times
while [ $(( $(date +%s) - s1 )) -lt 1230 ]; do sleep 10; done
s2=$(date +%s)
$V --repeat 4 --max-repeat 8 --batch 1 -o $D/run2-b1.json > $D/run2-b1.log 2>&1
echo "run2-b1 $(date -u -d @$s2) - $(date -u)" >> $D/meas.times
while [ $(( $(date +%s) - s8 )) -lt 1230 ]; do sleep 10; done
s9=$(date +%s)
$V --repeat 1 --batch 8 -o $D/run2-b8.json > $D/run2-b8.log 2>&1
echo "run2-b8 $(date -u -d @$s9) - $(date -u)" >> $D/meas.times
echo done >> $D/meas.times
