#!/usr/bin/env bash
# Regenerates docs/generated/study/: the study of the bundled zoo on V100 FP16 at max batch (a
# prediction of the performance model), its figures as SVG, its CSV and JSON, and the
# what-if table of ResNet-50 and MobileNetV2.
# Usage: scripts/gen-study-docs.sh ROOFLENS_BINARY
set -euo pipefail
BIN=$(realpath "$1")
cd "$(dirname "$0")/.."
OUT=docs/generated/study
mkdir -p "$OUT"
"$BIN" study --zoo --device v100 --dtype fp16 --batch max --report "$OUT" 2>/dev/null >"$OUT/summary.txt"
sed -i "s|report: .*/docs/generated/study/index.html|report: docs/generated/study/index.html|" "$OUT/summary.txt"
for m in resnet50 mobilenet_v2; do
  "$BIN" whatif "models/$m.onnx" --device v100 --dtype fp16 --batch 256 --devices a100-sxm4-80gb,h100-sxm,t4,l4 >"$OUT/whatif-$m.txt"
done
echo "wrote $OUT"
