#!/usr/bin/env python3
"""Writes a copy of an ONNX CNN whose first convolution (and the graph input) has C input
channels instead of 3: the doctor's "pad channels to the tensor-core tile" remedy as a
model file, so `rooflens measure` can time it. Weights stay stripped (rooflens generates
them); the padded channels are what an engine would feed zeros.

usage: pad-conv1.py IN.onnx OUT.onnx C     (needs python3-onnx)
"""
import sys

import onnx


def main() -> int:
    if len(sys.argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    src, dst, channels = sys.argv[1], sys.argv[2], int(sys.argv[3])
    model = onnx.load(src, load_external_data=False)
    graph = model.graph
    inp = graph.input[0]
    dims = inp.type.tensor_type.shape.dim
    if len(dims) != 4 or dims[1].dim_value != 3:
        print(f"{src}: input '{inp.name}' is not N x 3 x H x W", file=sys.stderr)
        return 2
    conv = next((n for n in graph.node if n.op_type == "Conv" and n.input[0] == inp.name), None)
    if conv is None:
        print(f"{src}: no Conv reads the input '{inp.name}' directly", file=sys.stderr)
        return 2
    weight = next((t for t in graph.initializer if t.name == conv.input[1]), None)
    if weight is None or len(weight.dims) != 4 or weight.dims[1] != 3:
        print(f"{src}: Conv '{conv.name}' has no stored 3-channel weight", file=sys.stderr)
        return 2
    dims[1].dim_value = channels
    weight.dims[1] = channels
    onnx.save(model, dst)
    print(f"{dst}: '{conv.name}' and input '{inp.name}' now have {channels} channels")
    return 0


if __name__ == "__main__":
    sys.exit(main())
