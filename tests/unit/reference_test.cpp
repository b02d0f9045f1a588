// The reference backend against hand-computed results and naive formulas, one block per op
// family, plus the deterministic weights generator it shares with every backend.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <string>

#include "rooflens/exec/backend.h"
#include "rooflens/exec/weights.h"
#include "test_util.h"

namespace rooflens {
namespace {

using Attrs = std::map<std::string, AttrValue>;
using Ints = std::vector<int64_t>;

Tensor tf(Shape s, std::vector<float> v) {
  Tensor t;
  t.shape = std::move(s);
  t.data = std::move(v);
  return t;
}

Tensor ti(Shape s, std::vector<int64_t> v) {
  Tensor t;
  t.shape = std::move(s);
  t.dtype = DType::kI64;
  t.ints = std::move(v);
  return t;
}

Tensor iota(Shape s, float start = 1) {
  Tensor t = Tensor::zeros(std::move(s));
  for (size_t i = 0; i < t.data.size(); ++i) t.data[i] = start + static_cast<float>(i);
  return t;
}

// Infers, fuses, prepares and runs; returns the status of the first failing step.
Status try_run(Graph& g, const std::vector<Tensor>& in, std::vector<Tensor>* out, uint64_t seed = 0x5eed) {
  auto inferred = infer_shapes(g);
  if (!inferred) return inferred.status();
  ModelAnalysis m = analyze_graph(g, *inferred, AnalyzeOptions{});
  auto be = make_reference_backend();
  ExecOptions o;
  o.seed = seed;
  ROOFLENS_RETURN_IF_ERROR(be->prepare(g, m, o));
  return be->run(in, out);
}

std::vector<Tensor> run(GraphBuilder& b, const std::vector<Tensor>& in) {
  Graph g = b.finish();
  std::vector<Tensor> out;
  Status st = try_run(g, in, &out);
  EXPECT_TRUE(st.is_ok()) << st.message();
  return out;
}

void expect_near(const Tensor& t, const std::vector<float>& want, double tol = 1e-5) {
  ASSERT_EQ(t.dtype, DType::kF32);
  ASSERT_EQ(t.data.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i)
    EXPECT_NEAR(t.data[i], want[i], tol * std::max(1.0, std::fabs(static_cast<double>(want[i])))) << "element " << i;
}

// ---- Conv -----------------------------------------------------------------------------

TEST(ReferenceConv, KnownWeights3x3) {
  GraphBuilder b;
  ValueId x = b.input("x", {1, 1, 3, 3});
  ValueId w = b.reals("w", {1, 1, 3, 3}, std::vector<double>(9, 1.0));
  ValueId bias = b.reals("b", {1}, {0.5});
  b.output(b.add1("Conv", "c", {x, w, bias}, {{"pads", Ints{1, 1, 1, 1}}}));
  auto out = run(b, {iota({1, 1, 3, 3})});
  expect_near(out[0], {12.5, 21.5, 16.5, 27.5, 45.5, 33.5, 24.5, 39.5, 28.5});
}

struct ConvCase {
  int64_t n, c, h, w, m, kh, kw, sh, sw, dh, dw, group;
  Ints pads;             // top, left, bottom, right (ignored with auto_pad)
  std::string auto_pad;  // "" = NOTSET
};

// Y[n, m, oh, ow] = B[m] + sum over c, kh, kw of X[n, g*C/G + c, ih, iw] * W[m, c, kh, kw].
std::vector<float> naive_conv(const ConvCase& k, const Tensor& x, const Tensor& w, const Tensor& bias, int64_t* oh_out,
                              int64_t* ow_out) {
  Ints p = k.pads;
  int64_t oh = 0, ow = 0;
  const int64_t ekh = k.dh * (k.kh - 1) + 1, ekw = k.dw * (k.kw - 1) + 1;
  if (k.auto_pad == "VALID") p = {0, 0, 0, 0};
  if (k.auto_pad.empty() || k.auto_pad == "VALID") {
    oh = (k.h + p[0] + p[2] - ekh) / k.sh + 1;
    ow = (k.w + p[1] + p[3] - ekw) / k.sw + 1;
  } else {
    oh = (k.h + k.sh - 1) / k.sh;
    ow = (k.w + k.sw - 1) / k.sw;
    const int64_t th = std::max<int64_t>(0, (oh - 1) * k.sh + ekh - k.h);
    const int64_t tw = std::max<int64_t>(0, (ow - 1) * k.sw + ekw - k.w);
    const bool upper = k.auto_pad == "SAME_UPPER";
    p = {upper ? th / 2 : th - th / 2, upper ? tw / 2 : tw - tw / 2, 0, 0};
  }
  *oh_out = oh;
  *ow_out = ow;
  const int64_t cg = k.c / k.group, mg = k.m / k.group;
  std::vector<float> y;
  for (int64_t n = 0; n < k.n; ++n)
    for (int64_t m = 0; m < k.m; ++m)
      for (int64_t i = 0; i < oh; ++i)
        for (int64_t j = 0; j < ow; ++j) {
          double acc = bias.data[static_cast<size_t>(m)];
          for (int64_t c = 0; c < cg; ++c)
            for (int64_t a = 0; a < k.kh; ++a)
              for (int64_t bb = 0; bb < k.kw; ++bb) {
                const int64_t ih = i * k.sh - p[0] + a * k.dh, iw = j * k.sw - p[1] + bb * k.dw;
                if (ih < 0 || ih >= k.h || iw < 0 || iw >= k.w) continue;
                const int64_t ci = m / mg * cg + c;
                acc += x.data[static_cast<size_t>(((n * k.c + ci) * k.h + ih) * k.w + iw)] *
                       static_cast<double>(w.data[static_cast<size_t>(((m * cg + c) * k.kh + a) * k.kw + bb)]);
              }
          y.push_back(static_cast<float>(acc));
        }
  return y;
}

TEST(ReferenceConv, MatchesNaiveFormula) {
  const std::vector<ConvCase> cases = {
      {2, 4, 7, 6, 6, 3, 2, 2, 1, 1, 2, 2, {1, 0, 0, 1}, ""},  // grouped, strided, dilated,
                                                               // asymmetric pads
      {1, 6, 5, 5, 6, 3, 3, 1, 1, 1, 1, 6, {1, 1, 1, 1}, ""},  // depthwise
      {1, 3, 8, 7, 4, 3, 3, 2, 2, 1, 1, 1, {0, 0, 0, 0}, "SAME_UPPER"},
      {1, 3, 8, 7, 4, 2, 2, 3, 2, 1, 1, 1, {0, 0, 0, 0}, "SAME_LOWER"},
      {1, 2, 6, 6, 2, 3, 3, 1, 1, 1, 1, 1, {0, 0, 0, 0}, "VALID"},
  };
  for (const ConvCase& k : cases) {
    GraphBuilder b;
    ValueId x = b.input("x", {k.n, k.c, k.h, k.w});
    ValueId w = b.weight("conv.weight", {k.m, k.c / k.group, k.kh, k.kw});
    ValueId bias = b.weight("conv.bias", {k.m});
    Attrs a = {{"strides", Ints{k.sh, k.sw}}, {"dilations", Ints{k.dh, k.dw}}, {"group", k.group}};
    if (k.auto_pad.empty())
      a["pads"] = k.pads;
    else
      a["auto_pad"] = k.auto_pad;
    b.output(b.add1("Conv", "conv", {x, w, bias}, a));
    Graph g = b.finish();
    ASSERT_TRUE(infer_shapes(g).has_value());
    const Tensor xin = random_input(g, x, 7);
    const Tensor wt = *stored_tensor(g, w, 0x5eed), bt = *stored_tensor(g, bias, 0x5eed);
    int64_t oh = 0, ow = 0;
    const std::vector<float> want = naive_conv(k, xin, wt, bt, &oh, &ow);
    std::vector<Tensor> out;
    Status st = try_run(g, {xin}, &out);
    ASSERT_TRUE(st.is_ok()) << st.message();
    EXPECT_EQ(out[0].shape, (Shape{k.n, k.m, oh, ow})) << "auto_pad " << k.auto_pad;
    expect_near(out[0], want, 1e-5);
  }
}

TEST(ReferenceConv, OneDimensional) {
  GraphBuilder b;
  ValueId x = b.input("x", {1, 1, 5});
  ValueId w = b.reals("w", {1, 1, 2}, {1.0, -1.0});
  b.output(b.add1("Conv", "c", {x, w}, {{"strides", Ints{2}}}));
  auto out = run(b, {tf({1, 1, 5}, {1, 4, 9, 16, 25})});
  expect_near(out[0], {-3, -7});
}

// ---- Gemm / MatMul --------------------------------------------------------------------

TEST(ReferenceGemm, TransposesAlphaBetaBias) {
  GraphBuilder b;
  ValueId a = b.input("a", {3, 2});                                        // transA: A' is [2, 3]
  ValueId w = b.reals("w", {4, 3}, {1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1});  // transB: B' [3, 4]
  ValueId c = b.reals("c", {4}, {10, 20, 30, 40});
  b.output(
      b.add1("Gemm", "fc", {a, w, c}, {{"transA", int64_t{1}}, {"transB", int64_t{1}}, {"alpha", 2.0}, {"beta", 0.5}}));
  // A' = [[1, 3, 5], [2, 4, 6]]; A' B' = [[1, 3, 5, 9], [2, 4, 6, 12]].
  auto out = run(b, {tf({3, 2}, {1, 2, 3, 4, 5, 6})});
  expect_near(out[0], {7, 16, 25, 38, 9, 18, 27, 44});
}

TEST(ReferenceMatMul, BroadcastsBatchAndPromotesVectors) {
  GraphBuilder b;
  ValueId p = b.input("p", {2, 1, 2, 3});
  ValueId q = b.input("q", {3, 3, 2});
  b.output(b.add1("MatMul", "mm", {p, q}));
  Tensor pt = iota({2, 1, 2, 3}), qt = iota({3, 3, 2}, -4);
  auto out = run(b, {pt, qt});
  ASSERT_EQ(out[0].shape, (Shape{2, 3, 2, 2}));
  std::vector<float> want;
  for (int bi = 0; bi < 2; ++bi)
    for (int bj = 0; bj < 3; ++bj)
      for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j) {
          double acc = 0;
          for (int k = 0; k < 3; ++k) acc += pt.data[bi * 6 + i * 3 + k] * qt.data[bj * 6 + k * 2 + j];
          want.push_back(static_cast<float>(acc));
        }
  expect_near(out[0], want);

