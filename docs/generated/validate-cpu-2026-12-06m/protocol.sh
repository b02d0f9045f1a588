#!/bin/bash
# Issue 30, twenty-fifth pass: the first readings on an AMD EPYC (Zen 3, AVX2) 2-vCPU VM.
# The probe and a per-layer run of 14 models at batches 8 and 1 (diagnosis/diag.sh) came
# first; then the whole zoo against the same probe: batch 1 (--repeat 3), then batch 8
# (--repeat 2: a batch-8 zoo run with --repeat 3 takes about 80 minutes on this host).
D=$(realpath "${1:?output folder}")
cd "$(dirname "$D")/../.."
V="./build/rooflens validate --zoo --keep-going --max-seconds 0.5 --device $D/device-probe.json --format json"
s=$(date +%s)
$V --repeat 3 --batch 1 -o $D/run1-b1.json > $D/run1-b1.log 2>&1
echo "run1-b1 $(date -u -d @$s) - $(date -u)" >> $D/meas.times
s=$(date +%s)
$V --repeat 2 --batch 8 -o $D/run1-b8.json > $D/run1-b8.log 2>&1
echo "run1-b8 $(date -u -d @$s) - $(date -u)" >> $D/meas.times
echo finished >> $D/meas.times
