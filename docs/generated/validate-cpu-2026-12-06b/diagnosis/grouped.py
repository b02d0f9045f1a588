# Per grouped conv: measured (profile scaled to e2e) / predicted, by (groups, ch/group)
import json, glob, os, sys, collections, statistics
import onnx
d = sys.argv[1]
rows = collections.defaultdict(list); model_err = {}
for f in sorted(glob.glob(f"{d}/*-cpu.json")):
    j = json.load(open(f)); name = j["model"]
    m = onnx.load(f"models/{os.path.basename(name)}.onnx" if not name.endswith('.onnx') else name, load_external_data=False)
    inits = {i.name: i for i in m.graph.initializer}
    info = {}
    for n in m.graph.node:
        if n.op_type != "Conv": continue
        g = ([a.i for a in n.attribute if a.name == "group"] or [1])[0]
        w = inits.get(n.input[1])
        if w is None: continue
        info[n.name] = (g, w.dims[1], w.dims[2] if len(w.dims) > 2 else 1)
    L = j["layers"]; tot = sum(l["time_s"] for l in L); e2e = j["batch"] / j["throughput"]
    sc = e2e / tot
    cls = collections.defaultdict(lambda: [0, 0])
    for l in L:
        i = info.get(l["name"])
        if i and i[0] > 1 and i[1] > 1: key = ("grouped", i[1])
        elif i and i[1] == 1 and i[0] > 1: key = ("dw",)
        elif i and i[2] == 1: key = ("pw",)
        elif i: key = ("conv",)
        else: key = (l["op"].split("+")[0],)
        cls[key][0] += l["time_s"] * sc; cls[key][1] += l["predicted_time_s"]
        if key[0] == "grouped": rows[(i[0], i[1])].append(l["time_s"] * sc / l["predicted_time_s"])
    model_err[name] = (j["throughput"], j["predicted_throughput"], {k: (v[0] / v[1], v[0] / e2e) for k, v in cls.items() if v[1] > 0})
for n, (mt, pt, c) in model_err.items():
    print(f"{n:22s} pred/meas {pt/mt:5.2f}  " + "  ".join(f"{'/'.join(map(str,k))}:{r:.2f}({s*100:.0f}%)" for k, (r, s) in sorted(c.items(), key=lambda kv: -kv[1][1])[:6]))
print()
byw = collections.defaultdict(list)
for (g, w), v in sorted(rows.items(), key=lambda kv: (kv[0][1], kv[0][0])):
    byw[w] += v
    print(f"groups {g:3d} width {w:3d}: n={len(v):2d} meas/pred median {statistics.median(v):.2f}")
for w, v in sorted(byw.items()): print(f"width {w:3d}: median {statistics.median(v):.2f} n={len(v)}")
