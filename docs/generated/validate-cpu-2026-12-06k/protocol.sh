#!/bin/bash
# Issue 30, twenty-third pass, second probe: the same binary as ../validate-cpu-2026-12-06j/
# (f0488be); a fresh kernel probe, then the zoo at batch 8 (--repeat 3) and batch 1
# (--repeat 4 --max-repeat 8) against it.
D=$(realpath "${1:?output folder}")
cd "$(dirname "$D")/../.."
V="./build/rooflens validate --zoo --keep-going --max-seconds 0.5 --device $D/device-probe.json --format json"
date -u > $D/meas.times
./build/rooflens probe cpu --kernels --out $D/device-probe.json --kernel-samples $D/kernel-samples.json > $D/probe.txt 2>&1
echo "probe $(date -u)" >> $D/meas.times
s=$(date +%s)
$V --repeat 3 --batch 8 -o $D/run1-b8.json > $D/run1-b8.log 2>&1
echo "run1-b8 $(date -u -d @$s) - $(date -u)" >> $D/meas.times
s=$(date +%s)
$V --repeat 4 --max-repeat 8 --batch 1 -o $D/run1-b1.json > $D/run1-b1.log 2>&1
echo "run1-b1 $(date -u -d @$s) - $(date -u)" >> $D/meas.times
echo finished >> $D/meas.times
