#!/bin/bash
# alternate memory-side single ops, generated networks and zoo models at batch 8 over a long window
cd /work/main; P=docs/generated/validate-cpu-2026-12-06e/device-probe.json
end=$(( $(date +%s) + ${SECS:-2700} )); i=0
while [ $(date +%s) -lt $end ]; do
  for f in /tmp/memref/dw8.onnx /tmp/memref/mul8.onnx /tmp/memref/gap8.onnx /tmp/memref/pw8.onnx /tmp/lvl/level_inverted_se.onnx /tmp/lvl/level_plain.onnx /tmp/lvl/level_inverted.onnx models/mobilenet_v3_large.onnx models/mnasnet1_0.onnx models/efficientnet_b3.onnx models/resnet50.onnx models/inception_v3.onnx; do
    n=$(basename $f .onnx)
    echo "$i $n $(date +%s.%N)" >> /tmp/drift/times
    ./build/rooflens measure $f --device $P --batch 8 --max-seconds 0.5 --format json -o /tmp/drift/out/$i-$n.json 2>/dev/null
  done; i=$((i+1))
done
echo done >> /tmp/drift/times
