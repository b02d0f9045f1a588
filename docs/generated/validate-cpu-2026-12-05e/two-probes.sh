#!/bin/bash
# two probes back to back, samples kept; then one b1 zoo run (repeat 2) to set both against
mkdir -p "${1:?output folder}"
D=$(realpath "$1")
cd "$(dirname "$0")/../../.."
date -u > $D/times
for i in 1 2; do
  ./build/rooflens probe cpu --kernels --out $D/device-probe-p$i.json --kernel-samples $D/kernel-samples-p$i.json > $D/probe-$i.txt 2>&1
  echo "probe $i done $(date -u)" >> $D/times
done
./build/rooflens validate --zoo --keep-going --max-seconds 0.5 --repeat 2 --max-repeat 4 --batch 1 --device $D/device-probe-p1.json --format json -o $D/run3-b1.json > $D/run-b1.log 2>&1
echo "run done $(date -u)" >> $D/times
