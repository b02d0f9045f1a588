#!/usr/bin/env bash
# Fails when code outside ops/ reads a node attribute by name.
#
# Shape inference (src/ops/) parses every attribute once into the node's descriptor
# (include/rooflens/ir/op_desc.h); every other module reads the descriptor. Allowed to touch
# attributes by name: src/ops/ (the parser), the attribute types and accessors themselves
# (include/rooflens/ir/attr_map.h, node_attrs.h, include/rooflens/ops/op_hooks.h) and src/onnx/
# (import writes attributes, export writes them back to ONNX). Writing an attribute
# (graph builders, a pass that rewrites one and re-infers) is not a read and is not flagged.
#
# Usage: scripts/check-attr-reads.sh [ROOT]   (ROOT: the tree to check, default: this repo)
# Exit 0: clean; 1: reads found (listed as file:line: text); 2: bad usage.
set -euo pipefail

root="${1:-$(cd "$(dirname "$0")/.." && pwd)}"
[[ -d "$root/src" ]] || { echo "check-attr-reads: no src/ under '$root'" >&2; exit 2; }
cd "$root"

# The accessor patterns the tree uses to read an attribute by name.
pattern='attrs\.(find|at|count)\(|attrs\[|for[[:space:]]*\(.*:[[:space:]]*[A-Za-z_.()>-]*\.attrs\)|node_attr\(|attr_(int|ints|real|string|str|float|floats|tensor)(_or)?\(|has_attr\(|find_attr\(|"auto_pad"'

# Paths allowed to read attributes, each with its reason.
allowed=(
  'src/ops/'                          # the parser: shape inference fills the descriptors
  'src/onnx/'                         # import writes attributes; export writes them back
  'include/rooflens/ir/attr_map.h'    # the attribute map itself
  'include/rooflens/ops/op_hooks.h'   # InferContext, the accessors shape inference uses
)

# Reads outside ops/ still to be switched, or not parameters at all: "path:regex  # reason".
exceptions=(
  'src/exec/reference/meta.cpp:attr_tensor\("value"\)'  # a Constant's data tensor, not a parameter
)

is_allowed() {
  local f="$1" p
  for p in "${allowed[@]}"; do [[ "$f" == "$p"* ]] && return 0; done
  return 1
}

is_exception() {
  local f="$1" text="$2" e path re
  for e in "${exceptions[@]}"; do
    path="${e%%:*}"
    re="${e#*:}"
    [[ "$f" == "$path" ]] && [[ "$text" =~ $re ]] && return 0
  done
  return 1
}

found=0
while IFS= read -r hit; do
  file="${hit%%:*}"
  rest="${hit#*:}"
  text="${rest#*:}"
  is_allowed "$file" && continue
  is_exception "$file" "$text" && continue
  [[ "$found" == 0 ]] && echo "check-attr-reads: node attributes read by name outside src/ops/ (read the node's descriptor, ir/op_desc.h):" >&2
  echo "  $hit" >&2
  found=1
done < <(grep -rnE --include='*.cpp' --include='*.h' --include='*.cu' --include='*.cuh' --include='*.inc' \
           "$pattern" src cli include tools 2>/dev/null | LC_ALL=C sort)

exit "$found"
