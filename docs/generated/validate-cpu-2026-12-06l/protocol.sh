#!/bin/bash
# Issue 30, twenty-fourth pass: the level classes split pooling that leaves one pixel per
# channel (pool_global) from windowed pooling, and standalone batch normalisation
# (eltwise_norm) from the other elementwise ops. The kernel probe, then the zoo at batch 8
# (--repeat 3) and batch 1 (--repeat 4 --max-repeat 8) against it, then both again.
D=$(realpath "${1:?output folder}")
cd "$(dirname "$D")/../.."
V="./build/rooflens validate --zoo --keep-going --max-seconds 0.5 --device $D/device-probe.json --format json"
date -u > $D/meas.times
./build/rooflens probe cpu --kernels --out $D/device-probe.json --kernel-samples $D/kernel-samples.json > $D/probe.txt 2>&1
echo "probe $(date -u)" >> $D/meas.times
for r in 1 2; do
  s=$(date +%s)
  $V --repeat 3 --batch 8 -o $D/run$r-b8.json > $D/run$r-b8.log 2>&1
  echo "run$r-b8 $(date -u -d @$s) - $(date -u)" >> $D/meas.times
  s=$(date +%s)
  $V --repeat 4 --max-repeat 8 --batch 1 -o $D/run$r-b1.json > $D/run$r-b1.log 2>&1
  echo "run$r-b1 $(date -u -d @$s) - $(date -u)" >> $D/meas.times
done
echo finished >> $D/meas.times
