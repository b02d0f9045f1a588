# Per model and level class: in-network measured (profile scaled to end-to-end, normalised by the run's drift) / predicted.
import json,glob,os,sys,collections
D=sys.argv[1]; b=sys.argv[2]; top=int(sys.argv[3]) if len(sys.argv)>3 else 0
v={m['name']:m for m in json.load(open(f'{D}/v{b}.json'))['models']}
for f in sorted(glob.glob(f'{D}/lay{b}/*-cpu.json')):
    j=json.load(open(f)); n=j['model']; pf=f'{D}/pred{b}/{n}.json'
    if not os.path.exists(pf) or n not in v: continue
    p=json.load(open(pf)); pl={}
    for L in p['layers']:
        kt=L.get('kernel_table') or {}
        pl[L['name']]=(kt.get('level_class') or kt.get('class') or L.get('kind','?'), kt.get('level_position',0), L['time_s'], kt)
    m=v[n]; drift=m['host_per_run'][0]['drift']
    tot=sum(L['time_s'] for L in j['layers']); sc=(j['batch']/j['throughput'])*drift/tot
    agg=collections.defaultdict(lambda:[0,0,0]); rows=[]
    for L in j['layers']:
        if L['name'] not in pl: continue
        c,pos,pt,kt=pl[L['name']]; mt=L['time_s']*sc
        a=agg[c]; a[0]+=mt; a[1]+=pt; a[2]+=1
        rows.append((pt-mt,L['name'],c,pos,mt,pt))
    ptot=sum(a[1] for a in agg.values()); mtot=sum(a[0] for a in agg.values())
    print(f'{n:20s} pred/meas {ptot/mtot:.3f} (model {m["predicted"]/m["normalized"]:.3f})  '+'  '.join(f'{c}:{a[1]/a[0]:.2f}[{100*a[0]/mtot:.0f}%]' for c,a in sorted(agg.items(),key=lambda x:-x[1][0])))
    if top and n in sys.argv[4:]:
        for r in sorted(rows,reverse=True)[:top]: print('   %+8.3f ms %-40s %-12s %5.0f meas %.3f pred %.3f'%(1e3*r[0],r[1][:40],r[2],r[3],1e3*r[4],1e3*r[5]))
