import json,sys,math,statistics as st
j=json.load(open(sys.argv[1]))
keys={'k1':lambda h:1/h['kernels_s'],'k8':lambda h:1/h['kernels8_s'] if h.get('kernels8_s') else None,'fma':lambda h:h['fma_flops'],'disp':lambda h:1/h['dispatch_s'],'gemm':lambda h:h['gemm_flops'],'stream':lambda h:h['stream_bytes']}
for k,f in keys.items():
  xs=[];ys=[];res_raw=[];res_norm=[]
  for m in j['models']:
    r=[math.log(x) for x in m['runs']]; 
    try: h=[math.log(f(hh)) for hh in m['host_per_run']]
    except Exception: break
    mr=st.mean(r); mh=st.mean(h)
    for a,b in zip(r,h): xs.append(b-mh); ys.append(a-mr); res_raw.append(abs(a-mr)); res_norm.append(abs(a-mr-(b-mh)))
  if not xs: continue
  n=len(xs); c=sum(a*b for a,b in zip(xs,ys))/math.sqrt(sum(a*a for a in xs)*sum(b*b for b in ys))
  beta=sum(a*b for a,b in zip(xs,ys))/sum(a*a for a in xs)
  print('%-6s corr %.2f slope %.2f  mean|dev| raw %.3f  divided %.3f'%(k,c,beta,st.mean(res_raw),st.mean(res_norm)))
