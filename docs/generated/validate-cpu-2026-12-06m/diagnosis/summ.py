import json,sys,statistics as st
def rank(v):
    s=sorted(range(len(v)),key=lambda i:v[i]); r=[0]*len(v)
    for k,i in enumerate(s): r[i]=k
    return r
def spear(a,b):
    ra,rb=rank(a),rank(b); n=len(a); return 1-6*sum((x-y)**2 for x,y in zip(ra,rb))/(n*(n*n-1))
for f in sys.argv[1:]:
    j=json.load(open(f)); ms=[m for m in j['models'] if m.get('normalized')]
    for key in ('measured','normalized'):
        e=[m['predicted']/m[key]-1 for m in ms]
        print('%s %-10s n=%d within10 %.1f%% within25 %.1f%% median|e| %.1f%% signed %+.1f%% spearman %.3f'%(f.split('/')[-1],key,len(e),100*sum(abs(x)<=.1 for x in e)/len(e),100*sum(abs(x)<=.25 for x in e)/len(e),100*st.median([abs(x) for x in e]),100*st.median(e),spear([m['predicted'] for m in ms],[m[key] for m in ms])))
    print('  misses (normalised):',' '.join('%s %+.0f%%'%(m['name'],100*(m['predicted']/m['normalized']-1)) for m in sorted(ms,key=lambda m:m['predicted']/m['normalized']) if abs(m['predicted']/m['normalized']-1)>0.1))
    print('  failures:',[x.get('name') for x in j.get('failures',[])])
