#!/bin/bash
# Issue 30, twenty-first pass: the landed binary (the zoo validation in the library, 1429bbc).
# The probe, then the zoo at batch 8 twice (--repeat 3 each, back to back: starts about 25
# minutes apart) and at batch 1 (--repeat 4 --max-repeat 8), all against that probe.
D=$(realpath "${1:?output folder}")
cd "$(dirname "$0")/../../.."
V="./build/rooflens validate --zoo --keep-going --max-seconds 0.5 --device $D/device-probe.json --format json"
date -u > $D/meas.times
./build/rooflens probe cpu --kernels --out $D/device-probe.json --kernel-samples $D/kernel-samples.json > $D/probe.txt 2>&1
echo "probe done $(date -u)" >> $D/meas.times
for r in 1 2; do
  s=$(date +%s)
  $V --repeat 3 --batch 8 -o $D/run$r-b8.json > $D/run$r-b8.log 2>&1
  echo "run$r-b8 $(date -u -d @$s) - $(date -u)" >> $D/meas.times
done
s=$(date +%s)
$V --repeat 4 --max-repeat 8 --batch 1 -o $D/run1-b1.json > $D/run1-b1.log 2>&1
echo "run1-b1 $(date -u -d @$s) - $(date -u)" >> $D/meas.times
echo done >> $D/meas.times
