// Per-op shapes and costs, computed by hand. Unfused view: one layer per node.
#include "test_util.h"

namespace rooflens {
namespace {

using test::shape_of;

struct One {
  Graph g;
  ValueId y;
  ModelAnalysis m;
  const LayerReport& layer(const std::string& name) const {
    for (const auto& l : m.layers)
      if (l.name == name) return l;
    ADD_FAILURE() << "no layer " << name;
    return m.layers.at(0);
  }
};

One run(GraphBuilder& b, ValueId y, DType dt = DType::kF32) {
  b.output(y);
  One o{b.finish(), y, {}};
  o.m = test::analyze(o.g, dt, FusionMode::kNone);
  return o;
}

TEST(Gemm, ShapeAndCost) {
  GraphBuilder b;
  ValueId a = b.input("a", {8, 2048});
  ValueId w = b.weight("w", {1000, 2048});
  ValueId c = b.weight("c", {1000});
  One o = run(b, b.add1("Gemm", "fc", {a, w, c}, {{"transB", int64_t{1}}}));
  EXPECT_EQ(shape_of(o.g, o.y), (Shape{8, 1000}));
  const auto& l = o.layer("fc");
  EXPECT_EQ(l.cost.macs, 8LL * 1000 * 2048);
  EXPECT_EQ(l.cost.flops, 2 * 8LL * 1000 * 2048 + 8 * 1000);
  EXPECT_EQ(l.cost.bytes_in, 8 * 2048 * 4);
  EXPECT_EQ(l.cost.bytes_weights, (1000 * 2048 + 1000) * 4);
  EXPECT_EQ(l.cost.bytes_out, 8 * 1000 * 4);
}

TEST(Gemm, RejectsInnerMismatch) {
  GraphBuilder b;
  ValueId a = b.input("a", {8, 100});
  ValueId w = b.weight("w", {1000, 2048});
  b.output(b.add1("Gemm", "fc", {a, w}, {{"transB", int64_t{1}}}));
  Graph g = b.finish();
  EXPECT_NE(test::infer_error(g).find("inner dimensions differ"), std::string::npos);
}

TEST(MatMul, BroadcastBatchAndVectors) {
  GraphBuilder b;
  ValueId x = b.input("x", {2, 7, 7, 96});
  ValueId w = b.weight("w", {96, 384});
  One o = run(b, b.add1("MatMul", "mm", {x, w}));
  EXPECT_EQ(shape_of(o.g, o.y), (Shape{2, 7, 7, 384}));
  EXPECT_EQ(o.layer("mm").cost.macs, 2LL * 7 * 7 * 384 * 96);
  EXPECT_EQ(o.layer("mm").desc, "m98n384k96");

  GraphBuilder b2;
  ValueId p = b2.input("p", {3, 1, 5, 6});
  ValueId q = b2.input("q", {4, 6, 2});
  One o2 = run(b2, b2.add1("MatMul", "mm", {p, q}));
  EXPECT_EQ(shape_of(o2.g, o2.y), (Shape{3, 4, 5, 2}));
  EXPECT_EQ(o2.layer("mm").cost.macs, 3LL * 4 * 5 * 2 * 6);
}

TEST(Norm, BatchNormAndLayerNorm) {
  GraphBuilder b;
  ValueId x = b.input("x", {2, 16, 4, 4});
  One o = run(b, b.batchnorm("bn", x, 16));
  EXPECT_EQ(o.layer("bn").cost.flops, 2 * 2 * 16 * 16);
  EXPECT_EQ(o.layer("bn").cost.bytes_weights, 4 * 16 * 4);  // scale, bias, mean, var read
  EXPECT_EQ(o.m.params, 32);                                // running mean/var are not parameters

  GraphBuilder b2;
  ValueId t = b2.input("t", {2, 56, 56, 96});
  ValueId s = b2.weight("ln.weight", {96});
  ValueId bb = b2.weight("ln.bias", {96});
  One o2 = run(b2, b2.add1("LayerNormalization", "ln", {t, s, bb}, {{"axis", int64_t{-1}}, {"epsilon", 1e-6}}));
  EXPECT_EQ(shape_of(o2.g, o2.y), (Shape{2, 56, 56, 96}));
  EXPECT_EQ(o2.layer("ln").cost.flops, 8LL * 2 * 56 * 56 * 96);
  EXPECT_EQ(o2.m.params, 192);
}

TEST(Activation, FlopsPerElement) {
  const std::pair<const char*, int64_t> cases[] = {{"Relu", 1}, {"Sigmoid", 4}, {"HardSigmoid", 4}, {"HardSwish", 5},
                                                   {"Tanh", 1}, {"Erf", 1},     {"Gelu", 5}};
  for (auto [op, per] : cases) {
    GraphBuilder b;
    ValueId x = b.input("x", {1, 8, 10, 10});
    One o = run(b, b.add1(op, "act", {x}));
    EXPECT_EQ(o.layer("act").cost.flops, per * 800) << op;
    EXPECT_EQ(o.layer("act").cost.bytes_in, 3200) << op;
    EXPECT_EQ(o.layer("act").cost.bytes_out, 3200) << op;
  }
  GraphBuilder b;
  ValueId x = b.input("x", {1, 8, 10, 10});
  One o = run(b, b.add1("Clip", "relu6", {x, b.reals("lo", {}, {0.0}), b.reals("hi", {}, {6.0})}));
  EXPECT_EQ(o.layer("relu6").cost.flops, 1600);
  EXPECT_EQ(o.layer("relu6").cost.bytes_weights, 0);
}

TEST(Elementwise, BroadcastAndFp16Bytes) {
  GraphBuilder b;
  ValueId x = b.input("x", {4, 32, 14, 14});
  ValueId s = b.input("s", {4, 32, 1, 1});
  One o = run(b, b.add1("Mul", "scale", {x, s}), DType::kF16);
  EXPECT_EQ(shape_of(o.g, o.y), (Shape{4, 32, 14, 14}));
  EXPECT_EQ(o.layer("scale").cost.flops, 4 * 32 * 196);
  EXPECT_EQ(o.layer("scale").cost.bytes_in, (4 * 32 * 196 + 4 * 32) * 2);

  GraphBuilder b2;
  ValueId p = b2.input("p", {1, 3, 8, 8});
  ValueId q = b2.input("q", {1, 4, 8, 8});
  b2.output(b2.add1("Add", "bad_add", {p, q}));
  Graph g = b2.finish();
  std::string e = test::infer_error(g);
  EXPECT_NE(e.find("bad_add"), std::string::npos);
  EXPECT_NE(e.find("do not broadcast"), std::string::npos);
}

TEST(Pool, WindowsAndGlobal) {
  GraphBuilder b;
  ValueId x = b.input("x", {1, 64, 112, 112});
  ValueId mp = b.add1("MaxPool", "mp", {x},
                      {{"kernel_shape", std::vector<int64_t>{3, 3}},
                       {"strides", std::vector<int64_t>{2, 2}},
                       {"pads", std::vector<int64_t>{1, 1, 1, 1}}});
  ValueId ap = b.add1("AveragePool", "ap", {mp},
                      {{"kernel_shape", std::vector<int64_t>{2, 2}}, {"strides", std::vector<int64_t>{2, 2}}});
  ValueId cm = b.add1("MaxPool", "ceil", {x},
                      {{"kernel_shape", std::vector<int64_t>{3, 3}},
                       {"strides", std::vector<int64_t>{2, 2}},
                       {"ceil_mode", int64_t{1}}});
  b.output(cm);
  One o = run(b, b.add1("GlobalAveragePool", "gap", {ap}));
  EXPECT_EQ(shape_of(o.g, mp), (Shape{1, 64, 56, 56}));
  EXPECT_EQ(shape_of(o.g, ap), (Shape{1, 64, 28, 28}));
  EXPECT_EQ(shape_of(o.g, cm), (Shape{1, 64, 56, 56}));  // ceil((112-3)/2)+1 = 56
  EXPECT_EQ(shape_of(o.g, o.y), (Shape{1, 64, 1, 1}));
  EXPECT_EQ(o.layer("mp").cost.flops, 64LL * 56 * 56 * 9);
  EXPECT_EQ(o.layer("ap").cost.flops, 64LL * 28 * 28 * 5);
  EXPECT_EQ(o.layer("gap").cost.flops, 64LL * 28 * 28 + 64);
}

TEST(Reduce, ReduceMeanAttrAndInputAxesAndSoftmax) {
  GraphBuilder b("g", 13);
  ValueId x = b.input("x", {2, 768, 7, 7});
  ValueId r13 = b.add1("ReduceMean", "rm13", {x}, {{"axes", std::vector<int64_t>{2, 3}}, {"keepdims", int64_t{0}}});
  b.output(r13);
  One o = run(b, b.add1("Softmax", "sm", {r13}));
  EXPECT_EQ(shape_of(o.g, r13), (Shape{2, 768}));
  EXPECT_EQ(o.layer("rm13").cost.flops, 2LL * 768 * 49 + 2 * 768);
  EXPECT_EQ(o.layer("sm").cost.flops, 5LL * 2 * 768);

  GraphBuilder b18("g", 18);
  ValueId x18 = b18.input("x", {2, 768, 7, 7});
  One o18 = run(b18, b18.add1("ReduceMean", "rm18", {x18, b18.ints("axes", {-1, -2})}));
  EXPECT_EQ(shape_of(o18.g, o18.y), (Shape{2, 768, 1, 1}));
}

TEST(Layout, ConcatSplitSliceTransposePad) {
  GraphBuilder b;
  ValueId a = b.input("a", {1, 32, 28, 28});
  ValueId c = b.input("c", {1, 64, 28, 28});
  ValueId cat = b.add1("Concat", "cat", {a, c}, {{"axis", int64_t{1}}});
  auto parts = b.add("Split", "split", {cat, b.ints("sizes", {48, 48})}, {{"axis", int64_t{1}}}, 2);
  ValueId sl =
      b.add1("Slice", "slice", {parts[0], b.ints("st", {2}), b.ints("en", {-2}), b.ints("ax", {2}), b.ints("sp", {3})});
  ValueId tr = b.add1("Transpose", "tr", {sl}, {{"perm", std::vector<int64_t>{0, 2, 3, 1}}});
  b.output(parts[1]);
  b.output(tr);
  One o = run(b, b.add1("Pad", "pad", {parts[1], b.ints("pads", {0, 0, 1, 1, 0, 0, 1, 1})}));
  EXPECT_EQ(shape_of(o.g, cat), (Shape{1, 96, 28, 28}));
  EXPECT_EQ(shape_of(o.g, parts[0]), (Shape{1, 48, 28, 28}));
  EXPECT_EQ(shape_of(o.g, sl), (Shape{1, 48, 8, 28}));  // rows 2,5,...,23 of 28
  EXPECT_EQ(shape_of(o.g, tr), (Shape{1, 8, 28, 48}));
  EXPECT_EQ(shape_of(o.g, o.y), (Shape{1, 48, 30, 30}));
  EXPECT_EQ(o.layer("cat").cost.bytes_in, 96 * 784 * 4);
  EXPECT_EQ(o.layer("cat").cost.bytes_out, 96 * 784 * 4);
  EXPECT_EQ(o.layer("slice").cost.bytes_in, 48 * 8 * 28 * 4);  // reads only what it keeps
  EXPECT_EQ(o.layer("cat").cost.flops, 0);
}

TEST(Layout, GatherExpandResize) {
  GraphBuilder b("g", 13);
  ValueId table = b.weight("emb", {1000, 64});
  ValueId idx = b.input("idx", {4, 16}, DType::kI64);
  ValueId gat = b.add1("Gather", "gather", {table, idx}, {{"axis", int64_t{0}}});
  ValueId x = b.input("x", {1, 8, 1, 1});
  ValueId ex = b.add1("Expand", "expand", {x, b.ints("to", {2, 8, 5, 5})});
  ValueId img = b.input("img", {1, 3, 10, 10});
  ValueId rz = b.add1("Resize", "resize", {img, kNoValue, b.reals("scales", {4}, {1, 1, 2, 2})},
                      {{"mode", std::string("nearest")}});
  b.output(gat);
  b.output(ex);
  One o = run(b, rz);
  EXPECT_EQ(shape_of(o.g, gat), (Shape{4, 16, 64}));
  EXPECT_EQ(shape_of(o.g, ex), (Shape{2, 8, 5, 5}));
  EXPECT_EQ(shape_of(o.g, rz), (Shape{1, 3, 20, 20}));
  EXPECT_EQ(o.layer("gather").cost.bytes_weights, 4 * 16 * 64 * 4);
}

TEST(View, ViewsMoveNoBytes) {
  GraphBuilder b;
  ValueId x = b.input("x", {2, 512, 1, 1});
  ValueId f = b.add1("Flatten", "flatten", {x}, {{"axis", int64_t{1}}});
  ValueId r = b.add1("Reshape", "reshape", {f, b.ints("shape", {0, -1, 4})});
  ValueId u = b.add1("Unsqueeze", "unsq", {r, b.ints("ax", {0})});
  ValueId s = b.add1("Squeeze", "sq", {u, b.ints("ax0", {0})});
  ValueId i = b.add1("Identity", "id", {s});
  One o = run(b, b.add1("Dropout", "drop", {i}));
  EXPECT_EQ(shape_of(o.g, f), (Shape{2, 512}));
  EXPECT_EQ(shape_of(o.g, r), (Shape{2, 128, 4}));
  EXPECT_EQ(shape_of(o.g, u), (Shape{1, 2, 128, 4}));
  EXPECT_EQ(shape_of(o.g, o.y), (Shape{2, 128, 4}));
  for (const auto& l : o.m.layers) {
    EXPECT_EQ(l.cost.bytes_in + l.cost.bytes_out + l.cost.bytes_weights, 0) << l.name;
    EXPECT_EQ(l.cost.flops, 0) << l.name;
  }
}

TEST(View, ReshapeRejectsImpossibleShape) {
  GraphBuilder b;
  ValueId x = b.input("x", {2, 10});
  b.output(b.add1("Reshape", "bad_reshape", {x, b.ints("shape", {3, -1})}));
  Graph g = b.finish();
  std::string e = test::infer_error(g);
  EXPECT_NE(e.find("bad_reshape"), std::string::npos) << e;
  EXPECT_NE(e.find("cannot reshape"), std::string::npos) << e;
}

TEST(Graph, CycleIsInvalidInput) {
  GraphBuilder b;
  ValueId x = b.input("x", {1, 4});
  Graph& g = b.graph();
  // a = Add(x, b_out); b = Relu(a): a cycle through both nodes.
  Value va;
  va.name = "a";
  Value vb;
  vb.name = "b";
  ValueId ia = g.add_value(va), ib = g.add_value(vb);
  Node na;
  na.name = "add";
  na.op_type = "Add";
  na.kind = OpKind::kAdd;
  na.inputs = {x, ib};
  na.outputs = {ia};
  Node nb;
  nb.name = "relu";
  nb.op_type = "Relu";
  nb.kind = OpKind::kRelu;
  nb.inputs = {ia};
  nb.outputs = {ib};
  g.add_node(na);
  g.add_node(nb);
  g.outputs.push_back(ib);
  std::string e = test::infer_error(g);
  EXPECT_NE(e.find("cycle"), std::string::npos) << e;
}

}  // namespace
}  // namespace rooflens
