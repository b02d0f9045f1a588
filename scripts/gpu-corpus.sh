#!/usr/bin/env bash
# One device call that lands a measurement corpus (issue 27): on a lent GPU machine, every
# bundled model measured in fp16 on rooflens's CUDA backend (eager with per-layer times, and
# as one CUDA graph; batch 256, then batch 1), the GPU probe, the PyTorch peer (eager, CUDA
# graph, torch.compile where that torch has it) on seven models, and a few CUDA backend
# tests; everything under OUTDIR/gpu-corpus-DATE/ (at most 8 files: what the device tool
# brings back) with the CSVs `rooflens study --measurements` reads.
#
# usage, on the GPU machine (repo root; the build comes prebuilt in .gpu/bundle.tar.xz from
# scripts/gpu-bundle.sh BUILD_DIR, carried with the call):
#   scripts/gpu-corpus.sh "$OUT"
# here, without a GPU: DRY_RUN=1 scripts/gpu-corpus.sh /tmp/corpus-dry [BUILD_DIR]
#   runs every rooflens command the call would (they must stop at "no CUDA device", exit 2,
#   after their flags parse), checks the peer's flags and the post-processing on made-up
#   measurements, and shellcheck's verdict on this file when it is installed.
#
# Time: BUDGET_S (default 450) is the script's own budget, in stages that stop at their
# share of it: tests 60 s, probe 35 s, zoo (batch 256 then 1, most important models first; a
# model too large for cuDNN at 256 again at 128),
# peer 110 s, the rest for packing. Whatever a stage could not finish is listed in
# summary.txt; rerunning with STAGES and ZOO_MODELS set measures what is missing.
# Knobs: STAGES ("tests probe zoo peer"), ZOO_MODELS (default: the peer's models, then the
# zoo), BATCHES ("256 1"), MAX_SECONDS (0.3 timed per point), WARMUP_S (0.15 untimed per
# point, after one 2 s warm-up of the GPU), PEER_MODELS, PEER_S (110), PEER_MODES
# ("eager,graph,compile").
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root" || exit 1
out=${1:?usage: gpu-corpus.sh OUTDIR [BUILD_DIR for DRY_RUN]}
dry=${DRY_RUN:-0}
budget=${BUDGET_S:-450}
stages=" ${STAGES:-tests probe zoo peer} "
batches=${BATCHES:-256 1}
max_s=${MAX_SECONDS:-0.3}
warm_s=${WARMUP_S:-0.15}
peer_models=${PEER_MODELS:-resnet50,mobilenet_v2,mobilenet_v3_small,efficientnet_b0,densenet121,vgg16,convnext_tiny}
peer_s=${PEER_S:-110}
peer_modes=${PEER_MODES:-eager,graph,compile}
t0=$(date +%s)
elapsed() { echo $(($(date +%s) - t0)); }
left() { echo $((budget - $(elapsed))); }

day=$(date -u +%Y-%m-%d)
C="$out/gpu-corpus-$day"  # what comes back: at most 8 plain files
W=$(mktemp -d /tmp/rl-corpus.XXXXXX)  # work files, packed into C at the end
mkdir -p "$C" "$W/layers" "$W/logs" || exit 1
log() { echo "[$(elapsed) s] $*" | tee -a "$W/logs/run.log"; }

if [[ $dry == 1 ]]; then
  B=$(cd "${2:-build}" && pwd)
  [[ -x $B/rooflens ]] || { echo "gpu-corpus: no $B/rooflens (build it: /work/bin/rlbuild rooflens rooflens_plugin_cuda)" >&2; exit 2; }
  TESTS=$B/tests/rooflens_cuda_tests
else
  [[ -f .gpu/bundle.tar.xz ]] || { echo "gpu-corpus: .gpu/bundle.tar.xz missing: run scripts/gpu-bundle.sh BUILD_DIR here and carry .gpu" >&2; exit 2; }
  # Unpacked beside the repo's models/ and data/ (.gpu/bin/../..): the program finds the zoo
  # and the device database there, and its plugin beside it.
  tar xJf .gpu/bundle.tar.xz -C .gpu || exit 2
  lib_dir() { find /usr/local /opt /usr/lib -name "$1" 2>/dev/null | head -1 | xargs -r dirname; }
  LD_LIBRARY_PATH="$root/.gpu/lib:$(lib_dir libcudnn.so.9):$(lib_dir 'libcublas.so.1[0-9]'):${LD_LIBRARY_PATH:-}"
  export LD_LIBRARY_PATH
  B=$root/.gpu/bin
  TESTS=$B/rooflens_cuda_tests
fi
RL=$B/rooflens
log "gpu-corpus: $(git rev-parse --short HEAD 2>/dev/null || echo no-git) $(git status --porcelain 2>/dev/null | wc -l) changed file(s); budget ${budget} s; stages${stages}"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu \
  --format=csv >"$W/logs/nvidia-smi.csv" 2>&1 || log "nvidia-smi: not available"
