# Refit a probe's samples in numpy under feature variants; writes device files.
import json,math,re,sys,copy,numpy as np
dev,samples,outdir=sys.argv[1:4]
D=json.load(open(dev)); S=json.load(open(samples))['classes']; kt=D['kernel_table']; disp=kt['dispatch_s']
def conv_x_of_stem(s):
    m=re.match(r'mb(\d+)ic(\d+)ih(\d+)iw\d+oc(\d+)oh(\d+)ow(\d+)kh(\d+)kw(\d+)',s['desc'])
    mb,ic,ih,oc,oh,ow,kh,kw=map(int,m.groups())
    tr=s['x'][3]; lk=math.log(ic*kh*kw)
    return [math.log(mb*oh*ow), math.log(oc), lk, 0.0, tr, math.log(oc/(-(-oc//16)*16)), 0.0, tr*lk]
def fit(samples_x, ys, fixed):
    X=np.array([[1]+x for x in samples_x]); W=[]; Y=[]
    for t in ys:
        work=t-disp-fixed; W.append((work/t)**2 if work>0.01*t else 0); Y.append(math.log(max(work,0.25*t)))
    W=np.sqrt(np.array(W)); coef,*_=np.linalg.lstsq(X*W[:,None],np.array(Y)*W,rcond=None); return list(coef)
def put(D2,cls,features,coef):
    c=D2['kernel_table']['classes'][cls]; c['features']=features; c['coef']=coef
    c['range']={f:[0,1] for f in features}
F={'conv':["log_rows","log_cols","log_k","residual","transcendental","log_cols_fill","grouped","transcendental_log_k"],
   'pointwise':["log_rows","log_cols","log_k","residual","transcendental","log_cols_fill","transcendental_log_k"],
   'gemm':["log_rows","log_cols","log_k","transcendental"]}
conv=[(s['x'],s['warm_s']) for s in S['conv']['samples']]
stem=[(conv_x_of_stem(s),s['warm_s']) for s in S['stem']['samples']]
for name,(nconv,npw,ngemm,stemcls) in {'old':(7,6,3,False),'new':(8,7,4,True),'stemonly':(7,6,3,True),'nostem':(8,7,4,False)}.items():
    D2=copy.deepcopy(D)
    cs=conv+([] if stemcls else stem)
    fixed=kt['classes']['conv']['fixed_s']
    coef=fit([x[:nconv] for x,_ in cs],[t for _,t in cs],fixed)
    put(D2,'conv',F['conv'][:nconv],coef+[0.0]*(8-nconv))
    D2['kernel_table']['classes']['conv']['features']=F['conv']
    if not stemcls: del D2['kernel_table']['classes']['stem']
    for cls,n,full in [('pointwise',npw,7),('gemm',ngemm,4)]:
        ss=S[cls]['samples']; fx=kt['classes'][cls]['fixed_s']
        coef=fit([s['x'][:n] for s in ss],[s['warm_s'] for s in ss],fx)
        put(D2,cls,F[cls],coef+[0.0]*(full-n))
    if stemcls:
        ss=S['stem']['samples']; coef=fit([s['x'] for s in ss],[s['warm_s'] for s in ss],kt['classes']['stem']['fixed_s'])
        put(D2,'stem',["log_rows","log_cols","log_k","transcendental"],coef)
    for k in ('classes_cold',):
        D2['kernel_table'].pop(k,None)
    json.dump(D2,open(f'{outdir}/dev-{name}.json','w'))
    print(name, 'written')
