# single-op b8 ONNX models: candidate memory-side host references
import onnx, numpy as np
from onnx import helper as h, TensorProto as T, numpy_helper as nh
def save(name, nodes, inputs, outputs, inits=()):
    g = h.make_graph(nodes, name, inputs, outputs, list(inits))
    m = h.make_model(g, opset_imports=[h.make_opsetid("", 17)]); m.ir_version = 8
    onnx.save(m, f"/tmp/memref/{name}.onnx")
N, C, H = 8, 144, 56
x = h.make_tensor_value_info("x", T.FLOAT, [N, C, H, H])
y = h.make_tensor_value_info("y", T.FLOAT, [N, C, None, None])
w = nh.from_array(np.random.rand(C, 1, 3, 3).astype(np.float32) * 0.1, "w")
save("dw8", [h.make_node("Conv", ["x", "w"], ["y"], group=C, pads=[1, 1, 1, 1])], [x], [y], [w])
s = nh.from_array(np.random.rand(1, C, 1, 1).astype(np.float32), "s")
save("mul8", [h.make_node("Mul", ["x", "s"], ["y"])], [x], [y], [s])
save("gap8", [h.make_node("GlobalAveragePool", ["x"], ["y"])], [x], [y])
w2 = nh.from_array(np.random.rand(C, C, 1, 1).astype(np.float32) * 0.1, "w2")
save("pw8", [h.make_node("Conv", ["x", "w2"], ["y"])], [x], [y], [w2])
