#!/usr/bin/env bash
# Regenerates docs/generated/study-all/: the study of both bundled zoos (torchvision's CNNs and
# transformers, timm 0.5.4's CNNs; `--zoo all`) on V100 FP16 at max batch, a prediction of the
# performance model. Only the small files are kept: summary.txt (stdout), study.csv (one row
# per model, frontier flags included) and families.txt (scripts/study-families.py). The HTML
# report with its figures (about 0.9 MB) and study.json (about 4.4 MB) are rebuilt with the
# same command into any directory: `rooflens study --zoo all --device v100 --dtype fp16
# --batch max --report DIR`.
# Usage: scripts/gen-study-all-docs.sh ROOFLENS_BINARY
set -euo pipefail
BIN=$(realpath "$1")
cd "$(dirname "$0")/.."
OUT=docs/generated/study-all
TMP=$(mktemp -d)
trap 'rm -rf -- "$TMP"' EXIT
mkdir -p "$OUT"
"$BIN" study --zoo all --device v100 --dtype fp16 --batch max --report "$TMP/r" 2>/dev/null >"$OUT/summary.txt"
sed -i "s|^report: .*|report: (not kept; rebuild it with the command in scripts/gen-study-all-docs.sh)|" "$OUT/summary.txt"
cp "$TMP/r/study.csv" "$OUT/study.csv"
python3 scripts/study-families.py "$OUT/study.csv" >"$OUT/families.txt"
echo "wrote $OUT"
