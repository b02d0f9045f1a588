#!/usr/bin/env bash
# `rooflens nas-db` on files that are not results databases: a text file, random bytes, a
# missing file, a directory, an SQLite file of another application, a damaged one: each
# ends with exit 2 and one error line naming the file, never a crash, and changes nothing.
# Also `nas --db` misuse. Needs no training (no LibTorch, no dataset).
# Usage: tests/cli/nas_db_refusals.sh BINARY
set -uo pipefail
BIN=$(cd "$(dirname -- "$1")" && pwd)/$(basename -- "$1")
TMP=$(mktemp -d "${TMPDIR:-/tmp}/rooflens-nas-db-refusals.XXXXXX")
trap 'rm -rf -- "$TMP"' EXIT
cd "$TMP" || exit 1
fail=0

# check NAME EXPECTED_RC TEXT -- ARGS...: exit code, and TEXT in stderr with the file named.
check() {
  local name=$1 want=$2 text=$3
  shift 4
  "$BIN" "$@" >"$name.out" 2>"$name.err"
  local rc=$?
  if [[ $rc -ne $want ]]; then
    echo "FAIL $name: exit $rc, expected $want: $(head -3 "$name.err")"; fail=1; return
  fi
  if ! grep -qF -- "$text" "$name.err" "$name.out"; then
    echo "FAIL $name: '$text' not in the output: $(head -3 "$name.err")"; fail=1; return
  fi
  echo "ok   $name: $(head -1 "$name.err")"
}

printf 'arch,accuracy\n8:8:8:8:8,80\n' >notes.txt
head -c 8192 /dev/urandom >random.bin
mkdir adir
for action in list export check; do
  check "text_$action" 2 "notes.txt: not an SQLite database" -- nas-db $action notes.txt
  check "random_$action" 2 "random.bin: not an SQLite database" -- nas-db $action random.bin
  check "missing_$action" 2 "missing.sqlite: no such file" -- nas-db $action missing.sqlite
  check "dir_$action" 2 "adir: is a directory" -- nas-db $action adir
done
[[ -e missing.sqlite ]] && { echo "FAIL nas-db created missing.sqlite"; fail=1; }
cmp -s notes.txt <(printf 'arch,accuracy\n8:8:8:8:8,80\n') || { echo "FAIL notes.txt changed"; fail=1; }

# Random bytes behind a valid SQLite header: SQLite's own refusal, still one line, exit 2.
{ printf 'SQLite format 3\0'; head -c 8192 /dev/urandom; } >fake.sqlite
check fake_header 2 "fake.sqlite" -- nas-db list fake.sqlite

if command -v sqlite3 >/dev/null; then
  sqlite3 other.sqlite "CREATE TABLE people (name TEXT); INSERT INTO people VALUES ('ada');"
  before=$(md5sum <other.sqlite)
  check foreign_list 2 "another application" -- nas-db list other.sqlite
  check foreign_check 2 "another application" -- nas-db check other.sqlite
  [[ $(md5sum <other.sqlite) == "$before" ]] || { echo "FAIL the foreign file changed"; fail=1; }
  [[ $(sqlite3 other.sqlite "SELECT count(*) FROM sqlite_master") == 1 ]] || { echo "FAIL tables created in the foreign file"; fail=1; }
else
  echo "note: no sqlite3 program: the foreign-file case is covered by rooflens_store_tests only"
fi

# --db misuse (rejected before any training).
check db_not_train 2 "--db: only the training oracle" -- nas --oracle csv:x.csv --db x.sqlite -o out
check db_comma 2 "may not contain ','" -- nas --oracle train:fashion-mnist --db a,b.sqlite -o out
if [[ -f $(dirname -- "$BIN")/librooflens-torch.so && -d /usr/share/datasets/fashion-mnist ]]; then
  probe=$("$BIN" nas --oracle train:fashion-mnist --train-subset 200 --test-subset 100 --db notes.txt -o out 2>&1)
  if [[ $probe == *"built without LibTorch"* ]]; then
    echo "skip db_text: this build has no LibTorch, so the training oracle refuses before opening --db"
  else
    check db_text 2 "notes.txt: not an SQLite database" -- nas --oracle train:fashion-mnist --train-subset 200 \
      --test-subset 100 --db notes.txt -o out
  fi
fi
exit $fail
