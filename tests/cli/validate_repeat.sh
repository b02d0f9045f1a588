#!/usr/bin/env bash
# validate --max-repeat: rounds past --repeat go to the models whose median is not settled,
# and stop at the cap. Timing-independent: fewer than 4 runs never settle, so --repeat 2
# --max-repeat 6 gives every model 4 to 6 runs, and a cap of 3 gives exactly 3. (When a median
# settles is median_settled's, tested on fixed runs in tests/unit/host_state_test.cpp; here the
# timings decide it.)
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
[[ $(runs "$work/a.json" | wc -w) == 2 ]] || { echo "expected two models, got: $(runs "$work/a.json")"; exit 1; }
for n in $(runs "$work/a.json"); do
  ((n >= 4 && n <= 6)) || { echo "expected 4 to 6 runs each, got: $(runs "$work/a.json")"; exit 1; }
done
"$bin" validate --models squeezenet1_1 --repeat 2 --max-repeat 3 --settle 1 --max-seconds 0.05 \
  --no-host-reference --format json -o "$work/b.json" 2>/dev/null
[[ $(runs "$work/b.json") == "3" ]] || { echo "expected 3 runs (the cap), got: $(runs "$work/b.json")"; exit 1; }
python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); sys.exit(0 if (j["repeat"], j["max_repeat"], j["settle"]) == (2, 3, 1) else "the output does not record --repeat 2 --max-repeat 3 --settle 1")' "$work/b.json"
echo "validate --max-repeat: at least 4 runs (none settles before), at most the cap"
