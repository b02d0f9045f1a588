#!/bin/bash
# Issue 30, seventeenth pass, second look at the level: a probe, the variants at batch 1, the
# zoo at batch 1 (--repeat 2 --max-repeat 4), the variants again. Does the variants' median
# predicted/measured follow the zoo's from one probe to the next? Run from the repository root
# with the variants exported (variants/export.py) into $VARIANTS.
D=$(realpath "${1:?output folder}")
V=${VARIANTS:?folder of the exported variants}
mkdir -p $D
date -u > $D/times
./build/rooflens probe cpu --kernels --out $D/device-probe.json > $D/probe.txt 2>&1
echo "probe done $(date -u)" >> $D/times
variants() {
  for f in $V/*.onnx; do
    ./build/rooflens measure $f --batch 1 --max-seconds 2 --device $D/device-probe.json --format json -o $D/$1-$(basename $f .onnx).json > /dev/null 2>&1
  done
  echo "variants $1 done $(date -u)" >> $D/times
}
variants before
./build/rooflens validate --zoo --keep-going --max-seconds 0.5 --repeat 2 --max-repeat 4 --batch 1 --device $D/device-probe.json --format json -o $D/run-b1.json > $D/run-b1.log 2>&1
echo "run done $(date -u)" >> $D/times
variants after
