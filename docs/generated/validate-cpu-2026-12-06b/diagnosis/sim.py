# Offline: per-(class, spatial) levels from the generated networks applied to the zoo's layers.
import json, glob, sys, os, math, statistics, collections, onnx
from onnx import shape_inference
def load(d):
    out = {}
    for f in sorted(glob.glob(f"{d}/*-cpu.json")):
        j = json.load(open(f)); name = j["model"]
        m = onnx.load(f"models/{name}.onnx" if os.path.exists(f"models/{name}.onnx") else f"/tmp/lvl/{name}.onnx", load_external_data=False)
        for v in list(m.graph.output) + list(m.graph.value_info): v.type.tensor_type.elem_type = 1
        m = shape_inference.infer_shapes(m)
        shp = {v.name: [x.dim_value for x in v.type.tensor_type.shape.dim] for v in m.graph.value_info}
        inits = {i.name: i for i in m.graph.initializer}
        info = {}
        for n in m.graph.node:
            if n.op_type != "Conv": continue
            g = ([a.i for a in n.attribute if a.name == "group"] or [1])[0]
            w = inits.get(n.input[1]); y = shp.get(n.output[0])
            if w is None or not y: continue
            kind = "grouped" if g > 1 and w.dims[1] > 1 else "dw" if g > 1 else "pw" if w.dims[2] == 1 else "conv"
            info[n.name] = (kind, y[2] * y[3])
        L = j["layers"]; tot = sum(l["time_s"] for l in L); e2e = j["batch"] / j["throughput"]
        lay = [(info.get(l["name"], ("other", 0)), l["time_s"] * e2e / tot, l["predicted_time_s"]) for l in L]
        out[name] = dict(e2e=e2e, pred=j["batch"] / j["predicted_throughput"], layers=lay)
    return out
CLASSES = ("pw", "conv", "dw")
SPATIAL = tuple(sys.argv[1].split(",")) if len(sys.argv) > 1 else CLASSES
def levels(gen, mode):
    s = collections.defaultdict(lambda: [0.0, 0.0, 0])
    for m in gen.values():
        for (k, hw), me, pr in m["layers"]:
            if k not in CLASSES: continue
            for key in ((k, 0), (k, hw)):
                s[key][0] += me; s[key][1] += pr; s[key][2] += 1
    return {k: v[0] / v[1] for k, v in s.items() if v[2] >= 3}
def factor(lv, k, hw, mode):
    if k not in CLASSES: return 1.0
    if mode != "spatial" or k not in SPATIAL: return lv.get((k, 0), 1.0)
    pts = sorted((math.log(h), v) for (c, h), v in lv.items() if c == k and h > 0)
    if not pts or hw <= 0: return 1.0
    x = math.log(hw)
    if x <= pts[0][0]: return pts[0][1]
    if x >= pts[-1][0]: return pts[-1][1]
    for (x0, y0), (x1, y1) in zip(pts, pts[1:]):
        if x0 <= x <= x1: return y0 + (y1 - y0) * (x - x0) / (x1 - x0)
def report(zoo, lv, mode, label):
    errs = []
    for n, m in zoo.items():
        t = m["pred"] + sum((factor(lv, k, hw, mode) - 1) * pr for (k, hw), me, pr in m["layers"])
        errs.append((n, m["e2e"] / t - 1))  # throughput error pred/meas - 1
    e = [abs(x) for _, x in errs]
    print(f"{label:10s} median|err| {100*statistics.median(e):4.1f}%  within10 {100*sum(x<=.1 for x in e)/len(e):3.0f}%  " + " ".join(f"{n[:14]}:{100*x:+.0f}" for n, x in errs))
for b in ("1", "8"):
    gen, zoo = load(f"/tmp/lay/g{b}"), load(f"/tmp/lay/b{b}")
    print("batch", b)
    report(zoo, {}, "none", "current")
    lc = levels(gen, "class"); report(zoo, lc, "class", "class")
    ls = levels(gen, "spatial"); report(zoo, ls, "spatial", "spatial")
    print("  spatial levels:", {f"{k}@{int(math.sqrt(h))}": round(v, 2) for (k, h), v in sorted(ls.items())})
