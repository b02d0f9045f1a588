#!/bin/bash
# Each variant measured at batch 1 against this pass's probe (run from the repository root,
# after `cd docs/generated/validate-cpu-2026-12-05f/variants && python3 export.py`).
D=docs/generated/validate-cpu-2026-12-05f
for f in $D/variants/*.onnx; do
  n=$(basename $f .onnx)
  ./build/rooflens measure $f --batch 1 --max-seconds 2 --device $D/device-probe.json --format json -o $D/variants/$n.json
done