ldd "$RL" 2>/dev/null | grep "not found" && log "missing libraries (above)"

# A rooflens command: on the device, run with a timeout; in the dry run, it must parse its
# flags and stop at the missing GPU (exit 2, "no CUDA device" or "built without CUDA").
dry_fail=0
rl() {  # rl SECONDS ERRFILE ARGS...
  local secs=$1 err=$2
  shift 2
  if [[ $dry == 1 ]]; then
    "$RL" "$@" >/dev/null 2>"$err"
    local rc=$?
    if [[ $rc == 2 ]] && grep -qE "no CUDA device|built without CUDA" "$err"; then
      echo "dry-run ok: rooflens $* -> $(head -1 "$err")" >>"$W/logs/dry-run.log"
    else
      echo "dry-run FAIL (exit $rc): rooflens $*: $(head -3 "$err")" | tee -a "$W/logs/dry-run.log"
      dry_fail=1
    fi
    return 0
  fi
  timeout "$secs" "$RL" "$@" 2>"$err"
}

if [[ $stages == *" tests "* ]]; then
  log "tests: the new kernels and four models against the reference backend (60 s at most)"
  filter='Cuda.SwinMaskedAttentionRank5AddSoftmaxAndReduceL2:Cuda.MaxvitEinsumAttentionAtRank5:Cuda.TransposeLayerNormMatMulAndErf:Cuda.SwishAndGatesInTheBiasPass:Cuda.ChannelShuffleSliceSplitAndGather:Cuda.ResizeNearestLinearAndCubic:Cuda.ConvFamiliesWithFusedEpilogues:CudaSupport.*:Zoo/ZooOnCuda.MatchesReferenceAtBatch2/13:Zoo/ZooOnCuda.MatchesReferenceAtBatch2/14:Zoo/ZooOnCuda.MatchesReferenceAtBatch2/15:Zoo/ZooOnCuda.MatchesReferenceAtBatch2/7'
  if [[ -x $TESTS ]]; then
    ROOFLENS_SOURCE_DIR=$root timeout 60 "$TESTS" --gtest_color=no --gtest_filter="$filter" >"$W/logs/cuda-tests.log" 2>&1
    echo "exit $?" >>"$W/logs/cuda-tests.log"
    grep -E "^\[  (FAILED|PASSED|SKIPPED) |NOTE|exit" "$W/logs/cuda-tests.log" | tee -a "$W/logs/run.log"
  else
    log "tests: $TESTS not built"
  fi
fi

if [[ $stages == *" probe "* ]]; then
  log "probe: GPU peaks, bandwidth, launch cost (--quick)"
  rl 35 "$W/logs/probe.err" probe gpu --quick --id gpu-probed -o "$W/probe.json" >"$W/logs/probe.txt"
  tail -5 "$W/logs/probe.txt" >>"$W/logs/run.log"
fi

if [[ $stages == *" zoo "* ]]; then
  zoo=$(python3 -c 'import json,sys; print(" ".join(m["name"] for m in json.load(open(sys.argv[1]))["models"]))' models/zoo.json)
  order="${ZOO_MODELS:-${peer_models//,/ } $zoo}"
  list=" "
  for m in $order; do [[ $list == *" $m "* ]] || list+="$m "; done
  models=$(echo $list | tr ' ' ',')  # word splitting trims the ends
  n=$(wc -w <<<"$list")
  log "zoo: $n models, fp16, eager and graph, batches $batches"
  rl 10 "$W/logs/warm.err" measure models/resnet50.onnx --backend cuda --dtype fp16 --batch 64 \
    --graph --max-seconds 2 >/dev/null  # the clock up from idle, once
  nb=$(wc -w <<<"$batches")
  i=0
  for b in $batches; do
    i=$((i + 1))
    # The zoo's share of what is left after the peer's: the first batch (256, the study's)
    # takes 3/5 of it when two are to run, the last all that remains.
    share=$(($(left) - peer_s - 20))
    ((nb - i >= 1)) && share=$((share * 3 / 5 / (nb - i)))
    ((share < 20)) && share=20
    log "zoo batch $b: ${share} s"
    rl "$share" "$W/logs/validate-b$b.err" validate --backend cuda --dtype fp16 --modes eager,graph --models "$models" \
      --batch "$b" --keep-going --layers-dir "$W/layers" --warmup-seconds "$warm_s" --max-seconds "$max_s" \
      --format json -o "$W/layers/validate-fp16-b$b.json" >/dev/null
    rc=$?
    [[ $rc == 124 ]] && log "zoo batch $b: stopped at ${share} s (the models not in layers/ wait for a rerun)"
    tail -3 "$W/logs/validate-b$b.err" >>"$W/logs/run.log"
    # A model whose tensors pass cuDNN's 2^31-element descriptors at this batch (EfficientNet-B6/B7
    # at 256) runs at half the batch: "batch 256, or the largest that fits".
    big=$(sed -n 's/^validate: \([a-z0-9_]*\) failed: .*descriptor.*CUDNN_STATUS_NOT_SUPPORTED.*/\1/p' \
      "$W/logs/validate-b$b.err" | sort -u | paste -sd, -)
    if [[ -n $big && $b -gt 1 ]] && (($(left) > peer_s + 40)); then
      log "zoo batch $((b / 2)): $big (too large for cuDNN at $b)"
      rl 30 "$W/logs/validate-b$((b / 2)).err" validate --backend cuda --dtype fp16 --modes eager,graph \
        --models "$big" --batch $((b / 2)) --keep-going --layers-dir "$W/layers" --warmup-seconds "$warm_s" \
        --max-seconds "$max_s" --format json -o "$W/layers/validate-fp16-b$((b / 2)).json" >/dev/null
    fi
  done
