#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/: fuzz_pickle, fuzz_nats, fuzz_onnx) with clang under
# ASan + UBSan and runs each for a bounded time from seed corpora assembled at run time:
#   fuzz_pickle  the NATS-Bench files' decompressed pickles (bzip2 -dc)
#   fuzz_nats    the NATS-Bench .pbz2 files and their decompressed pickles
#   fuzz_onnx    tests/malformed/corpus/* and a few small models/*.onnx
# NATS-Bench files come from ../shared/data/nats-sss-v1_0-50262-simple relative to the repo
# root (override with ROOFLENS_NATS_DIR); without them those two targets start from nothing.
# Exits non-zero on any crash, leak, timeout, out-of-memory or sanitizer report, printing
# the reproducer's path and the command that replays it.
#
# Usage: scripts/run-fuzz.sh [SECONDS] [TARGET...]     (`make fuzz` runs it with defaults)
#   SECONDS             per target (default: $FUZZ_SECONDS or 60)
#   TARGET              fuzz_pickle, fuzz_nats, fuzz_onnx (default: all three)
# Environment:
#   FUZZ_BUILD=DIR      build directory (default build-fuzz)
#   FUZZ_JOBS=N         build parallelism (default 2)
#   FUZZ_RSS_MB=N       -rss_limit_mb (default 2048); one malloc above it is reported too
#   FUZZ_TIMEOUT=S      -timeout, seconds per input (default 10)
#   FUZZ_MAX_LEN=N      -max_len (default: 16384 for fuzz_pickle and fuzz_nats, whose large
#                       seeds then load truncated: small inputs run ~60x faster and reach more
#                       code in the same time; libFuzzer's own choice for fuzz_onnx)
#   FUZZ_SKIP_BUILD=1   reuse the binaries already in FUZZ_BUILD
#   FUZZ_KEEP=1         keep the scratch directory (corpora, logs) even when all is clean
#   CC, CXX             compilers (default clang, clang++)
set -euo pipefail

