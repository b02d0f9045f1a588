#!/usr/bin/env bash
# Bad input to `rooflens study`, `fold`, `sss`, `nas`, `doctor` and `probe gpu`: each case must exit 2 with exactly one
# "rooflens: error: ..." line naming the problem, print nothing on stdout, and leave no
# report or output file behind.
# Usage: tests/cli/study_bad_input.sh BINARY
set -uo pipefail
BIN=$(cd "$(dirname -- "$1")" && pwd)/$(basename -- "$1")
ROOT=$(cd "$(dirname -- "${BASH_SOURCE[0]}")/../.." && pwd)
M=$ROOT/models
TMP=$(mktemp -d "${TMPDIR:-/tmp}/rooflens-study-bad.XXXXXX")
trap 'rm -rf -- "$TMP"' EXIT
cd "$TMP" || exit 1

printf 'model,throughput\nresnet50,100\n' >missing_col.csv
printf 'model,batch,throughput\nnot_a_zoo_model,8,100\n' >unknown_model.csv
printf 'model,batch,throughput\nresnet50,8,-5\n' >negative.csv
printf 'model,batch,throughput\nresnet50,8,100\nresnet50,16,200\n' >duplicate.csv

pass=0
fail=0
# check NAME WANT_STDERR_SUBSTRING -- ARGS...
check() {
  local name=$1 want=$2
  shift 3
  rm -rf out out.onnx out.json
  "$BIN" "$@" >stdout 2>stderr
  local rc=$? reasons=()
  [[ $rc -eq 2 ]] || reasons+=("exit $rc, want 2")
  [[ -s stdout ]] && reasons+=("stdout not empty")
  local n
  n=$(grep -c '^rooflens: error: ' stderr)
  [[ $n -eq 1 ]] || reasons+=("$n error lines")
  grep -qF -- "$want" stderr || reasons+=("stderr lacks '$want'")
  [[ -e out/index.html || -e out/result.json || -e out/study.json || -e out/study.csv || -e out.onnx || -e out.json ]] && reasons+=("partial output written")
  if ((${#reasons[@]})); then
    echo "FAIL $name: ${reasons[*]}"
    sed 's/^/    /' stderr | grep -v '^    study: ' | head -5
    fail=$((fail + 1))
  else
    echo "ok   $name: $(grep '^rooflens: error: ' stderr)"
    pass=$((pass + 1))
  fi
}

check csv_missing_column "missing column 'batch'" -- study --measurements missing_col.csv --report out
check csv_model_not_in_zoo "model 'not_a_zoo_model' is not in the zoo" -- study --measurements unknown_model.csv --report out
check csv_negative_throughput "throughput: -5 must be positive" -- study --measurements negative.csv --report out
check csv_duplicate_model "model 'resnet50' is listed twice" -- study --measurements duplicate.csv --report out
check csv_missing_file "cannot open" -- study --measurements nope.csv --report out
check models_not_in_zoo "'resnet9000' is not in the zoo" -- study --models resnet9000 --report out
check study_fold_factor_0 "--fold-factor '0'" -- study --models resnet18 --fold-factor 0 --report out
check study_fold_factor_frac "--fold-factor '1.5': must be an integer >= 2" -- study --models resnet18 --fold-factor 1.5 --report out
check study_fold_not_dividing "does not divide the batch 6" -- study --models mobilenet_v2 --batch 6 --fold-factor 4 --report out
check study_bad_batch "--batch 'lots'" -- study --models resnet18 --batch lots --report out
check study_fold_unknown_model "--fold: 'vgg99'" -- study --models resnet18 --fold vgg99 --report out
check fold_factor_0 "factor" -- fold "$M/resnet18.onnx" --factor 0 -o out.onnx
check fold_factor_frac "factor" -- fold "$M/resnet18.onnx" --factor 1.5 -o out.onnx
check fold_not_dividing "not divisible by --factor 4" -- fold "$M/resnet18.onnx" --factor 4 --batch 6 -o out.onnx
U=$ROOT/tests/cli/fixtures/unfoldable_attention.onnx
check fold_unfoldable_node "cannot fold MatMul node 'attention_scores'" -- fold "$U" --factor 4 --batch 4 -o out.onnx
check study_fold_unfoldable "cannot fold MatMul node 'attention_scores'" -- study "$U" --fold unfoldable_attention --batch 4 --report out
check sss_bad_width "width 4 '65' is not one of" -- sss 8:16:24:32:65
check sss_index_range "0..32767" -- sss --index 32768
check sss_no_peak "has no fp8 peak" -- sss 8:8:8:8:8 --device v100 --dtype fp8
check fold_missing_file "nope.onnx" -- fold nope.onnx --factor 4 -o out.onnx
printf 'arch,accuracy\n8:8:8:8:8,70\n' >one_net.csv
NATS=$ROOT/../shared/data/nats-sss-v1_0-50262-simple
check nas_unknown_strategy "strategy 'bayes'" -- nas --oracle csv:one_net.csv --strategy bayes -o out
check nas_unknown_reward "reward 'fast'" -- nas --oracle csv:one_net.csv --reward fast -o out
check nas_unknown_oracle "unknown scheme 'http'" -- nas --oracle http://x -o out
check nas_missing_table "nope.csv" -- nas --oracle csv:nope.csv -o out
check nas_seeds_0 "--seeds 0" -- nas --oracle csv:one_net.csv --seeds 0 -o out
check nas_negative_budget "budget -5" -- nas --oracle csv:one_net.csv --budget -5 -o out
check nas_twice "given twice" -- nas --oracle csv:one_net.csv --strategy rea,rea -o out
check nas_strategy_seeds "must be an integer 1..10000" -- nas --oracle csv:one_net.csv --strategy rea:0 -o out
check nas_space "only sss" -- nas --space nb201 --oracle csv:one_net.csv -o out
check nas_train_bad_key "unknown key 'epoch'" -- nas --oracle train:fashion-mnist,epoch=2 -o out
check nas_train_epochs_0 "epochs=0" -- nas --oracle train:fashion-mnist --epochs 0 -o out
check nas_train_no_dir "/no/such/dir" -- nas --oracle train:/no/such/dir -o out
check nas_train_flag_other_oracle "--epochs" -- nas --oracle csv:one_net.csv --epochs 2 -o out
check nas_net_not_in_table "no row for network" -- nas --oracle csv:one_net.csv --strategy random --budget 100 -o out
check doctor_missing_file "nope.onnx" -- doctor nope.onnx
check doctor_bad_dtype "--dtype 'fp7'" -- doctor "$M/resnet18.onnx" --dtype fp7
check doctor_negative_jpeg "--jpeg-rate" -- doctor "$M/resnet18.onnx" --jpeg-rate -5
check doctor_two_jpeg "not both" -- doctor "$M/resnet18.onnx" --jpeg-rate 100 --measure-jpeg
check doctor_no_model "--zoo for every bundled model" -- doctor --device v100
check doctor_zoo_and_file "not both" -- doctor "$M/resnet18.onnx" --zoo
check doctor_zoo_unknown_model "'nonet' is not in the zoo" -- doctor --zoo --models resnet18,nonet
check doctor_models_without_zoo "--models needs --zoo" -- doctor "$M/resnet18.onnx" --models resnet18
check doctor_zoo_bad_device "v999" -- doctor --zoo --models resnet18 --device v999
check study_doctor_without_report "give --report DIR" -- study --models resnet18 --doctor
check doctor_measured_on_gpu "give a CPU device" -- doctor "$M/resnet18.onnx" --measured --device v100 --dtype fp32
check doctor_measured_fp16 "runs fp32" -- doctor "$M/resnet18.onnx" --measured --device epyc-milan-2c --dtype fp16
check nas_measured_gpu "is a GPU" -- nas --oracle csv:one_net.csv --throughput measured --device v100 --dtype fp32 -o out
check probe_gpu_empty_id "--id must not be empty" -- probe gpu --id "" --quiet -o out.json
check probe_gpu_repeats_0 "--repeats" -- probe gpu --repeats 0 --quiet -o out.json
# No device 99 on any machine; a build without CUDA says so instead.
gpu_want="no CUDA device"
# (Captured first: with pipefail, `grep -q` closing the pipe early could fail the pipeline.)
gpu_probe_err="$("$BIN" probe gpu --gpu 99 --quiet -o "$PWD/gpu_probe_check.json" 2>&1)"
grep -q "built without CUDA" <<<"$gpu_probe_err" && gpu_want="built without CUDA"
rm -f gpu_probe_check.json
check probe_gpu_no_device "$gpu_want" -- probe gpu --gpu 99 --quiet -o out.json
if [[ -d $NATS ]]; then
  check nas_nats_dataset "answers for CIFAR-10" -- nas --oracle "nats:$NATS" --dataset cifar100 -o out
  check nas_nats_missing_network "pickle.pbz2" -- nas --oracle "nats:$NATS" --strategy random -o out
fi

echo "study_bad_input: $pass passed, $fail failed"
[[ $fail -eq 0 ]]
