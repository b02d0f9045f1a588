# Post hoc: a recorded zoo run set against predictions of a given binary (same probe).
import json,subprocess,sys,statistics as st
binary,dev,run=sys.argv[1:4]
j=json.load(open(run)); b=j['batch']
out=subprocess.run([binary,'predict','--zoo','--device',dev,'--dtype','fp32','--batch',str(b),'--format','json'],capture_output=True,text=True,cwd='/work/main')
P=json.loads(out.stdout); r={}
for m in (P['models'] if isinstance(P,dict) and 'models' in P else P):
    q=m['predictions'][0] if 'predictions' in m else m; r[m.get('model') or m.get('name')]=q['throughput']
ms=[m for m in j['models'] if m.get('normalized') and m['name'] in r]
for key in ('measured','normalized'):
    e=[r[m['name']]/m[key]-1 for m in ms]
    print('%s n=%d within10 %.1f%% within25 %.1f%% median|e| %.1f%% signed %+.1f%%'%(key,len(e),100*sum(abs(x)<=.1 for x in e)/len(e),100*sum(abs(x)<=.25 for x in e)/len(e),100*st.median([abs(x) for x in e]),100*st.median(e)))
print('changed:',' '.join('%s %+.0f->%+.0f%%'%(m['name'],100*(m['predicted']/m['normalized']-1),100*(r[m['name']]/m['normalized']-1)) for m in ms if abs(r[m['name']]/m['predicted']-1)>0.005))
