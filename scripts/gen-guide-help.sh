#!/usr/bin/env bash
# Refreshes the --help blocks of docs/guide/*.md from the built CLI, so the guide's flag lists
# stay what the program says. A block is the text between
#   <!-- BEGIN help: ARGS -->   and   <!-- END help -->
# and becomes a fenced block holding `rooflens ARGS --help`. Nothing else in a page changes.
# Usage: scripts/gen-guide-help.sh [path/to/rooflens]   (default: build/rooflens)
set -euo pipefail
BIN=$(realpath "${1:-build/rooflens}")
cd "$(dirname "$0")/.."
for page in docs/guide/*.md; do
  python3 - "$BIN" "$page" <<'PY'
import re, subprocess, sys
binary, page = sys.argv[1], sys.argv[2]
text = open(page).read()
def block(m):
    args = m.group(1).split()
    out = subprocess.run([binary, *args, "--help"], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"gen-guide-help: {page}: rooflens {' '.join(args)} --help exited {out.returncode}")
    help_text = out.stdout.rstrip("\n").replace(binary.rsplit("/", 1)[0] + "/", "")
    return f"<!-- BEGIN help: {m.group(1)} -->\n```\n$ rooflens {m.group(1)} --help\n{help_text}\n```\n<!-- END help -->"
new = re.sub(r"<!-- BEGIN help: (.*?) -->.*?<!-- END help -->", block, text, flags=re.S)
if new != text:
    open(page, "w").write(new)
    print(f"updated {page}")
PY
done
