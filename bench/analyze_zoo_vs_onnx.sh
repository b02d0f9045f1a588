#!/usr/bin/env bash
# rooflens vs Python onnx on the bundled zoo, same files, same run.
#
# Usage: [ROUNDS=7] bench/analyze_zoo_vs_onnx.sh ROOFLENS_BINARY [--markdown]
#   (works from any cwd; ROOFLENS_BINARY is resolved against the caller's cwd)
#
# Both tools get the whole zoo (every models/*.onnx, paths relative to the repo
# root) in ONE call each:
#   rooflens : ROOFLENS_BINARY analyze models/*.onnx --format json > /dev/null
#   onnx     : /usr/bin/python3 bench/onnx_infer_shapes.py models/*.onnx
#              (onnx.load(load_external_data=False) + onnx.shape_inference.infer_shapes)
# Before timing: one untimed warm-up of each tool (page cache, dynamic loader),
# and a per-file correctness pass (`rooflens analyze FILE --format json`, exit 0?).
# Then ROUNDS rounds (default 7); each round runs both tools, alternating which
# goes first.  Measured per round:
#   rooflens whole-command wall time (includes its process start),
#   python   whole-command wall time (interpreter start + `import onnx` + work),
#   python   in-process time (perf_counter around load+infer_shapes, after imports).
# Wall time is taken with bash's $EPOCHREALTIME (no fork of `date`).
# Prints median and min of each and the ratios python/rooflens; with --markdown
# also a ready-to-paste markdown table with the machine info.
# Exit status: 0, or 1 if rooflens (or the onnx baseline) failed on any file
# (timings are still printed, flagged), 2 on usage / setup errors.
set -euo pipefail
export LC_ALL=C  # '.' as the decimal point in $EPOCHREALTIME

usage() { echo "usage: [ROUNDS=N] $0 ROOFLENS_BINARY [--markdown]" >&2; exit 2; }

MARKDOWN=0
BIN=""
for arg in "$@"; do
  case "$arg" in
    --markdown) MARKDOWN=1 ;;
    -h|--help) usage ;;
    -*) echo "unknown option: $arg" >&2; usage ;;
    *) [[ -z "$BIN" ]] || usage; BIN="$arg" ;;
  esac
done
[[ -n "$BIN" ]] || usage
ROUNDS="${ROUNDS:-7}"
[[ "$ROUNDS" =~ ^[1-9][0-9]*$ ]] || { echo "ROUNDS must be a positive integer, got '$ROUNDS'" >&2; exit 2; }

PY=/usr/bin/python3
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"

