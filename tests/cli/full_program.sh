#!/usr/bin/env bash
# `rooflens` links neither CUDA nor LibTorch and hands the commands that need them to
# `rooflens-full` beside it (cli/entry/entry.h). Checks: the light program's libraries, the
# hand-over of the GPU probe, the CUDA backend and the training oracle, and that other
# commands stay in the light program.
# Usage: tests/cli/full_program.sh BUILD/rooflens
set -uo pipefail
BIN="$1"
DIR="$(cd "$(dirname "$BIN")" && pwd)"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
fail=0
ok() { echo "PASS $1"; }
bad() { echo "FAIL $1: $2"; fail=1; }

libs="$(ldd "$BIN")"
if grep -qE "libcudnn|libcublas|libcudart|libtorch|libc10|libmpi" <<<"$libs"; then
  bad light_libraries "rooflens links CUDA, LibTorch or MPI: $(grep -E 'cudnn|cublas|cudart|torch|c10|libmpi' <<<"$libs" | tr -s ' \t\n' ' ')"
else
  ok light_libraries
fi

if [[ ! -x "$DIR/rooflens-full" ]]; then
  echo "SKIP hand-over: no rooflens-full in $DIR (built without CUDA and LibTorch)"
  exit $fail
fi

# Each command below fails on this machine or runs there; what matters is who answered:
# the light program's stubs say "built without", rooflens-full never does.
check_forwarded() {
  local name="$1"; shift
  local err
  err="$("$BIN" "$@" 2>&1 >/dev/null)"
  if grep -q "built without" <<<"$err"; then bad "$name" "answered by the light program: $err"; else ok "$name"; fi
}
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
check_forwarded probe_gpu probe gpu --gpu 99 --quiet -o "$tmp/gpu.json"
check_forwarded measure_cuda measure "$ROOT/models/resnet18.onnx" --backend cuda --batch 1 --max-seconds 0.1
check_forwarded measure_cuda_eq measure "$ROOT/models/resnet18.onnx" --backend=cuda --batch 1 --max-seconds 0.1

# Not handed over: the light program answers analyze itself (its own /proc/self/exe).
out="$("$BIN" analyze "$ROOT/models/resnet18.onnx" --format csv 2>&1)" && ok analyze_light || bad analyze_light "$out"
exit $fail
