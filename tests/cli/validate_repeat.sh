#!/usr/bin/env bash
# validate --max-repeat: rounds past --repeat go only to models whose median is not settled,
# and stop at the cap. Timing-independent: fewer than 4 runs never settle and, with --settle 1
# (+-100%), any 4 positive runs do; so --repeat 2 --max-repeat 6 gives exactly 4 runs per model,
# and a cap of 3 stops at 3.
# usage: validate_repeat.sh ROOFLENS
set -euo pipefail
bin=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
runs() {
  python3 -c 'import json,sys; print(" ".join(str(len(m["runs"])) for m in json.load(open(sys.argv[1]))["models"]))' "$1"
}
"$bin" validate --models squeezenet1_1,alexnet --repeat 2 --max-repeat 6 --settle 1 --max-seconds 0.05 \
  --no-host-reference --format json -o "$work/a.json" 2>/dev/null
[[ $(runs "$work/a.json") == "4 4" ]] || { echo "expected 4 runs each, got: $(runs "$work/a.json")"; exit 1; }
"$bin" validate --models squeezenet1_1 --repeat 2 --max-repeat 3 --settle 1 --max-seconds 0.05 \
  --no-host-reference --format json -o "$work/b.json" 2>/dev/null
[[ $(runs "$work/b.json") == "3" ]] || { echo "expected 3 runs (the cap), got: $(runs "$work/b.json")"; exit 1; }
echo "validate --max-repeat: extra rounds until settled, at most the cap"
