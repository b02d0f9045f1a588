#!/usr/bin/env bash
# One call on a lent GPU machine: checks rooflens's CUDA backend against the reference
# backend, probes the GPU, measures bundled models (fp16 eager and as one CUDA graph, batch
# 1/64/256, fp32, conv1 padded to 8 channels) next to the performance model, then runs the
# PyTorch peer. Binaries and the Debian libraries they need come prebuilt in .gpu/bundle.tar.xz
# (scripts/gpu-bundle.sh); cuDNN and cuBLAS are the machine's own.
# usage: scripts/gpu-check.sh OUTDIR [PEER_SECONDS]
#   STAGES (default "tests probe measure peer") picks stages; PEER_MODELS the peer's models;
#   REPEAT_PAD=N measures ResNet-50 with and without conv1 padding N times, alternating.
set -u
out=${1:?usage: gpu-check.sh OUTDIR [PEER_SECONDS]}
peer_s=${2:-110}
stages=" ${STAGES:-tests probe measure peer} "
peer_models=${PEER_MODELS:-resnet50,mobilenet_v2,squeezenet1_0,mobilenet_v3_small}
mkdir -p "$out" /tmp/rl
t0=$(date +%s)
log() { echo "[$(($(date +%s) - t0)) s] $*"; }
lib_dir() { find /usr/local /opt /usr/lib -name "$1" 2>/dev/null | head -1 | xargs -r dirname; }
mkdir -p /tmp/gpu && tar xJf .gpu/bundle.tar.xz -C /tmp/gpu
export LD_LIBRARY_PATH="/tmp/gpu/lib:$(lib_dir libcudnn.so.9):$(lib_dir libcublas.so.13):${LD_LIBRARY_PATH:-}"
echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
B=/tmp/gpu/bin
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu --format=csv | tee "$out/nvidia-smi.csv"
ldd "$B/rooflens" | grep "not found" && log "missing libraries (above)"

if [[ $stages == *" tests "* ]]; then
log "1/4 CUDA backend against the reference backend"
timeout 170 "$B/rooflens_cuda_tests" --gtest_color=no > /tmp/rl/cuda_tests.log 2>&1
echo "exit $?" >> /tmp/rl/cuda_tests.log
grep -E "^\[  (FAILED|PASSED|SKIPPED) |NOTE|Failure|Expected|error|exit" /tmp/rl/cuda_tests.log | head -40
fi

if [[ $stages == *" probe "* ]]; then
log "2/4 GPU probe"
timeout 60 "$B/rooflens_gpu_probe_tests" --gtest_color=no > /tmp/rl/gpu_probe_tests.log 2>&1; echo "exit $?" >> /tmp/rl/gpu_probe_tests.log
grep -E "^\[  (FAILED|PASSED|SKIPPED) |Failure|exit" /tmp/rl/gpu_probe_tests.log | head -20
timeout 100 "$B/rooflens" probe gpu --id h200-probed -o /tmp/rl/h200-probe.json > /tmp/rl/probe.txt 2>&1
echo "exit $?" >> /tmp/rl/probe.txt
tail -30 /tmp/rl/probe.txt
fi

if [[ $stages == *" measure "* ]]; then
log "3/4 measure (cuda backend) beside predict"
python3 scripts/pad-conv1.py models/resnet50.onnx /tmp/rl/resnet50_conv1pad8.onnx 8 || true
cp models/resnet50.onnx models/mobilenet_v2.onnx models/squeezenet1_0.onnx models/mobilenet_v3_small.onnx \
   models/efficientnet_b0.onnx models/densenet121.onnx models/vgg16.onnx /tmp/rl/ 2>/dev/null
mkdir -p /tmp/rl/measure
run() {  # model dtype batch mode
  local f=/tmp/rl/measure/$1-$2-b$3-$4.json extra=""
  [ "$4" = graph ] && extra=--graph
  timeout 60 "$B/rooflens" measure "/tmp/rl/$1.onnx" --backend cuda --dtype "$2" --batch "$3" $extra \
    --max-seconds 1 --format json -o "$f" 2> "${f%.json}.err" || log "measure $1 $2 b$3 $4 failed: $(tail -1 "${f%.json}.err")"
}
if [ "${REPEAT_PAD:-0}" -gt 0 ]; then
  for i in $(seq "$REPEAT_PAD"); do
    for m in resnet50 resnet50_conv1pad8; do
      cp "/tmp/rl/$m.onnx" "/tmp/rl/$m-r$i.onnx" 2>/dev/null || true
      run $m-r$i fp16 256 eager; run $m-r$i fp16 256 graph; run $m-r$i fp16 1 graph
    done
  done
fi
for m in ${MEASURE_MODELS:-resnet50 mobilenet_v2 squeezenet1_0 mobilenet_v3_small}; do
  for b in 1 64 256; do run $m fp16 $b eager; run $m fp16 $b graph; done
done
if [ -z "${MEASURE_MODELS:-}" ]; then
  for m in resnet50_conv1pad8; do for b in 1 256; do run $m fp16 $b eager; run $m fp16 $b graph; done; done
  for m in resnet50 mobilenet_v2; do run $m fp32 64 eager; done
fi
for m in ${EXTRA_MODELS:-efficientnet_b0 densenet121 vgg16}; do run $m fp16 64 eager; run $m fp16 256 graph; done
# one table-format run for the per-layer view
timeout 60 "$B/rooflens" measure /tmp/rl/resnet50.onnx --backend cuda --dtype fp16 --batch 256 --max-seconds 1 > /tmp/rl/resnet50-b256-layers.txt 2>&1
python3 - /tmp/rl/measure <<'PY' | tee /tmp/rl/summary.txt
import json, os, sys
d = sys.argv[1]
print(f"{'model':22} {'dtype':5} {'batch':>5} {'mode':6} {'img/s':>10} {'pred img/s':>10} {'meas/pred':>9} {'util %':>7}")
for f in sorted(os.listdir(d)):
    if not f.endswith('.json'): continue
    j = json.load(open(os.path.join(d, f)))
    mode = 'graph' if j.get('cuda_graph') else 'eager'
    r = j['throughput'] / j['predicted_throughput'] if j.get('predicted_throughput') else 0
    print(f"{j['model']:22} {j['dtype']:5} {j['batch']:>5} {mode:6} {j['throughput']:>10.1f} {j['predicted_throughput']:>10.1f} {r:>9.2f} {100*j['utilization']:>7.2f}")
PY
fi

if [[ $stages == *" peer "* ]]; then
log "4/4 PyTorch peer (${peer_s} s budget)"
PYTHONUNBUFFERED=1 timeout $((peer_s + 40)) python3 bench/peer_torch_gpu.py --out "$out/peer_gpu.json" --budget-s "$peer_s" \
  --models "$peer_models" --batches 1,64,256 --clock-s 10 ${PEER_ARGS:-} > /tmp/rl/peer_gpu.log 2>&1
tail -25 /tmp/rl/peer_gpu.log
fi
nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv >> "$out/nvidia-smi.csv"
tar czf "$out/rl.tgz" -C /tmp rl
cp /tmp/rl/summary.txt /tmp/rl/cuda_tests.log /tmp/rl/h200-probe.json "$out/" 2>/dev/null
log "done"
