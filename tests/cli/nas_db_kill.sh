#!/usr/bin/env bash
# `rooflens nas --oracle train:... --db FILE` with real (tiny) trainings:
#  1. a run stores every training; the same run again (new --out) answers every evaluation
#     from the database ("from the database" on each progress line) and writes the same log;
#  2. a run killed with SIGKILL mid-way: every evaluation its JSONL log had finished is in the
#     database, and `nas-db check` finds the file sound;
#  3. `nas-db list` and `nas-db export` (read back as a csv: oracle's table).
# Skips (77) without the torch plugin (LibTorch) or Fashion-MNIST. About 30-60 s on 2 cores.
# Usage: tests/cli/nas_db_kill.sh BINARY
set -uo pipefail
BIN=$(cd "$(dirname -- "$1")" && pwd)/$(basename -- "$1")
[[ -f $(dirname -- "$BIN")/librooflens-torch.so ]] || { echo "skip: no librooflens-torch.so beside $BIN (built without LibTorch)"; exit 77; }
[[ -d /usr/share/datasets/fashion-mnist ]] || { echo "skip: no Fashion-MNIST (apt-get install dataset-fashion-mnist)"; exit 77; }
TMP=$(mktemp -d "${TMPDIR:-/tmp}/rooflens-nas-db-kill.XXXXXX")
trap 'rm -rf -- "$TMP"' EXIT
cd "$TMP" || exit 1
fail=0
DB=$TMP/train.sqlite
# The smallest trainings: 200 images, 100 test images, 1 thread; predicted throughput on v100.
COMMON=(nas --space sss --oracle train:fashion-mnist --train-subset 200 --test-subset 100 --train-threads 1
        --strategy random --seeds 1 --device v100 --dtype fp16 --batch 256 --db "$DB")

# 1. A short run, then the same run again: all from the database, the same log.
"$BIN" "${COMMON[@]}" --budget 6 -o first >first.out 2>first.err || { echo "FAIL first run: $(tail -3 first.err)"; exit 1; }
trained=$(grep -c 'evaluation [0-9]*:' first.err)
echo "ok   first run: $trained evaluations ($(grep -c 'from the database' first.err) from the database)"
"$BIN" "${COMMON[@]}" --budget 6 -o second >second.out 2>second.err || { echo "FAIL second run: $(tail -3 second.err)"; exit 1; }
evals=$(grep -c 'evaluation [0-9]*:' second.err)
reused=$(grep -c 'evaluation [0-9]*:.*(from the database)' second.err)
if [[ $evals -gt 0 && $reused -eq $evals ]]; then echo "ok   second run: all $evals evaluations from the database"
else echo "FAIL second run: $reused of $evals evaluations from the database"; grep 'evaluation' second.err | head -3; fail=1; fi
if cmp -s first/random-seed0.jsonl second/random-seed0.jsonl; then echo "ok   the second run's log equals the first's"
else echo "FAIL the logs differ: $(diff first/random-seed0.jsonl second/random-seed0.jsonl | head -4)"; fail=1; fi

# 2. A long run (another seed: new networks) killed after a few evaluations.
"$BIN" "${COMMON[@]}" --budget 100000 --seed-base 7 -o killed >/dev/null 2>killed.err &
pid=$!
for _ in $(seq 1 1200); do  # up to 120 s
  n=$(grep -c '"step"' killed/random-seed7.jsonl 2>/dev/null)
  ((${n:-0} >= 4)) && break
  kill -0 $pid 2>/dev/null || break
  sleep 0.1
done
kill -9 $pid 2>/dev/null
wait $pid 2>/dev/null
logged=$(grep -o '"arch":"[0-9:]*"' killed/random-seed7.jsonl | cut -d'"' -f4 | sort -u)
nlogged=$(wc -w <<<"$logged")
((nlogged >= 4)) || { echo "FAIL the killed run logged only $nlogged networks: $(tail -3 killed.err)"; fail=1; }
"$BIN" nas-db list "$DB" --rows >list.out 2>list.err || { echo "FAIL nas-db list: $(cat list.err)"; fail=1; }
missing=0
for arch in $logged; do grep -qE "^ *1 +$arch " list.out || { echo "FAIL $arch finished in the killed run's log but is not in the database"; missing=1; }; done
((missing)) && fail=1 || echo "ok   kill -9: all $nlogged networks the log had finished are in the database"
if "$BIN" nas-db check "$DB" >check.out 2>check.err; then echo "ok   $(cat check.out)"
else echo "FAIL nas-db check after the kill: $(cat check.out check.err)"; fail=1; fi

# 3. list and export.
grep -q "trainings in 1 group" list.out && echo "ok   nas-db list: $(head -1 list.out)" || { echo "FAIL nas-db list: $(head -3 list.out)"; fail=1; }
"$BIN" nas-db export "$DB" --out acc.csv 2>export.err || { echo "FAIL nas-db export: $(cat export.err)"; fail=1; }
if [[ $(head -1 acc.csv) == "arch,accuracy,train_seconds,trials" ]] && (( $(wc -l <acc.csv) >= nlogged + 1 )); then
  echo "ok   nas-db export: $(($(wc -l <acc.csv) - 1)) networks"
else echo "FAIL nas-db export: $(head -3 acc.csv)"; fail=1; fi
# The csv: oracle reads it (a network it lacks is refused with its name: enough to know it parsed).
"$BIN" nas --oracle csv:acc.csv --strategy random --budget 10 -o csvrun >/dev/null 2>csv.err
if grep -q "acc.csv: no row for network\|^\[1/1\]" csv.err; then echo "ok   the csv: oracle reads the export"
else echo "FAIL the csv: oracle on the export: $(tail -2 csv.err)"; fail=1; fi
exit $fail
