#!/usr/bin/env bash
# analyze, predict and measure share one set of model-loading flags (--input-shape, cli/loading.h):
# each loads resnet18 at 3x112x112 and they agree on the FLOPs per image (a quarter of 224's);
# a bad shape is refused by each with the same message and exit 2.
# Usage: model_loading_flags.sh ROOFLENS_BINARY
set -euo pipefail
BIN=$1
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
MODEL=$ROOT/models/resnet18.onnx
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
field() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$1" "$2"; }

"$BIN" analyze "$MODEL" --input-shape 3x112x112 --format json -o "$TMP/a.json"
"$BIN" analyze "$MODEL" --format json -o "$TMP/a224.json"
"$BIN" predict "$MODEL" --input-shape 3x112x112 --batch 1 --device epyc-milan-2c --dtype fp32 --format json -o "$TMP/p.json"
"$BIN" measure "$MODEL" --input-shape 3x112x112 --batch 1 --threads 1 --max-seconds 0.5 --format json -o "$TMP/m.json"

A=$(field "$TMP/a.json" "d['totals']['flops']")
A224=$(field "$TMP/a224.json" "d['totals']['flops']")
P=$(field "$TMP/p.json" "int(d['flops_per_image'])")
M=$(field "$TMP/m.json" "round(d['achieved_flops'] / d['throughput'])")
[ "$(field "$TMP/a.json" "d['input_shapes'][0]")" = "[1, 3, 112, 112]" ] || fail "analyze did not take the shape"
[ "$(field "$TMP/m.json" "d['inputs']")" = "input 1x3x112x112" ] || fail "measure ran $(field "$TMP/m.json" "d['inputs']")"
[ "$A" = "$P" ] || fail "analyze $A FLOPs, predict $P"
python3 -c "import sys; a,m=float(sys.argv[1]),float(sys.argv[2]); sys.exit(0 if abs(m/a-1) < 1e-3 else 1)" "$A" "$M" \
  || fail "analyze $A FLOPs per image, measure $M"
python3 -c "import sys; r=float(sys.argv[1])/float(sys.argv[2]); sys.exit(0 if 0.2 < r < 0.3 else 1)" "$A" "$A224" \
  || fail "112x112 should cost about a quarter of 224x224: $A vs $A224"

for cmd in "analyze" "predict --device epyc-milan-2c --dtype fp32 --batch 1" "measure --max-seconds 0.2"; do
  set +e
  # shellcheck disable=SC2086
  OUT=$("$BIN" $cmd "$MODEL" --input-shape 3xAx4 -o "$TMP/bad.out" 2>&1)
  RC=$?
  set -e
  [ "$RC" = 2 ] || fail "$cmd with a bad shape exited $RC"
  grep -q -- "--input-shape '3xAx4': 'A' is not a positive integer" <<<"$OUT" || fail "$cmd said: $OUT"
  [ ! -e "$TMP/bad.out" ] || fail "$cmd wrote an output file on bad input"
done
echo "ok: analyze, predict and measure agree at 3x112x112 ($A FLOPs per image)"
