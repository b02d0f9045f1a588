#!/bin/bash
# Predicts the zoo with BINARY against the tables of three earlier probes and compares with the
# validate runs recorded beside them (docs/validation.md, "The weights' stream at batch 1").
# Usage (repository root): docs/generated/validate-cpu-2026-12-05e/recorded-runs.sh [BINARY]
set -e
R=${1:-build/rooflens}; G=docs/generated; T=$(mktemp -d)
p() { "$R" predict --zoo --batch "$2" --dtype fp32 --device "$1" --format json -o "$T/$3.json" 2>/dev/null; }
p $G/validate-cpu-2026-12-05d/device-probe.json 1 d1
p $G/validate-cpu-2026-12-05b/device-probe-5.json 1 b1
p $G/validate-cpu-2026-12-05b/device-probe-5.json 8 b8
p $G/validate-cpu-2026-12-05/device-probe-3.json 8 a8
python3 $G/validate-cpu-2026-12-05e/fidelity_of.py \
  $T/d1.json:$G/validate-cpu-2026-12-05d/run1-b1.json $T/d1.json:$G/validate-cpu-2026-12-05d/run2-b1.json \
  $T/b1.json:$G/validate-cpu-2026-12-05b/run5-b1.json $T/b1.json:$G/validate-cpu-2026-12-05b/run6-b1.json \
  $T/b8.json:$G/validate-cpu-2026-12-05b/run5-b8.json $T/b8.json:$G/validate-cpu-2026-12-05b/run6-b8.json \
  $T/a8.json:$G/validate-cpu-2026-12-05/run3-b8.json
rm -rf "$T"
