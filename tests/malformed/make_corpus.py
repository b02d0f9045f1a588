#!/usr/bin/python3
# Regenerates the malformed-input fixtures under tests/malformed/corpus/. It only writes
# fixtures: the test itself is run_corpus.sh, driven by cases.txt, and needs no Python.
# Run with the Debian interpreter (python3-onnx): /usr/bin/python3 tests/malformed/make_corpus.py
#
# Every fixture is a tiny opset-17 graph (one Conv on 1x3x8x8 and friends) broken in one
# way. Output is deterministic: running this twice gives byte-identical files.
import os
import random
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "corpus")
OPSET = 17


def opset(version=OPSET):
    return [helper.make_opsetid("", version)]


def model(graph, version=OPSET):
    m = helper.make_model(graph, opset_imports=opset(version), producer_name="rooflens-malformed-corpus")
    m.ir_version = 8
    return m


def f32(name, shape, seed=0):
    rng = np.random.default_rng(seed)
    return numpy_helper.from_array(rng.standard_normal(shape).astype(np.float32), name)


def i64(name, values):
    return numpy_helper.from_array(np.array(values, dtype=np.int64), name)


def vi(name, shape, elem=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, elem, shape)


def conv_graph(name, w_shape=(4, 3, 3, 3), x_shape=(1, 3, 8, 8), attrs=None, inits=None,
               with_bias=True, y_shape=None):
    """input -> Conv 'conv1' -> Relu 'relu1' -> output."""
    attrs = {"pads": [1, 1, 1, 1]} if attrs is None else attrs
    if inits is None:
        inits = [f32("conv1.weight", w_shape, 1)]
        if with_bias:
            inits.append(f32("conv1.bias", (w_shape[0],), 2))
    conv_in = ["input", "conv1.weight"] + (["conv1.bias"] if with_bias else [])
    nodes = [
        helper.make_node("Conv", conv_in, ["conv1_out"], name="conv1", **attrs),
        helper.make_node("Relu", ["conv1_out"], ["output"], name="relu1"),
    ]
    return helper.make_graph(nodes, name, [vi("input", list(x_shape))],
                             [vi("output", y_shape)], initializer=inits)


def valid_model():
    return model(conv_graph("valid", y_shape=[1, 4, 8, 8]))


def parses(data):
    try:
        m = onnx.ModelProto()
        m.ParseFromString(data)
    except Exception:  # google.protobuf.message.DecodeError and friends
        return False
    return True


