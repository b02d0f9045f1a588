#!/usr/bin/env bash
# `rooflens doctor` on bundled models gives the diagnoses the article's checklist expects
# (issue 9): ResNet-50 on V100 FP16 names conv1's 3 input channels; MobileNetV2 names its
# depthwise layers memory-bound; SqueezeNet and MobileNetV3-Small at batch 1 name launch
# overhead and work starvation, with the gains of graph capture and of batch 64.
# Usage: tests/cli/doctor_diagnoses.sh BINARY
set -uo pipefail
BIN=$1
M=$(cd "$(dirname -- "${BASH_SOURCE[0]}")/../../models" && pwd)
fail=0
check() {  # NAME PATTERN TEXT
  if grep -qE -- "$2" <<<"$3"; then echo "ok   $1"; else echo "FAIL $1: no line matches '$2'"; fail=1; fi
}
# The section of one finding: from its numbered title line to the next one.
section() { awk -v t="$1" '/^[0-9]+\. \[/ { on = index($0, t) > 0 } on' <<<"$2"; }

out=$("$BIN" doctor "$M/resnet50.onnx" --device v100 --dtype fp16 --batch 256) || { echo "FAIL resnet50: exit $?"; exit 1; }
tc=$(section "Specialized units" "$out")
check "resnet50: tensor-core item applies" '^[0-9]+\. \[applies\] Specialized units' "$tc"
check "resnet50: conv1 named, 3 channels not a multiple of 8" '/conv1/Conv .*multiples of 8' "$tc"
check "resnet50: padded gain predicted on the padded graph" 'pad channels to 8 .*predicted on the padded graph' "$tc"

out=$("$BIN" doctor "$M/mobilenet_v2.onnx" --device v100 --dtype fp16 --batch 256) || { echo "FAIL mobilenet_v2: exit $?"; exit 1; }
mb=$(section "Memory-bound layers" "$out")
check "mobilenet_v2: memory-bound item applies" '^[0-9]+\. \[applies\] Memory-bound' "$mb"
check "mobilenet_v2: depthwise layers named memory-bound" 'depthwise; AI [0-9.]+ FLOP/B below the ridge' "$mb"

for m in squeezenet1_1 mobilenet_v3_small; do
  out=$("$BIN" doctor "$M/$m.onnx" --device v100 --dtype fp16 --batch 1) || { echo "FAIL $m: exit $?"; exit 1; }
  la=$(section "Kernel launch overhead" "$out")
  st=$(section "Work starvation" "$out")
  check "$m b1: launch overhead applies" '^[0-9]+\. \[applies\] Kernel launch overhead' "$la"
  check "$m b1: graph capture gain" 'graph capture \(CUDA graphs\) +[0-9]+ -> +[0-9]+ img/s \(1\.[0-9]+x' "$la"
  check "$m b1: starvation applies" '^[0-9]+\. \[applies\] Work starvation' "$st"
  check "$m b1: batch 64 gain" 'batch 64 +[0-9]+ -> +[0-9]+ img/s \([0-9.]+x' "$st"
done
# --measured on this CPU: item 6 compares every measured layer with its bound and names the
# oneDNN implementation of each layer it lists (ResNet-18, batch 4, 1 s of repeats).
out=$("$BIN" doctor "$M/resnet18.onnx" --device epyc-milan-2c --dtype fp32 --batch 4 --measured --max-seconds 1 \
      --verbose 2>/dev/null) || { echo "FAIL doctor --measured: exit $?"; exit 1; }
un=$(section "Unoptimized code" "$out")
check "resnet18 --measured: item 6 decided from measurements" '^[0-9]+\. \[(applies|does not apply)\] Unoptimized code' "$un"
check "resnet18 --measured: layers compared with their bound" 'layers, [0-9.]+% of the measured time, run more than 2x above' "$un"
th=$(section "Thermal and power envelope" "$out")
check "resnet18 --measured: item 7 from the clock measured after the run" 'core clock right after the sustained run: [0-9.]+ GHz' "$th"
if grep -qE '^[0-9]+\. \[applies\] Unoptimized' <<<"$un"; then
  check "resnet18 --measured: each listed layer has its oneDNN implementation" 'measured [0-9.]+ .s vs bound .*x\), [a-z_:0-9]+' "$un"
fi

# --zoo on three models at batch 1: one ranked row each, the largest gain first (JSON).
zj=$("$BIN" doctor --zoo --models squeezenet1_1,resnet50,mobilenet_v3_small --device v100 --dtype fp16 --batch 1 \
     --format json 2>/dev/null) || { echo "FAIL doctor --zoo: exit $?"; exit 1; }
ranked=$(python3 -c 'import json,sys; m=json.load(sys.stdin)["models"]; s=[x["best"]["time_saved"] for x in m];
print(len(m), all(a >= b for a, b in zip(s, s[1:])), all(x["best"]["speedup"] > 1 for x in m))' <<<"$zj")
check "doctor --zoo: three models ranked by time saved, each with a gain" '^3 True True$' "$ranked"
# study --report --doctor: the doctor's section in the study's page, one row per model.
rep=$(mktemp -d)
"$BIN" study --models resnet50,mobilenet_v2 --device v100 --report "$rep" --doctor >/dev/null 2>&1 \
  || { echo "FAIL study --doctor: exit $?"; rm -rf "$rep"; exit 1; }
rows=$(awk '/<table id="doctor-table">/,/<\/table>/' "$rep/index.html" | grep -c '<tr data-model=')
check "study --doctor: the section has one row per model" '^2$' "$rows"
check "study --doctor: doctor.json written" 'rooflens.doctor-zoo/1' "$(cat "$rep/doctor.json" 2>/dev/null)"
rm -rf "$rep"
exit $fail
