#!/bin/bash
# The constant Pad's layout: the landed binary (old) and the new one alternating, inception_v3
# and maxvit_t at batches 1 and 8, three rounds; --verify once per model with the new binary.
cd /work/main
O=${O:-/tmp/z3/padab}; mkdir -p $O
for r in 1 2 3; do
  for m in inception_v3 maxvit_t; do
    for b in 1 8; do
      for bin in old new; do
        B=/tmp/z3/rooflens-old; [ $bin = new ] && B=./build/rooflens
        $B measure models/$m.onnx --batch $b --max-seconds 2 --device docs/generated/validate-cpu-2026-12-06m/device-probe.json --format json -o $O/$m-b$b-$bin-r$r.json > $O/$m-b$b-$bin-r$r.log 2>&1
      done
    done
  done
done
for m in inception_v3 maxvit_t; do ./build/rooflens measure models/$m.onnx --batch 1 --max-seconds 1 --verify > $O/$m-verify.txt 2>&1; done
echo finished > $O/done
