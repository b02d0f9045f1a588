#!/usr/bin/env bash
# `mpirun -n 3 rooflens nas --oracle train:...` (rank 0 + 2 worker ranks, docs/nas.md): the same
# networks get the same accuracies as the one-process run; `mpirun -n 1` is one process; a worker
# rank killed with SIGKILL on its 2nd job loses only that network: the run finishes on the other
# worker and records the loss in the log, result.json and the stdout summary. Real training on tiny subsets
# (200 train / 100 test Fashion-MNIST images). Skips (77) without mpirun, the mpi and torch plugins,
# or the dataset.
# Usage: tests/cli/nas_mpi.sh BUILD/rooflens
set -uo pipefail
BIN=$(cd "$(dirname -- "$1")" && pwd)/$(basename -- "$1")
DIR="$(dirname "$BIN")"
command -v mpirun >/dev/null || { echo "SKIP: mpirun not found (apt-get install openmpi-bin libopenmpi-dev)"; exit 77; }
[[ -f "$DIR/librooflens-torch.so" ]] || { echo "SKIP: no librooflens-torch.so beside $BIN (built without LibTorch)"; exit 77; }
[[ -f "$DIR/librooflens-mpi.so" ]] || { echo "SKIP: no librooflens-mpi.so beside $BIN (built without MPI)"; exit 77; }
[[ -f /usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz ]] ||
  { echo "SKIP: Fashion-MNIST not installed (apt-get install dataset-fashion-mnist)"; exit 77; }
TMP=$(mktemp -d "${TMPDIR:-/tmp}/rooflens-nas-mpi.XXXXXX")
trap 'rm -rf -- "$TMP"' EXIT
cd "$TMP" || exit 1

# --max-evals: the same 6 networks however the run is spread; --db none: nothing outside $TMP.
COMMON=(nas --oracle train:fashion-mnist --train-subset 200 --test-subset 100 --train-threads 1 --db none
        --strategy random --seed-base 3 --budget 1e9)
# CI runs as root; 3 ranks on a 2-core machine; --enable-recovery: a dead rank does not end the
# job, and mpirun exits once the others are done (with only --mca orte_abort_on_non_zero_status 0
# Open MPI 4.1 keeps the job alive too, but mpirun then hangs after every rank has exited).
# mpirun's exit status does not tell whether rank 0 succeeded: check the outputs.
MPIRUN=(mpirun --allow-run-as-root --oversubscribe --bind-to none --enable-recovery)
fail=0

"$BIN" "${COMMON[@]}" --max-evals 6 -o one >/dev/null 2>one.stderr && [[ -f one/result.json ]] ||
  { echo "FAIL one-process run: $(tail -3 one.stderr)"; exit 1; }
"${MPIRUN[@]}" -n 3 "$BIN" "${COMMON[@]}" --max-evals 6 -o mpi >/dev/null 2>mpi.stderr && [[ -f mpi/result.json ]] ||
  { echo "FAIL mpirun -n 3: $(tail -5 mpi.stderr)"; exit 1; }

# (index, oracle_seed) -> accuracy from a log; the comparison of two logs.
cat >cmp.py <<'PY'
import json, sys
def evals(path):
    out, lost = {}, []
    for line in open(path):
        j = json.loads(line)
        if "step" in j: out[(j["index"], j["oracle_seed"])] = j["accuracy"]
        if j.get("lost") is True: lost.append((j["index"], j["oracle_seed"]))
    return out, lost
a, _ = evals(sys.argv[1])
b, lost = evals(sys.argv[2])
want_lost = int(sys.argv[3])
bad = [k for k in b if k not in a or a[k] != b[k]]
if bad: sys.exit("accuracies differ or networks not in the one-process run: %s" % [(k, a.get(k), b[k]) for k in bad])
if len(lost) != want_lost: sys.exit("%d lost evaluations logged, expected %d" % (len(lost), want_lost))
if len(b) + len(lost) != len(a): sys.exit("%d evaluated + %d lost, expected %d" % (len(b), len(lost), len(a)))
if any(k not in a for k in lost): sys.exit("a lost network is not one the one-process run evaluated")
print("%d networks, identical accuracies%s" % (len(b), ", %d lost" % len(lost) if lost else ""))
PY
if msg=$(python3 cmp.py one/random-seed3.jsonl mpi/random-seed3.jsonl 0 2>&1); then echo "ok   mpirun -n 3 vs one process: $msg"
else echo "FAIL mpirun -n 3 vs one process: $msg"; fail=1; fi
if grep -q "(rank 1)" mpi.stderr && grep -q "(rank 2)" mpi.stderr; then echo "ok   both worker ranks trained"
else echo "FAIL progress lines do not show both worker ranks: $(grep evaluation mpi.stderr | head -6)"; fail=1; fi

"${MPIRUN[@]}" -n 1 "$BIN" "${COMMON[@]}" --max-evals 2 -o single >/dev/null 2>single.stderr &&
  [[ -f single/result.json ]] && ! grep -q "MPI:" single.stderr && echo "ok   mpirun -n 1 runs as one process" ||
  { echo "FAIL mpirun -n 1: $(tail -3 single.stderr)"; fail=1; }

# Rank 2 is killed (SIGKILL) when its 2nd job arrives; rank 0 hears nothing from it for 3 s.
ROOFLENS_TEST_KILL_WORKER=2:2 ROOFLENS_MPI_LIVENESS_S=3 "${MPIRUN[@]}" -x ROOFLENS_TEST_KILL_WORKER \
  -x ROOFLENS_MPI_LIVENESS_S -n 3 "$BIN" "${COMMON[@]}" --max-evals 6 -o killed >killed.stdout 2>killed.stderr
rc=$?
if [[ $rc -eq 0 && -f killed/result.json ]]; then echo "ok   run with a killed worker rank finished (mpirun exit 0)"
else echo "FAIL run with a killed worker rank: exit $rc: $(tail -8 killed.stderr)"; fail=1; fi
if msg=$(python3 cmp.py one/random-seed3.jsonl killed/random-seed3.jsonl 1 2>&1); then echo "ok   killed worker: $msg"
else echo "FAIL killed worker: $msg"; fail=1; fi
if grep -q "LOST .* with rank 2" killed.stderr && grep -q '"lost"' killed/result.json &&
   grep -q "^lost: 1 evaluation(s) with their worker rank" killed.stdout; then
  echo "ok   the lost network is reported (stderr, result.json, the stdout summary)"
else echo "FAIL the lost network is not reported: $(grep -i lost killed.stderr | head -3)"; fail=1; fi
exit $fail
