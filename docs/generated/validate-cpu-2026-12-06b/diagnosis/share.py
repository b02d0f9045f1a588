import json, glob, sys, os, onnx
from onnx import shape_inference
d=sys.argv[1]
for f in sorted(glob.glob(f"{d}/*-cpu.json")):
    j=json.load(open(f)); name=j["model"]
    m = onnx.load(f"models/{name}.onnx" if os.path.exists(f"models/{name}.onnx") else f"/tmp/lvl/{name}.onnx", load_external_data=False)
    for v in list(m.graph.output) + list(m.graph.value_info): v.type.tensor_type.elem_type = 1
    m=shape_inference.infer_shapes(m)
    shp={v.name:[x.dim_value for x in v.type.tensor_type.shape.dim] for v in m.graph.value_info}
    hw1={n.name for n in m.graph.node if n.op_type=="Conv" and shp.get(n.output[0]) and shp[n.output[0]][2]*shp[n.output[0]][3]==1}
    L=j["layers"]; tot=sum(l["time_s"] for l in L); e2e=j["batch"]/j["throughput"]; sc=e2e/tot
    meas=sum(l["time_s"]*sc for l in L if l["name"] in hw1); pred=sum(l["predicted_time_s"] for l in L if l["name"] in hw1)
    if hw1: print(f"{name:20s} pred/meas model {j['predicted_throughput']/j['throughput']:.2f} se-fc share meas {meas/e2e*100:4.1f}% pred {pred/(j['batch']/j['predicted_throughput'])*100:4.1f}% ratio {meas/pred:.2f}")
