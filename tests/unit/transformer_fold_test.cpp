// Import-time folding of the shape-computing subgraphs transformer exports hold (ViT's
// expand(-1) written with Equal/Where, Swin's shifted-window mask from ConstantOfShape,
// ScatterND, Range, Mod, Not), Einsum as a batched product, grouped unknown-op messages and
// the fused attention layer of the engine view.
#include "test_util.h"

namespace rooflens {
namespace {

TensorConst i64(std::vector<int64_t> v, Shape s) { return TensorConst{DType::kI64, std::move(s), std::move(v), {}}; }

// torch exports class_token.expand(n, -1, -1) as
// Where(Equal(shape, -1), ConstantOfShape(1) * -1 ..., shape) feeding Expand.
TEST(TransformerFold, ExpandMinusOneThroughEqualWhere) {
  GraphBuilder b;
  ValueId x = b.input("x", {4, 196, 768});
  ValueId tok = b.weight("class_token", {1, 1, 768});
  ValueId n = b.add1("Gather", "g", {b.add1("Shape", "s", {x}), b.ints("zero", {0})}, {{"axis", int64_t{0}}});
  ValueId shape = b.add1("Concat", "cat", {n, b.ints("m1", {-1, -1})}, {{"axis", int64_t{0}}});
  ValueId eq = b.add1("Equal", "eq", {shape, b.ints("neg", {-1})});
  ValueId ones = b.add1("ConstantOfShape", "ones", {b.ints("three", {3})}, {{"value", i64({1}, {1})}});
  ValueId fixed = b.add1("Where", "where", {eq, ones, shape});
  ValueId e = b.add1("Expand", "expand", {tok, fixed});
  b.output(e);
  Graph g = b.finish();
  ModelAnalysis m = test::analyze(g);
  EXPECT_EQ(*g.value(eq).ints, (std::vector<int64_t>{0, 1, 1}));
  EXPECT_EQ(*g.value(fixed).ints, (std::vector<int64_t>{4, 1, 1}));
  EXPECT_EQ(test::shape_of(g, e), (Shape{4, 1, 768}));
  EXPECT_TRUE(m.unknown_nodes.empty());
  EXPECT_TRUE(m.unresolved_nodes.empty());
  ASSERT_EQ(m.layers.size(), 1u);  // only the Expand runs
  EXPECT_EQ(m.layers[0].op, "Expand");
}

// Swin's mask: zeros [H, W] with regions numbered by ScatterND, windows by a transpose,
// pairwise differences, then Where(diff != 0, -100, 0): every node folds, the Add of the
// mask to the scores reads it as a constant.
TEST(TransformerFold, ShiftedWindowMaskFolds) {
  GraphBuilder b;
  ValueId scores = b.input("scores", {2, 4, 4, 4});  // [B, windows, tokens, tokens], 4x4 map, 2x2 windows
  ValueId z = b.add1("ConstantOfShape", "zeros", {b.ints("hw", {4, 4})});
  // rows 2..3 get region 1 (indices [[2],[3]], updates [2, 4] of ones)
  ValueId rows = b.add1("Unsqueeze", "rows",
                        {b.add1("Range", "range",
                                {b.add1("Constant", "s", {}, {{"value", i64({2}, {})}}),
                                 b.add1("Constant", "l", {}, {{"value", i64({4}, {})}}),
                                 b.add1("Constant", "d", {}, {{"value", i64({1}, {})}})}),
                         b.ints("ax1", {1})});
  ValueId upd = b.reals("upd", {2, 4}, std::vector<double>(8, 1.0));
  ValueId marked = b.add1("ScatterND", "scatter", {z, rows, upd});
  // window partition [4,4] -> [2,2,2,2] -> transpose(0,2,1,3) -> [4, 4]
  ValueId v1 = b.add1("Reshape", "v1", {marked, b.ints("s1", {2, 2, 2, 2})});
  ValueId t = b.add1("Transpose", "perm", {v1}, {{"perm", std::vector<int64_t>{0, 2, 1, 3}}});
  ValueId win = b.add1("Reshape", "v2", {t, b.ints("s2", {4, 4})});
  ValueId d = b.add1("Sub", "diff",
                     {b.add1("Unsqueeze", "u1", {win, b.ints("a1", {1})}),
                      b.add1("Unsqueeze", "u2", {win, b.ints("a2", {2})})});
  ValueId nz = b.add1("Not", "nz", {b.add1("Equal", "is0", {d, b.reals("zero", {}, {0.0})})});
  ValueId mask = b.add1("Where", "mask", {nz, b.reals("big", {}, {-100.0}), b.reals("z0", {}, {0.0})});
  ValueId mod = b.add1("Mod", "mod", {b.ints("seven", {7}), b.ints("three", {3})});
  ValueId y = b.add1("Add", "add_mask", {scores, mask});
  b.output(y);
  b.output(mod);
  Graph g = b.finish();
  ModelAnalysis m = test::analyze(g);
  EXPECT_TRUE(m.unknown_nodes.empty());
  EXPECT_TRUE(m.unresolved_nodes.empty());
  ASSERT_TRUE(g.value(marked).reals.has_value());
  EXPECT_EQ((*g.value(marked).reals)[8], 1.0);
  EXPECT_EQ((*g.value(marked).reals)[7], 0.0);
  ASSERT_TRUE(g.value(mask).reals.has_value());
  EXPECT_EQ(test::shape_of(g, mask), (Shape{4, 4, 4}));
  // window 0 (top-left) is all region 0: no masking; window 2 (bottom-left) is all region 1.
  for (int i = 0; i < 16; ++i) EXPECT_EQ((*g.value(mask).reals)[static_cast<size_t>(i)], 0.0);
  EXPECT_EQ(*g.value(mod).ints, (std::vector<int64_t>{1}));
  // Only the Add runs; the mask costs nothing to produce and is not read as an activation.
  ASSERT_EQ(m.layers.size(), 1u);
  EXPECT_EQ(m.layers[0].cost.bytes_in, 2 * 4 * 4 * 4 * 4);
}

TEST(TransformerFold, EinsumIsABatchedProduct) {
  GraphBuilder b;
  ValueId q = b.input("q", {2, 3, 4, 49, 32});
  ValueId k = b.input("k", {2, 3, 4, 49, 32});
  ValueId s = b.add1("Einsum", "qk", {q, k}, {{"equation", std::string("bghid,bghjd->bghij")}});
  b.output(s);
  Graph g = b.finish();
  ModelAnalysis m = test::analyze(g);
  EXPECT_EQ(test::shape_of(g, s), (Shape{2, 3, 4, 49, 49}));
  EXPECT_EQ(m.totals.macs, 2LL * 3 * 4 * 49 * 49 * 32);
}

TEST(TransformerFold, EinsumWithEllipsisIsUnsupported) {
  GraphBuilder b;
  ValueId q = b.input("q", {2, 3});
  b.output(b.add1("Einsum", "e", {q, q}, {{"equation", std::string("...i,...i->...")}}));
  Graph g = b.finish();
  auto r = infer_shapes(g);
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.status().message().find("ellipsis"), std::string::npos);
}

TEST(TransformerFold, UnknownOpsAreGroupedByType) {
  std::vector<std::string> u;
  for (int i = 0; i < 40; ++i) u.push_back("n" + std::to_string(i) + " (Frob)");
  u.push_back("lonely (Blob)");
  const std::string s = unknown_ops_summary(u);
  EXPECT_EQ(s, "Frob x40 (e.g. n0, n1, n2); Blob x1 (lonely)");
}

// Q.K^T -> scale -> Softmax -> A.V: one layer in the engine view, no score traffic;
// unfused, the scores are written and read back.
TEST(TransformerFold, AttentionIsOneLayerWithoutScoreTraffic) {
  GraphBuilder b;
  const int64_t B = 2, H = 4, N = 64, D = 16;
  ValueId q = b.input("q", {B, H, N, D});
  ValueId kt = b.input("kt", {B, H, D, N});
  ValueId v = b.input("v", {B, H, N, D});
  ValueId s = b.add1("MatMul", "qk", {q, kt});
  ValueId sc = b.add1("Mul", "scale", {s, b.reals("c", {}, {0.25})});
  ValueId p = b.add1("Softmax", "softmax", {sc}, {{"axis", int64_t{-1}}});
  ValueId o = b.add1("MatMul", "av", {p, v});
  b.output(o);
  Graph g = b.finish();
  ModelAnalysis fused = test::analyze(g);
  ASSERT_EQ(fused.layers.size(), 1u);
  EXPECT_TRUE(fused.layers[0].attention);
  EXPECT_EQ(fused.layers[0].op, "MatMul+Mul+Softmax+MatMul");
  EXPECT_EQ(fused.layers[0].cost.bytes_in, 3 * B * H * N * D * 4);
  EXPECT_EQ(fused.layers[0].cost.bytes_out, B * H * N * D * 4);
  EXPECT_EQ(fused.totals.macs, 2 * B * H * N * N * D);
  auto r = infer_shapes(g);
  ASSERT_TRUE(r);
  AnalyzeOptions ao;
  ao.fusion = FusionMode::kNone;
  ModelAnalysis unfused = analyze_graph(g, *r, ao);
  EXPECT_EQ(unfused.layers.size(), 4u);
  EXPECT_EQ(unfused.totals.macs, fused.totals.macs);
  EXPECT_GE(unfused.totals.bytes_out, fused.totals.bytes_out + 3 * B * H * N * N * 4);
}

}  // namespace
}  // namespace rooflens
