#!/usr/bin/env bash
# `rooflens nas` and `nas-db` on mistakes a user makes (issue 25, "The CLI as a user meets it"):
# each ends with exit 2 and exactly one error line naming what is wrong, and writes nothing.
#  - --oracle csv:DIR (a directory, not the table);
#  - --resume into a folder that never held these runs: missing, empty, or unrelated;
#  - an unknown oracle scheme: the message lists train: too;
#  - nas-db list --limit 0: a short message, not CLI11's range of doubles;
#  - under mpirun, a refused flag: said by rank 0 only, every rank exits 2;
# and the help says what --budget, --jobs and the training flags really take.
# Usage: tests/cli/nas_user_errors.sh BINARY
set -uo pipefail
BIN=$(cd "$(dirname -- "$1")" && pwd)/$(basename -- "$1")
TMP=$(mktemp -d "${TMPDIR:-/tmp}/rooflens-nas-user-errors.XXXXXX")
trap 'rm -rf -- "$TMP"' EXIT
cd "$TMP" || exit 1
fail=0

# check NAME TEXT -- ARGS...: exit 2, one line on stderr holding TEXT, nothing on stdout.
check() {
  local name=$1 text=$2
  shift 3
  "$BIN" "$@" >"$name.out" 2>"$name.err"
  local rc=$?
  local lines
  lines=$(wc -l <"$name.err")
  if [[ $rc -ne 2 ]]; then echo "FAIL $name: exit $rc, expected 2: $(head -3 "$name.err")"; fail=1; return; fi
  if [[ $lines -ne 1 ]]; then echo "FAIL $name: $lines lines on stderr, expected one: $(head -3 "$name.err")"; fail=1; return; fi
  if [[ -s $name.out ]]; then echo "FAIL $name: wrote to stdout: $(head -3 "$name.out")"; fail=1; return; fi
  if ! grep -qF -- "$text" "$name.err"; then echo "FAIL $name: '$text' not in: $(cat "$name.err")"; fail=1; return; fi
  echo "ok   $name: $(cat "$name.err")"
}

printf 'arch,accuracy\n8:8:8:8:8,70\n' >one_net.csv
mkdir adir empty unrelated
echo "notes" >unrelated/notes.txt

check oracle_dir "adir: is a directory" -- nas --oracle csv:adir -o out1
[[ -e out1 ]] && { echo "FAIL oracle_dir created its --out"; fail=1; }

check resume_missing "nothing to resume" -- nas --oracle csv:one_net.csv --resume -o missing
[[ -e missing ]] && { echo "FAIL resume_missing created the folder"; fail=1; }
check resume_empty "nothing to resume" -- nas --oracle csv:one_net.csv --resume -o empty
[[ -n $(ls -A empty) ]] && { echo "FAIL resume_empty wrote into the folder: $(ls -A empty)"; fail=1; }
check resume_unrelated "nothing to resume" -- nas --oracle csv:one_net.csv --resume -o unrelated
[[ $(ls -A unrelated) == notes.txt ]] || { echo "FAIL resume_unrelated changed the folder: $(ls -A unrelated)"; fail=1; }
# A log of another strategy is not one of these runs either.
mkdir other && echo '{}' >other/rea-seed0.jsonl
check resume_other_runs "random-seed0.jsonl" -- nas --oracle csv:one_net.csv --resume --strategy random -o other

check unknown_oracle "train:" -- nas --oracle http://x -o out2
[[ -e out2 ]] && { echo "FAIL unknown_oracle created its --out"; fail=1; }

# Under mpirun (its environment, without mpirun itself): a refused flag is said once, by rank 0;
# every rank exits 2.
OMPI_COMM_WORLD_SIZE=3 OMPI_COMM_WORLD_RANK=0 check mpi_rank0 "under mpirun" -- nas --oracle csv:one_net.csv -o out3
OMPI_COMM_WORLD_SIZE=3 OMPI_COMM_WORLD_RANK=1 "$BIN" nas --oracle csv:one_net.csv -o out3 >mpi_rank1.out 2>mpi_rank1.err
rc=$?
if [[ $rc -ne 2 || -s mpi_rank1.err || -s mpi_rank1.out ]]; then
  echo "FAIL mpi_rank1: exit $rc (expected 2, silently): $(head -2 mpi_rank1.err)"; fail=1
else echo "ok   mpi_rank1: exit 2, nothing printed (rank 0 says it)"; fi
[[ -e out3 ]] && { echo "FAIL mpi refusal created its --out"; fail=1; }

check db_limit_0 "--limit" -- nas-db list --limit 0 nothing.sqlite
if [[ $(wc -c <db_limit_0.err) -gt 160 ]]; then echo "FAIL db_limit_0: message of $(wc -c <db_limit_0.err) characters"; fail=1; fi
[[ -e nothing.sqlite ]] && { echo "FAIL db_limit_0 created the database"; fail=1; }

"$BIN" nas --help >help.txt 2>&1
grep -q -- "--budget.*simulated seconds per run" help.txt && { echo "FAIL help: --budget still says simulated seconds"; fail=1; }
grep -q -- "wall seconds of each" help.txt || { echo "FAIL help: --budget does not name the measured clock"; fail=1; }
grep -q -- "go one at a time" help.txt || { echo "FAIL help: --jobs does not say training ignores it"; fail=1; }
for flag in --epochs --train-batch --train-threads; do
  grep -E -q -- "$flag INT" help.txt || { echo "FAIL help: $flag is not typed INT: $(grep -- "$flag" help.txt)"; fail=1; }
done
grep -E -q -- "--train-subset INT\|all" help.txt || { echo "FAIL help: --train-subset is not typed INT|all"; fail=1; }
[[ $fail -eq 0 ]] && echo "ok   nas help: --budget, --jobs and the training flags"
exit $fail
