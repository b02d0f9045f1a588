#!/bin/bash
# The A/B of the MatMul weight layouts (twenty-sixth pass, 01:48-02:15 UTC): the binary before
# (9b45e46, copied to /tmp/rooflens-old) and after (/tmp/rooflens-new) alternating, two rounds;
# the outputs are in out.tgz, summarised by summ.py.
cd /work/main
O=/tmp/mmab/out; mkdir -p $O
for r in 1 2; do
  for m in vit_b_16 vit_l_16 swin_b convnext_base; do
    for b in 1 8; do
      for bin in old new; do
        B=/tmp/rooflens-$bin
        ROOFLENS_TACTIC_CACHE=/tmp/mmab/tactics-$bin.json $B measure models/$m.onnx --batch $b --max-seconds 2 --device docs/generated/validate-cpu-2026-12-06m/device-probe.json --format json -o $O/$m-b$b-$bin-r$r.json > $O/$m-b$b-$bin-r$r.log 2>&1
      done
    done
  done
done
for m in vit_b_16 convnext_base; do /tmp/rooflens-new measure models/$m.onnx --batch 1 --max-seconds 1 --verify > $O/$m-verify.txt 2>&1; done
echo finished > $O/done