ROOT=$(cd "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
SECONDS_PER=${1:-${FUZZ_SECONDS:-60}}
[[ $# -gt 0 ]] && shift
TARGETS=("$@")
((${#TARGETS[@]})) || TARGETS=(fuzz_pickle fuzz_nats fuzz_onnx)
BUILD=${FUZZ_BUILD:-build-fuzz}
[[ $BUILD == /* ]] || BUILD=$ROOT/$BUILD
JOBS=${FUZZ_JOBS:-2}
RSS_MB=${FUZZ_RSS_MB:-2048}
PER_INPUT=${FUZZ_TIMEOUT:-10}
NATS_DIR=${ROOFLENS_NATS_DIR:-$ROOT/../shared/data/nats-sss-v1_0-50262-simple}
ONNX_SEED_MODELS=(alexnet vgg11_bn squeezenet1_1 resnet18 mobilenet_v3_small)

die() { echo "run-fuzz: $*" >&2; exit 2; }
[[ $SECONDS_PER =~ ^[1-9][0-9]*$ ]] || die "SECONDS must be a positive integer, got '$SECONDS_PER'"
for t in "${TARGETS[@]}"; do
  case $t in fuzz_pickle | fuzz_nats | fuzz_onnx) ;; *) die "unknown target '$t' (fuzz_pickle, fuzz_nats, fuzz_onnx)" ;; esac
done

# --- build -------------------------------------------------------------------------------
if [[ ${FUZZ_SKIP_BUILD:-0} != 1 ]]; then
  export CC=${CC:-clang} CXX=${CXX:-clang++}
  command -v "$CXX" >/dev/null ||
    die "$CXX not found: libFuzzer needs clang (Debian: apt-get install clang libclang-rt-14-dev, or scripts/install-deps.sh)"
  # -O1 -g without NDEBUG: fast enough to fuzz, readable stacks, assertions kept.
  cmake -S "$ROOT" -B "$BUILD" -DROOFLENS_FUZZ=ON -DROOFLENS_BUILD_TESTS=OFF -DROOFLENS_BUILD_BENCH=OFF \
    -DROOFLENS_WITH_ONEDNN=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g" >/dev/null
  cmake --build "$BUILD" -j "$JOBS" --target "${TARGETS[@]}"
fi
for t in "${TARGETS[@]}"; do
  [[ -x $BUILD/fuzz/$t ]] || die "$BUILD/fuzz/$t is missing (build it, or unset FUZZ_SKIP_BUILD)"
done

# --- seed corpora --------------------------------------------------------------------------
WORK=$(mktemp -d "${TMPDIR:-/tmp}/rooflens-fuzz.XXXXXX")
mkdir -p "$WORK"/{corpus,artifacts,logs}
for t in "${TARGETS[@]}"; do mkdir -p "$WORK/corpus/$t"; done

shopt -s nullglob
nats_files=("$NATS_DIR"/*.pbz2)
if ((${#nats_files[@]} == 0)); then
  echo "run-fuzz: warning: no NATS-Bench files in $NATS_DIR; fuzz_pickle and fuzz_nats start from an empty corpus" >&2
fi
for f in "${nats_files[@]}"; do
  name=$(basename -- "$f" .pbz2)
  bzip2 -dc -- "$f" >"$WORK/corpus/fuzz_pickle/$name" 2>/dev/null ||
    echo "run-fuzz: warning: cannot bunzip $f" >&2
  if [[ -d $WORK/corpus/fuzz_nats ]]; then
    cp -- "$f" "$WORK/corpus/fuzz_nats/$name.pbz2"
    cp -- "$WORK/corpus/fuzz_pickle/$name" "$WORK/corpus/fuzz_nats/$name"
  fi
done
# Small seeds of the same layout: the real files cut down to one hp and one dataset (the meta
# file to 8 architectures), re-pickled (protocol 4, numpy scalars kept). Small inputs run far
# faster than the 84-537 KB originals. Needs the Debian python3 with numpy; skipped without.
if ((${#nats_files[@]})) && /usr/bin/python3 -c 'import numpy' 2>/dev/null; then
  /usr/bin/python3 - "$WORK/corpus" "${nats_files[@]}" <<'PY' || echo "run-fuzz: warning: small NATS seeds not made" >&2
import bz2, os, pickle, sys
out, files = sys.argv[1], sys.argv[2:]
for path in files:
    d = pickle.loads(bz2.decompress(open(path, "rb").read()))
    name = os.path.basename(path).split(".")[0] + "-small"
    if "meta_archs" in d:
        d["meta_archs"] = d["meta_archs"][:8]
        d["total_archs"] = len(d["meta_archs"])
        for key, n in (("arch2infos", 2), ("evaluated_indexes", 8)):
            v = d.get(key)
            if isinstance(v, dict):
                d[key] = {k: v[k] for k in list(v)[:n]}
            elif isinstance(v, (list, set, tuple)):
                d[key] = sorted(v)[:n]
    else:
        for hp in list(d)[1:]:
            del d[hp]
        for hp in d.values():
            keep = list(hp["all_results"])[:1]
            hp["all_results"] = {k: hp["all_results"][k] for k in keep}
            hp["dataset_seed"] = {k[0]: [k[1]] for k in keep}
    raw = pickle.dumps(d, protocol=4)
    open(os.path.join(out, "fuzz_pickle", name), "wb").write(raw)
    if os.path.isdir(os.path.join(out, "fuzz_nats")):
        open(os.path.join(out, "fuzz_nats", name), "wb").write(raw)
        open(os.path.join(out, "fuzz_nats", name + ".pbz2"), "wb").write(bz2.compress(raw, 9))
PY
fi
if [[ -d $WORK/corpus/fuzz_onnx ]]; then
  for f in "$ROOT"/tests/malformed/corpus/*; do
    [[ -f $f && -s $f ]] && cp -- "$f" "$WORK/corpus/fuzz_onnx/"
  done
  for m in "${ONNX_SEED_MODELS[@]}"; do
    [[ -f $ROOT/models/$m.onnx ]] && cp -- "$ROOT/models/$m.onnx" "$WORK/corpus/fuzz_onnx/"
  done
fi
shopt -u nullglob

# --- run ----------------------------------------------------------------------------------
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

failed=()
summary=()
for t in "${TARGETS[@]}"; do
  corpus=$WORK/corpus/$t
  log=$WORK/logs/$t.log
  nseeds=$(find "$corpus" -type f | wc -l)
  echo "run-fuzz: $t for ${SECONDS_PER}s from $nseeds seed(s) (rss limit ${RSS_MB} MB, ${PER_INPUT}s per input)"
  max_len=${FUZZ_MAX_LEN:-}
  [[ -z $max_len && $t != fuzz_onnx ]] && max_len=16384
  start=$(date +%s)
  rc=0
  "$BUILD/fuzz/$t" -max_total_time="$SECONDS_PER" -rss_limit_mb="$RSS_MB" -timeout="$PER_INPUT" \
    ${max_len:+-max_len="$max_len"} -artifact_prefix="$WORK/artifacts/$t-" -print_final_stats=1 "$corpus" >"$log" 2>&1 || rc=$?
  took=$(($(date +%s) - start))
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n1)
  rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$log" | tail -n1)
  cov=$(grep -Eo 'cov: [0-9]+ ft: [0-9]+ corp: [0-9]+/[0-9]+[a-zA-Z]*' "$log" | tail -n1 || true)
  summary+=("$(printf '%-12s %4ss  %10s execs  %7s exec/s  %-40s  peak %s MB' "$t" "$took" "${execs:-?}" \
    "${rate:-?}" "${cov:-cov: ?}" "${rss:-?}")")
  reported=0
  grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:|SUMMARY: UndefinedBehaviorSanitizer|fuzz property failed' \
    "$log" && reported=1
  if ((rc != 0 || reported)); then
    failed+=("$t")
    echo "run-fuzz: FAIL $t (exit code $rc); log: $log" >&2
    grep -E 'ERROR:|runtime error:|SUMMARY:|fuzz property failed|^ +#[0-9]+ ' "$log" | head -n 25 | sed 's/^/    | /' >&2
    for a in "$WORK/artifacts/$t-"*; do
      [[ -e $a ]] || continue
      echo "run-fuzz: reproducer: $a" >&2
      echo "run-fuzz: replay with: $BUILD/fuzz/$t $a" >&2
    done
  fi
done

echo "run-fuzz: summary ($(nproc) cores, $(uname -m))"
printf '  %s\n' "${summary[@]}"
if ((${#failed[@]})); then
  echo "run-fuzz: FAILED: ${failed[*]}; corpora, logs and reproducers kept in $WORK" >&2
  exit 1
fi
if [[ ${FUZZ_KEEP:-0} == 1 ]]; then
  echo "run-fuzz: all clean; corpora and logs kept in $WORK"
else
  rm -rf -- "$WORK"
  echo "run-fuzz: all clean"
fi
