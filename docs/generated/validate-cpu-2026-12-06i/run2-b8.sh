#!/bin/bash
cd /work/main
s=$(date +%s)
./build/rooflens validate --zoo --keep-going --max-seconds 0.5 --device /work/main/docs/generated/validate-cpu-2026-12-06i/device-probe.json --format json --repeat 3 --batch 8 -o /work/main/docs/generated/validate-cpu-2026-12-06i/run2-b8.json > /work/main/docs/generated/validate-cpu-2026-12-06i/run2-b8.log 2>&1
echo "run2-b8 $(date -u -d @$s) - $(date -u)" >> /work/main/docs/generated/validate-cpu-2026-12-06i/meas.times
