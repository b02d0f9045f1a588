#!/usr/bin/env bash
# Compares `rooflens probe cpu` with a plain hand-written FMA loop (bench/fma_loop.cpp) in the
# same run: loop, probe, loop (A-B-A, so drift from other tenants shows as a difference between
# the two loop runs). Prints, per ISA and thread count, the loop's best variant (best over
# accumulator counts) beside the probe's FP32 figure, and the ratio. The issue asks for the
# probe within 10% of the loop.
#
# Usage: bench/probe_vs_loop.sh [BUILD_DIR] [extra probe flags, e.g. --quick]
# Needs python3 (any interpreter) for the JSON. Writes its raw outputs to $OUT_DIR (default: a
# temporary directory, printed at the end): loop1.json, loop2.json, probe.txt (the probe's
# table), probe.json (rooflens.probe/1) and local.json (the device file).
set -euo pipefail

BUILD=${1:-build}
shift || true
ROOFLENS="$BUILD/rooflens"
LOOP="$BUILD/bench/rooflens_fma_loop"
for f in "$ROOFLENS" "$LOOP"; do
  [[ -x "$f" ]] || { echo "probe_vs_loop: $f not built (cmake --build $BUILD)" >&2; exit 2; }
done
OUT_DIR=${OUT_DIR:-$(mktemp -d)}
mkdir -p "$OUT_DIR"

echo "load before: $(cat /proc/loadavg)" >&2
"$LOOP" --json > "$OUT_DIR/loop1.json"
"$ROOFLENS" probe cpu --quiet --json "$OUT_DIR/probe.json" --out "$OUT_DIR/local.json" "$@" > "$OUT_DIR/probe.txt"
"$LOOP" --json > "$OUT_DIR/loop2.json"
echo "load after:  $(cat /proc/loadavg)" >&2

python3 - "$OUT_DIR" <<'EOF'
import json, sys, os
d = sys.argv[1]
loops = [json.load(open(os.path.join(d, f))) for f in ("loop1.json", "loop2.json")]
probe = json.load(open(os.path.join(d, "probe.json")))
print(f"probe {probe['date']}: clock {probe['theoretical_model']['clock_hz']/1e9:.3f} GHz, "
      f"{probe['repeats']} repeats x {probe['seconds_per_repeat']['compute']} s")
print(f"{'isa':7} {'threads':>7} {'loop A best':>12} {'loop B best':>12} {'loop acc':>8} "
      f"{'probe median':>13} {'probe best':>11} {'probe/loop':>10}   (GFLOP/s)")
for row in loops[0]["best"]:
    isa, t = row["isa"], row["threads"]
    other = [r for r in loops[1]["best"] if r["isa"] == isa and r["threads"] == t]
    b = other[0]["best_flops"] if other else float("nan")
    loop_best = max(row["best_flops"], b)
    p = [c for c in probe["compute"] if c["dtype"] == "fp32" and c["isa"] == isa and c["threads"] == t]
    if not p:
        continue
    pb, pm = p[0]["flops"]["best"], p[0]["flops"]["median"]
    print(f"{isa:7} {t:>7} {row['best_flops']/1e9:>12.1f} {b/1e9:>12.1f} {row['accumulators']:>8} "
          f"{pm/1e9:>13.1f} {pb/1e9:>11.1f} {pb/loop_best:>10.2f}")
for w in probe["warnings"]:
    print("probe warning:", w)
EOF
echo "raw outputs: $OUT_DIR" >&2
