#!/bin/bash
# Zen 3 host: probe, then per-layer validate of the misses and some controls at batch 8 and 1.
set -e
cd /work/main
D=/tmp/z3
date -u > $D/times
./build/rooflens probe cpu --kernels --out $D/device-probe.json --kernel-samples $D/kernel-samples.json > $D/probe.txt 2>&1
echo "probe $(date -u)" >> $D/times
M=efficientnet_b0,efficientnet_b3,efficientnet_b5,efficientnet_b7,mnasnet0_5,mnasnet1_3,resnet50,mobilenet_v2,vgg16,inception_v3,swin_t,resnext101_64x4d,regnet_y_1_6gf,densenet121
for b in 8 1; do
  ./build/rooflens validate --models $M --keep-going --max-seconds 0.5 --repeat 3 --batch $b --device $D/device-probe.json --layers-dir $D/lay$b --format json -o $D/v$b.json > $D/v$b.log 2>&1
  echo "v$b $(date -u)" >> $D/times
  mkdir -p $D/pred$b
  for m in ${M//,/ }; do ./build/rooflens predict models/$m.onnx --device $D/device-probe.json --dtype fp32 --batch $b --format json > $D/pred$b/$m.json; done
done
echo finished >> $D/times