fi

if [[ $stages == *" peer "* ]]; then
  s=$(($(left) - 15))
  ((s > peer_s)) && s=$peer_s
  log "peer: PyTorch on $peer_models, modes $peer_modes, ${s} s"
  if [[ $dry == 1 ]]; then
    python3 -m py_compile bench/peer_torch_gpu.py bench/peer_gpu_remedies.py &&
      grep -q -- '--points-only' bench/peer_torch_gpu.py && grep -q -- '--modes' bench/peer_torch_gpu.py &&
      echo "dry-run ok: bench/peer_torch_gpu.py compiles and has --points-only and --modes" >>"$W/logs/dry-run.log" ||
      { echo "dry-run FAIL: bench/peer_torch_gpu.py" | tee -a "$W/logs/dry-run.log"; dry_fail=1; }
  elif ((s > 20)); then
    PYTHONUNBUFFERED=1 timeout $((s + 30)) python3 bench/peer_torch_gpu.py --out "$W/peer_gpu.json" --budget-s "$s" \
      --models "$peer_models" --batches 1,256 --modes "$peer_modes" --points-only >"$W/logs/peer.log" 2>&1
    tail -14 "$W/logs/peer.log" >>"$W/logs/run.log"
  else
    log "peer: skipped, ${s} s left"
  fi
fi

if [[ $dry == 1 ]]; then  # the post-processing on made-up measurements in the measure schema
  for mode in eager graph; do
    for m in resnet50 vgg16; do
      printf '{"schema":"rooflens.measure/1","model":"%s","backend":"%s","batch":256,"dtype":"fp16","cuda_graph":%s,"gpu":"dry","throughput":%s,"latency_s":0.01,"predicted_throughput":30000,"utilization":0.2,"layers":[]}\n' \
        "$m" "cuda$([[ $mode == graph ]] && echo -graph)" "$([[ $mode == graph ]] && echo true || echo false)" \
        "$([[ $mode == graph ]] && echo 27000 || echo 25000)" >"$W/layers/$m-fp16-b256-$mode.json"
    done
  done
fi
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu --format=csv,noheader >>"$W/logs/nvidia-smi.csv" 2>/dev/null
log "corpus: CSVs and summary"
python3 scripts/gpu_corpus_csv.py "$W/layers" "$C" "${W}/peer_gpu.json" >"$W/summary.txt" 2>>"$W/logs/run.log" ||
  log "corpus: post-processing failed (layers.tgz holds the raw JSON)"
cat "$W/summary.txt" >>"$W/logs/run.log"
[[ -f $W/probe.json ]] && cp "$W/probe.json" "$C/probe.json"
[[ -f $W/peer_gpu.json ]] && cp "$W/peer_gpu.json" "$C/peer_gpu.json"
tar czf "$C/layers.tgz" -C "$W" layers
cp "$W/summary.txt" "$C/summary.txt"
log "done: $(ls "$C" | tr '\n' ' ')"
tar czf "$C/logs.tgz" -C "$W" logs
if [[ $dry == 1 ]]; then
  if command -v shellcheck >/dev/null; then
    shellcheck -S warning "$0" && echo "dry-run ok: shellcheck" || { echo "dry-run FAIL: shellcheck"; dry_fail=1; }
  fi
  [[ $(ls "$C" | wc -l) -le 8 ]] || { echo "dry-run FAIL: more than 8 files in $C"; dry_fail=1; }
  for f in corpus.csv study-fp16-b256.csv summary.txt layers.tgz logs.tgz; do
    [[ -s $C/$f ]] || { echo "dry-run FAIL: $C/$f missing"; dry_fail=1; }
  done
  if [[ -s $C/study-fp16-b256.csv ]]; then  # study reads the CSV (predicted peaks; no GPU needed)
    "$RL" study --measurements "$C/study-fp16-b256.csv" --device h200 --dtype fp16 --no-fold --format csv \
      -o "$W/study.csv" 2>"$W/study.err" && echo "dry-run ok: study --measurements reads study-fp16-b256.csv" ||
      { echo "dry-run FAIL: study --measurements: $(cat "$W/study.err")"; dry_fail=1; }
  fi
  cat "$W/logs/dry-run.log"
  rm -rf "$W"
  exit $dry_fail
fi
rm -rf "$W"
