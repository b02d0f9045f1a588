#!/usr/bin/env bash
# Regenerates docs/generated/support.md (and support-timm.md, the timm zoo): which backend runs which op of the bundled models,
# as each backend's supports() answers before prepare (no device needed).
# Usage: scripts/gen-support-table.sh [BUILD_DIR]   (default: build; the target
# rooflens_support_table must be built: cmake --build build --target rooflens_support_table)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build}"
tool="$build/tools/rooflens_support_table"
[[ -x "$tool" ]] || { echo "gen-support-table: $tool not built (cmake --build $build --target rooflens_support_table)" >&2; exit 2; }
mkdir -p "$root/docs/generated"
"$tool" "$root/models" models/ >"$root/docs/generated/support.md.tmp"
mv "$root/docs/generated/support.md.tmp" "$root/docs/generated/support.md"
"$tool" "$root/models/timm" models/timm/ >"$root/docs/generated/support-timm.md.tmp"
mv "$root/docs/generated/support-timm.md.tmp" "$root/docs/generated/support-timm.md"
echo "wrote docs/generated/support.md and support-timm.md"
