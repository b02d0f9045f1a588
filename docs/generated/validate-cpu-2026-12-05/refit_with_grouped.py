import json,sys,re,numpy as np,copy
dev,samples,out=sys.argv[1:4]
D=json.load(open(dev)); S=json.load(open(samples))
t=D['kernel_table']; c=t['classes']['conv']; disp=t['dispatch_s']; fixed=c['fixed_s']
ss=S['classes']['conv']['samples']
X=[];y=[];w=[]
for s in ss:
    g=1.0 if re.match(r'mb\d+g\d+',s['desc']) else 0.0
    tt=s['warm_s']; work=tt-disp-fixed; share=work/tt
    X.append([1]+s['x'][:6]+[g]); y.append(np.log(max(work,0.25*tt))); w.append(share**2)
X=np.array(X);y=np.array(y);W=np.sqrt(np.array(w))
coef,*_=np.linalg.lstsq(X*W[:,None],y*W,rcond=None)
print('old', [round(v,3) for v in c['coef']]); print('with grouped', [round(v,3) for v in coef], int(sum(r[-1] for r in X)),'grouped')
D2=copy.deepcopy(D); D2['kernel_table']['classes']['conv']['coef']=list(coef); D2['kernel_table']['classes']['conv']['features'].append('grouped')
json.dump(D2,open(out,'w'))