  GraphBuilder b2;
  ValueId v = b2.input("v", {3});
  ValueId m = b2.reals("m", {3, 2}, {1, 2, 3, 4, 5, 6});
  b2.output(b2.add1("MatMul", "mv", {v, m}));
  auto out2 = run(b2, {tf({3}, {1, 1, 2})});
  EXPECT_EQ(out2[0].shape, (Shape{2}));
  expect_near(out2[0], {14, 18});
}

// ---- Norm -----------------------------------------------------------------------------

TEST(ReferenceNorm, BatchNormInference) {
  GraphBuilder b;
  ValueId x = b.input("x", {1, 2, 1, 2});
  ValueId s = b.reals("s", {2}, {2, 1});
  ValueId bb = b.reals("bb", {2}, {1, -1});
  ValueId mean = b.reals("mean", {2}, {1, 0});
  ValueId var = b.reals("var", {2}, {4, 0.25});
  b.output(b.add1("BatchNormalization", "bn", {x, s, bb, mean, var}, {{"epsilon", 0.0}}));
  // channel 0: 2 * (x - 1) / 2 + 1 = x; channel 1: (x - 0) / 0.5 - 1 = 2x - 1.
  auto out = run(b, {tf({1, 2, 1, 2}, {3, 5, 1, 2})});
  expect_near(out[0], {3, 5, 1, 3});
}

TEST(ReferenceNorm, LayerNormAxisEpsilonAndStats) {
  GraphBuilder b;
  ValueId x = b.input("x", {2, 4});
  ValueId s = b.reals("s", {4}, {1, 2, 1, 1});
  ValueId bb = b.reals("bb", {4}, {0, 0, 0, 10});
  auto outs = b.add("LayerNormalization", "ln", {x, s, bb}, {{"epsilon", 0.0}}, 3);
  for (ValueId o : outs) b.output(o);
  auto out = run(b, {tf({2, 4}, {1, 2, 3, 4, 5, 5, 5, 5 + 1e-3f})});
  const float z1 = 1.5f / std::sqrt(1.25f), z2 = 0.5f / std::sqrt(1.25f);
  EXPECT_NEAR(out[0].data[0], -z1, 1e-5);
  EXPECT_NEAR(out[0].data[1], -2 * z2, 1e-5);
  EXPECT_NEAR(out[0].data[2], z2, 1e-5);
  EXPECT_NEAR(out[0].data[3], z1 + 10, 1e-5);
  EXPECT_EQ(out[1].shape, (Shape{2, 1}));
  expect_near(out[1], {2.5f, 5.00025f});
  EXPECT_NEAR(out[2].data[0], 1 / std::sqrt(1.25), 1e-5);

  GraphBuilder b2;  // axis 1 normalizes the trailing [2, 2] block
  ValueId x2 = b2.input("x", {2, 2, 2});
  b2.output(b2.add1("LayerNormalization", "ln", {x2, b2.reals("s", {2, 2}, {1, 1, 1, 1})},
                    {{"axis", int64_t{1}}, {"epsilon", 0.0}}));
  auto out2 = run(b2, {tf({2, 2, 2}, {1, 2, 3, 4, 0, 0, 0, 8})});
  EXPECT_NEAR(out2[0].data[0], -z1, 1e-5);
  EXPECT_NEAR(out2[0].data[7], std::sqrt(3.0f), 1e-5);
}

// ---- Activations ----------------------------------------------------------------------

float run_unary(const std::string& op, float v, Attrs attrs = {}, int64_t opset = 17) {
  GraphBuilder b("g", opset);
  ValueId x = b.input("x", {1});
  b.output(b.add1(op, "u", {x}, std::move(attrs)));
  auto out = run(b, {tf({1}, {v})});
  return out.empty() ? std::nanf("") : out[0].data[0];
}

TEST(ReferenceActivation, EveryOpAtAFewPoints) {
  for (float v : {-2.0f, -0.5f, 0.0f, 0.5f, 3.0f}) {
    const double d = v;
    EXPECT_FLOAT_EQ(run_unary("Relu", v), std::max(0.0f, v));
    EXPECT_FLOAT_EQ(run_unary("LeakyRelu", v), v < 0 ? 0.01f * v : v);
    EXPECT_FLOAT_EQ(run_unary("LeakyRelu", v, {{"alpha", 0.2}}), v < 0 ? 0.2f * v : v);
    EXPECT_NEAR(run_unary("Sigmoid", v), 1 / (1 + std::exp(-d)), 1e-6);
    EXPECT_NEAR(run_unary("HardSigmoid", v), std::clamp(0.2 * d + 0.5, 0.0, 1.0), 1e-6);
    EXPECT_NEAR(run_unary("HardSigmoid", v, {{"alpha", 0.5}, {"beta", 0.25}}), std::clamp(0.5 * d + 0.25, 0.0, 1.0),
                1e-6);
    EXPECT_NEAR(run_unary("HardSwish", v), d * std::clamp(d / 6 + 0.5, 0.0, 1.0), 1e-6);
    EXPECT_NEAR(run_unary("Tanh", v), std::tanh(d), 1e-6);
    EXPECT_NEAR(run_unary("Erf", v), std::erf(d), 1e-6);
    EXPECT_NEAR(run_unary("Neg", v), -d, 1e-6);
    EXPECT_NEAR(run_unary("Clip", v, {{"min", -1.0}, {"max", 1.0}}, 6), std::clamp(d, -1.0, 1.0), 1e-6);
    if (v >= 0) {
      EXPECT_NEAR(run_unary("Sqrt", v), std::sqrt(d), 1e-6);
    }
  }
  EXPECT_NEAR(run_unary("Gelu", 1.0f), 0.8413447, 1e-6);
  EXPECT_NEAR(run_unary("Gelu", -0.5f), -0.1542687, 1e-6);
  EXPECT_NEAR(run_unary("Gelu", 1.0f, {{"approximate", std::string("tanh")}}), 0.8411920, 1e-6);
  EXPECT_TRUE(std::isnan(run_unary("Sqrt", -1.0f)));
}

TEST(ReferenceActivation, ClipBoundsFromInputs) {
  GraphBuilder b;
  ValueId x = b.input("x", {4});
  ValueId hi = b.reals("hi", {}, {6.0});
  b.output(b.add1("Clip", "relu6", {x, kNoValue, hi}));
  auto out = run(b, {tf({4}, {-3, 2, 7, 6.5})});
  expect_near(out[0], {-3, 2, 6, 6});

  GraphBuilder b2;
  ValueId x2 = b2.input("x", {3});
  b2.output(b2.add1("Clip", "c", {x2, b2.reals("lo", {}, {0.0}), b2.reals("hi", {}, {1.0})}));
  expect_near(run(b2, {tf({3}, {-1, 0.5, 2})})[0], {0, 0.5, 1});
}

// ---- Elementwise ----------------------------------------------------------------------

TEST(ReferenceElementwise, BroadcastingBinaryOps) {
  GraphBuilder b;
  ValueId a = b.input("a", {2, 3});
  ValueId r = b.input("r", {3});
  ValueId col = b.input("col", {2, 1});
  b.output(b.add1("Add", "add", {a, r}));
  b.output(b.add1("Mul", "mul", {col, r}));
  b.output(b.add1("Sub", "sub", {a, col}));
  b.output(b.add1("Div", "div", {a, r}));
  b.output(b.add1("Pow", "pow", {col, b.reals("two", {}, {2.0})}));
  auto out = run(b, {iota({2, 3}), tf({3}, {10, 20, 40}), tf({2, 1}, {1, -2})});
  expect_near(out[0], {11, 22, 43, 14, 25, 46});
  expect_near(out[1], {10, 20, 40, -20, -40, -80});
  expect_near(out[2], {0, 1, 2, 6, 7, 8});
  expect_near(out[3], {0.1f, 0.1f, 0.075f, 0.4f, 0.25f, 0.15f});
  expect_near(out[4], {1, 4});
}

TEST(ReferenceElementwise, IntegerTensors) {
  GraphBuilder b;
  ValueId a = b.input("a", {3}, DType::kI64);
  ValueId c = b.input("c", {1}, DType::kI64);
  b.output(b.add1("Div", "div", {a, c}));
  b.output(b.add1("Mul", "mul", {a, c}));
  auto out = run(b, {ti({3}, {7, -7, 9}), ti({1}, {2})});
  EXPECT_EQ(out[0].ints, (Ints{3, -3, 4}));
  EXPECT_EQ(out[1].ints, (Ints{14, -14, 18}));

  GraphBuilder b2;
  ValueId a2 = b2.input("a", {2}, DType::kI64);
  b2.output(b2.add1("Div", "div", {a2, b2.input("z", {1}, DType::kI64)}));
  Graph g = b2.finish();
  std::vector<Tensor> out2;
  Status st = try_run(g, {ti({2}, {1, 2}), ti({1}, {0})}, &out2);
  EXPECT_EQ(st.code(), StatusCode::kInvalidInput);
  EXPECT_NE(st.message().find("Div node 'div'"), std::string::npos) << st.message();
}

// ---- Pooling --------------------------------------------------------------------------

TEST(ReferencePool, MaxPoolPadsCeilModeIndicesDilations) {
  GraphBuilder b;
  ValueId x = b.input("x", {1, 1, 4, 4});
  auto outs = b.add(
      "MaxPool", "mp", {x},
      {{"kernel_shape", Ints{3, 3}}, {"strides", Ints{2, 2}}, {"pads", Ints{1, 1, 1, 1}}, {"ceil_mode", int64_t{1}}},
      2);
  b.output(outs[0]);
  b.output(outs[1]);
  b.output(b.add1("MaxPool", "floor", {x},
                  {{"kernel_shape", Ints{3, 3}}, {"strides", Ints{2, 2}}, {"pads", Ints{1, 1, 1, 1}}}));
  b.output(b.add1("MaxPool", "dil", {x}, {{"kernel_shape", Ints{2, 2}}, {"dilations", Ints{2, 2}}}));
  auto out = run(b, {iota({1, 1, 4, 4})});
  EXPECT_EQ(out[0].shape, (Shape{1, 1, 3, 3}));
  expect_near(out[0], {6, 8, 8, 14, 16, 16, 14, 16, 16});
  EXPECT_EQ(out[1].ints, (Ints{5, 7, 7, 13, 15, 15, 13, 15, 15}));
  EXPECT_EQ(out[2].shape, (Shape{1, 1, 2, 2}));
  expect_near(out[2], {6, 8, 14, 16});
  expect_near(out[3], {11, 12, 15, 16});
}

TEST(ReferencePool, AveragePoolCountIncludePadBothWays) {
  for (int64_t cip : {0, 1}) {
    GraphBuilder b;
    ValueId x = b.input("x", {1, 1, 3, 3});
    b.output(b.add1("AveragePool", "ap", {x},
                    {{"kernel_shape", Ints{3, 3}}, {"pads", Ints{1, 1, 1, 1}}, {"count_include_pad", cip}}));
    ValueId x1 = b.input("x1", {1, 1, 4});
    b.output(b.add1("AveragePool", "ap1", {x1},
                    {{"kernel_shape", Ints{3}},
                     {"strides", Ints{2}},
                     {"pads", Ints{1, 1}},
                     {"ceil_mode", int64_t{1}},
                     {"count_include_pad", cip}}));
    auto out = run(b, {iota({1, 1, 3, 3}), iota({1, 1, 4})});
    if (cip) {
      expect_near(out[0], {12 / 9.f, 21 / 9.f, 16 / 9.f, 27 / 9.f, 5, 33 / 9.f, 24 / 9.f, 39 / 9.f, 28 / 9.f});
      expect_near(out[1], {1, 3, 2});  // the overhang past the end pad is not counted
    } else {
      expect_near(out[0], {3, 3.5, 4, 4.5, 5, 5.5, 6, 6.5, 7});
      expect_near(out[1], {1.5, 3, 4});
    }
  }
}

TEST(ReferencePool, GlobalPools) {
  GraphBuilder b;
  ValueId x = b.input("x", {1, 2, 2, 2});
  b.output(b.add1("GlobalAveragePool", "gap", {x}));
  b.output(b.add1("GlobalMaxPool", "gmp", {x}));
  auto out = run(b, {tf({1, 2, 2, 2}, {1, 2, 3, 4, -5, -1, -3, -2})});
  EXPECT_EQ(out[0].shape, (Shape{1, 2, 1, 1}));
  expect_near(out[0], {2.5, -2.75});
  expect_near(out[1], {4, -1});
}

// ---- Reductions -----------------------------------------------------------------------

TEST(ReferenceReduce, ReduceMeanAxesAndKeepdims) {
  GraphBuilder b;
  ValueId x = b.input("x", {2, 3});
  b.output(b.add1("ReduceMean", "rows", {x}, {{"axes", Ints{1}}, {"keepdims", int64_t{0}}}));
  b.output(b.add1("ReduceMean", "cols", {x, b.ints("ax", {-2})}));
  b.output(b.add1("ReduceMean", "all", {x}));
  auto out = run(b, {iota({2, 3})});
  EXPECT_EQ(out[0].shape, (Shape{2}));
  expect_near(out[0], {2, 5});
  EXPECT_EQ(out[1].shape, (Shape{1, 3}));
  expect_near(out[1], {2.5, 3.5, 4.5});
  EXPECT_EQ(out[2].shape, (Shape{1, 1}));
  expect_near(out[2], {3.5});
}

TEST(ReferenceReduce, SoftmaxRowsSumToOne) {
  GraphBuilder b;
  ValueId x = b.input("x", {2, 3});
  b.output(b.add1("Softmax", "sm", {x}));
  b.output(b.add1("Softmax", "sm0", {x}, {{"axis", int64_t{0}}}));
  auto out = run(b, {tf({2, 3}, {1, 2, 3, 1000, 1000, 1000})});
  const double e = std::exp(1.0), z = 1 + e + e * e;
  expect_near(out[0], {static_cast<float>(1 / z), static_cast<float>(e / z), static_cast<float>(e * e / z), 1 / 3.f,
                       1 / 3.f, 1 / 3.f});
  for (int r = 0; r < 2; ++r)
    EXPECT_NEAR(out[0].data[r * 3] + out[0].data[r * 3 + 1] + out[0].data[r * 3 + 2], 1, 1e-6);
  expect_near(out[1], {0, 0, 0, 1, 1, 1});

  // Before opset 13 the input is coerced to 2-D at `axis`: axis 1 of [1, 2, 2] spans 4 values.
  GraphBuilder b2("g", 11);
  ValueId x2 = b2.input("x", {1, 2, 2});
  b2.output(b2.add1("Softmax", "sm", {x2}));
  auto out2 = run(b2, {tf({1, 2, 2}, {0, 0, 0, 0})});
  expect_near(out2[0], {0.25, 0.25, 0.25, 0.25});
}

// ---- Layout ---------------------------------------------------------------------------

TEST(ReferenceLayout, ConcatSplitSlice) {
  GraphBuilder b;
  ValueId a = b.input("a", {2, 1});
  ValueId c = b.input("c", {2, 2});
  b.output(b.add1("Concat", "cat", {a, c}, {{"axis", int64_t{-1}}}));
  ValueId v = b.input("v", {10});
  auto parts = b.add("Split", "split", {v, b.ints("sizes", {3, 7})}, {}, 2);
  auto thirds = b.add("Split", "eq", {b.add1("Identity", "id", {v})}, {{"split", Ints{4, 4, 2}}}, 3);
  b.output(parts[0]);
  b.output(parts[1]);
  b.output(thirds[2]);
  b.output(b.add1("Slice", "back", {v, b.ints("s0", {8}), b.ints("e0", {1}), b.ints("a0", {0}), b.ints("st0", {-3})}));
  b.output(b.add1("Slice", "tail", {c, b.ints("s1", {-1}), b.ints("e1", {INT64_MAX}), b.ints("a1", {1})}));
  b.output(b.add1("Slice", "rev",
                  {v, b.ints("s2", {-1}), b.ints("e2", {INT64_MIN}), b.ints("a2", {0}), b.ints("st2", {-4})}));
  auto out = run(b, {tf({2, 1}, {1, 2}), tf({2, 2}, {3, 4, 5, 6}), iota({10}, 0)});
  EXPECT_EQ(out[0].shape, (Shape{2, 3}));
  expect_near(out[0], {1, 3, 4, 2, 5, 6});
  expect_near(out[1], {0, 1, 2});
  expect_near(out[2], {3, 4, 5, 6, 7, 8, 9});
  expect_near(out[3], {8, 9});
  expect_near(out[4], {8, 5, 2});
  EXPECT_EQ(out[5].shape, (Shape{2, 1}));
  expect_near(out[5], {4, 6});
  expect_near(out[6], {9, 5, 1});
}

TEST(ReferenceLayout, PadModes) {
  const std::vector<std::pair<std::string, std::vector<float>>> cases = {
      {"constant", {9, 9, 1, 2, 3, 9, 9}},
      {"reflect", {3, 2, 1, 2, 3, 2, 1}},
      {"edge", {1, 1, 1, 2, 3, 3, 3}},
      {"wrap", {2, 3, 1, 2, 3, 1, 2}},
  };
  for (const auto& [mode, want] : cases) {
    GraphBuilder b;
    ValueId x = b.input("x", {3});
    b.output(b.add1("Pad", "pad", {x, b.ints("pads", {2, 2}), b.reals("v", {}, {9.0})}, {{"mode", mode}}));
    expect_near(run(b, {tf({3}, {1, 2, 3})})[0], want);
  }
  GraphBuilder b;  // negative pads crop; axes select the padded dims
  ValueId x = b.input("x", {2, 3});
  b.output(b.add1("Pad", "crop", {x, b.ints("pads", {-1, 1}), kNoValue, b.ints("axes", {1})}));
  auto out = run(b, {iota({2, 3})});
  EXPECT_EQ(out[0].shape, (Shape{2, 3}));
  expect_near(out[0], {2, 3, 0, 5, 6, 0});
}

TEST(ReferenceLayout, TransposeGatherExpand) {
  GraphBuilder b;
  ValueId x = b.input("x", {2, 3});
  b.output(b.add1("Transpose", "t", {x}));
  ValueId y = b.input("y", {2, 3, 4});
  b.output(b.add1("Transpose", "t3", {y}, {{"perm", Ints{1, 2, 0}}}));
  b.output(b.add1("Gather", "g", {x, b.ints("idx", {2, -3})}, {{"axis", int64_t{1}}}));
  b.output(b.add1("Expand", "e", {b.input("col", {3, 1}), b.ints("shape", {2, 1, 4})}));
  Tensor yt = iota({2, 3, 4}, 0);
  auto out = run(b, {iota({2, 3}), yt, tf({3, 1}, {1, 2, 3})});
  EXPECT_EQ(out[0].shape, (Shape{3, 2}));
  expect_near(out[0], {1, 4, 2, 5, 3, 6});
  EXPECT_EQ(out[1].shape, (Shape{3, 4, 2}));
  EXPECT_EQ(out[1].data[(1 * 4 + 2) * 2 + 1],
            yt.data[(1 * 3 + 1) * 4 + 2]);  // t3[i,j,k] = y[k,i,j]
  expect_near(out[2], {3, 1, 6, 4});
  EXPECT_EQ(out[3].shape, (Shape{2, 3, 4}));
  expect_near(out[3], {1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3});
}

// ---- Resize ---------------------------------------------------------------------------

std::vector<Tensor> resize(const Tensor& x, const std::vector<double>& scales, Attrs attrs, const Ints& sizes = {}) {
  GraphBuilder b;
  ValueId xin = b.input("x", x.shape);
  std::vector<ValueId> ins = {xin, kNoValue};
  if (sizes.empty())
    ins.push_back(b.reals("scales", {static_cast<int64_t>(scales.size())}, scales));
  else
    ins.insert(ins.end(), {kNoValue, b.ints("sizes", sizes)});
  b.output(b.add1("Resize", "rs", ins, std::move(attrs)));
  return run(b, {x});
}

TEST(ReferenceResize, NearestModes) {
  const Tensor x = tf({1, 1, 2, 2}, {1, 2, 3, 4});
  auto out = resize(x, {1, 1, 2, 2}, {});
  expect_near(out[0], {1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4});
  out = resize(x, {1, 1, 2, 2},
               {{"coordinate_transformation_mode", std::string("asymmetric")}, {"nearest_mode", std::string("floor")}});
  expect_near(out[0], {1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4});
  // Downsampling 4 -> 3 with half_pixel: x = (o + 0.5) * 4/3 - 0.5 = 0.17, 1.5, 2.83.
  const Tensor row = tf({1, 1, 1, 4}, {10, 20, 30, 40});
  expect_near(resize(row, {}, {}, {1, 1, 1, 3})[0], {10, 20, 40});
  expect_near(resize(row, {}, {{"nearest_mode", std::string("round_prefer_ceil")}}, {1, 1, 1, 3})[0], {10, 30, 40});
}

TEST(ReferenceResize, LinearAndCubic) {
  const Tensor x = tf({1, 1, 2, 2}, {1, 2, 3, 4});
  auto out = resize(x, {1, 1, 2, 2}, {{"mode", std::string("linear")}});
  expect_near(out[0], {1, 1.25, 1.75, 2, 1.5, 1.75, 2.25, 2.5, 2.5, 2.75, 3.25, 3.5, 3, 3.25, 3.75, 4});
  out = resize(tf({1, 1, 1, 2}, {1, 3}), {},
               {{"mode", std::string("linear")}, {"coordinate_transformation_mode", std::string("align_corners")}},
               {1, 1, 1, 4});
  expect_near(out[0], {1, 5 / 3.f, 7 / 3.f, 3});
  out = resize(tf({1, 1, 1, 2}, {1, 3}), {1, 1, 1, 2},
               {{"mode", std::string("linear")}, {"coordinate_transformation_mode", std::string("asymmetric")}});
  expect_near(out[0], {1, 2, 3, 3});
  // ONNX backend test resize_upsample_scales_cubic, first output row.
  out = resize(iota({1, 1, 4, 4}), {1, 1, 2, 2}, {{"mode", std::string("cubic")}});
  ASSERT_EQ(out[0].shape, (Shape{1, 1, 8, 8}));
  const std::vector<float> row0 = {0.47265625f, 0.76953125f, 1.24609375f, 1.875f,
                                   2.28125f,    2.91015625f, 3.38671875f, 3.68359375f};
  for (size_t i = 0; i < row0.size(); ++i) EXPECT_NEAR(out[0].data[i], row0[i], 1e-5) << i;
}

TEST(ReferenceResize, TfCropAndResizeWithExtrapolation) {
  // ONNX backend tests resize_tf_crop_and_resize and ..._extrapolation_value.
  const std::vector<std::pair<std::vector<double>, std::vector<float>>> cases = {
      {{0, 0, 0.4, 0.6, 1, 1, 0.6, 0.8}, {7.6f, 7.9f, 8.2f, 8.8f, 9.1f, 9.4f, 10, 10.3f, 10.6f}},
      {{0, 0, 0.4, 0.6, 1, 1, 1.2, 1.7}, {7.6f, 10, 10, 12.4f, 10, 10, 10, 10, 10}},
  };
  for (const auto& [roi, want] : cases) {
    GraphBuilder b;
    ValueId x = b.input("x", {1, 1, 4, 4});
    b.output(b.add1("Resize", "rs", {x, b.reals("roi", {8}, roi), kNoValue, b.ints("sizes", {1, 1, 3, 3})},
                    {{"mode", std::string("linear")},
                     {"coordinate_transformation_mode", std::string("tf_crop_and_resize")},
                     {"extrapolation_value", 10.0}}));
    expect_near(run(b, {iota({1, 1, 4, 4})})[0], want);
  }
}

// ---- Views and meta -------------------------------------------------------------------

TEST(ReferenceView, CopiesIntoTheInferredShape) {
  GraphBuilder b;
  ValueId x = b.input("x", {2, 3, 1});
  b.output(b.add1("Reshape", "r", {x, b.ints("shape", {3, -1})}));
  b.output(b.add1("Flatten", "f", {x}, {{"axis", int64_t{0}}}));
  b.output(b.add1("Squeeze", "s", {x, b.ints("ax", {-1})}));
  b.output(b.add1("Unsqueeze", "u", {x, b.ints("ax2", {0})}));
  auto drop = b.add("Dropout", "d", {b.add1("Identity", "i", {x})}, {}, 2);
  b.output(drop[0]);
  b.output(drop[1]);
  const Tensor xt = iota({2, 3, 1});
  auto out = run(b, {xt});
  const std::vector<Shape> shapes = {{3, 2}, {1, 6}, {2, 3}, {1, 2, 3, 1}, {2, 3, 1}};
  for (size_t i = 0; i < shapes.size(); ++i) {
    EXPECT_EQ(out[i].shape, shapes[i]);
    EXPECT_EQ(out[i].data, xt.data);
  }
  EXPECT_EQ(out[5].ints, (Ints(6, 1)));
}

// A training-mode Dropout runs only when its ratio is known to be 0 (Swin's attention
// dropout as torch exports it): then it is the identity; with ratio 0.5 it is refused.
TEST(ReferenceView, TrainingModeDropoutOnlyWithRatioZero) {
  for (double ratio : {0.0, 0.5}) {
    GraphBuilder b;
    ValueId x = b.input("x", {2, 3});
    b.output(b.add1("Dropout", "d", {x, b.reals("ratio", {}, {ratio}), b.ints("training", {1})}));
    Graph g = b.finish();
    std::vector<Tensor> out;
    const Tensor xt = iota({2, 3});
    Status st = try_run(g, {xt}, &out);
    if (ratio == 0.0) {
      ASSERT_TRUE(st.is_ok()) << st.message();
      EXPECT_EQ(out[0].data, xt.data);
    } else {
      ASSERT_FALSE(st.is_ok());
      EXPECT_NE(st.message().find("training-mode Dropout"), std::string::npos) << st.message();
    }
  }
}

TEST(ReferenceMeta, ShapeCastAndConstantFolding) {
  GraphBuilder b;
  ValueId x = b.input("x", {2, 3, 4});
  ValueId shp = b.add1("Shape", "shape", {x});
  ValueId dim = b.add1("Gather", "dim", {shp, b.ints("i0", {0})});
  ValueId target = b.add1("Concat", "target", {dim, b.ints("m1", {-1})}, {{"axis", int64_t{0}}});
  b.output(b.add1("Reshape", "flat", {x, target}));
  b.output(b.add1("Shape", "tail", {x}, {{"start", int64_t{-2}}}));
  ValueId as_float = b.add1("Cast", "to_f", {shp}, {{"to", int64_t{1}}});
  b.output(as_float);
  b.output(b.add1("Cast", "to_i", {b.input("f", {3})}, {{"to", int64_t{7}}}));
  b.output(b.add1("Cast", "to_u8", {b.input("g", {2})}, {{"to", int64_t{2}}}));
  TensorConst fill{DType::kI64, {1}, {7}, {}};
  b.output(b.add1("ConstantOfShape", "cos", {b.ints("cs", {2, 2})}, {{"value", fill}}));
  b.output(b.add1("Constant", "k", {}, {{"value_floats", std::vector<double>{0.5, 1.5}}}));
  Graph g = b.finish();
  std::vector<Tensor> out;
  Status st = try_run(g, {iota({2, 3, 4}), tf({3}, {-1.7f, 2.9f, 0}), tf({2}, {300, -1})}, &out);
  ASSERT_TRUE(st.is_ok()) << st.message();
  for (const Node& n : g.nodes)
    if (n.name == "shape" || n.name == "dim" || n.name == "target" || n.name == "to_f") {
      EXPECT_TRUE(n.folded) << n.name;
    }
  EXPECT_EQ(out[0].shape, (Shape{2, 12}));
  EXPECT_EQ(out[1].ints, (Ints{3, 4}));
  expect_near(out[2], {2, 3, 4});
  EXPECT_EQ(out[3].ints, (Ints{-1, 2, 0}));
  EXPECT_EQ(out[4].ints, (Ints{44, 255}));
  EXPECT_EQ(out[5].ints, (Ints{7, 7, 7, 7}));
  expect_near(out[6], {0.5, 1.5});
}

TEST(ReferenceMeta, StrippedFloatConstantGetsGeneratedData) {
  GraphBuilder b;
  ValueId x = b.input("x", {3});
  TensorConst stripped{DType::kF32, {3}, {}, {}};
  b.output(b.add1("Add", "add", {x, b.add1("Constant", "k", {}, {{"value", stripped}})}));
  Graph g = b.finish();
  std::vector<Tensor> out1, out2;
  ASSERT_TRUE(try_run(g, {Tensor::zeros({3})}, &out1).is_ok());
  ASSERT_TRUE(try_run(g, {Tensor::zeros({3})}, &out2).is_ok());
  EXPECT_EQ(out1[0].data, out2[0].data);
  for (float v : out1[0].data) EXPECT_TRUE(v != 0 && std::fabs(v) <= 0.5f) << v;
}

// ---- Backend contract -----------------------------------------------------------------

TEST(ReferenceBackend, SupportsTimingsAndOverwritesOutputs) {
  GraphBuilder b;
  ValueId x = b.input("x", {1, 3, 8, 8});
  ValueId c = b.conv("conv1", x, 3, 8, 3);
  ValueId r = b.add1("Relu", "relu1", {b.batchnorm("bn1", c, 8)});
  b.output(b.add1("GlobalAveragePool", "gap", {r}));
  Graph g = b.finish();
  ModelAnalysis m = test::analyze(g);
  auto be = make_reference_backend();
  EXPECT_EQ(be->name(), "reference");
  for (NodeId n = 0; n < static_cast<NodeId>(g.nodes.size()); ++n) EXPECT_TRUE(be->supports(g, n, nullptr));
  ASSERT_TRUE(be->prepare(g, m, ExecOptions{}).is_ok());
  std::vector<Tensor> out(1, tf({7}, std::vector<float>(7, std::nanf(""))));  // poisoned
  ASSERT_TRUE(be->run({random_input(g, x, 1)}, &out).is_ok());
  EXPECT_EQ(out[0].shape, (Shape{1, 8, 1, 1}));
  ASSERT_EQ(out[0].data.size(), 8u);
  for (float v : out[0].data) EXPECT_TRUE(std::isfinite(v) && v >= 0);
  auto t = be->layer_timings();
  ASSERT_EQ(t.size(), m.layers.size());
  for (size_t i = 0; i < t.size(); ++i) {
    EXPECT_EQ(t[i].name, m.layers[i].name);
    EXPECT_EQ(t[i].impl, "reference");
    EXPECT_GE(t[i].time_s, 0);
  }
  std::vector<Tensor> again;
  ASSERT_TRUE(be->run({random_input(g, x, 1)}, &again).is_ok());
  EXPECT_EQ(again[0].data, out[0].data);  // deterministic
  Status bad = be->run({Tensor::zeros({1, 3, 8, 9})}, &again);
  EXPECT_EQ(bad.code(), StatusCode::kInvalidInput);
  EXPECT_NE(bad.message().find("'x'"), std::string::npos) << bad.message();
}

TEST(ReferenceBackend, RefusesUnknownOps) {
  GraphBuilder b;
  ValueId x = b.input("x", {4});
  b.output(b.add1("FancyOp", "fancy", {x}));
  Graph g = b.finish();
  auto be = make_reference_backend();
  std::string reason;
  EXPECT_FALSE(be->supports(g, 0, &reason));
  EXPECT_NE(reason.find("FancyOp"), std::string::npos);
  EXPECT_NE(reason.find("fancy"), std::string::npos);
  std::vector<Tensor> out;
  EXPECT_EQ(try_run(g, {Tensor::zeros({4})}, &out).code(), StatusCode::kUnsupported);
}

TEST(ReferenceBackend, ViewOfAWeightIsTheWeight) {
  GraphBuilder b;
  ValueId x = b.input("x", {1, 2, 3, 3});
  ValueId w = b.weight("w", {4, 2, 1, 1});
  b.output(b.add1("Conv", "direct", {x, w}));
  b.output(b.add1("Conv", "aliased", {x, b.add1("Identity", "alias", {w})}));
  auto out = run(b, {iota({1, 2, 3, 3})});
  EXPECT_EQ(out[0].data, out[1].data);
}

TEST(ReferenceBackend, MissingIntegerDataMattersOnlyWhenRead) {
  GraphBuilder b;
  ValueId x = b.input("x", {2, 3});
  ValueId q = b.weight("q", {2}, DType::kI64);  // stripped: no data
  ValueId target = b.add1("Concat", "target", {b.add1("Shape", "qs", {q}), b.ints("m1", {-1})}, {{"axis", int64_t{0}}});
  b.output(b.add1("Reshape", "r", {x, target}));
  auto out = run(b, {iota({2, 3})});
  EXPECT_EQ(out[0].shape, (Shape{2, 3}));

  GraphBuilder b2;
  ValueId x2 = b2.input("x", {2}, DType::kI64);
  b2.output(b2.add1("Add", "add", {x2, b2.weight("q", {2}, DType::kI64)}));
  Graph g = b2.finish();
  std::vector<Tensor> out2;
  Status st = try_run(g, {ti({2}, {1, 2})}, &out2);
  EXPECT_EQ(st.code(), StatusCode::kUnsupported);
  EXPECT_NE(st.message().find("'q'"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("'add'"), std::string::npos) << st.message();
}

// What is computed from stored data alone runs once at load (shape inference folds it), from
// the stored data: every backend reads that tensor (stored_tensor), and the output is the one
// running the nodes gives.
TEST(ReferenceBackend, StoredOnlySubgraphIsComputedAtLoad) {
  GraphBuilder b;
  ValueId x = b.input("x", {2, 3});
  ValueId w = b.weight("w", {2, 3});  // stripped: generated
  ValueId r = b.add1("Relu", "relu", {b.add1("Neg", "neg", {w})});
  b.output(b.add1("Add", "add", {x, r}));
  Graph g = b.finish();
  std::vector<Tensor> out;
  ASSERT_TRUE(try_run(g, {iota({2, 3})}, &out).is_ok());
  EXPECT_TRUE(g.node(g.value(r).producer).folded);
  auto wt = stored_tensor(g, w, 0x5eed);
  auto rt = stored_tensor(g, r, 0x5eed);
  ASSERT_TRUE(wt && rt);
  std::vector<float> want_r, want_out;
  for (size_t i = 0; i < wt->data.size(); ++i) {
    want_r.push_back(std::max(0.0f, -wt->data[i]));
    want_out.push_back(static_cast<float>(i + 1) + want_r.back());
  }
  expect_near(*rt, want_r);
  expect_near(out[0], want_out);
}

// ---- Weights --------------------------------------------------------------------------

}  // namespace
}  // namespace rooflens
