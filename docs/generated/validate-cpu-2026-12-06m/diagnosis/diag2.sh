#!/bin/bash
# The transformers at batch 1, per layer, against the same probe (binary f3a9edf).
cd /work/main
D=/tmp/z3; P=docs/generated/validate-cpu-2026-12-06m/device-probe.json
M=vit_b_32,vit_b_16,vit_l_16,swin_b,convnext_base,convnext_tiny
./build/rooflens validate --models $M --keep-going --max-seconds 0.5 --repeat 2 --batch 1 --device $P --layers-dir $D/tlay1 --format json -o $D/t1.json > $D/t1.log 2>&1
mkdir -p $D/tpred1
for m in ${M//,/ }; do ./build/rooflens predict models/$m.onnx --device $P --dtype fp32 --batch 1 --format json > $D/tpred1/$m.json; done
echo finished > $D/t1.done
