#!/usr/bin/env bash
# Speed of the whole study: every bundled zoo model predicted at its largest batch on a
# device, frontiers, fold what-ifs and the HTML/JSON/CSV report, as one command. Not a
# test (no timing assertion): it prints the wall time of each round and their median.
#
# usage: [ROUNDS=5] [DEVICE=v100] [DTYPE=fp16] [ZOO=torchvision|timm|all] bench/study_zoo.sh ROOFLENS_BINARY [--markdown]
set -euo pipefail
BIN=$(realpath "$1"); shift || true
MD=${1:-}
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-5}
DEVICE=${DEVICE:-v100}
DTYPE=${DTYPE:-fp16}
ZOO=${ZOO:-torchvision}
OUT=$(mktemp -d)
trap 'rm -rf -- "$OUT"' EXIT
times=()
for ((i = 0; i < ROUNDS; ++i)); do
  t0=$(date +%s.%N)
  "$BIN" study --zoo "$ZOO" --device "$DEVICE" --dtype "$DTYPE" --batch max --report "$OUT/r" >/dev/null 2>"$OUT/err"
  t1=$(date +%s.%N)
  times+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')")
done
sorted=$(printf '%s\n' "${times[@]}" | sort -g)
median=$(echo "$sorted" | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
best=$(echo "$sorted" | head -1)
models=$(python3 -c "import json,sys; print(len(json.load(open('$OUT/r/study.json'))['models']))" 2>/dev/null || echo "?")
folds=$(python3 -c "import json,sys; print(len(json.load(open('$OUT/r/study.json'))['folds']))" 2>/dev/null || echo "?")
if [[ $MD == --markdown ]]; then
  echo "| command | models | folded | rounds | median (s) | best (s) |"
  echo "|---|---:|---:|---:|---:|---:|"
  printf '| `rooflens study --zoo %s --device %s --dtype %s --batch max --report DIR` | %s | %s | %d | %.2f | %.2f |\n' \
    "$ZOO" "$DEVICE" "$DTYPE" "$models" "$folds" "$ROUNDS" "$median" "$best"
else
  echo "study of the $ZOO zoo, $models models ($folds folded) on $DEVICE $DTYPE at max batch + report: median ${median}s, best ${best}s over $ROUNDS rounds"
  echo "rounds: ${times[*]}"
fi
