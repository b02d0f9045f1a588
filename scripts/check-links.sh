#!/usr/bin/env bash
# Checks that every relative link in the tracked Markdown files (README.md, docs/**.md) resolves:
# the file or directory exists and, for `file.md#anchor`, the anchor is a heading of that file
# (GitHub's slug rule). Links to http(s) and mailto are not fetched. Prints each broken link
# as FILE:LINE: LINK and exits 1 if there is one.
# Usage: scripts/check-links.sh [FILE.md...]
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -eq 0 ]; then
  mapfile -t files < <(git ls-files -- 'README.md' 'docs/*.md' 'docs/**/*.md' | sort -u)
else
  files=("$@")
fi
python3 - "${files[@]}" <<'PY'
import os, re, sys
def slug(h):
    h = re.sub(r'[`*_]', '', h.strip().lower())
    h = re.sub(r'[^\w\- ]', '', h)
    return h.replace(' ', '-')
def anchors(path):
    out, fence = set(), False
    for l in open(path, encoding='utf-8'):
        if l.startswith('```'): fence = not fence
        m = None if fence else re.match(r'^#{1,6} (.*)', l)
        if m: out.add(slug(m.group(1)))
    return out
bad = 0
link = re.compile(r'\[[^\]]*\]\(([^)\s]+)\)')
for f in sys.argv[1:]:
    fence = False
    for n, line in enumerate(open(f, encoding='utf-8'), 1):
        if line.startswith('```'): fence = not fence
        if fence: continue
        for target in link.findall(re.sub(r'`[^`]*`', '', line)):
            if re.match(r'^(https?:|mailto:)', target): continue
            path, _, anchor = target.partition('#')
            dest = os.path.normpath(os.path.join(os.path.dirname(f), path)) if path else f
            ok = os.path.exists(dest)
            if ok and anchor and dest.endswith('.md'):
                ok = anchor in anchors(dest)
            if not ok:
                print(f"{f}:{n}: {target}"); bad += 1
sys.exit(1 if bad else 0)
PY
