#!/bin/bash
# The per-layer diagnosis that led to the level by position (2026-12-06, 03:55-04:10 UTC, binary
# 86d2f43, the eighteenth pass's probe): the zoo's grouped-convolution models and a few others
# at batch 1 and 8 with every layer's measured and predicted time (validate --layers-dir), the
# generated networks of that binary the same way (exported to ONNX by export_levels.cpp), then
# per class, output side and group width the measured (profile scaled to end to end) over
# predicted time. Run from the repository root with a build in build/ and the venv's onnx.
set -e
P=docs/generated/validate-cpu-2026-12-06/device-probe.json
H=docs/generated/validate-cpu-2026-12-06b/diagnosis
g++ -std=c++20 -O1 -Iinclude -Ibuild/include $H/export_levels.cpp -o /tmp/export_levels \
  -Wl,--start-group build/librooflens_*.a -Wl,--end-group -lonnx -lonnx_proto -lprotobuf -lfmt -ldnnl -fopenmp
mkdir -p /tmp/lvl /tmp/lay/b1 /tmp/lay/b8 /tmp/lay/g1 /tmp/lay/g8
/tmp/export_levels 1 /tmp/lvl
M=$(ls models | grep -E "regnet|resnext" | sed 's/.onnx//' | tr '\n' , | sed 's/,$//')
./build/rooflens validate --models $M,resnet50,mobilenet_v2,densenet121,vgg16 --device $P --batch 1 \
  --max-seconds 0.5 --layers-dir /tmp/lay/b1 --format json -o /tmp/lay/v1.json
./build/rooflens validate --models $M,resnet50,mobilenet_v2,densenet121,vgg16,mobilenet_v3_large,efficientnet_b0 \
  --device $P --batch 8 --max-seconds 0.5 --layers-dir /tmp/lay/b8 --format json -o /tmp/lay/v8.json
for b in 1 8; do
  for f in /tmp/lvl/*.onnx; do
    n=$(basename $f .onnx)
    ./build/rooflens measure $f --device $P --batch $b --max-seconds 1 --format json -o /tmp/lay/g$b/$n-fp32-b$b-cpu.json
  done
done
PY=/opt/rooflens-venv/bin/python
$PY $H/grouped.py /tmp/lay/b1 > $H/grouped-b1.txt
$PY $H/grouped.py /tmp/lay/b8 > $H/grouped-b8.txt
for d in b1 b8 g1 g8; do for c in pw conv; do $PY $H/pw.py /tmp/lay/$d $c > $H/$c-$d.txt; done; done
$PY $H/share.py /tmp/lay/b8 > $H/se-fc-b8.txt
for v in pw,conv,dw pw,conv pw; do echo "== by position: $v"; $PY $H/sim.py $v; done > $H/sim.txt
