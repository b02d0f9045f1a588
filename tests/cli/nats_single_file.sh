#!/usr/bin/env bash
# `rooflens sss ARCH --nats FILE` on a single-file fixture (NATS-Bench's
# NATS-sss-v1_0-50262.pickle.pbz2 layout holding networks 0, 11 and 284, written from the
# genuine files by ctest's nats_single_file_fixture) prints exactly what `--nats DIR` prints;
# `--accuracy nats:FILE --all` colours Figure 3 by the 3 networks it holds; a truncated or
# foreign file is one error line naming the file and exit 2.
# Usage: tests/cli/nats_single_file.sh BINARY FIXTURE DIR        (exit 77: no fixture / data)
set -uo pipefail
BIN=$(cd "$(dirname -- "$1")" && pwd)/$(basename -- "$1")
FILE=$2
DIR=$3
[[ -f $FILE && -d $DIR ]] || { echo "fixture $FILE or data $DIR not found (needs ../shared/data)"; exit 77; }
TMP=$(mktemp -d "${TMPDIR:-/tmp}/rooflens-nats-single.XXXXXX")
trap 'rm -rf -- "$TMP"' EXIT
fail=0
for arch in 8:8:8:8:8 8:8:8:16:32 8:8:40:32:40; do
  "$BIN" sss "$arch" --nats "$DIR" >"$TMP/dir.txt" 2>"$TMP/dir.err" || { echo "FAIL $arch --nats DIR: $(cat "$TMP/dir.err")"; fail=1; continue; }
  "$BIN" sss "$arch" --nats "$FILE" >"$TMP/file.txt" 2>"$TMP/file.err" || { echo "FAIL $arch --nats FILE: $(cat "$TMP/file.err")"; fail=1; continue; }
  if cmp -s "$TMP/dir.txt" "$TMP/file.txt" && grep -q 'final accuracy (%: hp 90' "$TMP/file.txt"; then
    echo "ok   $arch: --nats FILE prints what --nats DIR prints"
  else
    echo "FAIL $arch: outputs differ"; diff "$TMP/dir.txt" "$TMP/file.txt"; fail=1
  fi
  if grep -q "reading $FILE" "$TMP/file.err"; then echo "ok   $arch: progress on stderr"; else echo "FAIL $arch: no progress on stderr"; fail=1; fi
done
"$BIN" sss --all --device epyc-milan-2c --dtype fp32 --accuracy "nats:$FILE" -o "$TMP/all.csv" >"$TMP/all.txt" 2>"$TMP/all.err" \
  || { echo "FAIL --all --accuracy nats:FILE: $(tail -2 "$TMP/all.err")"; fail=1; }
if grep -q 'networks predicted' "$TMP/all.txt"; then echo "ok   --all with nats:FILE"; else echo "FAIL --all with nats:FILE"; fail=1; fi
# Damaged files: exit 2, one error line naming the file.
head -c 20000 "$FILE" >"$TMP/cut.pickle.pbz2"
printf 'not bzip2 at all' >"$TMP/foreign.pickle.pbz2"
for bad in "$TMP/cut.pickle.pbz2" "$TMP/foreign.pickle.pbz2"; do
  "$BIN" sss 8:8:8:8:8 --nats "$bad" >/dev/null 2>"$TMP/bad.err"
  rc=$?
  lines=$(grep -c '^rooflens: error: ' "$TMP/bad.err")
  if [[ $rc -eq 2 && $lines -eq 1 ]] && grep -q "$bad: bzip2: " "$TMP/bad.err"; then
    echo "ok   $(basename "$bad"): exit 2, $(grep '^rooflens: error: ' "$TMP/bad.err")"
  else
    echo "FAIL $(basename "$bad"): exit $rc, stderr: $(cat "$TMP/bad.err")"; fail=1
  fi
done
exit $fail
