# Per pointwise conv: measured (profile scaled to e2e) / predicted by shape
import json, glob, os, sys, collections, statistics, math
import onnx
from onnx import shape_inference
d = sys.argv[1]; want = sys.argv[2] if len(sys.argv) > 2 else "pw"
rows = []
for f in sorted(glob.glob(f"{d}/*-cpu.json")):
    j = json.load(open(f)); name = j["model"]
    m = onnx.load(f"models/{name}.onnx" if os.path.exists(f"models/{name}.onnx") else f"/tmp/lvl/{name}.onnx", load_external_data=False)
    for v in list(m.graph.output) + list(m.graph.value_info): v.type.tensor_type.elem_type = 1
    m = shape_inference.infer_shapes(m)
    shp = {v.name: [x.dim_value for x in v.type.tensor_type.shape.dim] for v in list(m.graph.value_info) + list(m.graph.output)}
    inits = {i.name: i for i in m.graph.initializer}
    info = {}
    for n in m.graph.node:
        if n.op_type != "Conv": continue
        g = ([a.i for a in n.attribute if a.name == "group"] or [1])[0]
        w = inits.get(n.input[1]); y = shp.get(n.output[0])
        if w is None or not y: continue
        info[n.name] = (g, w.dims[0], w.dims[1], w.dims[2], y[2] * y[3])
    L = j["layers"]; tot = sum(l["time_s"] for l in L); e2e = j["batch"] / j["throughput"]; sc = e2e / tot
    for l in L:
        i = info.get(l["name"])
        if not i: continue
        g, co, ci, kk, hw = i
        kind = "pw" if kk == 1 and g == 1 else "grouped" if g > 1 and ci > 1 else "dw" if g > 1 else "conv"
        if kind != want: continue
        rows.append((name, co, ci * g, hw, "Add" in l["op"], l["time_s"] * sc / l["predicted_time_s"], l["time_s"] * sc))
def show(key, label):
    b = collections.defaultdict(list)
    for r in rows: b[key(r)].append(r)
    print(label)
    for k in sorted(b):
        v = b[k]; t = sum(r[6] for r in v)
        print(f"  {k}: n={len(v):3d} median {statistics.median(r[5] for r in v):.2f} time-weighted {sum(r[5]*r[6] for r in v)/t:.2f}")
show(lambda r: r[1] % 16 == 0, "cout multiple of 16")
show(lambda r: r[2] % 16 == 0, "cin multiple of 16")
show(lambda r: 2 ** round(math.log2(r[3])), "hw (pow2 bucket)")
show(lambda r: 2 ** round(math.log2(r[1])), "cout bucket")
show(lambda r: 2 ** round(math.log2(r[2])), "cin bucket")
show(lambda r: r[4], "fused add")
show(lambda r: r[0], "model")
