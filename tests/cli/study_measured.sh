#!/usr/bin/env bash
# `rooflens study --source measured` against `rooflens measure` run alone on the same models
# and batch: the two measurements of each model must agree within their reported spread
# (their interquartile ranges overlap). Prints the table it checked. Slow (label `slow`);
# meaningful only on a quiet machine.
# Usage: tests/cli/study_measured.sh BINARY [MODELS] [BATCH]
set -euo pipefail
BIN=$(cd "$(dirname -- "$1")" && pwd)/$(basename -- "$1")
MODELS=${2:-resnet18,mobilenet_v2,efficientnet_b0,squeezenet1_1}
BATCH=${3:-8}
SECONDS_PER=${MAX_SECONDS:-5}
ROOT=$(cd "$(dirname -- "${BASH_SOURCE[0]}")/../.." && pwd)
TMP=$(mktemp -d "${TMPDIR:-/tmp}/rooflens-study-measured.XXXXXX")
trap 'rm -rf -- "$TMP"' EXIT

"$BIN" study --models "$MODELS" --source measured --batch "$BATCH" --no-fold --max-seconds "$SECONDS_PER" \
  --report "$TMP/report" --format json -o "$TMP/study.json" 2>/dev/null
for m in ${MODELS//,/ }; do
  "$BIN" measure "$ROOT/models/$m.onnx" --batch "$BATCH" --max-seconds "$SECONDS_PER" --format json -o "$TMP/$m.json"
done
python3 - "$TMP" "$MODELS" <<'PY'
import json, sys
tmp, models = sys.argv[1], sys.argv[2].split(",")
study = {m["name"]: m for m in json.load(open(f"{tmp}/study.json"))["models"]}
html = open(f"{tmp}/report/index.html").read()
bad = 0
print(f"{'model':<18}{'study (img/s)':>16}{'IQR':>22}{'measure (img/s)':>18}{'IQR':>22}{'ratio':>8}")
for m in models:
    s, r = study[m], json.load(open(f"{tmp}/{m}.json"))
    s_lo, s_hi = s["throughput_q1"], s["throughput_q3"]
    r_lo, r_hi = r["throughput_q1"], r["throughput_q3"]
    ok = max(s_lo, r_lo) <= min(s_hi, r_hi) * 1.0000001 and s["batch"] == r["batch"]
    bad += not ok
    print(f"{m:<18}{s['throughput']:>16.2f}{f'{s_lo:.2f}..{s_hi:.2f}':>22}{r['throughput']:>18.2f}"
          f"{f'{r_lo:.2f}..{r_hi:.2f}':>22}{s['throughput'] / r['throughput']:>8.3f}{'' if ok else '  OUTSIDE'}")
if "measured on this CPU" not in html:
    print("the report does not say the numbers are measured"); bad += 1
sys.exit(1 if bad else 0)
PY
