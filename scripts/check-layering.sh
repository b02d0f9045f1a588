#!/usr/bin/env bash
# The layering check: every include in src/, include/, cli/ and python/ must follow the module order
# written in docs/design.md ("module order: util < ir < ... < cli"; a module may include its
# own headers and those of modules before it) and its "rule: A must not include B" lines; and
# no file may reach into another module's private headers (a relative include such as
# "../../ops/op_util.h"). Exceptions, each with the helper or issue that removes it, are listed
# in scripts/layering-exceptions.txt.
#
# Usage: scripts/check-layering.sh [ROOT]   (ROOT: the source tree, default the one holding
# this script). Prints one line per violation, "file:line: the include: the rule", and exits
# 1 if there is any; 0 otherwise. .ci/run runs it; tests/cli/layering.sh tests it.
set -euo pipefail

root=$(cd "${1:-$(dirname "$0")/..}" && pwd)
design="$root/docs/design.md"
exceptions="$root/scripts/layering-exceptions.txt"
[[ -f "$design" ]] || { echo "check-layering: $design not found" >&2; exit 2; }

order_line=$(grep -m1 -E '^module order: ' "$design" || true)
[[ -n "$order_line" ]] || { echo "check-layering: no 'module order: a < b < ...' line in $design" >&2; exit 2; }
read -r -a order <<<"$(sed -E 's/^module order: //; s/[`<]/ /g' <<<"$order_line")"
declare -A rank=()
for i in "${!order[@]}"; do rank[${order[$i]}]=$i; done
order_text=$(sed -E 's/^module order: //; s/`//g' <<<"$order_line")

# "rule: nas must not include analysis" or "rule: report must not include rooflens/analysis/validation.h".
declare -a rule_from=() rule_what=()
while read -r from what; do
  rule_from+=("$from")
  rule_what+=("$what")
done < <(grep -oE 'rule: [a-z_]+ must not include [A-Za-z0-9_./]+' "$design" | sed -E 's/rule: ([a-z_]+) must not include (.*)/\1 \2/')

# Exceptions: "<file glob> <included text> <owner> <why...>" (# comments, blank lines skipped).
declare -a exc_glob=() exc_inc=() exc_owner=() exc_used=()
if [[ -f "$exceptions" ]]; then
  while read -r glob inc owner _; do
    [[ -z "$glob" || "$glob" == \#* ]] && continue
    exc_glob+=("$glob")
    exc_inc+=("$inc")
    exc_owner+=("$owner")
    exc_used+=(0)
  done <"$exceptions"
fi

# The module a file belongs to: src/<m>/..., include/rooflens/<m>/..., cli/... -> cli,
# python/... -> python (the Python module's binding).
# Sets `mod` (empty for files outside the three folders).
module_of() {
  local rest
  case "$1" in
    src/*/*) rest=${1#src/}; mod=${rest%%/*} ;;
    include/rooflens/*/*) rest=${1#include/rooflens/}; mod=${rest%%/*} ;;
    cli/*) mod=cli ;;
    python/*) mod=python ;;
    *) mod="" ;;
  esac
}

violations=0
allowed=0
checked=0
report() {  # file line include message
  local i
  for i in "${!exc_glob[@]}"; do
    # shellcheck disable=SC2053  # the glob is meant to match as a pattern
    if [[ "$1" == ${exc_glob[$i]} && "$3" == *"${exc_inc[$i]}"* ]]; then
      exc_used[$i]=1
      allowed=$((allowed + 1))
      return
    fi
  done
  echo "$1:$2: #include \"$3\": $4"
  violations=$((violations + 1))
}

cd "$root"
dirs=()
for d in src include cli python; do [[ -d "$d" ]] && dirs+=("$d"); done
declare -A unknown=()
while IFS=: read -r file line inc; do
  module_of "$file"
  m=$mod
  [[ -n "$m" ]] || continue
  if [[ -z "${rank[$m]+x}" ]]; then
    if [[ -z "${unknown[$m]+x}" ]]; then
      unknown[$m]=1
      echo "$file:$line: module '$m' is not in the module order of docs/design.md ($order_text)"
      violations=$((violations + 1))
    fi
    continue
  fi
  checked=$((checked + 1))
  if [[ "$inc" == rooflens/* ]]; then
    target=${inc#rooflens/}
    target=${target%%/*}
  else
    # A quoted include next to the file or relative to it: private headers of the same
    # module are fine; one that resolves into another module's folder is not.
    [[ "$inc" == */* ]] || continue  # a header beside the file
    resolved=$(realpath -m --relative-to="$root" "$(dirname "$file")/$inc")
    module_of "$resolved"
    target=$mod
    [[ -z "$target" || "$target" == "$m" ]] && continue
    report "$file" "$line" "$inc" "reaches into a private header of module $target (include only include/rooflens/$target/ headers)"
    continue
  fi
  [[ "$target" == "$m" ]] && continue
  if [[ -z "${rank[$target]+x}" ]]; then
    report "$file" "$line" "$inc" "module '$target' is not in the module order ($order_text)"
    continue
  fi
  if ((rank[$target] > rank[$m])); then
    report "$file" "$line" "$inc" "$m may not include $target: $target comes after $m in the module order ($order_text)"
    continue
  fi
  for i in "${!rule_from[@]}"; do
    w=${rule_what[$i]}
    if [[ "${rule_from[$i]}" == "$m" && ("$w" == "$target" || "$inc" == "$w") ]]; then
      report "$file" "$line" "$inc" "rule of docs/design.md: $m must not include $w"
    fi
  done
done < <(find "${dirs[@]}" -type f \( -name '*.h' -o -name '*.hpp' -o -name '*.cpp' -o -name '*.cu' -o -name '*.cuh' \
  -o -name '*.inc' \) -print0 | sort -z | xargs -0 grep -nHE '^[[:space:]]*#[[:space:]]*include[[:space:]]+"' |
  sed -E 's/^([^:]+):([0-9]+):[^"]*"([^"]*)".*/\1:\2:\3/')

for i in "${!exc_glob[@]}"; do
  if [[ "${exc_used[$i]}" == 0 ]]; then
    echo "check-layering: note: the exception '${exc_glob[$i]} ${exc_inc[$i]}' (${exc_owner[$i]}) matches nothing now; remove it from scripts/layering-exceptions.txt" >&2
  fi
done
if ((violations > 0)); then
  echo "check-layering: $violations include(s) against the module order or rules of docs/design.md" >&2
  exit 1
fi
echo "check-layering: $checked includes follow the module order ($allowed allowed by scripts/layering-exceptions.txt)"
