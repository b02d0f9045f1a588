// Constant folding of the shape subgraphs exporters emit.
#include "test_util.h"

namespace rooflens {
namespace {

// ShuffleNetV2 channel shuffle as torch exports it with a dynamic batch:
// n = Unsqueeze(Gather(Shape(x), 0)); Reshape(x, Concat(n, [2, 58, 28, 28])) -> Transpose ->
// Reshape(Concat(n, [-1, 28, 28])).
TEST(Fold, ChannelShuffleShapeSubgraph) {
  GraphBuilder b;
  ValueId x = b.input("x", {8, 116, 28, 28});
  ValueId shape = b.add1("Shape", "shape", {x});
  ValueId n = b.add1("Gather", "gather",
                     {shape, b.add1("Constant", "zero", {}, {{"value", TensorConst{DType::kI64, {}, {0}, {}}}})},
                     {{"axis", int64_t{0}}});
  ValueId n1 = b.add1("Unsqueeze", "unsq", {n, b.ints("axes0", {0})});
  ValueId s1 = b.add1("Concat", "cat1", {n1, b.ints("rest1", {2, 58, 28, 28})}, {{"axis", int64_t{0}}});
  ValueId r1 = b.add1("Reshape", "view1", {x, s1});
  ValueId t = b.add1("Transpose", "shuffle", {r1}, {{"perm", std::vector<int64_t>{0, 2, 1, 3, 4}}});
  ValueId s2 = b.add1("Concat", "cat2", {n1, b.ints("rest2", {-1, 28, 28})}, {{"axis", int64_t{0}}});
  ValueId r2 = b.add1("Reshape", "view2", {t, s2});
  b.output(r2);
  Graph g = b.finish();
  ModelAnalysis m = test::analyze(g, DType::kF16);
  EXPECT_EQ(test::shape_of(g, r1), (Shape{8, 2, 58, 28, 28}));
  EXPECT_EQ(test::shape_of(g, r2), (Shape{8, 116, 28, 28}));
  EXPECT_EQ(m.folded_nodes, 6);  // shape, zero, gather, unsq, cat1, cat2
  // Fused view: only the transpose moves data.
  ASSERT_EQ(m.layers.size(), 1u);
  EXPECT_EQ(m.layers[0].op, "Transpose");
  EXPECT_EQ(m.layers[0].cost.bytes_in, 8LL * 116 * 28 * 28 * 2);
}

// Swin V2's position-bias MLP on its coordinate table: what is computed from stored tensors
// alone runs when the model loads (folded, its result stored); a stored tensor expanded to the
// input's batch (ViT's class token) runs per batch.
TEST(Fold, StoredOnlySubgraphRunsAtLoad) {
  GraphBuilder b;
  ValueId x = b.input("x", {2, 6, 4});
  ValueId h = b.add1("MatMul", "mlp0", {b.weight("coords", {6, 2}), b.weight("w0", {2, 16})});
  ValueId r = b.add1("Relu", "relu", {h});
  ValueId bias = b.add1("MatMul", "mlp1", {r, b.weight("w1", {16, 4})});
  ValueId tok = b.add1("Expand", "expand", {b.weight("tok", {1, 1, 4}), b.add1("Shape", "shape", {x})});
  b.output(b.add1("Add", "add_tok", {b.add1("Add", "add_bias", {x, bias}), tok}));
  Graph g = b.finish();
  ModelAnalysis m = test::analyze(g);
  EXPECT_EQ(m.totals.macs, 0);
  for (ValueId v : {h, r, bias}) {
    EXPECT_TRUE(g.node(g.value(v).producer).folded) << g.value(v).name;
    EXPECT_TRUE(g.value(v).is_stored) << g.value(v).name;
  }
  EXPECT_FALSE(g.node(g.value(tok).producer).folded);
  EXPECT_FALSE(g.value(tok).is_stored);
  EXPECT_EQ(m.params, 6 * 4 + 4);  // the MLP's result and the token; not coords, w0, w1
}

TEST(Fold, IntArithmeticAndConstantOfShape) {
  GraphBuilder b;
  ValueId x = b.input("x", {4, 6, 10});
  ValueId shape = b.add1("Shape", "shape", {x});
  ValueId half = b.add1("Div", "half", {shape, b.ints("two", {2})});
  ValueId sl = b.add1("Slice", "tail", {half, b.ints("s", {1}), b.ints("e", {3})});
  ValueId zeros = b.add1("ConstantOfShape", "zeros", {sl});
  ValueId cast = b.add1("Cast", "cast", {zeros}, {{"to", int64_t{1}}});
  b.output(cast);
  Graph g = b.finish();
  test::analyze(g);
  ASSERT_TRUE(g.value(half).ints.has_value());
  EXPECT_EQ(*g.value(half).ints, (std::vector<int64_t>{2, 3, 5}));
  EXPECT_EQ(*g.value(sl).ints, (std::vector<int64_t>{3, 5}));
  EXPECT_EQ(test::shape_of(g, cast), (Shape{3, 5}));
  EXPECT_TRUE(g.value(cast).reals.has_value());
}

TEST(Fold, UnknownShapeInputToReshapeIsUnsupported) {
  GraphBuilder b;
  ValueId x = b.input("x", {4, 6});
  ValueId dyn = b.input("target", {2}, DType::kI64);
  b.output(b.add1("Reshape", "r", {x, dyn}));
  Graph g = b.finish();
  auto r = infer_shapes(g);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(r.status().message().find("known at analysis time"), std::string::npos);
}

}  // namespace
}  // namespace rooflens
