#!/bin/bash
# The same probe's table with its in-network levels taken four ways, each predicting the zoo at
# batch 1 and 8 (predict only; the measurements are run1-b{1,8}.json): none, the overall level
# only, per class as probed, per class with grouped convolutions taking the overall level.
# Usage: level-variants.sh FOLDER (holding device-probe.json); writes FOLDER/$VARIANTS (default variants)/ the device files and each one's predictions (the device files are not kept in the repo: they are the probe's with the levels edited)
D=$(realpath "${1:?folder}")
cd "$(dirname "$0")/../../.."
V=${VARIANTS:-variants}; mkdir -p $D/$V
python3 - "$D" "$V" <<'PY'
import json, sys
d = sys.argv[1]
dev = json.load(open(f"{d}/device-probe.json"))
def write(name, edit):
    j = json.loads(json.dumps(dev))
    edit(j["kernel_table"])
    json.dump(j, open(f"{d}/{sys.argv[2]}/{name}.json", "w"), indent=1)
write("none", lambda kt: kt.pop("network_levels"))
write("overall", lambda kt: [l.pop("classes", None) for l in kt["network_levels"]])
write("per-class", lambda kt: None)
write("per-class-grouped-overall", lambda kt: [l["classes"].pop("conv_grouped", None) for l in kt["network_levels"]])
PY
for v in none overall per-class per-class-grouped-overall; do
  for b in 1 8; do
    ./build/rooflens predict --zoo --device $D/$V/$v.json --dtype fp32 --batch $b --format json \
      -o $D/$V/$v-b$b.json
  done
done