# resolve the binary against the caller's cwd (before we cd to the repo root)
if [[ "$BIN" != */* ]]; then
  BIN="$(command -v -- "$BIN" || true)"
  [[ -n "$BIN" ]] || { echo "rooflens binary not found on PATH: $1" >&2; exit 2; }
fi
[[ -f "$BIN" && -x "$BIN" ]] || { echo "not an executable file: $BIN" >&2; exit 2; }
BIN="$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")"
[[ -x "$PY" ]] || { echo "$PY not found" >&2; exit 2; }
"$PY" -c "import onnx" 2>/dev/null || { echo "$PY cannot import onnx (apt install python3-onnx)" >&2; exit 2; }
[[ -n "${EPOCHREALTIME:-}" ]] || { echo "bash >= 5 needed (\$EPOCHREALTIME)" >&2; exit 2; }

cd "$ROOT"
shopt -s nullglob
FILES=(models/*.onnx)
shopt -u nullglob
((${#FILES[@]} > 0)) || { echo "no models/*.onnx under $ROOT" >&2; exit 2; }
NFILES=${#FILES[@]}
BYTES=$(stat -c %s -- "${FILES[@]}" | awk '{s += $1} END {printf "%d", s}')

TMP="$(mktemp -d "${TMPDIR:-/tmp}/rooflens-bench.XXXXXX")"
trap 'rm -rf "$TMP"' EXIT

echo "rooflens : $BIN" >&2
echo "models   : $ROOT/models  ($NFILES files, $BYTES bytes)" >&2
if [[ -f models/zoo.json ]]; then
  ZOO_N=$("$PY" -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["models"]))' models/zoo.json 2>/dev/null || echo "?")
  [[ "$ZOO_N" == "$NFILES" ]] || echo "warning: models/zoo.json lists $ZOO_N models, $NFILES .onnx files found" >&2
else
  echo "warning: models/zoo.json not found (zoo incomplete?)" >&2
fi

# ---- correctness: does rooflens analyze succeed on every file? -----------------
FAILED=()
: > "$TMP/failures.txt"
for f in "${FILES[@]}"; do
  set +e
  "$BIN" analyze "$f" --format json > /dev/null 2> "$TMP/err"
  rc=$?
  set -e
  if ((rc != 0)); then
    FAILED+=("$f")
    printf '%s\t%d\t%s\n' "$f" "$rc" "$(tr '\n' ' ' < "$TMP/err")" >> "$TMP/failures.txt"
  fi
done

# ---- warm-up (untimed) ---------------------------------------------------------
"$BIN" analyze "${FILES[@]}" --format json > /dev/null 2>&1 || true
"$PY" "$HERE/onnx_infer_shapes.py" "${FILES[@]}" > /dev/null 2>&1 || true

# ---- timed rounds --------------------------------------------------------------
# $TMP/times.tsv: round  tool  wall_s  rc  [inproc_s]
run_rooflens() {
  local r=$1 t0 t1 rc
  set +e
  t0=$EPOCHREALTIME
  "$BIN" analyze "${FILES[@]}" --format json > /dev/null 2> "$TMP/rooflens.err"
  rc=$?
  t1=$EPOCHREALTIME
  set -e
  printf '%d\trooflens\t%s\t%s\t%d\t\n' "$r" "$t0" "$t1" "$rc" >> "$TMP/times.tsv"
}
run_onnx() {
  local r=$1 t0 t1 rc
  set +e
  t0=$EPOCHREALTIME
  "$PY" "$HERE/onnx_infer_shapes.py" "${FILES[@]}" > "$TMP/onnx.$r.json" 2> "$TMP/onnx.err"
  rc=$?
  t1=$EPOCHREALTIME
  set -e
  printf '%d\tonnx\t%s\t%s\t%d\t%s\n' "$r" "$t0" "$t1" "$rc" "$TMP/onnx.$r.json" >> "$TMP/times.tsv"
}
: > "$TMP/times.tsv"
for ((r = 1; r <= ROUNDS; r++)); do
  if ((r % 2)); then run_rooflens "$r"; run_onnx "$r"; else run_onnx "$r"; run_rooflens "$r"; fi
  echo "round $r/$ROUNDS done" >&2
done

# ---- report --------------------------------------------------------------------
CPU_MODEL=$(awk -F': *' '/^model name/ {print $2; exit}' /proc/cpuinfo 2>/dev/null || true)
[[ -n "$CPU_MODEL" ]] || CPU_MODEL=$(uname -m)
RL_VERSION=$("$BIN" --version 2>/dev/null | head -n1 || true)
export BENCH_BIN="$BIN" BENCH_NFILES="$NFILES" BENCH_BYTES="$BYTES" BENCH_ROUNDS="$ROUNDS" \
  BENCH_MARKDOWN="$MARKDOWN" BENCH_NPROC="$(nproc)" BENCH_CPU="$CPU_MODEL" \
  BENCH_DATE="$(date -u '+%Y-%m-%d %H:%M:%S UTC')" BENCH_KERNEL="$(uname -sr)" \
  BENCH_RL_VERSION="$RL_VERSION" BENCH_ROOT="$ROOT" \
  BENCH_CMD="ROUNDS=$ROUNDS bench/analyze_zoo_vs_onnx.sh ${1+$(printf '%q ' "$@")}"
"$PY" - "$TMP/times.tsv" "$TMP/failures.txt" <<'PYEOF'
import json, os, statistics, sys

times_path, failures_path = sys.argv[1], sys.argv[2]
E = os.environ
rl, py, py_in = [], [], []
rl_bad = py_bad = 0
onnx_info = {}
for line in open(times_path):
    r, tool, t0, t1, rc, extra = line.rstrip("\n").split("\t")
    wall = float(t1) - float(t0)
    if tool == "rooflens":
        rl.append(wall)
        rl_bad += int(rc) != 0
    else:
        py.append(wall)
        py_bad += int(rc) != 0
        try:
            onnx_info = json.load(open(extra))
            py_in.append(onnx_info["elapsed_s"])
        except (OSError, ValueError, KeyError):
            py_bad += 1
failures = [l.rstrip("\n").split("\t", 2) for l in open(failures_path) if l.strip()]

def ms(x):
    return "%.1f ms" % (x * 1e3)

med = {k: statistics.median(v) for k, v in (("rl", rl), ("py", py), ("py_in", py_in)) if v}
mn = {k: min(v) for k, v in (("rl", rl), ("py", py), ("py_in", py_in)) if v}
rows = [
    ("rooflens analyze --format json (whole command)", "rl"),
    ("python onnx load+infer_shapes (whole command)", "py"),
    ("python onnx load+infer_shapes (in-process only)", "py_in"),
]
nf, nb = int(E["BENCH_NFILES"]), int(E["BENCH_BYTES"])

print("files: %d, total %d bytes (%.2f MiB); rounds: %s" % (nf, nb, nb / 2**20, E["BENCH_ROUNDS"]))
print("%-50s %12s %12s" % ("", "median", "min"))
for label, k in rows:
    if k in med:
        print("%-50s %12s %12s" % (label, ms(med[k]), ms(mn[k])))
if "rl" in med:
    for label, k in (("python/rooflens, whole command vs whole command", "py"),
                     ("python/rooflens, python in-process vs rooflens whole", "py_in")):
        if k in med:
            print("%-50s %11.1fx %11.1fx" % (label, med[k] / med["rl"], mn[k] / mn["rl"]))
print("(rooflens is timed as a whole command incl. its process start, so the in-process ratio is conservative for rooflens)")
if onnx_info:
    print("onnx %s on Python %s; in-process split of last round: load %s, infer_shapes %s"
          % (onnx_info.get("onnx_version"), onnx_info.get("python_version"),
             ms(onnx_info.get("load_s", 0)), ms(onnx_info.get("infer_s", 0))))
    for e in onnx_info.get("errors", []):
        print("onnx FAILED on %s: %s" % (e["file"], e["error"]))
if rl_bad:
    print("WARNING: the whole-zoo rooflens command exited non-zero in %d of %d rounds; "
          "on failure it writes no output, so its time is not comparable" % (rl_bad, len(rl)))
if py_bad:
    print("WARNING: the onnx baseline failed in %d of %d rounds" % (py_bad, len(py)))
if failures:
    print("rooflens analyze FAILED on %d of %d file(s):" % (len(failures), nf))
    for f, rc, err in failures:
        print("  %s (exit %s): %s" % (f, rc, err.strip()))
else:
    print("rooflens analyze exits 0 on every file (%d/%d)" % (nf, nf))

if E["BENCH_MARKDOWN"] == "1":
    print()
    print("| %d ONNX files, %.2f MiB (%s rounds) | median | min | python / rooflens (median) | python / rooflens (min) |"
          % (nf, nb / 2**20, E["BENCH_ROUNDS"]))
    print("|---|---:|---:|---:|---:|")
    for label, k in rows:
        if k not in med:
            continue
        if k == "rl":
            print("| `rooflens analyze models/*.onnx --format json` (whole command) | %s | %s | 1.0x | 1.0x |"
                  % (ms(med[k]), ms(mn[k])))
        else:
            what = "whole command" if k == "py" else "in-process: `onnx.load` + `infer_shapes`, after `import onnx`"
            print("| `python3 bench/onnx_infer_shapes.py models/*.onnx` (%s) | %s | %s | %.1fx | %.1fx |"
                  % (what, ms(med[k]), ms(mn[k]), med[k] / med["rl"], mn[k] / mn["rl"]))
    print()
    print("rooflens is timed as a whole command (process start included), so the in-process ratio is conservative for rooflens.")
    if failures or rl_bad:
        print("**rooflens failed on %d file(s)**: %s" % (len(failures), ", ".join(f for f, _, _ in failures)))
    print()
    print("- machine: %s, `nproc` = %s, %s" % (E["BENCH_CPU"], E["BENCH_NPROC"], E["BENCH_KERNEL"]))
    bin_shown = E["BENCH_BIN"]
    if bin_shown.startswith(E["BENCH_ROOT"] + os.sep):
        bin_shown = os.path.relpath(bin_shown, E["BENCH_ROOT"])
    print("- python onnx: %s on Python %s (`/usr/bin/python3`); rooflens: %s (`%s`)"
          % (onnx_info.get("onnx_version", "?"), onnx_info.get("python_version", "?"),
             E["BENCH_RL_VERSION"] or "?", bin_shown))
    print("- date: %s" % E["BENCH_DATE"])
    print("- command: `%s`" % E["BENCH_CMD"].strip())
sys.exit(1 if (failures or rl_bad or py_bad) else 0)
PYEOF
