#!/usr/bin/env bash
# Speed of `rooflens sss --all`: every network of the NATS-Bench size search space (32768)
# predicted on a device, frontier and CSV, as one command. Not a test (no timing assertion):
# it prints the wall time of each round and their median.
#
# usage: [ROUNDS=5] [DEVICE=v100] [DTYPE=fp16] [BATCH=256] bench/sss_space.sh ROOFLENS_BINARY [--markdown]
#   BATCH is a number or max (the largest batch that fits the device, per network).
set -euo pipefail
BIN=$(realpath "$1"); shift || true
MD=${1:-}
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-5}
DEVICE=${DEVICE:-v100}
DTYPE=${DTYPE:-fp16}
BATCH=${BATCH:-256}
OUT=$(mktemp -d)
trap 'rm -rf -- "$OUT"' EXIT
times=()
for ((i = 0; i < ROUNDS; ++i)); do
  t0=$(date +%s.%N)
  "$BIN" sss --all --device "$DEVICE" --dtype "$DTYPE" --batch "$BATCH" -o "$OUT/sss.csv" >"$OUT/summary" 2>"$OUT/err"
  t1=$(date +%s.%N)
  times+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')")
done
sorted=$(printf '%s\n' "${times[@]}" | sort -g)
median=$(echo "$sorted" | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
best=$(echo "$sorted" | head -1)
networks=$(($(wc -l <"$OUT/sss.csv") - 1))
frontier=$(grep -c ',yes$' "$OUT/sss.csv" || true)
if [[ $MD == --markdown ]]; then
  echo "| command | networks | frontier | rounds | median (s) | best (s) |"
  echo "|---|---:|---:|---:|---:|---:|"
  printf '| `rooflens sss --all --device %s --dtype %s --batch %s -o FILE.csv` | %s | %s | %d | %.2f | %.2f |\n' \
    "$DEVICE" "$DTYPE" "$BATCH" "$networks" "$frontier" "$ROUNDS" "$median" "$best"
else
  echo "sss --all: $networks networks ($frontier on the frontier) on $DEVICE $DTYPE at batch $BATCH: median ${median}s, best ${best}s over $ROUNDS rounds"
  echo "rounds: ${times[*]}"
fi
