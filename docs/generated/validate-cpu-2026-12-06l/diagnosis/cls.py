import json,glob,os,sys,collections
lay,pred,val=sys.argv[1:4]
v={m['name']:m for m in json.load(open(val))['models']}
agg={'zoo':collections.defaultdict(lambda:[0,0,0]),'gen':collections.defaultdict(lambda:[0,0,0])}
for f in sorted(glob.glob(lay+'/*-cpu.json')):
    j=json.load(open(f)); n=j['model']
    pf=pred+'/'+n+'.json'
    if not os.path.exists(pf): continue
    p=json.load(open(pf)); keys={}
    for L in p['layers']:
        kt=L.get('kernel_table')
        if not kt or not kt.get('level_class'): continue
        k=[kt['level_class']]
        if kt.get('level_position',0)>0: k.append('%s@%d'%(kt['level_class'],round(kt['level_position'])))
        keys[L['name']]=(k,L['time_s'])
    m=v[n]; drift=m['host_per_run'][0]['drift']
    tot=sum(L['time_s'] for L in j['layers']); sc=(j['batch']/j['throughput'])*drift/tot
    g='gen' if n.startswith('level_') else 'zoo'
    for L in j['layers']:
        if L['name'] not in keys: continue
        ks,pt=keys[L['name']]
        for k in ks:
            a=agg[g][k]; a[0]+=L['time_s']*sc; a[1]+=pt; a[2]+=1
allk=sorted(set(agg['zoo'])|set(agg['gen']))
print('%-22s %18s %18s'%('key','zoo ratio (n, ms)','gen ratio (n, ms)'))
for k in allk:
    def f(g):
        a=agg[g].get(k)
        return '%.3f (%3d,%6.1f)'%(a[0]/a[1],a[2],a[0]*1e3) if a and a[1]>0 else ' '*18
    print('%-22s %s %s'%(k,f('zoo'),f('gen')))
