#!/usr/bin/env bash
# Runs `BINARY analyze` over the malformed-input corpus (cases.txt) and checks the bad-input
# contract: the expected exit code, one "rooflens: error: ..." line on stderr containing the
# expected text, nothing on stdout, and no sanitizer report. Unknown-op cases (files named
# unknown_op*) instead expect the report on stdout and the unknown nodes listed on stderr.
# Usage: tests/malformed/run_corpus.sh BINARY      (works from any directory)
set -uo pipefail

if [[ $# -ne 1 ]]; then
  echo "usage: $0 BINARY" >&2
  exit 2
fi
BIN=$1
[[ $BIN == */* ]] || BIN=$(command -v -- "$BIN" || echo "$BIN")
if [[ ! -x $BIN || -d $BIN ]]; then
  echo "run_corpus: '$1' is not an executable" >&2
  exit 2
fi
BIN=$(cd "$(dirname -- "$BIN")" && pwd)/$(basename -- "$BIN")

HERE=$(cd "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
CORPUS=$HERE/corpus
CASES=$HERE/cases.txt
TIMEOUT=${RUN_CORPUS_TIMEOUT:-120}

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

TMP=$(mktemp -d "${TMPDIR:-/tmp}/rooflens-corpus.XXXXXX")
trap 'rm -rf -- "$TMP"' EXIT

pass=0
fail=0
lineno=0
while IFS= read -r line || [[ -n $line ]]; do
  lineno=$((lineno + 1))
  line=${line%$'\r'}
  [[ -z ${line//[[:space:]]/} || $line == \#* ]] && continue
  IFS='|' read -r file args want_rc want_err <<<"$line"
  name="$file${args:+ $args}"
  if [[ -z $file || -z $want_rc || -z $want_err ]]; then
    echo "FAIL cases.txt:$lineno: malformed line (want file|args|exit code|stderr substring)"
    fail=$((fail + 1))
    continue
  fi
  read -r -a argv <<<"$args"
  unknown_case=0
  [[ $(basename -- "$file") == unknown_op* ]] && unknown_case=1

  timeout "$TIMEOUT" "$BIN" analyze "$CORPUS/$file" "${argv[@]}" >"$TMP/out" 2>"$TMP/err"
  rc=$?

  reasons=()
  err=$(<"$TMP/err")
  if grep -qE 'AddressSanitizer|LeakSanitizer|runtime error|UndefinedBehaviorSanitizer' "$TMP/err"; then
    reasons+=("sanitizer report on stderr")
  fi
  if [[ $rc -eq 124 ]]; then
    reasons+=("timed out after ${TIMEOUT}s")
  elif [[ $rc -ne $want_rc ]]; then
    reasons+=("exit code $rc, expected $want_rc")
  fi
  if [[ ! -s $TMP/err ]]; then
    reasons+=("stderr is empty")
  elif [[ $err != *"$want_err"* ]]; then
    reasons+=("stderr lacks '$want_err'")
  fi
  if ((unknown_case)); then
    [[ -s $TMP/out ]] || reasons+=("no report on stdout")
    grep -q 'unknown op node' "$TMP/err" || reasons+=("stderr does not list the unknown op nodes")
  else
    [[ -s $TMP/out ]] && reasons+=("stdout not empty ($(wc -c <"$TMP/out") bytes of partial output)")
    nlines=$(wc -l <"$TMP/err")
    [[ $nlines -le 1 ]] || reasons+=("stderr has $nlines lines, expected one")
    [[ -s $TMP/err && $err != "rooflens: error: "* ]] && reasons+=("stderr does not start with 'rooflens: error: '")
  fi

  if ((${#reasons[@]} == 0)); then
    echo "PASS $name"
    pass=$((pass + 1))
  else
    msg=$(printf '%s; ' "${reasons[@]}")
    echo "FAIL $name: ${msg%; }"
    sed -n '1,15s/^/    | /p' "$TMP/err"
    fail=$((fail + 1))
  fi
done <"$CASES"

total=$((pass + fail))
echo "malformed corpus: $pass/$total passed, $fail failed ($BIN)"
if ((total == 0)); then
  echo "run_corpus: no cases in $CASES" >&2
  exit 1
fi
((fail == 0))
