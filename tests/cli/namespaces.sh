#!/usr/bin/env bash
# scripts/check-namespaces.py passes on the tree and fails, naming the file and the namespace,
# on a copy with a namespace outside the scheme injected: a stray top-level namespace, and a
# module declaring another module's namespace.
# Usage: tests/cli/namespaces.sh [SOURCE_DIR]
set -uo pipefail
SRC=$(cd "${1:-$(dirname -- "${BASH_SOURCE[0]}")/../..}" && pwd)
out=$("$SRC/scripts/check-namespaces.py" "$SRC" 2>&1) || { echo "$out"; echo "FAIL the tree: the check fails on it"; exit 1; }
echo "ok   the tree passes"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
expect_fail() {  # NAME FILE TEXT PATTERN
  rm -rf "$tmp/src" "$tmp/include" "$tmp/cli" && cp -r "$SRC/src" "$SRC/include" "$SRC/cli" "$tmp/"
  printf '%s\n' "$3" >>"$tmp/$2"
  out=$("$SRC/scripts/check-namespaces.py" "$tmp" 2>&1)
  rc=$?
  if [[ $rc -eq 1 ]] && grep -qE -- "$4" <<<"$out"; then echo "ok   $1"; else echo "FAIL $1 (rc $rc): $out"; fail=1; fi
}
expect_fail "a stray top-level namespace" src/ir/graph.cpp "namespace helpers { int x; }" "src/ir/graph.cpp: namespace helpers"
expect_fail "another module's namespace" src/perf/predict.cpp "namespace rooflens::nas { int y; }" "src/perf/predict.cpp: namespace rooflens::nas"
expect_fail "a backend vocabulary outside exec" src/ops/view.cpp "namespace rooflens::onednn { int z; }" "src/ops/view.cpp: namespace rooflens::onednn"
exit $fail
