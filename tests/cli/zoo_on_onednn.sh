#!/usr/bin/env bash
# Every bundled model runs on the oneDNN backend (validate --zoo), except the ones it refuses
# by design, each for the op type named here: a model newly refused, or a refused one that
# now runs, fails the test until this list says so.
# usage: zoo_on_onednn.sh ROOFLENS OUT.json
set -euo pipefail
"$1" validate --zoo --keep-going --max-seconds 0.5 --format json -o "$2"
python3 - "$2" <<'PY'
import json, sys
refused_by_design = {}  # model -> op type, as docs/generated/support.md lists them
j = json.load(open(sys.argv[1]))
failed = {f["model"]: f["error"] for f in j["failures"]}
bad = [f"{m}: {e}" for m, e in failed.items() if m not in refused_by_design or refused_by_design[m] not in e]
bad += [f"{m} ran, but is listed as refused ({op})" for m, op in refused_by_design.items() if m not in failed]
if bad:
    sys.exit("zoo_on_onednn:\n  " + "\n  ".join(bad))
print(f"{len(j['models'])} models ran; refused as expected: {', '.join(sorted(failed)) or 'none'}")
PY
