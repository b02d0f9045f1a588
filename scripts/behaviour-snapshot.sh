#!/usr/bin/env bash
# Writes the outputs that a behaviour-preserving change must leave byte-identical (issue 25):
# the zoo study on V100 FP16 at max batch (study.json, study.csv), `predict --zoo` JSON on
# three devices, `sss --all` CSV, and the NAS logs and result.json of all four strategies on
# the synthetic accuracy table (scripts/make-sss-surrogate.sh). Compare two snapshots with
# `diff -r A B`.
# Usage: scripts/behaviour-snapshot.sh ROOFLENS_BINARY OUT_DIR
set -euo pipefail
if [[ $# -ne 2 ]]; then
  echo "usage: $0 ROOFLENS_BINARY OUT_DIR" >&2
  exit 2
fi
BIN=$(realpath "$1")
OUT=$2
cd "$(dirname "$0")/.."
mkdir -p "$OUT"
OUT=$(realpath "$OUT")
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

"$BIN" study --zoo --device v100 --dtype fp16 --batch max --report "$TMP/study" >/dev/null 2>&1
cp "$TMP/study/study.json" "$TMP/study/study.csv" "$OUT/"
for dev in v100 a100-sxm4-80gb h200; do
  "$BIN" predict --zoo --device "$dev" --dtype fp16 --batch 1,max --format json -o "$OUT/predict-zoo-$dev.json" >/dev/null 2>&1
done
"$BIN" sss --all --dataset cifar10 --device v100 --dtype fp16 --batch 256 --format csv -o "$OUT/sss-all.csv" >/dev/null
scripts/make-sss-surrogate.sh "$BIN" "$TMP/surrogate.csv" 2>/dev/null
"$BIN" nas --space sss --oracle "csv:$TMP/surrogate.csv" --strategy random,rea,reinforce,filter --seeds 2 \
  --budget 20000 --reward soft --device v100 --dtype fp16 --batch 256 -o "$TMP/runs" >"$TMP/nas.stdout" 2>/dev/null
mkdir -p "$OUT/nas"
for f in "$TMP"/runs/*; do
  sed "s|$TMP/surrogate.csv|SURROGATE|g" "$f" >"$OUT/nas/$(basename "$f")"
done
sed -e "s|$TMP/surrogate.csv|SURROGATE|g" -e "s|$TMP/runs|RUNS|g" "$TMP/nas.stdout" >"$OUT/nas-stdout.txt"
echo "wrote $OUT"
