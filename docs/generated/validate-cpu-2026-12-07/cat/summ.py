import json,glob,collections,statistics as st,sys
O=sys.argv[1] if len(sys.argv)>1 else '/tmp/catab/out'
R=collections.defaultdict(lambda: collections.defaultdict(list))
for f in glob.glob(O+'/*.json'):
    n=f.split('/')[-1][:-5]; m,b,binv,r=n.rsplit('-',3)
    d=json.load(open(f)); R[(m,b)][binv].append((d['throughput'],d['normalized_throughput'],d['predicted_throughput_at_host_state']))
print('| model | batch | old img/s (norm) | new img/s (norm) | new/old raw | new/old normalised | predicted (probe of 12-06m) |')
print('|---|---:|---:|---:|---:|---:|---:|')
for (m,b),v in sorted(R.items()):
    if 'mm' not in v or 'cat' not in v: continue
    o=[x[0] for x in v['mm']]; n=[x[0] for x in v['cat']]; on=[x[1] for x in v['mm']]; nn=[x[1] for x in v['cat']]
    print(f"| {m} | {b[1:]} | {st.median(o):.2f} ({st.median(on):.2f}) | {st.median(n):.2f} ({st.median(nn):.2f}) | {st.median(n)/st.median(o):.2f} | {st.median(nn)/st.median(on):.2f} | {st.median([x[2] for x in v['cat']]):.2f} |")
