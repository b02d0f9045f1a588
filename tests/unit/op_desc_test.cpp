// Op descriptors (ir/op_desc.h): shape inference resolves each node's attributes once, with
// defaults applied, axes normalised and auto_pad turned into explicit pads; passes that
// rewrite attributes leave the descriptors matching.
#include <cmath>

#include "rooflens/passes/folded_cnn.h"
#include "test_util.h"

namespace rooflens {
namespace {

using test::analyze;

template <typename D>
const D& desc_of(const Graph& g, ValueId out) {
  const Node& n = g.node(g.value(out).producer);
  EXPECT_TRUE(std::holds_alternative<D>(n.desc))
      << n.op_type << " node '" << n.name << "' holds descriptor " << n.desc.index();
  static const D empty{};
  const D* d = std::get_if<D>(&n.desc);
  return d ? *d : empty;
}

Graph conv_graph(const std::string& auto_pad, int64_t hw, int64_t k, int64_t stride) {
  GraphBuilder b;
  ValueId x = b.input("x", {1, 8, hw, hw});
  ValueId w = b.weight("w", {16, 4, k, k});
  b.output(b.add1("Conv", "c", {x, w},
                  {{"auto_pad", auto_pad}, {"strides", std::vector<int64_t>{stride, stride}}, {"group", int64_t{2}}}));
  return b.finish();
}

TEST(OpDesc, ConvSamePaddingIsResolvedOnce) {
  // 7 wide, kernel 4, stride 2: output 4, total padding (4-1)*2 + 4 - 7 = 3 -> 1 and 2.
  Graph up = conv_graph("SAME_UPPER", 7, 4, 2);
  analyze(up);
  const auto& u = desc_of<WindowDesc>(up, up.outputs[0]);
  EXPECT_EQ(u.pads, (std::vector<int64_t>{1, 1, 2, 2}));
  EXPECT_EQ(u.auto_pad, AutoPad::kSameUpper);
  EXPECT_EQ(u.groups, 2);
  EXPECT_EQ(u.kernel, (std::vector<int64_t>{4, 4}));
  EXPECT_EQ(u.strides, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(u.dilations, (std::vector<int64_t>{1, 1}));
  EXPECT_FALSE(u.pads_symmetric());

  Graph low = conv_graph("SAME_LOWER", 7, 4, 2);
  analyze(low);
  EXPECT_EQ(desc_of<WindowDesc>(low, low.outputs[0]).pads, (std::vector<int64_t>{2, 2, 1, 1}));

  Graph valid = conv_graph("VALID", 7, 4, 2);
  analyze(valid);
  EXPECT_EQ(desc_of<WindowDesc>(valid, valid.outputs[0]).pads, (std::vector<int64_t>{0, 0, 0, 0}));
}

TEST(OpDesc, PoolsAndGemmTakeTheirDefaults) {
  GraphBuilder b;
  ValueId x = b.input("x", {2, 8, 10, 10});
  ValueId p = b.add1("AveragePool", "pool", {x},
                     {{"kernel_shape", std::vector<int64_t>{3, 3}},
                      {"count_include_pad", int64_t{1}},
                      {"ceil_mode", int64_t{1}},
                      {"strides", std::vector<int64_t>{2, 2}}});
  ValueId gp = b.add1("GlobalMaxPool", "gpool", {p});
  ValueId f = b.add1("Flatten", "flat", {gp}, {{"axis", int64_t{-3}}});
  ValueId w = b.weight("fc.w", {10, 8});
  ValueId y = b.add1("Gemm", "fc", {f, w}, {{"transB", int64_t{1}}, {"alpha", 0.5}});
  b.output(y);
  Graph g = b.finish();
  analyze(g);
  const auto& pool = desc_of<WindowDesc>(g, p);
  EXPECT_TRUE(pool.count_include_pad);
  EXPECT_TRUE(pool.ceil_mode);
  EXPECT_EQ(pool.pads, (std::vector<int64_t>{0, 0, 0, 0}));
  EXPECT_EQ(*g.value(p).shape, (Shape{2, 8, 5, 5}));  // ceil((10 - 3) / 2) + 1
  const auto& global = desc_of<WindowDesc>(g, gp);
  EXPECT_TRUE(global.global);
  EXPECT_EQ(global.kernel, (std::vector<int64_t>{5, 5}));
  EXPECT_EQ(desc_of<AxisDesc>(g, f).axis, 1);  // -3 on rank 4
  const auto& gemm = desc_of<GemmDesc>(g, y);
  EXPECT_FALSE(gemm.trans_a);
  EXPECT_TRUE(gemm.trans_b);
  EXPECT_EQ(gemm.alpha, 0.5);
  EXPECT_EQ(gemm.beta, 1.0);
}

TEST(OpDesc, MovesAndReductionsAreNormalised) {
  GraphBuilder b;
  ValueId x = b.input("x", {2, 6, 4, 4});
  ValueId s = b.add1("Slice", "slice", {x, b.ints("st", {-2}), b.ints("en", {100}), b.ints("ax", {-3})});
  ValueId p = b.add1("Pad", "pad", {s, b.ints("pads", {0, 0, 1, 0, 0, 0, 2, 0})}, {{"mode", std::string("edge")}});
  ValueId t = b.add1("Transpose", "t", {p});
  ValueId r = b.add1("ReduceMean", "mean", {t}, {{"axes", std::vector<int64_t>{-1, 0}}, {"keepdims", int64_t{0}}});
  ValueId c = b.add1("Clip", "clip", {r, b.reals("lo", {}, {0.0}), b.reals("hi", {}, {6.0})});
  b.output(c);
  Graph g = b.finish();
  analyze(g);
  const auto& sd = desc_of<SliceDesc>(g, s);
  EXPECT_EQ(sd.first, (std::vector<int64_t>{0, 4, 0, 0}));
  EXPECT_EQ(sd.extent, (std::vector<int64_t>{2, 2, 4, 4}));
  EXPECT_EQ(sd.axes, (std::vector<int64_t>{1}));
  const auto& pd = desc_of<PadDesc>(g, p);
  EXPECT_EQ(pd.pads, (std::vector<int64_t>{0, 0, 1, 0, 0, 0, 2, 0}));
  EXPECT_EQ(pd.mode, PadMode::kEdge);
  EXPECT_EQ(desc_of<TransposeDesc>(g, t).perm, (std::vector<int64_t>{3, 2, 1, 0}));
  const auto& rd = desc_of<ReduceDesc>(g, r);
  EXPECT_EQ(rd.axes, (std::vector<int64_t>{0, 3}));
  EXPECT_FALSE(rd.keepdims);
  const auto& cd = desc_of<ActivationDesc>(g, c);
  EXPECT_TRUE(cd.clip_bounds_known);
  EXPECT_EQ(cd.clip_min, 0.0);
  EXPECT_EQ(cd.clip_max, 6.0);
}

TEST(OpDesc, ClipWithoutBoundsIsUnbounded) {
  GraphBuilder b;
  ValueId x = b.input("x", {4});
  ValueId c = b.add1("Clip", "clip", {x});
  b.output(c);
  Graph g = b.finish();
  analyze(g);
  const auto& cd = desc_of<ActivationDesc>(g, c);
  EXPECT_TRUE(std::isinf(cd.clip_min) && cd.clip_min < 0);
  EXPECT_TRUE(std::isinf(cd.clip_max) && cd.clip_max > 0);
}

// fold rewrites a grouped conv's `group` attribute; the folded graph's descriptor follows.
TEST(OpDesc, FoldLeavesDescriptorsValid) {
  GraphBuilder b;
  ValueId x = b.input("x", {4, 8, 8, 8});
  ValueId c1 = b.conv("c1", x, 8, 16, 3, {.pad = 1});
  ValueId dw = b.conv("dw", c1, 16, 16, 3, {.pad = 1, .group = 16});
  b.output(b.conv("c2", dw, 16, 8, 1));
  Graph g = b.finish();
  analyze(g);
  EXPECT_EQ(desc_of<WindowDesc>(g, dw).groups, 16);
  FoldedCnnOptions o;
  auto h = folded_cnn(g, o);
  ASSERT_TRUE(h.has_value()) << h.status().message();
  const ValueId dw_h = *h->find_value(g.value(dw).name);
  const auto& folded = desc_of<WindowDesc>(*h, dw_h);
  EXPECT_EQ(folded.groups, (*h->value(dw_h).shape)[1]);  // depthwise: one group per channel
  EXPECT_NE(folded.groups, 16);
  EXPECT_EQ(folded.pads, (std::vector<int64_t>{1, 1, 1, 1}));
}

}  // namespace
}  // namespace rooflens
