#!/bin/bash
# After the second zoo run: the transformers and the CNNs predicted furthest off at batch 1,
# per layer, against this folder's probe (validate --layers-dir, --repeat 2), and the same
# models' predictions per layer; agg.py (from -06m/diagnosis) reads them.
cd /work/main
F=docs/generated/validate-cpu-2026-12-07; D=/tmp/z4; P=$F/device-probe.json; mkdir -p $D
M=vit_b_16,vit_l_16,swin_b,convnext_base,convnext_tiny,wide_resnet101_2,resnet101,googlenet,squeezenet1_1,regnet_y_8gf
./build/rooflens validate --models $M --keep-going --max-seconds 0.5 --repeat 2 --batch 1 --device $P --layers-dir $D/lay1 --format json -o $D/v1.json > $D/v1.log 2>&1
mkdir -p $D/pred1
for m in ${M//,/ }; do ./build/rooflens predict models/$m.onnx --device $P --dtype fp32 --batch 1 --format json > $D/pred1/$m.json; done
echo finished > $D/diag.done
