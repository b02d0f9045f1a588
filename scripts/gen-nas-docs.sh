#!/usr/bin/env bash
# Regenerates docs/generated/nas/: the paper's NAS experiment (study.md section 4) end to end on the
# V100 FP16 predictions of the whole NATS-Bench size space: approximate filtering (one run)
# and REINFORCE with MnasNet's soft reward (9 seeds), budget 110000 simulated seconds, on the
# SYNTHETIC surrogate accuracy table of scripts/make-sss-surrogate.sh, because the official
# NATS-Bench data (1.1 GB) is not on these machines. With the data, the same command with
# --oracle nats:DIR runs on the benchmark's own accuracies (docs/guide/nas.md, docs/nas.md).
# Usage: scripts/gen-nas-docs.sh ROOFLENS_BINARY
set -euo pipefail
BIN=$(realpath "$1")
cd "$(dirname "$0")/.."
OUT=docs/generated/nas
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
mkdir -p "$OUT"
scripts/make-sss-surrogate.sh "$BIN" "$TMP/surrogate.csv" 2>"$TMP/surrogate.txt"
"$BIN" nas --space sss --oracle "csv:$TMP/surrogate.csv" --strategy filter:1,reinforce:9 --budget 110000 \
  --reward soft --device v100 --dtype fp16 --batch 256 -o "$TMP/runs" --report "$TMP/report" \
  >"$TMP/summary.txt" 2>"$TMP/progress.txt"
{
  echo "# rooflens nas --space sss --oracle csv:SURROGATE --strategy filter:1,reinforce:9 --budget 110000 \\"
  echo "#   --reward soft --device v100 --dtype fp16 --batch 256   ($(date -u +%F), $(lscpu | sed -n 's/^Model name: *//p'))"
  echo "# SURROGATE = scripts/make-sss-surrogate.sh: a SYNTHETIC accuracy table, not NATS-Bench's:"
  sed 's/^/#   /' "$TMP/surrogate.txt"
  echo
  sed -e "s|$TMP/surrogate.csv|SURROGATE|g" -e "s|$TMP/runs|RUNS|g" -e "s|$TMP/report|REPORT|g" "$TMP/summary.txt"
} >"$OUT/summary.txt"
sed -e "s|$TMP/surrogate.csv|SURROGATE (scripts/make-sss-surrogate.sh, synthetic)|g" "$TMP/report/index.html" >"$OUT/index.html"
sed -e "s|$TMP/surrogate.csv|SURROGATE (scripts/make-sss-surrogate.sh, synthetic)|g" "$TMP/runs/result.json" >"$OUT/result.json"
echo "wrote $OUT"
