// Conv: shapes and costs by hand, and the arithmetic-intensity test vectors of
// shared/reference/study.md section 1 (FP16, stride 1, same padding, no bias).
#include "test_util.h"

namespace rooflens {
namespace {

using test::analyze;
using test::shape_of;

struct ConvCase {
  int64_t batch, cin, cout, hw, k, group;
};

ModelAnalysis conv_layer(const ConvCase& c, DType dt, Graph* keep = nullptr) {
  GraphBuilder b;
  ValueId x = b.input("x", {c.batch, c.cin, c.hw, c.hw});
  ValueId y = b.conv("conv", x, c.cin, c.cout, c.k, {.group = c.group});
  b.output(y);
  Graph g = b.finish();
  ModelAnalysis m = analyze(g, dt);
  if (keep) *keep = std::move(g);
  return m;
}

TEST(Conv, StudyArithmeticIntensityVectors) {
  struct Vec {
    ConvCase layer;
    double ai_b1, ai_b64;
  };
  const Vec vecs[] = {
      {{1, 64, 64, 32, 3, 1}, 224.8, 286.7},  // 3x3 conv, C=64->64, 32x32
      {{1, 64, 64, 32, 1, 1}, 31.0, 32.0},    // 1x1 conv, C=64->64, 32x32
      {{1, 512, 512, 7, 1, 1}, 41.1, 236.7},  // 1x1 conv, C=512->512, 7x7
      {{1, 256, 256, 14, 3, 256}, 4.4, 4.5},  // 3x3 depthwise, C=256, 14x14
  };
  for (const Vec& v : vecs) {
    ConvCase b1 = v.layer, b64 = v.layer;
    b64.batch = 64;
    EXPECT_NEAR(conv_layer(b1, DType::kF16).layers[0].ai, v.ai_b1, 0.05) << v.layer.k << "x" << v.layer.cin;
    EXPECT_NEAR(conv_layer(b64, DType::kF16).layers[0].ai, v.ai_b64, 0.05) << v.layer.k << "x" << v.layer.cin;
  }
  // As batch grows AI saturates at 2*K*K*Cin*Cout / (b*(Cin+Cout)) = 288 for the 3x3 C=64 layer.
  EXPECT_NEAR(conv_layer({4096, 64, 64, 32, 3, 1}, DType::kF16).layers[0].ai, 288.0, 0.1);
}

TEST(Conv, ArticleExample3x3x100) {
  // 3x3x100 filters, 100 outputs, 50x50x100 input: 225,000,000 MACs = 450,000,000 OPs.
  ModelAnalysis m = conv_layer({1, 100, 100, 50, 3, 1}, DType::kF32);
  EXPECT_EQ(m.totals.macs, 225'000'000);
  EXPECT_EQ(m.totals.flops, 450'000'000);
}

TEST(Conv, ArticleStarvedLayer) {
  // 1x1x10 conv with 5 outputs on 7x7: 2,450 MACs.
  ModelAnalysis m = conv_layer({1, 10, 5, 7, 1, 1}, DType::kF32);
  EXPECT_EQ(m.totals.macs, 2450);
}

TEST(Conv, BytesAreCountedByHand) {
  // 1x64x32x32 fp32 in, 64x64x3x3 weights, 1x64x32x32 out.
  ModelAnalysis m = conv_layer({1, 64, 64, 32, 3, 1}, DType::kF32);
  const auto& c = m.layers[0].cost;
  EXPECT_EQ(c.bytes_in, 64 * 32 * 32 * 4);
  EXPECT_EQ(c.bytes_out, 64 * 32 * 32 * 4);
  EXPECT_EQ(c.bytes_weights, 64 * 64 * 9 * 4);
  EXPECT_EQ(c.macs, 64LL * 64 * 9 * 32 * 32);
  EXPECT_EQ(m.layers[0].desc, "mb1ic64ih32iw32oc64oh32ow32kh3kw3sh1sw1ph1pw1");
}

TEST(Conv, StridedPaddedDilatedGroupedShapes) {
  GraphBuilder b;
  ValueId x = b.input("x", {2, 32, 57, 57});
  ValueId s2 = b.conv("s2", x, 32, 64, 3, {.stride = 2, .pad = 1});               // 57 -> 29
  ValueId d2 = b.conv("d2", x, 32, 16, 3, {.pad = 2, .dilation = 2});             // 57 -> 57
  ValueId g4 = b.conv("g4", x, 32, 64, 3, {.pad = 0, .group = 4});                // 57 -> 55
  ValueId dw = b.conv("dw", x, 32, 32, 5, {.stride = 2, .pad = 2, .group = 32});  // 57 -> 29
  ValueId k7 = b.conv("k7", x, 32, 8, 7, {.stride = 3, .pad = 0, .bias = true});  // (57-7)/3+1 = 17
  for (ValueId v : {s2, d2, g4, dw, k7}) b.output(v);
  Graph g = b.finish();
  ModelAnalysis m = analyze(g);
  EXPECT_EQ(shape_of(g, s2), (Shape{2, 64, 29, 29}));
  EXPECT_EQ(shape_of(g, d2), (Shape{2, 16, 57, 57}));
  EXPECT_EQ(shape_of(g, g4), (Shape{2, 64, 55, 55}));
  EXPECT_EQ(shape_of(g, dw), (Shape{2, 32, 29, 29}));
  EXPECT_EQ(shape_of(g, k7), (Shape{2, 8, 17, 17}));
  ASSERT_EQ(m.layers.size(), 5u);
  EXPECT_EQ(m.layers[2].cost.macs, 2LL * 64 * 55 * 55 * (32 / 4) * 9);                       // grouped
  EXPECT_EQ(m.layers[3].cost.macs, 2LL * 32 * 29 * 29 * 1 * 25);                             // depthwise
  EXPECT_EQ(m.layers[4].cost.flops, 2 * (2LL * 8 * 17 * 17 * 32 * 49) + 2LL * 8 * 17 * 17);  // + bias
}

TEST(Conv, AutoPadSameUpper) {
  GraphBuilder b;
  ValueId x = b.input("x", {1, 3, 224, 224});
  ValueId w = b.weight("w", {16, 3, 3, 3});
  ValueId y =
      b.add1("Conv", "c", {x, w}, {{"auto_pad", std::string("SAME_UPPER")}, {"strides", std::vector<int64_t>{2, 2}}});
  b.output(y);
  Graph g = b.finish();
  analyze(g);
  EXPECT_EQ(shape_of(g, y), (Shape{1, 16, 112, 112}));
}

TEST(Conv, RejectsBadGroupAndChannels) {
  {
    GraphBuilder b;
    ValueId x = b.input("x", {1, 64, 8, 8});
    ValueId w = b.weight("w", {64, 21, 3, 3});
    b.output(b.add1("Conv", "layer1.0.conv1", {x, w}, {{"group", int64_t{3}}}));
    Graph g = b.finish();
    std::string e = test::infer_error(g);
    EXPECT_NE(e.find("layer1.0.conv1"), std::string::npos) << e;
    EXPECT_NE(e.find("group=3 does not divide input channels 64"), std::string::npos) << e;
  }
  {
    GraphBuilder b;
    ValueId x = b.input("x", {1, 64, 8, 8});
    ValueId w = b.weight("w", {32, 32, 3, 3});
    b.output(b.add1("Conv", "c", {x, w}));
    Graph g = b.finish();
    EXPECT_NE(test::infer_error(g).find("input W"), std::string::npos);
  }
  {
    GraphBuilder b;
    ValueId x = b.input("x", {1, 8, 4, 4});
    ValueId w = b.weight("w", {8, 8, 7, 7});
    b.output(b.add1("Conv", "c", {x, w}));
    Graph g = b.finish();
    EXPECT_NE(test::infer_error(g).find("exceeds padded input"), std::string::npos);
  }
}

}  // namespace
}  // namespace rooflens
