#!/usr/bin/env bash
# One program, plugins loaded on demand (include/rooflens/plugin/plugin.h). Checks: `rooflens`
# links no CUDA, cuDNN, LibTorch or MPI library; `measure --backend cuda` and `probe gpu` are
# answered by the cuda plugin (this machine may have no GPU: then the plugin says "no CUDA
# device"), or, in a build without CUDA, by the loader's "built without CUDA"; a plugin that
# cannot load is named with its path and the loader's error; the torch plugin trains; other
# commands load no plugin.
# Usage: tests/cli/plugins.sh BUILD/rooflens
set -uo pipefail
BIN=$(cd "$(dirname -- "$1")" && pwd)/$(basename -- "$1")
DIR=$(dirname -- "$BIN")
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
fail=0
ok() { echo "PASS $1"; }
bad() { echo "FAIL $1: $2"; fail=1; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

libs="$(ldd "$BIN")"
if grep -qE "libcudnn|libcublas|libcudart|libcuda\.|libtorch|libc10|libmpi" <<<"$libs"; then
  bad program_libraries "rooflens links CUDA, LibTorch or MPI: $(grep -E 'cud|torch|c10|libmpi' <<<"$libs" | tr -s ' \t\n' ' ')"
else
  ok program_libraries
fi

# Who answered a CUDA command: the plugin (its own errors) when it is beside the program, else
# the loader's "built without CUDA". Never a loading failure.
check_cuda() {
  local name="$1"; shift
  local err
  err="$("$BIN" "$@" 2>&1 >/dev/null)"
  if [[ -f "$DIR/librooflens-cuda.so" ]]; then
    if grep -qE "built without|not installed|cannot be loaded" <<<"$err"; then bad "$name" "not the plugin's answer: $err"
    else ok "$name ($(head -1 <<<"$err"))"; fi
  elif grep -q "built without CUDA" <<<"$err"; then ok "$name (built without CUDA)"
  else bad "$name" "expected 'built without CUDA': $err"; fi
}
check_cuda probe_gpu probe gpu --gpu 99 --quiet -o "$tmp/gpu.json"
check_cuda measure_cuda measure "$ROOT/models/resnet18.onnx" --backend cuda --batch 1 --max-seconds 0.1
check_cuda validate_cuda validate --backend cuda --dtype fp16 --modes eager,graph --models resnet18 --batch 1 \
  --max-seconds 0.1 --layers-dir "$tmp/layers" --keep-going
check_cuda study_measured_cuda study --source measured --backend cuda --models resnet18 --no-fold
check_cuda doctor_measured_cuda doctor "$ROOT/models/resnet18.onnx" --measured --backend cuda --dtype fp16 --batch 1
# Without a GPU the measured CUDA paths end with one line and exit 2 (input/unavailable), not 1.
if [[ -f "$DIR/librooflens-cuda.so" ]] && ! command -v nvidia-smi >/dev/null; then
  for cmd in "validate --backend cuda --models resnet18" "study --source measured --backend cuda --models resnet18" \
             "doctor $ROOT/models/resnet18.onnx --measured --backend cuda"; do
    # shellcheck disable=SC2086
    err="$("$BIN" $cmd 2>&1 >/dev/null)"; rc=$?
    if [[ $rc -eq 2 && $err == "rooflens: error: no CUDA device: "* && $(wc -l <<<"$err") -eq 1 ]]; then
      ok "no_gpu_exit_2 (${cmd%% *})"
    else
      bad "no_gpu_exit_2 (${cmd%% *})" "exit $rc: $err"
    fi
  done
fi

# A plugin that is there but cannot load: the message names it, its path and dlerror().
mkdir -p "$tmp/bin"
cp "$BIN" "$tmp/bin/rooflens"
printf "not a shared library %.0s" $(seq 20) >"$tmp/bin/librooflens-cuda.so"  # longer than an ELF header
err="$("$tmp/bin/rooflens" measure "$ROOT/models/resnet18.onnx" --backend cuda --batch 1 2>&1 >/dev/null)"; rc=$?
if [[ -f "$DIR/librooflens-cuda.so" ]]; then
  if [[ $rc -eq 2 && $err == *"the cuda plugin $tmp/bin/librooflens-cuda.so cannot be loaded"* && $err == *"invalid ELF header"* ]]; then
    ok broken_plugin_named
  else
    bad broken_plugin_named "exit $rc: $err"
  fi
fi

# The torch plugin: one tiny training (200 images) through `nas --oracle train:`.
if [[ -f "$DIR/librooflens-torch.so" && -f /usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz ]]; then
  out="$("$BIN" nas --oracle train:fashion-mnist --train-subset 200 --test-subset 100 --db none --strategy random \
        --max-evals 1 --budget 1e9 -o "$tmp/nas" 2>&1)" && [[ -f "$tmp/nas/result.json" ]] && ok torch_trains ||
    bad torch_trains "$(tail -3 <<<"$out")"
fi

# No plugin for the other commands: analyze runs with a broken cuda plugin beside it.
out="$("$tmp/bin/rooflens" analyze "$ROOT/models/resnet18.onnx" --format csv 2>&1)" && ok analyze_loads_no_plugin ||
  bad analyze_loads_no_plugin "$out"
exit $fail
