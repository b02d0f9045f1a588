#!/usr/bin/env bash
# Bad --engine input and bad corpora: `--engine nosuch`, an engine that does not apply to the
# device (pytorch-compile on a CPU), and a corpus CSV missing a column. Each case must exit 2
# with exactly one "rooflens: error: ..." line naming the problem, print nothing on stdout and
# write no output file. Then one good case per command prints the engine it describes.
# Usage: tests/cli/engine_errors.sh BINARY
set -uo pipefail
BIN=$(cd "$(dirname -- "$1")" && pwd)/$(basename -- "$1")
ROOT=$(cd "$(dirname -- "${BASH_SOURCE[0]}")/../.." && pwd)
M=$ROOT/models
TMP=$(mktemp -d "${TMPDIR:-/tmp}/rooflens-engine.XXXXXX")
trap 'rm -rf -- "$TMP"' EXIT
cd "$TMP" || exit 1

printf 'model,device,dtype,batch,throughput,source\nresnet50,h200,fp16,64,1000,x\n' >no_engine_col.csv
printf 'model,device,dtype,batch,engine,throughput,source\nresnet50,h200,fp16,64,pytorch-eager,14000,x\n' >good.csv

pass=0
fail=0
# check NAME WANT_STDERR_SUBSTRING -- ARGS...
check() {
  local name=$1 want=$2
  shift 3
  rm -f out.txt
  "$BIN" "$@" >stdout 2>stderr
  local rc=$? reasons=()
  [[ $rc -eq 2 ]] || reasons+=("exit $rc, want 2")
  [[ -s stdout ]] && reasons+=("stdout not empty")
  local n
  n=$(grep -c '^rooflens: error: ' stderr)
  [[ $n -eq 1 ]] || reasons+=("$n error lines")
  grep -qF -- "$want" stderr || reasons+=("stderr lacks '$want'")
  [[ -e out.txt ]] && reasons+=("output written")
  if ((${#reasons[@]})); then
    echo "FAIL $name: ${reasons[*]}"
    sed 's/^/    /' stderr | head -5
    fail=$((fail + 1))
  else
    echo "ok   $name: $(grep '^rooflens: error: ' stderr)"
    pass=$((pass + 1))
  fi
}

NO="no such engine profile"
CPU="does not apply to device"
for cmd in predict whatif doctor; do
  check "$cmd-nosuch" "$NO" -- $cmd "$M/resnet18.onnx" --device h200 --engine nosuch -o out.txt
  check "$cmd-compile-on-cpu" "$CPU" -- $cmd "$M/resnet18.onnx" --device epyc-milan-2c --dtype fp32 \
    --engine pytorch-compile -o out.txt
done
check study-nosuch "$NO" -- study --models resnet18 --device h200 --engine nosuch -o out.txt
check study-compile-on-cpu "$CPU" -- study --models resnet18 --device epyc-milan-2c --dtype fp32 \
  --engine pytorch-compile -o out.txt
check sss-nosuch "$NO" -- sss --index 0 --device h200 --engine nosuch -o out.txt
check sss-compile-on-cpu "$CPU" -- sss --index 0 --device epyc-milan-2c --dtype fp32 --engine pytorch-compile -o out.txt
check validate-nosuch "$NO" -- validate --engine nosuch --measurements good.csv -o out.txt
check validate-missing-column "no 'engine' column" -- validate --engine pytorch-eager \
  --measurements no_engine_col.csv -o out.txt

# Good cases: the output names the engine.
"$BIN" predict "$M/resnet18.onnx" --device h200 --batch 64 --engine pytorch-eager >p.txt 2>/dev/null &&
  grep -q 'engine pytorch-eager' p.txt && grep -q 'engine: pytorch-eager' p.txt && pass=$((pass + 1)) ||
  { echo "FAIL predict names the engine"; fail=$((fail + 1)); }
"$BIN" predict "$M/resnet18.onnx" --device h200 --batch 64 >p.txt 2>/dev/null && grep -q 'engine tensorrt' p.txt &&
  pass=$((pass + 1)) || { echo "FAIL predict names the default engine"; fail=$((fail + 1)); }
"$BIN" validate --engine pytorch-eager --measurements good.csv >v.txt 2>/dev/null && grep -q 'engine pytorch-eager' v.txt &&
  grep -q '^all: 1 points' v.txt && pass=$((pass + 1)) || { echo "FAIL validate --measurements"; fail=$((fail + 1)); }

echo "$pass passed, $fail failed"
((fail == 0))
