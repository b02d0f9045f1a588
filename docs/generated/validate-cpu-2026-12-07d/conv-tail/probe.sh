#!/bin/bash
# Issue 30, twenty-ninth pass: a probe with the conv class's AVX2 block tail (code of the commit
# after d051dc4), then its predictions and the twenty-ninth pass's probe's for the zoo at batch 1
# and 8 (the same binary; that probe's table has no block tail and predicts as recorded), to set
# both against this folder's recorded runs (elastic.py --predictions).
D=$(realpath "${1:?output folder}")
cd "$(dirname "$D")/../../.."
s=$(date +%s)
./build/rooflens probe cpu --kernels --out $D/device-probe.json --kernel-samples $D/kernel-samples.json > $D/probe.txt 2>&1
echo "probe $(date -u -d @$s) - $(date -u)" >> $D/meas.times
for b in 1 8; do
  ./build/rooflens predict --zoo --device $D/device-probe.json --dtype fp32 --batch $b --format json -o $D/pred-b$b.json
  ./build/rooflens predict --zoo --device $D/../device-probe.json --dtype fp32 --batch $b --format json -o $D/pred-before-b$b.json
done
