#!/bin/bash
# The probe's table with its in-network levels taken four ways, each predicting the zoo at
# batch 1 and 8 (predict only, no timing): none; per class only (keys CLASS@N dropped);
# "nineteenth": as the nineteenth pass took them (move_copy set to the move class's level, so
# that copies take the concatenations' as they did then; the points conv@112 and conv@224 that
# only the new plain_full network gives dropped); by position (as probed, landed). Then each
# against the normalised medians of the runs (../validate-cpu-2026-12-06b/compare-variants.py,
# which knows the variants none, per-class and by-position; "nineteenth" is listed by
# compare.py here). Usage: level-variants.sh FOLDER; writes FOLDER/variants/.
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
def nineteenth(kt):
    for l in kt["network_levels"]:
        c = l["classes"]
        for k in ("conv@112", "conv@224"):
            c.pop(k, None)
        if "move" in c:
            c["move_copy"] = c["move"]
        else:
            c.pop("move_copy", None)
write("none", lambda kt: kt.pop("network_levels"))
write("per-class", lambda kt: [l.update(classes={k: v for k, v in l["classes"].items() if "@" not in k})
                               for l in kt["network_levels"]])
write("nineteenth", nineteenth)
write("by-position", lambda kt: None)
PY
R=${ROOFLENS:-./build/rooflens}
for v in none per-class nineteenth by-position; do
  for b in 1 8; do
    $R predict --zoo --device $D/variants/$v.json --dtype fp32 --batch $b --format json \
      -o $D/variants/$v-b$b.json
  done
  rm $D/variants/$v.json
done
python3 "$(dirname "$0")/compare.py" "$D" > $D/variants.md
