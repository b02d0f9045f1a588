# Post hoc: every recorded batch-8 zoo run predicted with its probe's table under variants of the batch-8 level.
import json, subprocess, sys, copy, glob, os, statistics as st
G='/work/main/docs/generated'
def b8(L): return [l for l in L if l['batch']==8][0]
def nopos(L):
    l=b8(L); l['classes']={k:v for k,v in l.get('classes',{}).items() if '@' not in k or k.startswith('conv_grouped@')}
variants={'as-probed':lambda L:None,
 'no-positions':nopos,
 'no-classes':lambda L:b8(L).__setitem__('classes',{}),
 'level-1':lambda L:(b8(L).__setitem__('classes',{}),b8(L).__setitem__('level',1.0)),
 'b1-levels':lambda L:L.__setitem__(L.index(b8(L)),dict(copy.deepcopy(L[0]),batch=8))}
def preds(p):
    out=subprocess.run(['./build/rooflens','predict','--zoo','--device',p,'--dtype','fp32','--batch','8','--format','json'],capture_output=True,text=True,cwd='/work/main')
    j=json.loads(out.stdout); r={}
    for m in (j['models'] if isinstance(j,dict) and 'models' in j else j):
        q=m['predictions'][0] if 'predictions' in m else m; r[m.get('model') or m.get('name')]=q['throughput']
    return r
for D in sorted(glob.glob(G+'/validate-cpu-2026-12-06*')):
    runs=sorted(glob.glob(D+'/run*-b8.json'))
    if not runs or not os.path.exists(D+'/device-probe.json'): continue
    dev=json.load(open(D+'/device-probe.json'))
    L=dev['kernel_table'].get('network_levels')
    if not L or not [l for l in L if l['batch']==8]: continue
    res={}
    for name,f in variants.items():
        d=copy.deepcopy(dev); f(d['kernel_table']['network_levels']); p='/tmp/ph/dev.json'; json.dump(d,open(p,'w'))
        pr=preds(p)
        for rf in runs:
            meas={m['name']:m['normalized'] for m in json.load(open(rf))['models'] if m.get('normalized')}
            e=[pr[n]/meas[n]-1 for n in meas if n in pr]
            res.setdefault(os.path.basename(rf),[]).append('%5.1f%% (%+.1f)'%(100*sum(abs(x)<=0.1 for x in e)/len(e),100*st.median(e)))
    for rf,v in res.items(): print(os.path.basename(D), rf, ' | '.join(v))
print('columns:', ' | '.join(variants))
