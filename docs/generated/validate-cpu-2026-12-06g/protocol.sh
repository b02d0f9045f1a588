#!/bin/bash
# Issue 30, twenty-first pass, second probe: the same binary (1429bbc), a fresh probe, then the
# zoo at batch 8 (--repeat 3) against it, to set the first probe's level beside another's.
D=$(realpath "${1:?output folder}")
cd "$(dirname "$0")/../../.."
V="./build/rooflens validate --zoo --keep-going --max-seconds 0.5 --device $D/device-probe.json --format json"
date -u > $D/meas.times
./build/rooflens probe cpu --kernels --out $D/device-probe.json --kernel-samples $D/kernel-samples.json > $D/probe.txt 2>&1
echo "probe done $(date -u)" >> $D/meas.times
s=$(date +%s)
$V --repeat 3 --batch 8 -o $D/run1-b8.json > $D/run1-b8.log 2>&1
echo "run1-b8 $(date -u -d @$s) - $(date -u)" >> $D/meas.times
echo done >> $D/meas.times
