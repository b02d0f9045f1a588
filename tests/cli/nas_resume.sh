#!/usr/bin/env bash
# `rooflens nas`: a run killed with SIGKILL mid-way and continued with --resume ends with
# logs and result.json byte-identical to an uninterrupted run; results do not depend on
# --jobs. The accuracy table is a FIXTURE written here (a made-up function of the widths),
# with a 1 s cost per evaluation so that runs are long enough to be killed mid-way.
# Usage: tests/cli/nas_resume.sh BINARY
set -uo pipefail
BIN=$(cd "$(dirname -- "$1")" && pwd)/$(basename -- "$1")
TMP=$(mktemp -d "${TMPDIR:-/tmp}/rooflens-nas-resume.XXXXXX")
trap 'rm -rf -- "$TMP"' EXIT
cd "$TMP" || exit 1

awk 'BEGIN {
  print "arch,accuracy"
  for (i = 0; i < 32768; ++i) {
    x = i; s = ""; acc = 60
    for (k = 4; k >= 0; --k) { d = int(x / 8 ^ k); x -= d * 8 ^ k; s = s (k < 4 ? ":" : "") (8 * d + 8); acc += d * (k + 1) * 0.2 }
    printf "%s,%.3f\n", s, acc + (i * 7919 % 13) / 10
  }
}' >table.csv

COMMON=(nas --oracle csv:table.csv --budget 60000 --seeds 2 --strategy random,reinforce --reward soft
        --device v100 --dtype fp16 --batch 256)
fail=0

"$BIN" "${COMMON[@]}" -o ref --jobs 2 >ref.stdout 2>ref.stderr || { echo "FAIL reference run: $(tail -3 ref.stderr)"; exit 1; }
"$BIN" "${COMMON[@]}" -o one --jobs 1 >/dev/null 2>one.stderr || { echo "FAIL --jobs 1 run: $(tail -3 one.stderr)"; exit 1; }
if diff -r ref one >/dev/null; then echo "ok   --jobs 1 and --jobs 2 give identical logs and result.json"
else echo "FAIL --jobs 1 and --jobs 2 differ: $(diff -rq ref one | head -3)"; fail=1; fi

# Kill at a few points: early, mid-way through the logs, late.
for lines in 50 30000 90000; do
  rm -rf killed
  "$BIN" "${COMMON[@]}" -o killed --jobs 2 >/dev/null 2>killed.stderr &
  pid=$!
  # Wait until the logs hold about `lines` evaluations, then SIGKILL.
  for _ in $(seq 1 2000); do
    n=$(cat killed/*.jsonl 2>/dev/null | wc -l)
    ((n >= lines)) && break
    kill -0 $pid 2>/dev/null || break
    sleep 0.01
  done
  kill -9 $pid 2>/dev/null
  wait $pid 2>/dev/null
  if [[ -e killed/result.json ]]; then
    echo "note: the run finished before the kill at $lines lines (machine faster than expected); resuming a finished run"
  fi
  got=$(cat killed/*.jsonl 2>/dev/null | wc -l)
  "$BIN" "${COMMON[@]}" -o killed --jobs 2 --resume >/dev/null 2>resume.stderr
  rc=$?
  if [[ $rc -ne 0 ]]; then echo "FAIL resume after kill at $got lines: exit $rc: $(tail -3 resume.stderr)"; fail=1; continue; fi
  if diff -r ref killed >/dev/null; then
    echo "ok   killed at $got logged lines, resumed: byte-identical to the uninterrupted run ($(grep -c replayed resume.stderr) runs replayed from their logs)"
  else
    echo "FAIL killed at $got lines and resumed: differs from the uninterrupted run: $(diff -rq ref killed | head -3)"
    fail=1
  fi
done

# Without --resume an existing run is refused (exit 2) and left as it was.
cp -r ref ref2
"$BIN" "${COMMON[@]}" -o ref2 >/dev/null 2>again.stderr
rc=$?
if [[ $rc -eq 2 ]] && grep -q -- "--resume" again.stderr && diff -r ref ref2 >/dev/null; then
  echo "ok   an existing run without --resume is refused and untouched"
else
  echo "FAIL existing run without --resume: exit $rc, $(head -2 again.stderr)"; fail=1
fi
# --resume with another configuration is refused.
"$BIN" "${COMMON[@]/60000/70000}" -o ref2 --resume >/dev/null 2>other.stderr
rc=$?
if [[ $rc -eq 2 ]] && grep -q "another run" other.stderr; then echo "ok   --resume with another budget is refused"
else echo "FAIL --resume with another budget: exit $rc, $(head -2 other.stderr)"; fail=1; fi
exit $fail
