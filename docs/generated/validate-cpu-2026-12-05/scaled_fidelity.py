# Scale-free comparison: errors of each table's predictions against the same measurements
# after dividing out one common factor (the median ratio), i.e. how well the table ranks and
# spaces the models, apart from the host's level.
import json,sys,statistics,csv
run=json.load(open(sys.argv[1]))
meas={m['name']:m['measured'] for m in run['models']}
def load_pred(path):
    d=json.load(open(path)); out={}
    rows=d if isinstance(d,list) else d.get('models') or d.get('rows') or d.get('predictions')
    for r in rows:
        n=r.get('model') or r.get('name'); n=n.split('/')[-1].replace('.onnx','')
        out[n]=r.get('throughput') or r.get('throughput_img_per_s') or r.get('predicted_throughput')
    return out
preds={'new(run)':{m['name']:m['predicted'] for m in run['models']}}
for p in sys.argv[2:]: preds[p.split('/')[-1]]=load_pred(p)
for k,p in preds.items():
    names=[n for n in meas if n in p and p[n]]
    r=[p[n]/meas[n] for n in names]; s=statistics.median(r)
    e=[x/s-1 for x in r]; raw=[x-1 for x in r]
    f=lambda es,t: sum(abs(x)<=t for x in es)/len(es)
    print(f"{k:28s} n={len(names)} raw: med|e| {statistics.median(abs(x) for x in raw):.3f} in10 {f(raw,.1):.2f} in25 {f(raw,.25):.2f} | scale {s:.3f} scaled: med|e| {statistics.median(abs(x) for x in e):.3f} in10 {f(e,.1):.2f} in25 {f(e,.25):.2f}")
    worst=sorted(zip(names,e),key=lambda t:-abs(t[1]))[:8]
    print('   worst scaled:', ', '.join(f"{n} {x:+.2f}" for n,x in worst))
