import json, glob, collections, statistics as st, math
rows = collections.defaultdict(dict); T0={}
for line in open('/tmp/drift/times'):
    p=line.split()
    if len(p)==3: T0[(int(p[0]),p[1])]=float(p[2])
for f in glob.glob('/tmp/drift/out/*.json'):
    i, n = f.split('/')[-1][:-5].split('-', 1)
    try: j = json.load(open(f))
    except Exception: continue
    h = j.get('host_reference') or {}
    rows[int(i)][n] = dict(t=j['batch']/j['throughput'], k=0.5*(h.get('kernels_s_before',0)+h.get('kernels_s_after',0)), h=h, ts=T0.get((int(i),n),0))
names=['dw8','mul8','gap8','pw8','level_inverted_se','level_plain','level_inverted','mobilenet_v3_large','mnasnet1_0','efficientnet_b3','resnet50','inception_v3']
its=sorted(i for i in rows if len(rows[i])==len(names))
t0=rows[its[0]]['dw8']['ts']
B=8  # bins
nb=max(1,len(its)//B)
bins=[its[k*nb:(k+1)*nb] for k in range(B) if its[k*nb:(k+1)*nb]]
print('rounds',len(its),'minutes',(rows[its[-1]]['dw8']['ts']-t0)/60)
def bmed(b,f): return st.median(f(rows[i]) for i in b)
K=lambda r: st.median(r[n]['k'] for n in names)
print('bin start(min): '+' '.join(f"{(rows[b[0]]['dw8']['ts']-t0)/60:6.1f}" for b in bins))
ref0={}
def line(lab,f):
    v=[bmed(b,f) for b in bins]; print(f"{lab:34s} "+' '.join(f"{x/v[0]:6.3f}" for x in v))
line('kernels_s (ref convs) time', K)
for hk in ['dispatch_s_before','stream_bytes_before','fma_flops_before','clock_hz_before']:
    line(hk, lambda r,hk=hk: st.median(r[n]['h'].get(hk,0) or 1e-30 for n in names))
for n in names: line(n+' time', lambda r,n=n: r[n]['t'])
print('--- time / ref convs')
for n in names: line(n, lambda r,n=n: r[n]['t']/r[n]['k'] if r[n]['k'] else 0)
print('--- time / resnet50 time')
for n in names: line(n, lambda r,n=n: r[n]['t']/r['resnet50']['t'])
print('--- time / level_inverted_se time')
for n in names: line(n, lambda r,n=n: r[n]['t']/r['level_inverted_se']['t'])
print('--- per round, each model over its median (118 rounds): share within +-5%, raw and divided by the reference convolutions')
for n in names:
    raw=[rows[i][n]['t'] for i in its]; nr=[rows[i][n]['t']/rows[i][n]['k'] for i in its if rows[i][n]['k']]
    f=lambda v: sum(abs(x/st.median(v)-1)<=0.05 for x in v)/len(v)
    print(f"{n:20s} raw {f(raw):.0%}  normalised {f(nr):.0%}")
