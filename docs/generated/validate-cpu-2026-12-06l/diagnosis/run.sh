#!/bin/bash
# The diagnosis behind the twenty-fourth pass (2026-12-06, 19:10-19:45 UTC, binary 9c1028c):
# the ten generated networks exported to ONNX (../../validate-cpu-2026-12-06b/diagnosis/export_levels.cpp) and timed by `validate`
# beside twelve zoo models, in the same rounds (--repeat 3, batch 8), against a probe's table
# with its levels removed, so that each layer's measured / predicted time (the profile scaled
# to the end-to-end time and normalised by the run's host drift) can be compared between the
# generated networks and the zoo, shape by shape and class by class. validate reads the models
# of the directory beside its binary (models/zoo.json), so a copy of the binary is run from a
# directory whose models/ holds the exported networks and links to the zoo's files.
# Run from the repository root with a build in build/ and the venv's onnx.
set -e
P=${P:-docs/generated/validate-cpu-2026-12-06k/device-probe.json}
H=docs/generated/validate-cpu-2026-12-06l/diagnosis
PY=/opt/rooflens-venv/bin/python
g++ -std=c++20 -O1 -Iinclude -Ibuild/include docs/generated/validate-cpu-2026-12-06b/diagnosis/export_levels.cpp -o /tmp/export_levels \
  -Wl,--start-group build/librooflens_*.a -Wl,--end-group -lonnx -lonnx_proto -lprotobuf -lfmt -ldnnl -fopenmp
rm -rf /tmp/lz && mkdir -p /tmp/lz/bin /tmp/lz/models /tmp/lvlk /tmp/lz/lay8 /tmp/lz/pred8
/tmp/export_levels 8 /tmp/lvlk
cp build/rooflens /tmp/lz/bin/
for m in resnet50 mobilenet_v2 densenet121 efficientnet_b0 regnet_y_800mf resnext50_32x4d vgg16 \
         shufflenet_v2_x1_0 mobilenet_v3_large resnet18 mnasnet1_0 regnet_x_1_6gf; do
  ln -s $PWD/models/$m.onnx /tmp/lz/models/
done
ln -s /tmp/lvlk/*.onnx /tmp/lz/models/
$PY - "$P" <<'PYEOF'
import json, os, sys
ms = [{'name': f[:-5], 'file': f} for f in sorted(os.listdir('/tmp/lz/models')) if f.endswith('.onnx')]
json.dump({'schema': 'rooflens.zoo/1', 'models': ms}, open('/tmp/lz/models/zoo.json', 'w'), indent=1)
d = json.load(open(sys.argv[1])); d['kernel_table'].pop('network_levels', None)
json.dump(d, open('/tmp/lz/dev-nolevel.json', 'w'), indent=1)
PYEOF
(cd /tmp/lz && ./bin/rooflens validate --zoo --device /tmp/lz/dev-nolevel.json --batch 8 --repeat 3 \
   --max-seconds 0.5 --keep-going --layers-dir /tmp/lz/lay8 --format json -o /tmp/lz/v8-nolevel.json)
for f in /tmp/lz/models/*.onnx; do
  ./build/rooflens predict $f --device /tmp/lz/dev-nolevel.json --dtype fp32 --batch 8 --format json \
    -o /tmp/lz/pred8/$(basename $f .onnx).json || true   # level_shuffle's reshapes name batch 8 only
done
$PY $H/cls.py /tmp/lz/lay8 /tmp/lz/pred8 /tmp/lz/v8-nolevel.json > $H/by-class.txt
for c in pool eltwise gemm_skinny move; do
  $PY $H/cls_detail.py /tmp/lz/lay8 /tmp/lz/pred8 /tmp/lz/v8-nolevel.json $c > $H/detail-$c.txt
done
$PY $H/same.py /tmp/lz/lay8 /tmp/lz/pred8 /tmp/lz/v8-nolevel.json > $H/same-shapes.txt
$PY $H/align.py /tmp/lz/lay8 /tmp/lz/pred8 /tmp/lz/v8-nolevel.json > $H/channel-alignment.txt
