#!/usr/bin/env bash
# `rooflens nas --throughput measured`: each evaluated network is run on this CPU (oneDNN)
# and its measured throughput goes into the log and the reward; filtering (which would
# measure the whole space) is refused. The accuracy table is a FIXTURE written here.
# Usage: tests/cli/nas_measured.sh BINARY
set -uo pipefail
BIN=$(cd "$(dirname -- "$1")" && pwd)/$(basename -- "$1")
TMP=$(mktemp -d "${TMPDIR:-/tmp}/rooflens-nas-measured.XXXXXX")
trap 'rm -rf -- "$TMP"' EXIT
cd "$TMP" || exit 1
awk 'BEGIN { print "arch,accuracy,train_seconds"
  for (i = 0; i < 32768; ++i) { x = i; s = ""
    for (k = 4; k >= 0; --k) { d = int(x / 8 ^ k); x -= d * 8 ^ k; s = s (k < 4 ? ":" : "") (8 * d + 8) }
    printf "%s,%.2f,1000\n", s, 60 + (i % 37) / 2 } }' >table.csv
fail=0
"$BIN" nas --oracle csv:table.csv --strategy random --budget 2500 --throughput measured --device epyc-milan-2c \
  --dtype fp32 --batch 8 --max-seconds 0.3 -o runs >out.txt 2>err.txt || { echo "FAIL measured run: $(tail -3 err.txt)"; exit 1; }
n=$(grep -c '"step"' runs/random-seed0.jsonl)
if [[ $n -eq 3 ]]; then echo "ok   3 evaluations logged"; else echo "FAIL $n evaluations logged, want 3"; fail=1; fi
if head -1 runs/random-seed0.jsonl | grep -q 'measured on this CPU through oneDNN'; then echo "ok   the log says the throughput is measured"
else echo "FAIL the log header does not say measured"; fail=1; fi
# Each logged throughput is positive and differs from the performance model's prediction.
while read -r arch thr; do
  pred=$("$BIN" sss "$arch" --device epyc-milan-2c --dtype fp32 --batch 8 --format csv | awk -F, 'NR == 2 { print $9 }')
  if awk -v m="$thr" -v p="$pred" 'BEGIN { exit !(m > 0 && m != p) }'; then echo "ok   $arch measured $thr img/s (predicted $pred)"
  else echo "FAIL $arch: logged $thr, predicted $pred"; fail=1; fi
done < <(grep '"step"' runs/random-seed0.jsonl | sed -E 's/.*"arch":"([^"]*)".*"throughput":([0-9.e+-]*).*/\1 \2/')
"$BIN" nas --oracle csv:table.csv --strategy filter --throughput measured --device epyc-milan-2c --dtype fp32 \
  --batch 8 -o runs2 >/dev/null 2>err2.txt
rc=$?
if [[ $rc -eq 2 ]] && grep -q "would measure all 32768 networks" err2.txt; then echo "ok   filter with measured throughput is refused"
else echo "FAIL filter + measured: exit $rc: $(head -2 err2.txt)"; fail=1; fi
exit $fail
