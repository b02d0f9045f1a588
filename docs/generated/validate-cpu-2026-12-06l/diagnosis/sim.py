# Emulate batch-8 levels computed from the generated networks' per-layer data (lay8), with and
# without splitting pool (global) and eltwise (BatchNormalization), applied to zoo predictions.
import json,glob,os,sys,collections,statistics as st,math
lay,pred,val,zp=sys.argv[1:5]
runs=sys.argv[5:]
v={m['name']:m for m in json.load(open(val))['models']}
def key(L,split):
    kt=L.get('kernel_table')
    if not kt or not kt.get('level_class'): return None
    c=kt['level_class']; op=L['op'].split('+')[0]
    if split and c=='pool' and op in ('GlobalAveragePool','ReduceMean'): c='pool_global'
    if split and c=='eltwise' and op=='BatchNormalization': c='eltwise_norm'
    pos=kt.get('level_position',0)
    return (c,'%s@%d'%(c,round(pos)) if pos>0 else None)
def levels(split):
    agg=collections.defaultdict(lambda:[0,0,0]); nets=[]
    for f in sorted(glob.glob(lay+'/level_*-cpu.json')):
        j=json.load(open(f)); n=j['model']; pf=pred+'/'+n+'.json'
        if not os.path.exists(pf): continue
        p={L['name']:L for L in json.load(open(pf))['layers']}
        drift=v[n]['host_per_run'][0]['drift']
        tot=sum(L['time_s'] for L in j['layers']); sc=(j['batch']/j['throughput'])*drift/tot
        nets.append(v[n]['predicted']/v[n]['normalized'])
        for L in j['layers']:
            q=p.get(L['name']); k=key(q,split) if q else None
            if not k: continue
            for kk in k:
                if kk: a=agg[kk]; a[0]+=L['time_s']*sc; a[1]+=q['time_s']; a[2]+=1
    return st.median(nets),{k:a[0]/a[1] for k,a in agg.items() if a[2]>=3}
def predict(model,overall,cls,split):
    p=json.load(open(zp+'/'+model+'.json')); t=0
    for L in p['layers']:
        k=key(L,split)
        if not k: t+=L['time_s']; continue
        c,pk=k
        if c=='conv_grouped': lv=cls.get(pk) or overall   # crude: exact width or overall
        else: lv=cls.get(pk) if pk and pk in cls else cls.get(c,overall)
        t+=L['time_s']*lv
    return p['batch']/t
for split in (False,True):
    o,c=levels(split)
    print('split' if split else 'as now', 'overall %.3f'%o, ' '.join('%s %.2f'%(k,x) for k,x in sorted(c.items()) if '@' not in k))
    for rf in [val]+runs:
        meas={m['name']:m['normalized'] for m in json.load(open(rf))['models'] if m.get('normalized') and not m['name'].startswith('level_')}
        e=[predict(n,o,c,split)/meas[n]-1 for n in meas if os.path.exists(zp+'/'+n+'.json')]
        print('   %-60s n %d within10 %.1f%% median|e| %.1f%% signed %+.1f%%'%(rf[-60:],len(e),100*sum(abs(x)<=0.1 for x in e)/len(e),100*st.median(map(abs,e)),100*st.median(e)))