def cases():
    out = {}
    valid = valid_model()
    onnx.checker.check_model(valid)  # the base of the byte-level cases is itself valid
    valid_bytes = valid.SerializeToString()
    out["valid.onnx"] = valid_bytes

    # --- Not a (whole) ONNX file -------------------------------------------------------
    half = valid_bytes[: len(valid_bytes) // 2]
    assert not parses(half), "truncated.onnx: the first half still parses"
    out["truncated.onnx"] = half

    # Random bytes over the model's first 24 bytes (the header and the start of the graph),
    # seeded; keep the first draw that protobuf rejects.
    rng = random.Random(1337)
    for _ in range(1000):
        b = bytearray(valid_bytes)
        for _ in range(8):
            b[rng.randrange(0, 24)] = rng.randrange(0, 256)
        if not parses(bytes(b)):
            out["corrupted.onnx"] = bytes(b)
            break
    else:
        sys.exit("make_corpus: no corruption found that fails to parse")

    out["not_onnx.png"] = (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x08\x00\x00\x00\x08"
                           b"\x08\x02\x00\x00\x00\x4b\x6d\x29\xdc\x00\x00\x00\x00IEND\xaeB`\x82")
    out["not_onnx.txt"] = b"This is a plain text file, not an ONNX model.\nSecond line.\n"
    out["empty.onnx"] = b""

    # --- Graph structure ------------------------------------------------------------------
    g = helper.make_graph([], "no_nodes", [vi("input", [1, 3, 8, 8])], [vi("input", [1, 3, 8, 8])])
    out["no_nodes.onnx"] = model(g).SerializeToString()

    # Unknown op in the middle of Conv -> FrobnicateOp -> Relu.
    nodes = [
        helper.make_node("Conv", ["input", "conv1.weight", "conv1.bias"], ["conv1_out"], name="conv1",
                         pads=[1, 1, 1, 1]),
        helper.make_node("FrobnicateOp", ["conv1_out"], ["frob_out"], name="frob1", strength=3),
        helper.make_node("Relu", ["frob_out"], ["output"], name="relu1"),
    ]
    g = helper.make_graph(nodes, "unknown_op", [vi("input", [1, 3, 8, 8])], [vi("output", [1, 4, 8, 8])],
                          initializer=[f32("conv1.weight", (4, 3, 3, 3), 1), f32("conv1.bias", (4,), 2)])
    out["unknown_op.onnx"] = model(g).SerializeToString()

    # Cycle: add1 reads relu1's output, relu1 reads add1's.
    nodes = [
        helper.make_node("Add", ["input", "relu1_out"], ["add1_out"], name="add1"),
        helper.make_node("Relu", ["add1_out"], ["relu1_out"], name="relu1"),
    ]
    g = helper.make_graph(nodes, "cycle", [vi("input", [1, 3, 8, 8])], [vi("add1_out", [1, 3, 8, 8])])
    out["cycle.onnx"] = model(g).SerializeToString()

    nodes = [helper.make_node("Relu", ["ghost"], ["output"], name="relu1")]
    g = helper.make_graph(nodes, "missing_input", [vi("input", [1, 3, 8, 8])], [vi("output", None)])
    out["missing_input.onnx"] = model(g).SerializeToString()

    out["missing_initializer.onnx"] = model(conv_graph(
        "missing_initializer", inits=[f32("conv1.bias", (4,), 2)])).SerializeToString()

    nodes = [
        helper.make_node("Relu", ["input"], ["y"], name="relu1"),
        helper.make_node("Sigmoid", ["input"], ["y"], name="sigmoid1"),
    ]
    g = helper.make_graph(nodes, "duplicate_output", [vi("input", [1, 3, 8, 8])], [vi("y", None)])
    out["duplicate_output.onnx"] = model(g).SerializeToString()

    out["opset3.onnx"] = model(conv_graph("opset3"), version=3).SerializeToString()

    # Symbolic non-batch dim: only the batch dim gets a default.
    g = conv_graph("symbolic_dim", x_shape=("N", 3, "H", 8))
    out["symbolic_dim.onnx"] = model(g).SerializeToString()

    # --- Inconsistent shapes --------------------------------------------------------------
    nodes = [helper.make_node("Add", ["a", "b"], ["output"], name="add1")]
    g = helper.make_graph(nodes, "add_mismatch", [vi("a", [1, 3, 8, 8]), vi("b", [1, 4, 8, 8])],
                          [vi("output", None)])
    out["add_shape_mismatch.onnx"] = model(g).SerializeToString()

    out["conv_wrong_in_channels.onnx"] = model(conv_graph(
        "conv_wrong_in_channels", w_shape=(4, 5, 3, 3))).SerializeToString()
    out["conv_bad_group.onnx"] = model(conv_graph(
        "conv_bad_group", w_shape=(4, 1, 3, 3), attrs={"pads": [1, 1, 1, 1], "group": 2})).SerializeToString()

    nodes = [helper.make_node("Gemm", ["a", "gemm1.weight"], ["output"], name="gemm1")]
    g = helper.make_graph(nodes, "gemm_mismatch", [vi("a", [2, 5])], [vi("output", None)],
                          initializer=[f32("gemm1.weight", (6, 4), 3)])
    out["gemm_inner_mismatch.onnx"] = model(g).SerializeToString()

    nodes = [helper.make_node("Reshape", ["input", "target_shape"], ["output"], name="reshape1")]
    g = helper.make_graph(nodes, "reshape_impossible", [vi("input", [1, 3, 8, 8])], [vi("output", None)],
                          initializer=[i64("target_shape", [5, 7])])
    out["reshape_impossible.onnx"] = model(g).SerializeToString()

    # --- Bad Conv attributes --------------------------------------------------------------
    out["conv_negative_pads.onnx"] = model(conv_graph(
        "conv_negative_pads", attrs={"pads": [1, -2, 1, 1]})).SerializeToString()
    out["conv_zero_stride.onnx"] = model(conv_graph(
        "conv_zero_stride", attrs={"pads": [1, 1, 1, 1], "strides": [1, 0]})).SerializeToString()
    out["conv_kernel_too_large.onnx"] = model(conv_graph(
        "conv_kernel_too_large", w_shape=(4, 3, 11, 11), attrs={})).SerializeToString()

    # --- Bad tensors ----------------------------------------------------------------------
    huge = TensorProto()
    huge.name = "huge"
    huge.data_type = TensorProto.FLOAT
    huge.dims.extend([2**40, 2**40])  # 2^80 elements; no data (stripped weights are allowed)
    nodes = [helper.make_node("Add", ["input", "huge"], ["output"], name="add1")]
    g = helper.make_graph(nodes, "overflow_initializer", [vi("input", [1, 3, 8, 8])], [vi("output", None)],
                          initializer=[huge])
    out["overflow_initializer.onnx"] = model(g).SerializeToString()

    g = conv_graph("overflow_input_dim", x_shape=(1, 3, 2**40, 2**40))
    out["overflow_input_dim.onnx"] = model(g).SerializeToString()

    neg = TensorProto()
    neg.name = "conv1.weight"
    neg.data_type = TensorProto.FLOAT
    neg.dims.extend([4, -3, 3, 3])
    out["negative_dims_initializer.onnx"] = model(conv_graph(
        "negative_dims_initializer", inits=[neg, f32("conv1.bias", (4,), 2)])).SerializeToString()

    short = TensorProto()
    short.name = "conv1.weight"
    short.data_type = TensorProto.FLOAT
    short.dims.extend([4, 3, 3, 3])  # needs 4*3*3*3*4 = 432 bytes
    short.raw_data = bytes(100)
    out["raw_data_mismatch.onnx"] = model(conv_graph(
        "raw_data_mismatch", inits=[short, f32("conv1.bias", (4,), 2)])).SerializeToString()

    # External data whose offset + length overflows int64 (the data file exists).
    ext = TensorProto()
    ext.name = "conv1.weight"
    ext.data_type = TensorProto.FLOAT
    ext.dims.extend([4, 3, 3, 3])
    ext.data_location = TensorProto.EXTERNAL
    for key, value in [("location", "external_data_offset_overflow.bin"), ("offset", str(2**63 - 1)),
                       ("length", "432")]:
        entry = ext.external_data.add()
        entry.key, entry.value = key, value
    out["external_data_offset_overflow.onnx"] = model(conv_graph(
        "external_data_offset_overflow", inits=[ext, f32("conv1.bias", (4,), 2)])).SerializeToString()
    out["external_data_offset_overflow.bin"] = bytes(432)

    # --- Attribute values whose arithmetic overflows int64 --------------------------------
    out["conv_huge_pads.onnx"] = model(conv_graph(
        "conv_huge_pads", attrs={"pads": [2**62] * 4})).SerializeToString()
    out["conv_huge_dilation.onnx"] = model(conv_graph(
        "conv_huge_dilation", attrs={"dilations": [2**63 - 1, 1]})).SerializeToString()

    nodes = [helper.make_node("Pad", ["input", "pads"], ["output"], name="pad1")]
    g = helper.make_graph(nodes, "pad_overflow", [vi("input", [1, 3, 8, 8])], [vi("output", None)],
                          initializer=[i64("pads", [0, 0, 2**63 - 1, 0, 0, 0, 2**63 - 1, 0])])
    out["pad_overflow.onnx"] = model(g).SerializeToString()

    nodes = [helper.make_node("Split", ["input", "split"], ["y1", "y2", "y3"], name="split1", axis=1)]
    g = helper.make_graph(nodes, "split_overflow", [vi("input", [1, 3, 8, 8])], [vi("y1", None)],
                          initializer=[i64("split", [2**63 - 1, 2**63 - 1, 5])])
    out["split_overflow.onnx"] = model(g).SerializeToString()
    return out


def main():
    os.makedirs(CORPUS, exist_ok=True)
    files = cases()
    for name, data in sorted(files.items()):
        with open(os.path.join(CORPUS, name), "wb") as f:
            f.write(data)
    print(f"make_corpus: wrote {len(files)} files to {os.path.relpath(CORPUS)}")


if __name__ == "__main__":
    main()
