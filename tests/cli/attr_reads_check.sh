#!/usr/bin/env bash
# scripts/check-attr-reads.sh passes on this tree and fails on a copy with an attribute read
# injected outside src/ops/ (and on one that hides behind an exception's file but not its rule).
# Usage: attr_reads_check.sh SOURCE_DIR
set -euo pipefail
src="${1:?usage: attr_reads_check.sh SOURCE_DIR}"
check="$src/scripts/check-attr-reads.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$check" "$src" || { echo "FAIL: the tree itself does not pass the check"; exit 1; }

copy() {
  rm -rf "$tmp/tree"
  mkdir -p "$tmp/tree"
  cp -r "$src/src" "$src/cli" "$src/include" "$tmp/tree/"
  "$check" "$tmp/tree" || { echo "FAIL: an unchanged copy does not pass"; exit 1; }
}

expect_failure() {  # FILE LINE: the injected line must be reported, naming FILE
  local file="$1" line="$2" out rc=0
  printf '%s\n' "$line" >>"$tmp/tree/$file"
  out=$("$check" "$tmp/tree" 2>&1) || rc=$?
  [[ "$rc" == 1 ]] || { echo "FAIL: exit $rc (expected 1) after injecting into $file"; exit 1; }
  grep -q "$file" <<<"$out" || { echo "FAIL: the report does not name $file:"; echo "$out"; exit 1; }
}

copy
expect_failure src/cost/analysis.cpp '// injected: auto it = n.attrs.find("strides");'
copy
expect_failure src/exec/cuda/conv.cpp '// injected: const auto st = attr_ints_or(n, "strides", {1, 1});'
copy
expect_failure src/exec/reference/meta.cpp '// injected: auto start = ctx.attr_int("start", 0);'
echo "ok: the check passes on the tree and fails on three injected reads"
