#!/usr/bin/env bash
# Regenerates docs/generated/nas-fashion/: issue 10's experiment end to end with REAL training. Every
# network a search asks about is trained with LibTorch on Fashion-MNIST (the training oracle,
# docs/nas.md) and tested on held-out images. Approximate filtering (one run: the
# throughput-utilization frontier of the 1-channel 28x28 networks on the V100 FP16
# predictions, in spread order), random search and REINFORCE (MnasNet soft reward) get the
# same budget on the simulated training clock (the oracle's model of this machine's
# single-thread training time, so that the runs are judged on equal terms whatever the load
# while they ran; the accuracies are real). Scores are against the reference frontier of
# every network any run trained (the whole space cannot be trained here).
#
# Two processes share the work (one LibTorch thread each) and one results database; a third
# invocation resumes all runs from their logs (nothing is retrained: the logs and the
# database answer) and writes the one report. On the simulated clock the result does not
# depend on that split.
# Usage: scripts/gen-fashion-nas-docs.sh ROOFLENS_BINARY [BUDGET_SECONDS] [SEEDS] [WORK_DIR]
set -euo pipefail
BIN=$(realpath "$1")
BUDGET=${2:-300}
SEEDS=${3:-3}
WORK=${4:-$(mktemp -d)}
cd "$(dirname "$0")/.."
OUT=docs/generated/nas-fashion
mkdir -p "$OUT" "$WORK"
COMMON=(nas --space sss --oracle train:fashion-mnist --train-clock simulated --budget "$BUDGET" --reward soft
        --device v100 --dtype fp16 --batch 256 --db "$WORK/train.sqlite" -o "$WORK/runs")
START=$(date -u +%FT%TZ)
SECONDS=0
"$BIN" "${COMMON[@]}" --strategy "filter:1,random:$SEEDS" >"$WORK/a.txt" 2>"$WORK/progress-a.txt" &
A=$!
"$BIN" "${COMMON[@]}" --strategy "reinforce:$SEEDS" >"$WORK/b.txt" 2>"$WORK/progress-b.txt" &
B=$!
wait $A
wait $B
WALL=$SECONDS
"$BIN" "${COMMON[@]}" --strategy "filter:1,random:$SEEDS,reinforce:$SEEDS" --resume --report "$WORK/report" \
  >"$WORK/summary.txt" 2>"$WORK/progress-resume.txt"
{
  echo "# rooflens ${COMMON[*]} --strategy filter:1,random:$SEEDS,reinforce:$SEEDS"
  echo "# (run as two processes, filter+random and reinforce, then --resume of all runs for the report)"
  echo "# started $START, $WALL s wall on $(nproc) cores ($(lscpu | sed -n 's/^Model name: *//p')); load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo
  sed -e "s|$WORK|WORK|g" "$WORK/summary.txt"
} >"$OUT/summary.txt"
cat "$WORK/progress-a.txt" "$WORK/progress-b.txt" | sed -e "s|$WORK|WORK|g" >"$OUT/progress.txt"
sed -e "s|$WORK|WORK|g" "$WORK/report/index.html" >"$OUT/index.html"
sed -e "s|$WORK|WORK|g" "$WORK/runs/result.json" >"$OUT/result.json"
"$BIN" nas-db export "$WORK/train.sqlite" --out "$OUT/trained.csv" >/dev/null
echo "wrote $OUT (work files in $WORK)"
