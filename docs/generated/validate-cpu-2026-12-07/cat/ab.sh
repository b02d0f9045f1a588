#!/bin/bash
# The concatenation along outer axes as a host pass: the binary before (2f0b851's exec code,
# /tmp/rooflens-mm) and after (/tmp/rooflens-cat) alternating, two rounds, against the
# twenty-sixth pass's probe; --verify once per model with the new one.
cd /work/main
O=/tmp/catab/out; mkdir -p $O
P=docs/generated/validate-cpu-2026-12-07/device-probe.json
for r in 1 2; do
  for m in vit_b_16 swin_t swin_b densenet121; do
    for b in 1 8; do
      for bin in mm cat; do
        ROOFLENS_TACTIC_CACHE=/tmp/catab/tactics-$bin.json /tmp/rooflens-$bin measure models/$m.onnx --batch $b --max-seconds 2 --device $P --format json -o $O/$m-b$b-$bin-r$r.json > $O/$m-b$b-$bin-r$r.log 2>&1
      done
    done
  done
done
for m in vit_b_16 swin_t densenet121; do /tmp/rooflens-cat measure models/$m.onnx --batch 1 --max-seconds 1 --verify > $O/$m-verify.txt 2>&1; done
echo finished > $O/done
