#!/usr/bin/env bash
# `rooflens study --source measured` against `rooflens measure` run alone on the same models
# and batch. This host's speed drifts between invocations by more than one run's
# interquartile range (seen: +-15% between back-to-back runs of the same command), so the
# two commands alternate for ROUNDS rounds and the check is: the median of the study's
# numbers lies inside the spread `measure` reports over those rounds (from the lowest first
# quartile to the highest third quartile), widened by 15% each way: a tight model's spread
# (ResNet-18: 117.6..124.8 img/s) missed a study median of 115.2 once on the shared 2-vCPU
# host (2026-12-04), and the check is for a study that measures something else (another batch,
# thread count or unit: a factor, not a few percent). Prints every number it checked. Slow
# (label `slow`).
# Usage: [ROUNDS=3] [MAX_SECONDS=4] tests/cli/study_measured.sh BINARY [MODELS] [BATCH]
set -euo pipefail
BIN=$(cd "$(dirname -- "$1")" && pwd)/$(basename -- "$1")
MODELS=${2:-resnet18,mobilenet_v2,efficientnet_b0,squeezenet1_1}
BATCH=${3:-8}
ROUNDS=${ROUNDS:-3}
SECONDS_PER=${MAX_SECONDS:-4}
ROOT=$(cd "$(dirname -- "${BASH_SOURCE[0]}")/../.." && pwd)
TMP=$(mktemp -d "${TMPDIR:-/tmp}/rooflens-study-measured.XXXXXX")
trap 'rm -rf -- "$TMP"' EXIT

for ((r = 0; r < ROUNDS; ++r)); do
  "$BIN" study --models "$MODELS" --source measured --batch "$BATCH" --no-fold --max-seconds "$SECONDS_PER" \
    --report "$TMP/report$r" --format json -o "$TMP/study$r.json" 2>/dev/null
  for m in ${MODELS//,/ }; do
    "$BIN" measure "$ROOT/models/$m.onnx" --batch "$BATCH" --max-seconds "$SECONDS_PER" --format json -o "$TMP/$m.$r.json"
  done
done
python3 - "$TMP" "$MODELS" "$ROUNDS" <<'PY'
import json, statistics, sys
tmp, models, rounds = sys.argv[1], sys.argv[2].split(","), int(sys.argv[3])
studies = [{m["name"]: m for m in json.load(open(f"{tmp}/study{r}.json"))["models"]} for r in range(rounds)]
bad = 0
print(f"{'model':<17}{'study runs (img/s)':>28}{'median':>9}{'measure runs (img/s)':>28}{'spread (q1..q3)':>18}{'ratio':>7}")
for m in models:
    s = [st[m]["throughput"] for st in studies]
    ms = [json.load(open(f"{tmp}/{m}.{r}.json")) for r in range(rounds)]
    t = [x["throughput"] for x in ms]
    lo, hi = min(x["throughput_q1"] for x in ms) / 1.15, max(x["throughput_q3"] for x in ms) * 1.15
    med = statistics.median(s)
    ok = lo <= med <= hi and all(st[m]["batch"] == x["batch"] for st, x in zip(studies, ms))
    bad += not ok
    print(f"{m:<17}{' '.join(f'{v:.1f}' for v in s):>28}{med:>9.1f}{' '.join(f'{v:.1f}' for v in t):>28}"
          f"{f'{lo:.1f}..{hi:.1f}':>18}{med / statistics.median(t):>7.3f}{'' if ok else '  OUTSIDE'}")
html = open(f"{tmp}/report0/index.html").read()
if "measured on this CPU" not in html:
    print("the report does not say the numbers are measured"); bad += 1
sys.exit(1 if bad else 0)
PY
