#!/bin/bash
# The probe's table with its in-network levels taken three ways, each predicting the zoo at
# batch 1 and 8 (predict only, no timing): none; per class only (the eighteenth pass's
# scheme: the keys CLASS@N dropped, so grouped convolutions take the overall level); per class
# and position (as probed, landed). Then each against the normalised medians of both pairs of
# runs (compare-variants.py). Usage: level-variants.sh FOLDER (holding device-probe.json and
# run{1,2}-b{1,8}.json); writes FOLDER/variants/ (device files not kept: the probe's, edited).
D=$(realpath "${1:?folder}")
cd "$(dirname "$0")/../../.."
mkdir -p $D/variants
python3 - "$D" <<'PY'
import json, sys
d = sys.argv[1]
dev = json.load(open(f"{d}/device-probe.json"))
def write(name, edit):
    j = json.loads(json.dumps(dev))
    edit(j["kernel_table"])
    json.dump(j, open(f"{d}/variants/{name}.json", "w"), indent=1)
write("none", lambda kt: kt.pop("network_levels"))
write("per-class", lambda kt: [l.update(classes={k: v for k, v in l["classes"].items() if "@" not in k})
                               for l in kt["network_levels"]])
write("by-position", lambda kt: None)
PY
for v in none per-class by-position; do
  for b in 1 8; do
    ./build/rooflens predict --zoo --device $D/variants/$v.json --dtype fp32 --batch $b --format json \
      -o $D/variants/$v-b$b.json
  done
  rm $D/variants/$v.json
done
python3 docs/generated/validate-cpu-2026-12-06b/compare-variants.py "$D" > $D/variants.md
