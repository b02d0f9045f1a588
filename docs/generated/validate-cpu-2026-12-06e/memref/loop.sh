#!/bin/bash
# alternate the candidates with two generated networks, recording each one's time and host reference
cd /work/main; P=docs/generated/validate-cpu-2026-12-06d/device-probe.json
end=$(( $(date +%s) + ${SECS:-600} )); i=0
while [ $(date +%s) -lt $end ]; do
  for f in /tmp/memref/dw8.onnx /tmp/memref/mul8.onnx /tmp/memref/gap8.onnx /tmp/memref/pw8.onnx /tmp/lvl/level_inverted_se.onnx /tmp/lvl/level_plain.onnx /tmp/lvl/level_inverted.onnx; do
    n=$(basename $f .onnx)
    ./build/rooflens measure $f --device $P --batch 8 --max-seconds 0.5 --format json -o /tmp/memref/out/$i-$n.json 2>/dev/null
  done; i=$((i+1))
done
