#!/bin/bash
# Issue 30, twenty-sixth pass, on the Zen 3 (AVX2) 2-vCPU guest: a MatMul's stored weights
# timed row-major and column-major. A fresh probe (its gemm samples now run on the tuned
# layout), then the zoo at batch 1 (--repeat 3) against it; protocol2.sh repeats the zoo run
# at least 20 minutes after this one ends.
D=$(realpath "${1:?output folder}")
cd "$(dirname "$D")/../.."
s=$(date +%s)
./build/rooflens probe cpu --kernels --out $D/device-probe.json --kernel-samples $D/kernel-samples.json > $D/probe.txt 2>&1
echo "probe $(date -u -d @$s) - $(date -u)" >> $D/meas.times
V="./build/rooflens validate --zoo --keep-going --max-seconds 0.5 --device $D/device-probe.json --format json"
s=$(date +%s)
$V --repeat 3 --batch 1 -o $D/run1-b1.json > $D/run1-b1.log 2>&1
echo "run1-b1 $(date -u -d @$s) - $(date -u)" >> $D/meas.times
echo finished >> $D/meas.times
