#!/usr/bin/env bash
# Speed of the whole study: every bundled zoo model predicted at its largest batch on a
# device, frontiers, fold what-ifs and the HTML/JSON/CSV report, as one command. Not a
# test (no timing assertion): it prints the wall time of each round and their median.
# Each round also times `rooflens analyze` over the same zoo's ONNX files in one call
# (JSON to /dev/null), the "analysed" half of issue 29's speed target.
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
case "$ZOO" in
  torchvision) FILES=(models/*.onnx) ;;
  timm) FILES=(models/timm/*.onnx) ;;
  all) FILES=(models/*.onnx models/timm/*.onnx) ;;
  *) echo "ZOO must be torchvision, timm or all, got '$ZOO'" >&2; exit 2 ;;
esac
median_of() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
times=()
atimes=()
for ((i = 0; i < ROUNDS; ++i)); do
  t0=$(date +%s.%N)
  "$BIN" analyze "${FILES[@]}" --format json >/dev/null 2>"$OUT/aerr"
  t1=$(date +%s.%N)
  atimes+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')")
  t0=$(date +%s.%N)
  "$BIN" study --zoo "$ZOO" --device "$DEVICE" --dtype "$DTYPE" --batch max --report "$OUT/r" >/dev/null 2>"$OUT/err"
  t1=$(date +%s.%N)
  times+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')")
done
sorted=$(printf '%s\n' "${times[@]}" | sort -g)
median=$(echo "$sorted" | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
best=$(echo "$sorted" | head -1)
amedian=$(printf '%s\n' "${atimes[@]}" | median_of)
abest=$(printf '%s\n' "${atimes[@]}" | sort -g | head -1)
models=$(python3 -c "import json,sys; print(len(json.load(open('$OUT/r/study.json'))['models']))" 2>/dev/null || echo "?")
folds=$(python3 -c "import json,sys; print(len(json.load(open('$OUT/r/study.json'))['folds']))" 2>/dev/null || echo "?")
if [[ $MD == --markdown ]]; then
  echo "| command | models | folded | rounds | median (s) | best (s) |"
  echo "|---|---:|---:|---:|---:|---:|"
  printf '| `rooflens study --zoo %s --device %s --dtype %s --batch max --report DIR` | %s | %s | %d | %.2f | %.2f |\n' \
    "$ZOO" "$DEVICE" "$DTYPE" "$models" "$folds" "$ROUNDS" "$median" "$best"
  printf '| `rooflens analyze <the %s zoo'"'"'s %d files> --format json` | %d | - | %d | %.2f | %.2f |\n' \
    "$ZOO" "${#FILES[@]}" "${#FILES[@]}" "$ROUNDS" "$amedian" "$abest"
else
  echo "study of the $ZOO zoo, $models models ($folds folded) on $DEVICE $DTYPE at max batch + report: median ${median}s, best ${best}s over $ROUNDS rounds"
  echo "rounds: ${times[*]}"
  echo "analyze of the $ZOO zoo's ${#FILES[@]} files: median ${amedian}s, best ${abest}s; rounds: ${atimes[*]}"
fi
