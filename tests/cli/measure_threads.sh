#!/usr/bin/env bash
# measure's default thread count is the CPUs the process may use: under `taskset -c 0` one
# thread, not every CPU of the machine (two threads on one CPU would measure their sharing).
# usage: measure_threads.sh ROOFLENS MODELS_DIR
set -euo pipefail
command -v taskset >/dev/null || { echo "SKIP: taskset (util-linux) not installed"; exit 0; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
taskset -c 0 "$1" measure "$2/squeezenet1_1.onnx" --max-seconds 0.05 --no-host-reference --format json \
  -o "$work/m.json" >/dev/null 2>&1
t=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["threads"])' "$work/m.json")
[[ $t == 1 ]] || { echo "taskset -c 0: measured with $t threads, expected 1"; exit 1; }
echo "measure under taskset -c 0: 1 thread"
