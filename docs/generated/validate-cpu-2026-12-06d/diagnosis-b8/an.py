# Per model: measured (profile scaled to end to end) and predicted time per level class (run.sh).
import json, glob, os, sys, collections
B = sys.argv[1] if len(sys.argv) > 1 else "8"
def load(zd):
    out = {}
    for f in sorted(glob.glob(f"/tmp/d8/{zd}{B}/*-cpu.json")):
        j = json.load(open(f)); name = j["model"]
        pf = f"/tmp/d8/p{B}/{name}.json"
        if not os.path.exists(pf): pf = f"/tmp/d8/p{B}/level_{name.replace('level_','')}.json"
        p = {l["name"]: l for l in json.load(open(pf))["layers"]}
        L = j["layers"]; tot = sum(l["time_s"] for l in L); e2e = j["batch"] / j["throughput"]; sc = e2e / tot
        rows = []
        for l in L:
            q = p.get(l["name"], {})
            kt = q.get("kernel_table")
            key = (kt["level_class"] + ("@%d" % kt["level_position"] if kt.get("level_position") else "")) if kt else "roof:" + l["op"].split("+")[0]
            rows.append((key, l["time_s"] * sc, l["predicted_time_s"], l["op"], l.get("impl", "")))
        out[name] = (rows, e2e, sum(r[2] for r in rows))
    return out
Z = load("z"); G = load("g")
for name, (rows, e2e, pred) in list(Z.items()) + list(G.items()):
    by = collections.defaultdict(lambda: [0.0, 0.0, 0])
    for k, m, pr, op, impl in rows:
        by[k][0] += m; by[k][1] += pr; by[k][2] += 1
    print(f"{name}: e2e {e2e*1e3:.2f} ms, layers sum pred {pred*1e3:.2f} ms, err {pred/e2e-1:+.1%}")
    for k, (m, pr, n) in sorted(by.items(), key=lambda kv: -abs(kv[1][1] - kv[1][0])):
        if abs(pr - m) / pred < 0.01: continue
        print(f"   {k:22s} n={n:3d} meas {m*1e3:7.2f} pred {pr*1e3:7.2f} ratio {m/pr if pr else 0:5.2f}  contrib {(pr-m)/e2e:+.1%}")
