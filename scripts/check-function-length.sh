#!/usr/bin/env bash
# Fails when a function in src/ or cli/ is longer than LIMIT lines (default 150), naming each
# (issue 25: one job per function). Universal Ctags (Debian universal-ctags) finds the
# functions. Usage: scripts/check-function-length.sh [LIMIT] [ROOT]
set -euo pipefail
limit=${1:-150}
root=${2:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$root"
command -v ctags >/dev/null || { echo "check-function-length: ctags not found (apt-get install universal-ctags)" >&2; exit 2; }
mapfile -t files < <(find src cli -type f \( -name '*.cpp' -o -name '*.h' -o -name '*.cu' \) | sort)
long=$(ctags --map-C++=+.cu --fields=+ne --kinds-C++=f -x --_xformat="%F:%n %N %e" "${files[@]}" 2>/dev/null |
  awk -v lim="$limit" '{ split($1, a, ":"); n = $3 - a[2] + 1; if (n > lim) printf "  %s %s (%d lines)\n", $1, $2, n }')
if [[ -n "$long" ]]; then
  echo "functions over $limit lines (split them by job):"
  echo "$long"
  exit 1
fi
echo "check-function-length: no function over $limit lines in src/ and cli/ (${#files[@]} files)"
