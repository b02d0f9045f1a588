// Fusion as inference engines do it (docs/cost-model.md, "Fusion").
#include "test_util.h"

namespace rooflens {
namespace {

int64_t total_macs(const ModelAnalysis& m) { return m.totals.macs; }

TEST(Fuse, ConvBatchNormReluIsOneLayer) {
  GraphBuilder b;
  ValueId x = b.input("x", {1, 64, 56, 56});
  ValueId c = b.conv("conv", x, 64, 64, 3);
  ValueId bn = b.batchnorm("bn", c, 64);
  ValueId r = b.add1("Relu", "relu", {bn});
  b.output(r);
  Graph g = b.finish();
  ModelAnalysis fused = test::analyze(g, DType::kF16);
  ModelAnalysis unfused = test::analyze(g, DType::kF16, FusionMode::kNone);
  ASSERT_EQ(fused.layers.size(), 1u);
  EXPECT_EQ(fused.layers[0].op, "Conv+BatchNormalization+Relu");
  EXPECT_EQ(unfused.layers.size(), 3u);
  EXPECT_EQ(total_macs(fused), total_macs(unfused));
  const auto& l = fused.layers[0].cost;
  EXPECT_EQ(l.bytes_in, 64 * 56 * 56 * 2);
  EXPECT_EQ(l.bytes_out, 64 * 56 * 56 * 2);
  EXPECT_EQ(l.bytes_weights, (64 * 64 * 9 + 64) * 2);  // BN folds into a bias
  EXPECT_EQ(l.flops, 2LL * 64 * 64 * 9 * 56 * 56 + 64 * 56 * 56 /*bias*/ + 64 * 56 * 56 /*relu*/);
  // Unfused moves the intermediate tensors twice more each.
  EXPECT_GT(unfused.totals.bytes_in, fused.totals.bytes_in);
}

TEST(Fuse, ResidualAddAndReluJoinTheConv) {
  GraphBuilder b;
  ValueId x = b.input("x", {2, 256, 14, 14});
  ValueId c1 = b.add1("Relu", "r1", {b.batchnorm("bn1", b.conv("c1", x, 256, 64, 1), 64)});
  ValueId c2 = b.batchnorm("bn2", b.conv("c2", c1, 64, 256, 1), 256);
  ValueId sum = b.add1("Add", "add", {c2, x});
  ValueId out = b.add1("Relu", "r2", {sum});
  b.output(out);
  Graph g = b.finish();
  ModelAnalysis m = test::analyze(g, DType::kF16);
  ASSERT_EQ(m.layers.size(), 2u);
  EXPECT_EQ(m.layers[1].op, "Conv+BatchNormalization+Add+Relu");
  EXPECT_EQ(m.layers[1].in_shapes.size(), 2u);  // c1 output and the residual x
  EXPECT_EQ(m.layers[1].cost.bytes_in, (64 + 256) * 196 * 2 * 2);
  // The fusion is handed down with the layer: the backends read it instead of re-detecting.
  EXPECT_EQ(m.layers[1].folded_bn, g.value(c2).producer);
  EXPECT_EQ(m.layers[1].residual, x);
  EXPECT_EQ(m.layers[0].folded_bn, g.value(g.node(g.value(c1).producer).inputs[0]).producer);
  EXPECT_EQ(m.layers[0].residual, kNoValue);
  ModelAnalysis unfused = test::analyze(g, DType::kF16, FusionMode::kNone);
  for (const LayerReport& l : unfused.layers) {
    EXPECT_EQ(l.folded_bn, -1) << l.name;
    EXPECT_EQ(l.residual, kNoValue) << l.name;
  }
}

TEST(Fuse, EscapingIntermediateBlocksFusion) {
  // The conv output feeds a ReLU and another conv: the ReLU cannot be fused in.
  GraphBuilder b;
  ValueId x = b.input("x", {1, 16, 8, 8});
  ValueId c = b.conv("c", x, 16, 16, 3);
  ValueId r = b.add1("Relu", "relu", {c});
  ValueId d = b.conv("d", c, 16, 16, 1);
  b.output(r);
  b.output(d);
  Graph g = b.finish();
  ModelAnalysis m = test::analyze(g);
  ASSERT_EQ(m.layers.size(), 3u);
  EXPECT_EQ(m.layers[0].op, "Conv");
}

TEST(Fuse, SwishAndGeluPatterns) {
  GraphBuilder b;
  ValueId x = b.input("x", {1, 32, 16, 16});
  ValueId c = b.batchnorm("bn", b.conv("c", x, 32, 32, 3), 32);
  ValueId s = b.add1("Sigmoid", "sig", {c});
  ValueId swish = b.add1("Mul", "swish", {c, s});
  ValueId t = b.add1("Reshape", "tokens", {swish, b.ints("shape", {1, 32, 256})});
  ValueId tt = b.add1("Transpose", "tt", {t}, {{"perm", std::vector<int64_t>{0, 2, 1}}});
  ValueId mm = b.add1("MatMul", "fc", {tt, b.weight("fc.w", {32, 128})});
  ValueId bias = b.add1("Add", "fc.bias", {mm, b.weight("fc.b", {128})});
  ValueId div = b.add1("Div", "gelu.div", {bias, b.reals("sqrt2", {}, {1.41421356})});
  ValueId erf = b.add1("Erf", "gelu.erf", {div});
  ValueId one = b.add1("Add", "gelu.add", {erf, b.reals("one", {}, {1.0})});
  ValueId mul = b.add1("Mul", "gelu.mul", {bias, one});
  ValueId half = b.add1("Mul", "gelu.half", {mul, b.reals("half", {}, {0.5})});
  b.output(half);
  Graph g = b.finish();
  ModelAnalysis m = test::analyze(g);
  ASSERT_EQ(m.layers.size(), 3u) << m.layers[0].op;
  EXPECT_EQ(m.layers[0].op, "Conv+BatchNormalization+Sigmoid+Mul");
  EXPECT_EQ(m.layers[1].op, "Transpose");
  EXPECT_EQ(m.layers[2].op, "MatMul+Add+Div+Erf+Add+Mul+Mul");
  EXPECT_EQ(m.layers[2].cost.bytes_out, 256 * 128 * 4);
  EXPECT_EQ(m.totals.macs, test::analyze(g, DType::kF32, FusionMode::kNone).totals.macs);
}

}  // namespace
}  // namespace rooflens
