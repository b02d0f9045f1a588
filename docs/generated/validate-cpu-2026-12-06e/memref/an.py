import json, glob, collections, statistics as st, math, sys
rows = collections.defaultdict(dict)
for f in glob.glob('/tmp/memref/out/*.json'):
    i, n = f.split('/')[-1][:-5].split('-', 1)
    j = json.load(open(f)); h = j['host_reference']
    rows[int(i)][n] = (j['batch'] / j['throughput'], 0.5 * (h['kernels_s_before'] + h['kernels_s_after']), h['drift'])
its = sorted(i for i in rows if len(rows[i]) == 7)
names = ['dw8', 'mul8', 'gap8', 'pw8', 'level_inverted_se', 'level_plain', 'level_inverted']
def corr(x, y):
    mx, my = st.mean(x), st.mean(y)
    c = sum((a - mx) * (b - my) for a, b in zip(x, y))
    return c / math.sqrt(sum((a - mx) ** 2 for a in x) * sum((b - my) ** 2 for b in y))
lg = lambda v: [math.log(a) for a in v]
T = {n: [rows[i][n][0] for i in its] for n in names}
K = [st.mean(rows[i][n][1] for n in names) for i in its]  # ref kernels per iteration
print('iterations', len(its))
for n in names:
    v = T[n]; print(f'{n:18s} median {st.median(v)*1e3:8.3f} ms  range {(max(v)-min(v))/st.median(v):.0%}  corr(log t, log kernels_s) {corr(lg(v), lg(K)):+.2f}')
for tgt in ['level_inverted_se', 'level_inverted', 'level_plain']:
    for ref in ['dw8', 'mul8', 'gap8', 'pw8']:
        print(f'corr log {tgt} vs {ref}: {corr(lg(T[tgt]), lg(T[ref])):+.2f}')
    # residual spread after dividing by ref kernels vs by a mem ref
    for lab, r in [('kernels', K)] + [(x, T[x]) for x in ['dw8', 'mul8', 'gap8']]:
        q = [a / b for a, b in zip(T[tgt], r)]; m = st.median(q)
        print(f'   {tgt} / {lab}: within 2% {sum(abs(x/m-1)<=0.02 for x in q)/len(q):.0%}, 5% {sum(abs(x/m-1)<=0.05 for x in q)/len(q):.0%}, sd {st.pstdev(lg(q)):.3f}')
print('ratio inverted_se/plain over time:', ' '.join('%.3f' % (a / b) for a, b in zip(T['level_inverted_se'], T['level_plain'])))
print('kernels over time:', ' '.join('%.3f' % (k / K[0]) for k in K))
print('mul8 over time:', ' '.join('%.3f' % (k / T['mul8'][0]) for k in T['mul8']))
