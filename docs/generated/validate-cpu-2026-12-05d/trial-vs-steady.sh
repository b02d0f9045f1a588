#!/bin/bash
# The thread trial against steady runs, beside two busy processes: per model and repeat, `measure` as it
# chooses (its JSON thread_choice), then --fixed-threads on 2 and on 1 thread. Output under $OUT.
cd "$(dirname "$0")/../../.."  # the repository root
D=${OUT:-/tmp/trial-vs-steady}; mkdir -p $D
python3 -c 'while True: pass' & P1=$!; python3 -c 'while True: pass' & P2=$!
sleep 1
for rep in 1 2 3; do
 for m in ${MODELS:-shufflenet_v2_x1_0 mobilenet_v2}; do
  ./build/rooflens measure models/$m.onnx --batch ${BATCH:-1} --max-seconds 1 --layout auto --format json -o $D/$m-adapt-$rep.json 2>/dev/null
  ./build/rooflens measure models/$m.onnx --batch ${BATCH:-1} --max-seconds 1 --layout auto --fixed-threads --threads 2 --format json -o $D/$m-t2-$rep.json 2>/dev/null
  ./build/rooflens measure models/$m.onnx --batch ${BATCH:-1} --max-seconds 1 --layout auto --fixed-threads --threads 1 --format json -o $D/$m-t1-$rep.json 2>/dev/null
 done
done
kill $P1 $P2
/opt/rooflens-venv/bin/python - $D <<'PY'
import json,sys,glob,os
D=sys.argv[1]
for f in sorted(glob.glob(D+'/*-adapt-*.json')):
    j=json.load(open(f)); tc=j['thread_choice'] or {}
    base=f.replace('-adapt-','-t2-'); t2=json.load(open(base))['throughput']; t1=json.load(open(f.replace('-adapt-','-t1-')))['throughput']
    a=tc.get('asked_seconds',0); fw=tc.get('fewer_seconds',0)
    print(os.path.basename(f), "used",j['threads'], "thr %.1f"%j['throughput'], "trial 2t/1t speed %.2f"%(fw/a if a else 0), "steady t2 %.1f t1 %.1f ratio %.2f"%(t2,t1,t2/t1))
PY
