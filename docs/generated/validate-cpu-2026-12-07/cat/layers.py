import json,glob,statistics as st,collections
O='/tmp/catab/out'
for m in ['vit_b_16','swin_t','swin_b','densenet121']:
  for b in ['b1','b8']:
    T=collections.defaultdict(lambda: collections.defaultdict(list)); impl={}
    for binv in ['mm','cat']:
      for f in glob.glob(f'{O}/{m}-{b}-{binv}-r*.json'):
        d=json.load(open(f))
        for L in d['layers']:
          T[(L['name'],L['op'])][binv].append(L['time_s'])
          if binv=='cat': impl[L['name']]=L['impl']
    cat=[(k,v) for k,v in T.items() if k[1].startswith('Concat') and v['mm'] and v['cat']]
    if not cat: continue
    o=sum(st.mean(v['mm']) for k,v in cat); n=sum(st.mean(v['cat']) for k,v in cat)
    changed=[(k,v) for k,v in cat if impl.get(k[0])=='host:concat']
    oc=sum(st.mean(v['mm']) for k,v in changed); nc=sum(st.mean(v['cat']) for k,v in changed)
    tot=sum(st.mean(v['mm']) for v in T.values() if v['mm'])
    print(f"| {m} | {b[1:]} | {len(changed)} of {len(cat)} | {oc*1e3:.2f} | {nc*1e3:.2f} | {oc/nc if nc else 0:.2f} | {o*1e3:.2f} -> {n*1e3:.2f} | {100*(oc-nc)/tot:.1f}% |")
