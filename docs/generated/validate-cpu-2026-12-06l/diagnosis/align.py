import json,glob,os,sys,collections
import onnx
from onnx import shape_inference
lay,pred,val=sys.argv[1:4]
v={m['name']:m for m in json.load(open(val))['models']}
agg=collections.defaultdict(lambda:[0,0,0])
for f in sorted(glob.glob(lay+'/*-cpu.json')):
    j=json.load(open(f)); n=j['model']
    pf=pred+'/'+n+'.json'
    if not os.path.exists(pf): continue
    m=onnx.load('/tmp/lz/models/%s.onnx'%n, load_external_data=False)
    inits={i.name:i for i in m.graph.initializer}
    info={}
    for nd in m.graph.node:
        if nd.op_type!='Conv': continue
        g=([a.i for a in nd.attribute if a.name=='group'] or [1])[0]
        w=inits.get(nd.input[1])
        if w is None: continue
        info[nd.name]=(g,w.dims[0],w.dims[1]*g,w.dims[2])
    p=json.load(open(pf)); keys={}
    for L in p['layers']:
        kt=L.get('kernel_table')
        if not kt or not kt.get('level_class'): continue
        keys[L['name']]=(kt['level_class'],L['time_s'])
    mm=v[n]; drift=mm['host_per_run'][0]['drift']
    tot=sum(L['time_s'] for L in j['layers']); sc=(j['batch']/j['throughput'])*drift/tot
    grp='gen' if n.startswith('level_') else 'zoo'
    for L in j['layers']:
        if L['name'] not in keys or L['name'] not in info: continue
        cls,pt=keys[L['name']]; g,co,ci,k=info[L['name']]
        if cls not in ('conv','pointwise','stem'): continue
        al='co%%16=%d ci%%16=%d'%(co%16==0, ci%16==0)
        a=agg[(cls,grp,al)]; a[0]+=L['time_s']*sc; a[1]+=pt; a[2]+=1
for k in sorted(agg):
    a=agg[k]; print('%-10s %-4s %-16s ratio %.3f n %3d ms %.1f'%(k[0],k[1],k[2],a[0]/a[1],a[2],a[0]*1e3))
