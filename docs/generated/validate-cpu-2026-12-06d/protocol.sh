#!/bin/bash
# Issue 30, twentieth pass: batch 8 in medians of three alternating rounds. The probe, then the
# zoo at batch 8 (--repeat 3) and at batch 1 (--repeat 4 --max-repeat 8) against it; run2.sh
# repeats batch 8 at least 20 minutes later against the same probe.
D=$(realpath "${1:?output folder}")
cd "$(dirname "$0")/../../.."
V="./build/rooflens validate --zoo --keep-going --max-seconds 0.5 --device $D/device-probe.json --format json"
date -u > $D/meas.times
./build/rooflens probe cpu --kernels --out $D/device-probe.json --kernel-samples $D/kernel-samples.json > $D/probe.txt 2>&1
echo "probe done $(date -u)" >> $D/meas.times
s8=$(date +%s)
$V --repeat 3 --batch 8 -o $D/run1-b8.json > $D/run1-b8.log 2>&1
echo "run1-b8 $(date -u -d @$s8) - $(date -u)" >> $D/meas.times
s1=$(date +%s)
$V --repeat 4 --max-repeat 8 --batch 1 -o $D/run1-b1.json > $D/run1-b1.log 2>&1
echo "run1-b1 $(date -u -d @$s1) - $(date -u)" >> $D/meas.times
echo done >> $D/meas.times
