#!/usr/bin/env bash
# Checks C++ sources against .clang-format without changing them. Prints each file whose
# formatting differs (with the number of lines that would change) and exits 1 if any does,
# 0 if all are formatted, 2 if clang-format is missing or a named file does not exist, 77 if
# clang-format is not version 14 (Debian 12's, which the tree is formatted with: other versions
# break lines differently, so their verdict would not be about the tree).
# Usage: scripts/check-format.sh [FILE...]
#   default: every tracked *.cpp *.h *.cu under src/ cli/ include/ tests/ bench/ fuzz/ python/
# To fix a file: clang-format -i FILE.
set -uo pipefail
cd "$(dirname "$0")/.."
CF=${CLANG_FORMAT:-clang-format}
if ! command -v "$CF" >/dev/null; then
  echo "check-format: $CF not found (Debian: apt-get install clang-format)" >&2
  exit 2
fi
major=$("$CF" --version | sed -n 's/.*version \([0-9]*\).*/\1/p')
if [ "$major" != "14" ]; then
  echo "check-format: skipped: $CF is version ${major:-unknown}; the tree is formatted with clang-format 14" >&2
  exit 77
fi
if [ $# -gt 0 ]; then
  files=("$@")
else
  mapfile -t files < <(git ls-files -- 'src/*.cpp' 'src/*.h' 'src/*.cu' 'cli/*.cpp' 'cli/*.h' 'cli/*.cu' \
    'include/*.cpp' 'include/*.h' 'include/*.cu' 'tests/*.cpp' 'tests/*.h' 'tests/*.cu' \
    'bench/*.cpp' 'bench/*.h' 'bench/*.cu' 'fuzz/*.cpp' 'fuzz/*.h' 'fuzz/*.cu' 'python/*.cpp' 'python/*.h')
fi
bad=0
lines=0
for f in "${files[@]}"; do
  if [ ! -f "$f" ]; then
    echo "check-format: $f: no such file" >&2
    exit 2
  fi
  n=$("$CF" --style=file "$f" | diff "$f" - | grep -c '^<')
  if [ "$n" -gt 0 ]; then
    echo "$f: $n lines differ"
    bad=$((bad + 1))
    lines=$((lines + n))
  fi
done
if [ "$bad" -gt 0 ]; then
  echo "check-format: $bad of ${#files[@]} files differ from .clang-format ($lines lines); fix with clang-format -i FILE" >&2
  exit 1
fi
exit 0
