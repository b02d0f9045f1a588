#!/usr/bin/env bash
# Bad input around transformers (issue 29): a model with an op the CPU backend cannot run is
# refused by `measure` naming the node (fixtures/unlowered_einsum.onnx, a one-operand Einsum:
# exit 2, one error line, nothing on stdout); a model with an op rooflens does not know is refused by `analyze` without
# --allow-unknown, and with it still reports everything else (the attention block of
# fixtures/unknown_op_attention.onnx costed in full: 65,536 MACs, the unknown node listed).
# Usage: tests/cli/transformer_bad_input.sh BINARY
set -uo pipefail
BIN=$(cd "$(dirname -- "$1")" && pwd)/$(basename -- "$1")
ROOT=$(cd "$(dirname -- "${BASH_SOURCE[0]}")/../.." && pwd)
FIX=$ROOT/tests/cli/fixtures/unknown_op_attention.onnx
TMP=$(mktemp -d "${TMPDIR:-/tmp}/rooflens-transformer-bad.XXXXXX")
trap 'rm -rf -- "$TMP"' EXIT
cd "$TMP" || exit 1

fail=0
bad() {
  echo "FAIL $1: $2"
  sed 's/^/    /' stderr | head -5
  fail=$((fail + 1))
}

# 1. measure refuses a one-operand Einsum before running anything, naming the node and why.
"$BIN" measure "$ROOT/tests/cli/fixtures/unlowered_einsum.onnx" --max-seconds 1 --no-host-reference >stdout 2>stderr
rc=$?
want="oneDNN backend cannot run Einsum node 'k.swap': Einsum 'bjd->bdj' of one operand (a product of two is lowered)"
if [[ $rc -ne 2 ]]; then
  bad measure_einsum "exit $rc, want 2"
elif [[ -s stdout ]]; then
  bad measure_einsum "stdout not empty"
elif [[ $(grep -c '^rooflens: error: ' stderr) -ne 1 ]] || ! grep -qF -- "$want" stderr; then
  bad measure_einsum "want one error line with: $want"
else
  echo "ok   measure_einsum: $(cat stderr)"
fi

# 2. analyze without --allow-unknown: exit 2, the unknown op grouped by type and named.
"$BIN" analyze "$FIX" --format json >stdout 2>stderr
rc=$?
if [[ $rc -ne 2 ]]; then
  bad analyze_unknown "exit $rc, want 2"
elif ! grep -qF 'FrobnicateOp x1 (frob) (pass --allow-unknown to accept)' stderr; then
  bad analyze_unknown "stderr lacks the grouped unknown op and the hint"
else
  echo "ok   analyze_unknown: $(tail -1 stderr)"
fi

# 3. analyze --allow-unknown: exit 0, the rest costed, the unknown node listed and not costed.
"$BIN" analyze "$FIX" --allow-unknown --format json >out.json 2>stderr
rc=$?
if [[ $rc -ne 0 ]]; then
  bad analyze_allow_unknown "exit $rc, want 0"
else
  why=$(/usr/bin/python3 - out.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
t = d["totals"]
layers = {L["name"]: L for L in d["layers"]}
problems = []
if t["macs"] != 65536:
    problems.append("MACs %s, want 65536 (QKV 49,152 + Q.K^T 8,192 + A.V 8,192)" % t["macs"])
if t["params"] != 3136:
    problems.append("params %s, want 3136" % t["params"])
for name in ("ln", "qkv", "scores"):
    if name not in layers or not layers[name].get("flops"):
        problems.append("layer %s missing or not costed" % name)
if "frob" not in json.dumps(d["unknown_nodes"]):
    problems.append("frob not among unknown_nodes: %s" % d["unknown_nodes"])
print("; ".join(problems))
PY
  )
  if [[ -n $why ]]; then
    bad analyze_allow_unknown "$why"
  elif ! grep -qF 'FrobnicateOp x1 (frob)' stderr; then
    bad analyze_allow_unknown "stderr does not list the unknown node"
  else
    echo "ok   analyze_allow_unknown: 65536 MACs, 3136 params, frob listed"
  fi
fi

# 4. measure on the same file: refused (an op that is not costed), naming it.
"$BIN" measure "$FIX" --max-seconds 1 --no-host-reference >stdout 2>stderr
rc=$?
if [[ $rc -ne 2 || -s stdout ]] || ! grep -qF 'FrobnicateOp x1 (frob)' stderr; then
  bad measure_unknown "exit $rc, want 2, empty stdout and the node named"
else
  echo "ok   measure_unknown: $(grep '^rooflens: error: ' stderr)"
fi

((fail == 0)) && echo "transformer bad input: all passed" || echo "transformer bad input: $fail failed"
((fail == 0))
