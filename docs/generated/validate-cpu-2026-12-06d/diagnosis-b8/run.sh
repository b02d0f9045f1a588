#!/bin/bash
# The per-layer diagnosis at batch 8 behind the twentieth pass (2026-12-06, 07:10-07:12 UTC,
# binary 0371d38, against the nineteenth pass's landed probe in ../../validate-cpu-2026-12-06c):
# 11 zoo models and the eight generated networks of that binary (exported to /tmp/lvl at batch 8
# by ../../validate-cpu-2026-12-06b/diagnosis/export_levels.cpp), each layer's measured time and
# `predict`'s class and level for it. an.py sums them per level class (by-class-b8.txt); by-op-b8.txt
# is the same per op type for ShuffleNetV2 x1.0 and EfficientNet-B0. Run from the repository root.
set -e
P=docs/generated/validate-cpu-2026-12-06c/device-probe.json
M=efficientnet_b0,efficientnet_b2,efficientnet_b4,mnasnet0_5,mnasnet1_0,shufflenet_v2_x1_0,shufflenet_v2_x2_0,mobilenet_v2,mobilenet_v3_large,resnet50,regnet_y_800mf
B=${B:-8}
mkdir -p /tmp/d8/z$B /tmp/d8/g$B /tmp/d8/p$B
./build/rooflens validate --models $M --device $P --batch $B --max-seconds 0.5 --layers-dir /tmp/d8/z$B --format json -o /tmp/d8/z$B/v.json
for f in /tmp/lvl/*.onnx; do n=$(basename $f .onnx)
  ./build/rooflens measure $f --device $P --batch $B --max-seconds 1 --format json -o /tmp/d8/g$B/$n-fp32-b$B-cpu.json
done
for m in ${M//,/ }; do ./build/rooflens predict models/$m.onnx --device $P --batch $B --dtype fp32 --format json -o /tmp/d8/p$B/$m.json; done
for f in /tmp/lvl/*.onnx; do n=$(basename $f .onnx); ./build/rooflens predict $f --device $P --batch $B --dtype fp32 --format json -o /tmp/d8/p$B/$n.json; done
