#!/usr/bin/env bash
# The CLI as a user meets it (issue 25): outputs that would replace an input or name a
# directory, -o names that contradict --format, flags whose rule was hidden, an unknown
# command, and the help and units a user reads. Bad input must exit 2 with exactly one
# "rooflens: error: ..." line naming the problem, print nothing on stdout, and leave every
# file as it was (no output, no temporary file, the input unchanged).
# Usage: tests/cli/user_errors.sh BINARY
set -uo pipefail
BIN=$(cd "$(dirname -- "$1")" && pwd)/$(basename -- "$1")
ROOT=$(cd "$(dirname -- "${BASH_SOURCE[0]}")/../.." && pwd)
M=$ROOT/models
TMP=$(mktemp -d "${TMPDIR:-/tmp}/rooflens-user-errors.XXXXXX")
trap 'rm -rf -- "$TMP"' EXIT
cd "$TMP" || exit 1

cp "$M/alexnet.onnx" in.onnx
printf 'keep me\n' >plain.txt
pass=0
fail=0
result() {  # NAME REASONS...
  local name=$1
  shift
  if (($#)); then
    echo "FAIL $name: $*"
    sed 's/^/    /' stderr | head -5
    fail=$((fail + 1))
  else
    echo "ok   $name"
    pass=$((pass + 1))
  fi
}
# The working directory's files (names, sizes, contents) before and after a case.
snapshot() { find . -maxdepth 1 -type f ! -name stdout ! -name stderr -exec md5sum {} + | sort; }

# bad NAME WANT_STDERR_SUBSTRING -- ARGS...
bad() {
  local name=$1 want=$2
  shift 3
  local before
  before=$(snapshot)
  "$BIN" "$@" >stdout 2>stderr
  local rc=$? reasons=()
  [[ $rc -eq 2 ]] || reasons+=("exit $rc, want 2")
  [[ -s stdout ]] && reasons+=("stdout not empty")
  local n
  n=$(grep -c '^rooflens: error: ' stderr)
  [[ $n -eq 1 ]] || reasons+=("$n error lines")
  [[ $(wc -l <stderr) -eq 1 ]] || reasons+=("stderr has $(wc -l <stderr) lines, want 1")
  grep -qF -- "$want" stderr || reasons+=("stderr lacks '$want'")
  [[ $(snapshot) == "$before" ]] || reasons+=("files changed: $(diff <(echo "$before") <(snapshot) | grep '^[<>]' | tr '\n' ' ')")
  result "$name" "${reasons[@]}"
}

# ---- Outputs that would replace an input, or that name a directory
bad fold_over_input "-o 'in.onnx': is also an input ('in.onnx'); refusing to overwrite it" -- fold in.onnx --factor 4 -o in.onnx
bad fold_over_input_other_name "is also an input" -- fold in.onnx --factor 4 -o ./in.onnx
bad fold_into_directory "-o '.': is a directory; give the name of the file to write" -- fold in.onnx --factor 4 -o .
bad predict_over_input "is also an input" -- predict in.onnx --batch 1 -o in.onnx
bad predict_roofline_over_input "--roofline 'in.onnx': is also an input" -- predict in.onnx --batch 1 --roofline in.onnx
bad predict_roofline_directory "--roofline '.': is a directory" -- predict in.onnx --batch 1 --roofline .
bad analyze_over_input "is also an input" -- analyze in.onnx -o in.onnx
bad analyze_into_directory "is a directory" -- analyze in.onnx -o .
bad doctor_over_input "is also an input" -- doctor in.onnx --batch 1 -o in.onnx
bad whatif_into_directory "is a directory" -- whatif in.onnx --batch 4 -o .
bad measure_over_input "is also an input" -- measure in.onnx --batch 1 -o in.onnx
bad study_report_is_a_file "--report 'plain.txt': exists and is not a directory" -- study in.onnx --report plain.txt
bad study_over_measurements "is also an input" -- study --models alexnet --measurements plain.txt -o plain.txt
bad sss_into_directory "is a directory" -- sss 8:8:8:8:8 -o .
bad sss_onnx_into_directory "--onnx '.': is a directory" -- sss 8:8:8:8:8 --onnx .
bad probe_out_directory "--out '.': is a directory" -- probe cpu --quick --quiet --out .
bad probe_json_same_as_out "name the same file" -- probe cpu --quick --quiet --out dev.json --json dev.json
bad probe_rounds_without_kernels "--kernel-rounds: it sets how --kernels times its shapes" -- probe cpu --quick --quiet --out dev.json --kernel-rounds 2
bad probe_samples_without_kernels "--kernel-samples: it writes the shapes --kernels times" -- probe cpu --quick --quiet --out dev.json --kernel-samples s.json
bad probe_samples_same_as_out "give a file of its own" -- probe cpu --quick --quiet --kernels --out dev.json --kernel-samples dev.json
bad validate_fit_over_device "--fit 'plain.txt': is also an input" -- validate --models alexnet --device plain.txt --fit plain.txt

# ---- -o names a format that --format contradicts, or one the command cannot write
bad measure_json_name_table "-o 'm.json' names a json file but --format is table" -- measure in.onnx --format table -o m.json
bad predict_csv_name_json "names a csv file but --format is json" -- predict in.onnx --batch 1 --format json -o p.csv
bad doctor_csv_name "this command writes table or json" -- doctor in.onnx --batch 1 -o d.csv
bad whatif_json_name_csv "names a json file but --format is csv" -- whatif in.onnx --format csv -o w.json
bad analyze_csv_name_table "names a csv file but --format is table" -- analyze in.onnx --format table -o a.csv
bad study_json_name_csv "names a json file but --format is csv" -- study --models alexnet --format csv -o s.json
bad sss_json_name_csv "names a json file but --format is csv" -- sss 8:8:8:8:8 --format csv -o s.json

# ---- Flags whose rule was hidden or missing
bad batch_cap_study "--batch '16777217': expected an integer from 1 to 16777216 (2^24), or max" -- study --models alexnet --batch 16777217
bad batch_cap_whatif "from 1 to 16777216 (2^24)" -- whatif in.onnx --batch 16777217
bad batch_cap_predict "from 1 to 16777216 (2^24)" -- predict in.onnx --batch 16777217
bad batch_cap_measure "from 1 to 16777216 (2^24)" -- measure in.onnx --batch 16777217 --max-seconds 0.01
bad measure_gpu_device_on_cpu "--device 'v100' is a GPU" -- measure in.onnx --device v100 --max-seconds 0.01
bad measure_gpu_device_names_probe "rooflens probe cpu --out local.json" -- measure in.onnx --device v100 --max-seconds 0.01
bad measure_negative_seconds "--max-seconds: -1: must be a positive number of seconds" -- measure in.onnx --max-seconds -1
bad measure_zero_seconds "--max-seconds: 0: must be a positive number of seconds" -- measure in.onnx --max-seconds 0
bad measure_zero_threads "--threads: 0: must be an integer >= 1 (omit the flag for all cores)" -- measure in.onnx --threads 0
bad validate_zero_threads "--threads: 0: must be an integer >= 1" -- validate --models alexnet --threads 0
bad doctor_zero_threads "--threads: 0: must be an integer >= 1" -- doctor in.onnx --threads 0
bad measure_two_files "in.onnx" -- measure in.onnx in.onnx --max-seconds 0.01
bad unknown_command "'nosuch' is not a rooflens command; the commands are: analyze, " -- nosuch
bad unknown_command_lists_doctor "doctor" -- nosuch --help

# ---- What a user reads: help, the output format -o names, the doctor's memory warning, units
# ok_case NAME CONDITION-DESCRIPTION: the preceding test's outcome.
check() {  # NAME COMMAND... ; succeeds when the command does
  local name=$1
  shift
  if "$@" >/dev/null 2>&1; then result "$name"; else result "$name" "check failed: $*"; fi
}
"$BIN" probe gpu --help >help_gpu.txt 2>stderr
check probe_gpu_help_names_rooflens grep -q '^Usage: rooflens probe gpu' help_gpu.txt
check probe_gpu_help_no_internal_name bash -c "! grep -q 'rooflens-full' help_gpu.txt"
"$BIN" measure --help >help_measure.txt 2>stderr
check measure_help_one_file bash -c "grep -q '^  file TEXT REQUIRED' help_measure.txt && ! grep -qE '^ +files' help_measure.txt"
"$BIN" doctor --help >help_doctor.txt 2>stderr
check doctor_help_lists_dtypes grep -qE -- '--dtype TEXT=fp16 +fp32, fp16, bf16, int8 or fp8$' help_doctor.txt
"$BIN" analyze --help >help_analyze.txt 2>stderr
check analyze_help_default_fp16 grep -q -- '--dtype TEXT=fp16 ' help_analyze.txt
"$BIN" analyze in.onnx --format json -o a.json 2>stderr
check analyze_default_is_fp16 python3 -c "import json,sys; j=json.load(open('a.json')); sys.exit(j['dtype']!='fp16')"

# -o FILE.json without --format writes JSON (predict, analyze above, measure, doctor).
"$BIN" predict in.onnx --batch 1 -o p.json 2>stderr
check predict_json_from_name python3 -c "import json; json.load(open('p.json'))"
"$BIN" predict in.onnx --batch 1 -o p.csv 2>stderr
check predict_csv_from_name grep -q '^layer,op,' p.csv
"$BIN" measure in.onnx --batch 1 --max-seconds 0.05 -o m.json 2>stderr
check measure_json_from_name python3 -c "import json; assert json.load(open('m.json'))['schema']=='rooflens.measure/1'"
"$BIN" doctor in.onnx --batch 1 -o d.json 2>stderr
check doctor_json_from_name python3 -c "import json; assert json.load(open('d.json'))['schema']=='rooflens.doctor/1'"

# The doctor says that a batch does not fit in predict's words (memory_overflow_note).
"$BIN" predict in.onnx --device v100 --batch 1000000 >predict_big.txt 2>stderr
"$BIN" doctor in.onnx --device v100 --batch 1000000 >doctor_big.txt 2>stderr
rc=$?
note=$(sed -n 's/^  note: \(batch 1000000 needs .*\)$/\1/p' predict_big.txt)
check predict_warns_big_batch test -n "$note"
printf 'warning: %s\n' "$note" >want_warning.txt
check doctor_exit_0_for_big_batch test "$rc" -eq 0
check doctor_warns_big_batch_as_predict grep -qxF -f want_warning.txt doctor_big.txt
"$BIN" doctor in.onnx --device v100 --batch 1000000 --format json >doctor_big.json 2>stderr
check doctor_json_warns_big_batch env NOTE="$note" python3 -c "import json, os; assert json.load(open('doctor_big.json'))['warnings']==[os.environ['NOTE']]"
"$BIN" doctor in.onnx --device v100 --batch 1 --format json >doctor_small.json 2>stderr
check doctor_no_warning_when_it_fits python3 -c "import json; assert 'warnings' not in json.load(open('doctor_small.json'))"

# A folded model's throughput counts folded inputs, each of f images.
"$BIN" fold "$M/resnet18.onnx" --factor 4 -o folded.onnx >/dev/null 2>stderr
"$BIN" predict folded.onnx --batch 2 >folded.txt 2>stderr
check folded_throughput_unit grep -qE '^  throughput +[0-9.]+ folded inputs/s  \([0-9.]+ images/s: 4 images per input\)$' folded.txt
check folded_batch_unit grep -qE '^  batch +2 folded inputs of 4 images \(8 images\)$' folded.txt
"$BIN" predict folded.onnx --batch 2 --format json >folded.json 2>stderr
check folded_json_units python3 -c "
import json; j=json.load(open('folded.json'))
assert j['images_per_input']==4 and j['units']['throughput']=='folded inputs/s', j['units']"
"$BIN" predict "$M/resnet18.onnx" --batch 2 >plain_model.txt 2>stderr
check unfolded_throughput_unit grep -qE '^  throughput +[0-9.]+ images/s$' plain_model.txt

echo "user_errors: $pass passed, $fail failed"
[[ $fail -eq 0 ]]
