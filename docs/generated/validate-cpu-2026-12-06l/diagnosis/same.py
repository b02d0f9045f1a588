import json,glob,os,sys,collections
import onnx
from onnx import shape_inference
lay,pred,val=sys.argv[1:4]
v={m['name']:m for m in json.load(open(val))['models']}
rows=collections.defaultdict(list)
for f in sorted(glob.glob(lay+'/*-cpu.json')):
    j=json.load(open(f)); n=j['model']
    pf=pred+'/'+n+'.json'
    if not os.path.exists(pf): continue
    m=onnx.load('/tmp/lz/models/%s.onnx'%n, load_external_data=False)
    # batch 8 shapes
    for i in m.graph.input:
        d=i.type.tensor_type.shape.dim
        if len(d)==4: d[0].dim_value=8
    try: m=shape_inference.infer_shapes(m)
    except Exception as e: print('si fail',n,e); continue
    shp={x.name:[d.dim_value for d in x.type.tensor_type.shape.dim] for x in list(m.graph.value_info)+list(m.graph.output)+list(m.graph.input)}
    inits={i.name:i for i in m.graph.initializer}
    info={}
    for nd in m.graph.node:
        if nd.op_type!='Conv': continue
        g=([a.i for a in nd.attribute if a.name=='group'] or [1])[0]
        s=([list(a.ints) for a in nd.attribute if a.name=='strides'] or [[1,1]])[0][0]
        w=inits.get(nd.input[1]); y=shp.get(nd.output[0])
        if w is None or not y: continue
        info[nd.name]=(g,w.dims[0],w.dims[1]*g,w.dims[2],s,y[2])
    p={L['name']:L['time_s'] for L in json.load(open(pf))['layers']}
    mm=v[n]; drift=mm['host_per_run'][0]['drift']
    tot=sum(L['time_s'] for L in j['layers']); sc=(j['batch']/j['throughput'])*drift/tot
    grp='gen' if n.startswith('level_') else 'zoo'
    for L in j['layers']:
        if L['name'] in info and L['name'] in p:
            rows[info[L['name']]].append((grp,n,L['op'],L['time_s']*sc*1e3,L['time_s']*1e3,p[L['name']]*1e3))
print('shape (g,cout,cin,k,stride,out side): gen/zoo rows: op, measured scaled ms, raw ms, predicted ms')
for k,r in sorted(rows.items()):
    gs={x[0] for x in r}
    if len(gs)<2: continue
    print(k)
    for x in r: print('   %s %-20s %-22s meas %.3f raw %.3f pred %.3f ratio %.3f'%(x[0],x[1][:20],x[2][:22],x[3],x[4],x[5],x[3]/x[5]))
