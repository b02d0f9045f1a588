import json,glob,os,sys,collections
lay,pred,val,want=sys.argv[1:5]
v={m['name']:m for m in json.load(open(val))['models']}
agg=collections.defaultdict(lambda:[0,0,0])
for f in sorted(glob.glob(lay+'/*-cpu.json')):
    j=json.load(open(f)); n=j['model']; pf=pred+'/'+n+'.json'
    if not os.path.exists(pf): continue
    p={L['name']:L for L in json.load(open(pf))['layers']}
    mm=v[n]; drift=mm['host_per_run'][0]['drift']
    tot=sum(L['time_s'] for L in j['layers']); sc=(j['batch']/j['throughput'])*drift/tot
    g='gen' if n.startswith('level_') else 'zoo'
    for L in j['layers']:
        q=p.get(L['name'])
        if not q or not q.get('kernel_table') or q['kernel_table'].get('level_class')!=want: continue
        k=(g,n if len(sys.argv)>5 else '',L['op'][:40],L['impl'][:30])
        a=agg[k]; a[0]+=L['time_s']*sc; a[1]+=q['time_s']; a[2]+=1
for k in sorted(agg):
    a=agg[k]; print('%-4s %-18s %-40s %-30s n %3d meas %.3f ms pred %.3f ratio %.2f'%(k[0],k[1][:18],k[2],k[3],a[2],a[0]*1e3,a[1]*1e3,a[0]/a[1]))
