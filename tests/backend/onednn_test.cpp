// The oneDNN backend against the reference backend: small random graphs covering every op
// family, and bundled zoo models at batch 1. Relative error ||out - ref|| / ||ref|| must be
// below 1e-4 in FP32, with fresh random inputs each run and poisoned output buffers.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>

#include "onednn_support.h"
#include "rooflens/onnx/import.h"

namespace rooflens {
namespace {

// Tactic selection times every non-reference implementation oneDNN offers and keeps the
// fastest: whichever it keeps must compute what oneDNN's first choice computes.
TEST(OneDnn, TimedImplementationChoiceKeepsResults) {
  GraphBuilder b;
  ValueId x = b.input("x", {4, 64, 14, 14});
  ValueId a = b.add1("Relu", "ra", {b.batchnorm("bna", b.conv("ca", x, 64, 32, 1), 32)});
  ValueId c = b.add1("Relu", "rb", {b.batchnorm("bnb", b.conv("cb", a, 32, 32, 3, {.pad = 1}), 32)});
  ValueId res = b.add1("Add", "res", {b.batchnorm("bnc", b.conv("cc", c, 32, 64, 1), 64), x});
  ValueId out = b.add1("Relu", "out", {res});
  ValueId dw = b.conv("dw", out, 64, 64, 3, {.stride = 2, .pad = 1, .group = 64});
  ValueId sig = b.add1("Sigmoid", "sig", {dw});
  b.output(b.add1("Mul", "swish", {dw, sig}));
  Graph g = b.finish();
  for (bool tune : {false, true}) {
    std::string why;
    std::vector<LayerTiming> layers;
    const double e = max_error(g, &why, tune, &layers);
    if (e < 0) GTEST_SKIP() << why;
    EXPECT_LT(e, 1e-4) << (tune ? "tuned" : "oneDNN's first choice");
    ASSERT_FALSE(layers.empty());
    if (tune) {
      for (const LayerTiming& l : layers) EXPECT_EQ(l.impl.find("ref"), std::string::npos) << l.name << ": " << l.impl;
    }
  }
}

// Tactic choices persist in the cache file ExecOptions::tactic_cache names; a damaged one is
// replaced, never trusted.
TEST(OneDnn, TacticCacheReplacesADamagedFile) {
  const std::string path =
      (std::filesystem::temp_directory_path() / ("rooflens-tactics-" + std::to_string(fresh_seed()) + ".json"))
          .string();
  std::ofstream(path) << "{not json";
  GraphBuilder b;
  ValueId x = b.input("x", {2, 40, 13, 13});  // a shape no other test here tunes
  b.output(b.add1("Relu", "r", {b.conv("c", x, 40, 72, 3, {.pad = 1})}));
  Graph g = b.finish();
  std::string why;
  const double e = max_error(g, &why, true, nullptr, ActivationLayout::kChannelsLast, path);
  if (e < 0) GTEST_SKIP() << why;
  EXPECT_LT(e, 1e-4);
  std::ifstream in(path);
  const auto j = nlohmann::json::parse(in, nullptr, false);
  std::filesystem::remove(path);
  ASSERT_FALSE(j.is_discarded()) << path << " is not JSON after tuning";
  EXPECT_EQ(j.value("schema", ""), "rooflens.tactics/4");
  ASSERT_TRUE(j.contains("entries"));
  EXPECT_TRUE(j["entries"].is_object());  // empty when the timing was too noisy to keep
}

// The blocked activation layout (nChw16c where channels are a multiple of 16): residual
// sums, an SE block's broadcast scale, a channel concat of blocked tensors, pooling, and
// convs whose channels force channels-last in between.
// In the blocked layout: matches the reference, and no layer ran on a reference kernel.
#define EXPECT_BLOCKED_MATCHES_REFERENCE_WITHOUT_REF_KERNELS(g)                                                       \
  do {                                                                                                                \
    std::string why;                                                                                                  \
    std::vector<LayerTiming> layers;                                                                                  \
    const double e = max_error(g, &why, true, &layers, ActivationLayout::kBlocked);                                   \
    if (e < 0) GTEST_SKIP() << why;                                                                                   \
    EXPECT_LT(e, 1e-4);                                                                                               \
    for (const LayerTiming& l : layers) EXPECT_EQ(l.impl.find("ref"), std::string::npos) << l.name << ": " << l.impl; \
  } while (0)

TEST(OneDnn, BlockedActivationLayoutKeepsResults) {
  GraphBuilder b;
  ValueId x = b.input("x", {2, 3, 20, 20});
  ValueId stem = b.add1("Relu", "r0", {b.conv("stem", x, 3, 32, 3, {.stride = 2, .pad = 1})});
  ValueId a = b.add1("Relu", "ra", {b.batchnorm("bna", b.conv("ca", stem, 32, 16, 1), 16)});
  ValueId res = b.add1("Add", "res", {b.conv("cb", a, 16, 32, 3, {.pad = 1}), stem});
  ValueId dw = b.conv("dw", res, 32, 32, 3, {.pad = 1, .group = 32});
  ValueId pool = b.add1("GlobalAveragePool", "gap", {dw});
  ValueId gate = b.add1("Sigmoid", "gate", {b.conv("fc", pool, 32, 32, 1, {.bias = true})});
  ValueId se = b.add1("Mul", "se", {dw, gate});
  ValueId odd = b.conv("odd", se, 32, 24, 1);
  ValueId cat = b.add1("Concat", "cat", {se, b.conv("more", se, 32, 16, 1)}, {{"axis", int64_t{1}}});
  ValueId mp = b.add1("MaxPool", "mp", {cat},
                      {{"kernel_shape", std::vector<int64_t>{2, 2}}, {"strides", std::vector<int64_t>{2, 2}}});
  b.output(mp);
  b.output(odd);
  Graph g = b.finish();
  EXPECT_BLOCKED_MATCHES_REFERENCE_WITHOUT_REF_KERNELS(g);
}

// 3x3 stride-1 convolutions in the blocked layout, where oneDNN offers Winograd (AVX-512)
// beside the direct kernels and timing picks either: VGG's plain chain, one with a folded
// BatchNorm and a residual sum as post-ops, and padding of 0 and 2. Whichever runs, the
// results stay within the tolerance (Winograd's transforms round differently).
TEST(OneDnn, WinogradCandidatesKeepResults) {
  GraphBuilder b;
  ValueId x = b.input("x", {1, 32, 28, 28});
  ValueId c1 = b.add1("Relu", "r1", {b.conv("c1", x, 32, 64, 3, {.pad = 1, .bias = true})});
  ValueId c2 = b.add1("Relu", "r2", {b.batchnorm("bn2", b.conv("c2", c1, 64, 64, 3, {.pad = 1}), 64)});
  ValueId res = b.add1("Add", "res", {b.conv("c3", c2, 64, 64, 3, {.pad = 1}), c1});
  b.output(b.conv("valid", res, 64, 32, 3, {.pad = 0}));
  b.output(b.conv("wide", res, 64, 32, 3, {.pad = 2}));
  Graph g = b.finish();
  EXPECT_BLOCKED_MATCHES_REFERENCE_WITHOUT_REF_KERNELS(g);
}

// Layouts chosen per layer (ActivationLayout::kAuto): any mix of channels-last and blocked
// layers keeps the results (reorders between them, a residual summed into a reordered copy,
// an SE scale, a concat of inputs in different layouts), and so does the timed choice.
TEST(OneDnn, PerLayerLayoutMixesKeepResults) {
  GraphBuilder b;
  ValueId x = b.input("x", {2, 3, 20, 20});
  ValueId stem = b.add1("Relu", "r0", {b.conv("stem", x, 3, 32, 3, {.stride = 2, .pad = 1})});
  ValueId a = b.add1("Relu", "ra", {b.batchnorm("bna", b.conv("ca", stem, 32, 16, 1), 16)});
  ValueId res = b.add1("Relu", "rr", {b.add1("Add", "res", {b.conv("cb", a, 16, 32, 3, {.pad = 1}), stem})});
  ValueId res2 = b.add1("Add", "res2", {b.conv("cc", res, 32, 32, 3, {.pad = 1}), res});  // reads what it adds
  ValueId dw = b.conv("dw", res2, 32, 32, 3, {.pad = 1, .group = 32});
  ValueId pool = b.add1("GlobalAveragePool", "gap", {dw});
  ValueId gate = b.add1("Sigmoid", "gate", {b.conv("fc", pool, 32, 32, 1, {.bias = true})});
  ValueId se = b.add1("Mul", "se", {dw, gate});
  ValueId cat = b.add1("Concat", "cat", {se, b.conv("more", se, 32, 16, 1), res2}, {{"axis", int64_t{1}}});
  ValueId mp = b.add1("MaxPool", "mp", {cat},
                      {{"kernel_shape", std::vector<int64_t>{2, 2}}, {"strides", std::vector<int64_t>{2, 2}}});
  b.output(b.conv("head", mp, 80, 32, 1));
  Graph g = b.finish();
  auto analysed = analysis_of(g);
  ASSERT_TRUE(analysed);
  const ModelAnalysis& m = *analysed;
  auto ref = make_reference_backend();
  ASSERT_TRUE(ref->prepare(g, m, {}));
  const size_t n = m.layers.size();
  std::vector<std::vector<char>> mixes = {std::vector<char>(n, 0), std::vector<char>(n, 1)};
  for (size_t phase = 0; phase < 2; ++phase) {  // every other layer blocked, starting with either
    std::vector<char> alt(n);
    for (size_t i = 0; i < n; ++i) alt[i] = static_cast<char>((i + phase) % 2);
    mixes.push_back(alt);
  }
  std::mt19937 rng(11);
  for (int k = 0; k < 6; ++k) {
    std::vector<char> r(n);
    for (char& c : r) c = static_cast<char>(rng() % 2);
    mixes.push_back(r);
  }
  mixes.push_back({});  // the timed choice
  for (const auto& mix : mixes) {
    auto dnnl = make_onednn_backend();
    if (!dnnl) GTEST_SKIP() << "built without oneDNN";
    ExecOptions eo;
    eo.threads = 2;
    eo.layout = ActivationLayout::kAuto;
    eo.blocked_layers = mix;
    Status s = dnnl->prepare(g, m, eo);
    ASSERT_TRUE(s) << s.message();
    std::string label;
    for (char c : mix) label += c ? 'B' : 'c';
    if (mix.empty()) {
      label = dnnl->layout_summary();
      EXPECT_TRUE(label.find("auto") != std::string::npos) << label;
    }
    for (int run = 0; run < 2; ++run) {
      auto errs = relative_errors(g, *dnnl, *ref, fresh_seed());
      ASSERT_TRUE(errs) << errs.status().message();
      for (double e : *errs) EXPECT_LT(e, 1e-4) << "layers " << label << ", run " << run;
    }
  }
  ExecOptions wrong;
  wrong.layout = ActivationLayout::kAuto;
  wrong.blocked_layers = {1};
  auto dnnl = make_onednn_backend();
  const Status s = dnnl->prepare(g, m, wrong);
  EXPECT_FALSE(s);
  EXPECT_NE(s.message().find("blocked_layers"), std::string::npos) << s.message();
}

// Buffers whose lifetimes do not overlap share one arena: a chain with a residual, a
// channel concat read twice, a channel shuffle and an SE scale keeps its results with the
// arena, needs fewer bytes than a buffer each, and needs none planned with reuse off.
TEST(OneDnn, SharedBufferArenaKeepsResults) {
  GraphBuilder b;
  ValueId x = b.input("x", {2, 8, 24, 24});
  ValueId c0 = b.add1("Relu", "r0", {b.conv("c0", x, 8, 16, 3, {.pad = 1})});
  ValueId c1 = b.add1("Relu", "r1", {b.conv("c1", c0, 16, 16, 3, {.pad = 1})});
  ValueId c2 = b.conv("c2", c1, 16, 16, 1);
  ValueId res = b.add1("Add", "res", {c2, c0});
  ValueId cat = b.add1("Concat", "cat", {res, c1}, {{"axis", int64_t{1}}});
  ValueId r5 = b.add1("Reshape", "r5", {cat, b.ints("s5", {2, 2, 16, 24, 24})});
  ValueId tr = b.add1("Transpose", "tr", {r5}, {{"perm", std::vector<int64_t>{0, 2, 1, 3, 4}}});
  ValueId sh = b.add1("Reshape", "r4", {tr, b.ints("s4", {2, 32, 24, 24})});
  ValueId dw = b.conv("dw", sh, 32, 32, 3, {.pad = 1, .group = 32});
  ValueId gate =
      b.add1("Sigmoid", "gate", {b.conv("fc", b.add1("GlobalAveragePool", "gap", {dw}), 32, 32, 1, {.bias = true})});
  ValueId se = b.add1("Mul", "se", {dw, gate});
  ValueId out = b.conv("c3", b.add1("Concat", "cat2", {se, cat}, {{"axis", int64_t{1}}}), 64, 16, 1);
  b.output(out);
  Graph g = b.finish();
  auto analysed = analysis_of(g);
  ASSERT_TRUE(analysed);
  const ModelAnalysis& m = *analysed;
  auto ref = make_reference_backend();
  ASSERT_TRUE(ref->prepare(g, m, {}));
  for (bool reuse : {true, false}) {
    auto dnnl = make_onednn_backend();
    if (!dnnl) GTEST_SKIP() << "built without oneDNN";
    ExecOptions eo;
    eo.threads = 2;
    eo.reuse_buffers = reuse;
    Status s = dnnl->prepare(g, m, eo);
    ASSERT_TRUE(s) << s.message();
    const auto [placed, unshared] = dnnl->activation_bytes();
    if (reuse) {
      EXPECT_GT(placed, 0u);
      EXPECT_LT(placed, unshared);
    } else {
      EXPECT_EQ(placed, 0u);
    }
    for (int run = 0; run < 2; ++run) {  // a second run reads nothing the first left behind
      auto errs = relative_errors(g, *dnnl, *ref, fresh_seed());
      ASSERT_TRUE(errs) << errs.status().message();
      for (double e : *errs) EXPECT_LT(e, 1e-4) << (reuse ? "shared arena" : "a buffer each") << ", run " << run;
    }
  }
}

// A transformer block as the ONNX exports hold it: class token Expand + Concat, LayerNorm,
// fused QKV projection split with Gather, scaled Q.K^T + relative position bias (a Gather of
// a stored table) + a folded Swin-style mask, Softmax, A.V (one fused attention layer in the
// engine view), output projection with residual, GELU MLP, and the class token picked by
// Gather. oneDNN (matmul post-ops, softmax, layer_normalization, eltwise GELU, host gather
// and expand) must agree with the reference.
TEST(OneDnn, TransformerBlockWithFusedAttention) {
  GraphBuilder b;
  const int64_t B = 2, N = 16, C = 32, H = 4, D = C / H;
  ValueId x = b.input("x", {B, N - 1, C});
  ValueId cls = b.add1("Expand", "cls", {b.weight("class_token", {1, 1, C}), b.ints("cls_shape", {B, 1, C})});
  ValueId t = b.add1("Concat", "tokens", {cls, x}, {{"axis", int64_t{1}}});
  ValueId ln =
      b.add1("LayerNormalization", "ln1", {t, b.weight("ln1.s", {C}), b.weight("ln1.b", {C})}, {{"axis", int64_t{-1}}});
  ValueId qkv = b.add1("Add", "qkv.bias",
                       {b.add1("MatMul", "qkv", {ln, b.weight("wqkv", {C, 3 * C})}), b.weight("bqkv", {3 * C})});
  ValueId r = b.add1("Reshape", "qkv.r", {qkv, b.ints("s_qkv", {B, N, 3, H, D})});
  ValueId p = b.add1("Transpose", "qkv.p", {r}, {{"perm", std::vector<int64_t>{2, 0, 3, 1, 4}}});
  auto pick = [&](const char* name, int64_t i) {
    return b.add1("Gather", name,
                  {p, b.add1("Constant", std::string(name) + ".i", {},
                             {{"value", TensorConst{DType::kI64, {}, {i}, {}}}})},
                  {{"axis", int64_t{0}}});
  };
  ValueId q = b.add1("Mul", "q.scale", {pick("q", 0), b.reals("scale", {}, {0.35355339})});
  ValueId kt = b.add1("Transpose", "kt", {pick("k", 1)}, {{"perm", std::vector<int64_t>{0, 1, 3, 2}}});
  ValueId v = pick("v", 2);
  ValueId s = b.add1("MatMul", "qk", {q, kt});
  std::vector<int64_t> idx;
  for (int64_t i = 0; i < N * N; ++i) idx.push_back((i * 7) % 31);
  ValueId table =
      b.add1("Gather", "rpb", {b.weight("rpb_table", {31, H}), b.ints("rpb_index", idx)}, {{"axis", int64_t{0}}});
  ValueId bias = b.add1("Transpose", "rpb.t", {b.add1("Reshape", "rpb.r", {table, b.ints("s_rpb", {N, N, H})})},
                        {{"perm", std::vector<int64_t>{2, 0, 1}}});
  ValueId sb = b.add1("Add", "qk.bias", {s, bias});
  std::vector<double> mask(static_cast<size_t>(N * N), 0.0);
  for (size_t i = 0; i < mask.size(); i += 3) mask[i] = -100.0;
  ValueId sm = b.add1("Add", "qk.mask", {sb, b.add1("Identity", "mask", {b.reals("mask_c", {N, N}, mask)})});
  ValueId a = b.add1("Softmax", "softmax", {sm}, {{"axis", int64_t{-1}}});
  ValueId o = b.add1("MatMul", "av", {a, v});
  ValueId o2 =
      b.add1("Reshape", "o.r",
             {b.add1("Transpose", "o.t", {o}, {{"perm", std::vector<int64_t>{0, 2, 1, 3}}}), b.ints("s_o", {B, N, C})});
  ValueId proj =
      b.add1("Add", "proj.bias", {b.add1("MatMul", "proj", {o2, b.weight("wo", {C, C})}), b.weight("bo", {C})});
  ValueId res = b.add1("Add", "res1", {proj, t});
  ValueId ln2 = b.add1("LayerNormalization", "ln2", {res, b.weight("ln2.s", {C}), b.weight("ln2.b", {C})},
                       {{"axis", int64_t{-1}}});
  ValueId fc1 =
      b.add1("Add", "fc1.bias", {b.add1("MatMul", "fc1", {ln2, b.weight("w1", {C, 2 * C})}), b.weight("b1", {2 * C})});
  ValueId div = b.add1("Div", "gelu.div", {fc1, b.reals("sqrt2", {}, {1.4142135623730951})});
  ValueId one = b.add1("Add", "gelu.add", {b.add1("Erf", "gelu.erf", {div}), b.reals("one", {}, {1.0})});
  ValueId gelu = b.add1("Mul", "gelu.half", {b.add1("Mul", "gelu.mul", {fc1, one}), b.reals("half", {}, {0.5})});
  ValueId fc2 =
      b.add1("Add", "fc2.bias", {b.add1("MatMul", "fc2", {gelu, b.weight("w2", {2 * C, C})}), b.weight("b2", {C})});
  ValueId out = b.add1("Add", "res2", {fc2, res});
  b.output(b.add1("Gather", "head",
                  {out, b.add1("Constant", "zero", {}, {{"value", TensorConst{DType::kI64, {}, {0}, {}}}})},
                  {{"axis", int64_t{1}}}));
  Graph g = b.finish();
  auto m = analysis_of(g);
  ASSERT_TRUE(m);
  int attention = 0;
  for (const auto& L : m->layers) attention += L.attention;
  EXPECT_EQ(attention, 1);
  EXPECT_MATCHES_REFERENCE(g);
}

// A MatMul with stored [K, N] weights is timed with them row-major and column-major (oneDNN's
// gemm on AVX2 runs wide products 1.5-2x faster column-major at ~200 rows, slower at 8): a
// 2-D product with a bias and an erf GELU (whose split-off pass is a candidate too) and a 3-D
// one collapsed into a GEMM with a residual sum. Whichever layout timing keeps, and oneDNN's
// first choice without tuning, the results match the reference.
TEST(OneDnn, MatMulWeightsInEitherLayoutKeepResults) {
  GraphBuilder b;
  ValueId x = b.input("x", {24, 40});
  ValueId fc = b.add1("Add", "fc.bias", {b.add1("MatMul", "fc", {x, b.weight("w", {40, 520})}), b.weight("b", {520})});
  ValueId div = b.add1("Div", "gelu.div", {fc, b.reals("sqrt2", {}, {1.4142135623730951})});
  ValueId one = b.add1("Add", "gelu.add", {b.add1("Erf", "gelu.erf", {div}), b.reals("one", {}, {1.0})});
  b.output(b.add1("Mul", "gelu.half", {b.add1("Mul", "gelu.mul", {fc, one}), b.reals("half", {}, {0.5})}));
  ValueId t = b.input("t", {2, 20, 48});
  b.output(b.add1("Add", "res", {b.add1("MatMul", "proj", {t, b.weight("wp", {48, 48})}), t}));
  Graph g = b.finish();
  for (bool tune : {false, true}) {
    std::string why;
    std::vector<LayerTiming> layers;
    const double e = max_error(g, &why, tune, &layers);
    if (e < 0) GTEST_SKIP() << why;
    EXPECT_LT(e, 1e-4) << (tune ? "tuned" : "oneDNN's first choice");
    for (const LayerTiming& l : layers) EXPECT_EQ(l.impl.find("ref"), std::string::npos) << l.name << ": " << l.impl;
  }
}

// Swin's shifted-window scores: the position bias [1, heads, N, N] added to the scores
// [windows, heads, N, N], then the shift mask [1, windows, 1, N, N] added over a 5-D view.
// oneDNN 2.x offers only its reference kernels for both broadcasts (a matmul with the bias as a
// post-op ran 700x slower than without it on swin_t); the bias then runs after the product
// and the mask as a host loop, so no layer names a reference implementation.
TEST(OneDnn, SwinScoreBroadcastsAvoidReferenceKernels) {
  GraphBuilder b;
  const int64_t W = 4, H = 2, N = 6, D = 8;
  ValueId q = b.input("q", {W, H, N, D});
  ValueId kt = b.input("kt", {W, H, D, N});
  ValueId v = b.input("v", {W, H, N, D});
  std::vector<double> bias(static_cast<size_t>(H * N * N)), mask(static_cast<size_t>(2 * N * N));
  for (size_t i = 0; i < bias.size(); ++i) bias[i] = 0.01 * static_cast<double>(i % 17);
  for (size_t i = 0; i < mask.size(); i += 5) mask[i] = -100.0;
  ValueId s = b.add1("Add", "bias", {b.add1("MatMul", "qk", {q, kt}), b.reals("rpb", {1, H, N, N}, bias)});
  ValueId s5 = b.add1("Reshape", "s5", {s, b.ints("sh5", {W / 2, 2, H, N, N})});
  ValueId m = b.add1("Add", "mask", {s5, b.reals("shift_mask", {1, 2, 1, N, N}, mask)});
  ValueId s4 = b.add1("Reshape", "s4", {m, b.ints("sh4", {W, H, N, N})});
  b.output(b.add1("MatMul", "av", {b.add1("Softmax", "softmax", {s4}, {{"axis", int64_t{-1}}}), v}));
  Graph g = b.finish();
  EXPECT_MATCHES_REFERENCE_WITHOUT_REF_KERNELS(g);
}

// A node the CPU backend cannot run is refused before prepare, naming the node.
// Swin V2's cosine attention as exported: Q and K normalised by ReduceL2 and Div, the scores
// scaled by exp(clip(logit scale)) and biased by 16 * sigmoid(MLP(coordinate table)). The scale
// and the bias are computed from stored tensors alone, once at load: oneDNN reads them as
// stored tensors, the reference skips their nodes; both must see the same values.
TEST(OneDnn, SwinV2CosineAttentionWithALoadTimeBias) {
  GraphBuilder b;
  ValueId q = b.input("q", {2, 3, 16, 8});
  ValueId k = b.add1("Neg", "k", {q});
  const auto unit = [&](ValueId t, const std::string& name) {
    ValueId norm =
        b.add1("ReduceL2", name + ".l2", {t}, {{"axes", std::vector<int64_t>{-1}}, {"keepdims", int64_t{1}}});
    return b.add1("Div", name + ".div", {t, norm});
  };
  ValueId kt = b.add1("Transpose", "kt", {unit(k, "k")}, {{"perm", std::vector<int64_t>{0, 1, 3, 2}}});
  ValueId scores = b.add1("MatMul", "qk", {unit(q, "q"), kt});
  ValueId scale =
      b.add1("Exp", "scale.exp",
             {b.add1("Clip", "scale.clip",
                     {b.weight("logit_scale", {3, 1, 1}), b.reals("lo", {}, {-1.0}), b.reals("hi", {}, {4.6})})});
  ValueId hidden = b.add1("Relu", "mlp.relu",
                          {b.add1("MatMul", "mlp.0", {b.weight("coords", {16, 16, 2}), b.weight("w0", {2, 32})})});
  ValueId table = b.add1("MatMul", "mlp.1", {hidden, b.weight("w1", {32, 3})});
  ValueId bias = b.add1("Mul", "bias.16",
                        {b.add1("Sigmoid", "bias.sig",
                                {b.add1("Transpose", "bias.t", {table}, {{"perm", std::vector<int64_t>{2, 0, 1}}})}),
                         b.reals("sixteen", {}, {16.0})});
  ValueId biased = b.add1("Add", "bias.add", {b.add1("Mul", "scale.mul", {scores, scale}), bias});
  b.output(b.add1("Softmax", "sm", {biased}, {{"axis", int64_t{-1}}}));
  Graph g = b.finish();
  // The L2 norms run on a kernel of ours, not on oneDNN's reference reduction.
  EXPECT_MATCHES_REFERENCE_WITHOUT_REF_KERNELS(g);
  EXPECT_TRUE(g.node(g.value(bias).producer).folded);
  EXPECT_TRUE(g.node(g.value(scale).producer).folded);
}

// Expand of an activation (broadcast on inner and middle axes, and a new leading one) and
// ReduceL2 over trailing axes (our kernel) and over a middle axis (oneDNN's reduction).
TEST(OneDnn, ExpandAndReduceL2OverAnyAxes) {
  GraphBuilder b;
  ValueId x = b.input("x", {3, 1, 5, 1});
  ValueId big = b.add1("Expand", "expand", {b.add1("Relu", "relu", {x}), b.ints("to", {2, 3, 4, 5, 6})});
  ValueId y = b.add1("Add", "vary", {big, b.weight("w", {4, 5, 6})});
  const auto l2 = [&](const std::string& name, std::vector<int64_t> axes, int64_t keep) {
    return b.add1("ReduceL2", name, {y}, {{"axes", std::move(axes)}, {"keepdims", keep}});
  };
  b.output(l2("l2.last", {-1}, 1));
  b.output(l2("l2.last_two", {3, 4}, 0));
  b.output(l2("l2.middle", {2}, 1));
  Graph g = b.finish();
  EXPECT_MATCHES_REFERENCE(g);
}

// MaxViT's attention as Einsums (rank 5): Q.K^T with K read as a transposed stack in place,
// the scores times V, an output in another letter order (reordered from a buffer) and an
// operand whose batch letters are out of order (copied packed first), without ref kernels.
TEST(OneDnn, EinsumsAsOneMatmulEach) {
  GraphBuilder b;
  ValueId q = b.input("q", {2, 3, 2, 7, 8});
  ValueId k = b.input("k", {2, 3, 2, 7, 8});
  ValueId v = b.input("v", {2, 3, 2, 7, 8});
  const auto einsum = [&](const std::string& name, ValueId x, ValueId y, const std::string& eq) {
    return b.add1("Einsum", name, {x, y}, {{"equation", eq}});
  };
  ValueId scores = b.add1("Softmax", "softmax", {einsum("qk", q, k, "bghid,bghjd->bghij")}, {{"axis", int64_t{-1}}});
  b.output(einsum("av", scores, v, "bghij,bghjd->bghid"));
  b.output(einsum("qk.reordered", q, k, "bghid,bghjd->bgjhi"));
  b.output(einsum("qk.copied", b.input("q2", {2, 2, 3, 7, 8}), k, "bhgid,bghjd->bghij"));
  Graph g = b.finish();
  EXPECT_MATCHES_REFERENCE_WITHOUT_REF_KERNELS(g);
}

TEST(OneDnn, RefusesAOneOperandEinsumNamingTheNode) {
  GraphBuilder b;
  ValueId q = b.input("q", {2, 4, 8});
  b.output(b.add1("Einsum", "maxvit.swap", {q}, {{"equation", std::string("bid->bdi")}}));
  Graph g = b.finish();
  auto m = analysis_of(g);
  ASSERT_TRUE(m);
  auto dnnl = make_onednn_backend();
  if (!dnnl) GTEST_SKIP() << "built without oneDNN";
  ExecOptions eo;
  Status s = dnnl->prepare(g, *m, eo);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("maxvit.swap"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("of one operand"), std::string::npos) << s.message();
  // The reference backend runs it.
  auto ref = make_reference_backend();
  EXPECT_TRUE(ref->prepare(g, *m, eo));
}

// ConvNeXt's pointwise MLP: 4-D activations times 2-D weights run as one GEMM over all rows,
// with bias, GELU, layer scale and a residual as post-ops on the collapsed shape; an operand
// broadcast along a collapsed dim ends the epilogue instead.
TEST(OneDnn, MatMulOverLeadingDimsAsOneGemm) {
  GraphBuilder b;
  ValueId x = b.input("x", {2, 8, 5, 5});
  ValueId nhwc = b.add1("Transpose", "to_nhwc", {x}, {{"perm", std::vector<int64_t>{0, 2, 3, 1}}});
  ValueId up =
      b.add1("Add", "up.bias", {b.add1("MatMul", "up", {nhwc, b.weight("w_up", {8, 32})}), b.weight("b_up", {32})});
  ValueId div = b.add1("Div", "gelu.div", {up, b.reals("sqrt2", {}, {1.4142135623730951})});
  ValueId erf = b.add1("Erf", "gelu.erf", {div});
  ValueId one = b.add1("Add", "gelu.add", {erf, b.reals("one", {}, {1.0})});
  ValueId gelu = b.add1("Mul", "gelu.half", {b.add1("Mul", "gelu.mul", {up, one}), b.reals("half", {}, {0.5})});
  ValueId down = b.add1("Add", "down.bias",
                        {b.add1("MatMul", "down", {gelu, b.weight("w_down", {32, 8})}), b.weight("b_down", {8})});
  ValueId scaled = b.add1("Mul", "scale", {down, b.weight("gamma", {1, 1, 8})});
  ValueId res = b.add1("Add", "res", {scaled, nhwc});
  ValueId per_row = b.add1("Mul", "per_row",
                           {b.add1("MatMul", "mm3", {res, b.weight("w3", {8, 8})}), b.weight("rowscale", {5, 1, 8})});
  b.output(b.add1("Transpose", "to_nchw", {per_row}, {{"perm", std::vector<int64_t>{0, 3, 1, 2}}}));
  Graph g = b.finish();
  EXPECT_MATCHES_REFERENCE(g);
}

TEST(OneDnn, PoolingNormalizationReductionAndElementwise) {
  GraphBuilder b;
  ValueId x = b.input("x", {2, 8, 17, 17});
  ValueId bn = b.batchnorm("bn", x, 8);
  ValueId mp = b.add1("MaxPool", "mp", {bn},
                      {{"kernel_shape", std::vector<int64_t>{3, 3}},
                       {"strides", std::vector<int64_t>{2, 2}},
                       {"ceil_mode", int64_t{1}}});
  ValueId ap = b.add1("AveragePool", "ap", {bn},
                      {{"kernel_shape", std::vector<int64_t>{3, 3}},
                       {"strides", std::vector<int64_t>{2, 2}},
                       {"pads", std::vector<int64_t>{1, 1, 0, 0}}});
  ValueId sum = b.add1("Sub", "sub", {mp, b.add1("Tanh", "tanh", {ap})});
  ValueId gap = b.add1("GlobalAveragePool", "gap", {sum});
  ValueId scaled = b.add1("Mul", "scale", {sum, b.add1("Sigmoid", "gate", {gap})});
  ValueId rm = b.add1("ReduceMean", "rm", {scaled}, {{"axes", std::vector<int64_t>{2, 3}}, {"keepdims", int64_t{0}}});
  ValueId lr = b.add1("LeakyRelu", "lrelu", {rm}, {{"alpha", 0.1}});
  b.output(b.add1("Div", "div", {lr, b.reals("two", {}, {2.0})}));
  Graph g = b.finish();
  EXPECT_MATCHES_REFERENCE(g);
}

// A denormal input times two: zero while the run flushes denormals (the default), the
// IEEE denormal with flush_denormals off; the caller's own arithmetic keeps denormals after
// either run (the mode is set only for the run and put back).
TEST(OneDnn, FlushesDenormalsOnlyWhileItRuns) {
  GraphBuilder b;
  const Shape shape{1, 16, 4, 4};
  ValueId x = b.input("x", shape);
  b.output(b.add1("Mul", "twice", {x, b.reals("two", {}, {2.0})}));
  Graph g = b.finish();
  auto analysed = analysis_of(g);
  ASSERT_TRUE(analysed);
  const float tiny = 1e-39f;
  ASSERT_EQ(std::fpclassify(tiny), FP_SUBNORMAL);
  for (const bool flush : {true, false}) {
    auto dnnl = make_onednn_backend();
    if (!dnnl) GTEST_SKIP() << "built without oneDNN";
    ExecOptions eo;
    eo.threads = 2;
    eo.flush_denormals = flush;
    ASSERT_TRUE(dnnl->prepare(g, *analysed, eo));
    Tensor in = Tensor::zeros(shape);
    std::fill(in.data.begin(), in.data.end(), tiny);
    std::vector<Tensor> out;
    ASSERT_TRUE(dnnl->run({in}, &out));
    EXPECT_EQ(dnnl->flushes_denormals(), flush);
    const float want = flush ? 0.0f : 2 * tiny;
    EXPECT_EQ(std::count(out[0].data.begin(), out[0].data.end(), want), 256) << "flush " << flush;
    volatile float caller = tiny;
    EXPECT_EQ(std::fpclassify(caller * 2.0f), FP_SUBNORMAL) << "flush " << flush;
  }
}

// Two layers of a DenseNet block: x, y1 = conv(x), y2 = conv(relu(norm1(concat(x, y1)))).
struct DenseLayers {
  ValueId x, y1, y2;
};
DenseLayers dense_layers(GraphBuilder& b) {
  DenseLayers d;
  d.x = b.input("x", {2, 16, 9, 9});
  d.y1 = b.conv("c1", d.x, 16, 16, 3, {.pad = 1});
  ValueId cat = b.add1("Concat", "cat", {d.x, d.y1}, {{"axis", int64_t{1}}});
  ValueId act = b.add1("Relu", "relu1", {b.batchnorm("norm1", cat, 32)});
  d.y2 = b.conv("c2", act, 32, 16, 1);
  return d;
}

// DenseNet's pre-activation: BatchNorm+ReLU on a concat runs as one pass; a BatchNorm whose
// output is also read elsewhere keeps its ReLU separate. Zero Pads before pooling are aliases.
TEST(OneDnn, PreActivationBatchNormReluAndZeroPad) {
  GraphBuilder b;
  const ValueId y2 = dense_layers(b).y2;
  ValueId bn2 = b.batchnorm("norm2", y2, 16);
  ValueId both = b.add1("Add", "both", {b.add1("Relu", "relu2", {bn2}), bn2});
  ValueId padded = b.add1("Pad", "pad0", {both, b.ints("zeros", {0, 0, 0, 0, 0, 0, 0, 0})});
  b.output(b.add1("AveragePool", "pool", {padded},
                  {{"kernel_shape", std::vector<int64_t>{2, 2}}, {"strides", std::vector<int64_t>{2, 2}}}));
  Graph g = b.finish();
  EXPECT_MATCHES_REFERENCE(g);
}

// A BatchNormalization + ReLU that alone reads a channel Concat runs inside the concat's
// host pass (the concatenation is never written); a concat that another node reads too
// keeps its own pass and the pair its own.
TEST(OneDnn, ConcatAppliesTheNormReluThatAloneReadsIt) {
  GraphBuilder b;
  const DenseLayers d = dense_layers(b);
  ValueId cat2 = b.add1("Concat", "cat2", {d.x, d.y1, d.y2}, {{"axis", int64_t{1}}});
  ValueId act2 = b.add1("Relu", "relu2", {b.batchnorm("norm2", cat2, 48)});
  ValueId side = b.conv("side", cat2, 48, 16, 1);
  b.output(b.add1("Add", "sum", {b.conv("c3", act2, 48, 16, 1), side}));
  Graph g = b.finish();
  std::string why;
  std::vector<LayerTiming> layers;
  const double e = max_error(g, &why, true, &layers);
  if (e < 0) GTEST_SKIP() << why;
  EXPECT_LT(e, 1e-4);
  auto impl = impls_by_layer(layers);
  EXPECT_EQ(impl["norm1"], "in the concat's pass");
  EXPECT_EQ(impl["cat"], "host:channel_concat+bn_relu");
  EXPECT_EQ(impl["cat2"], "host:channel_concat");
  EXPECT_NE(impl["norm2"].find("bnorm"), std::string::npos) << impl["norm2"];
}

// Concat along channels of channels-last tensors is a host pass (odd widths, three inputs,
// a graph input among them); along another axis too, of longer runs. A Concat of one input aliases
// it, and a residual may then accumulate into that buffer only when the aliased value is
// not read afterwards: here it is (`late`), so the sum must not overwrite it.
TEST(OneDnn, ChannelConcatAndOneInputConcat) {
  GraphBuilder b;
  ValueId x = b.input("x", {2, 5, 6, 7});
  ValueId a = b.add1("Relu", "ra", {b.conv("ca", x, 5, 7, 3, {.pad = 1})});
  ValueId c = b.conv("cb", a, 7, 16, 1);
  ValueId cat = b.add1("Concat", "cat", {a, x, c}, {{"axis", int64_t{1}}});
  ValueId rows = b.add1("Concat", "rows", {cat, cat}, {{"axis", int64_t{2}}});
  ValueId one = b.add1("Concat", "one", {a}, {{"axis", int64_t{1}}});
  ValueId sum = b.add1("Add", "sum", {b.conv("cc", a, 7, 7, 1), one});
  ValueId late = b.add1("Relu", "late", {b.conv("cd", a, 7, 3, 1)});
  b.output(rows);
  b.output(sum);
  b.output(late);
  Graph g = b.finish();
  EXPECT_MATCHES_REFERENCE(g);
}

// Concatenations along other axes than channels (ViT's class token before its patches, Swin's
// shifted windows over H and W, a last axis of rank 3) are host passes of each input's
// contiguous runs, whatever the rank, and match the reference.
TEST(OneDnn, ConcatAlongOtherAxesIsOneHostPass) {
  GraphBuilder b;
  ValueId tok = b.input("tok", {2, 1, 8});
  ValueId patches = b.input("patches", {2, 6, 8});
  b.output(b.add1("Concat", "class_token", {tok, patches}, {{"axis", int64_t{1}}}));
  b.output(b.add1("Concat", "last", {patches, patches}, {{"axis", int64_t{2}}}));
  ValueId x = b.input("x", {2, 4, 5, 3});
  ValueId top = b.add1("Slice", "top", {x, b.ints("s0", {1}), b.ints("e0", {4}), b.ints("a0", {1})});
  ValueId bottom = b.add1("Slice", "bottom", {x, b.ints("s1", {0}), b.ints("e1", {1}), b.ints("a1", {1})});
  ValueId rolled = b.add1("Concat", "roll_h", {top, bottom}, {{"axis", int64_t{1}}});
  b.output(b.add1("Concat", "roll_w", {rolled, x}, {{"axis", int64_t{2}}}));
  b.output(b.add1("Concat", "width", {x, x}, {{"axis", int64_t{3}}}));
  Graph g = b.finish();
  std::string why;
  std::vector<LayerTiming> layers;
  const double e = max_error(g, &why, true, &layers);
  if (e < 0) GTEST_SKIP() << why;
  EXPECT_LT(e, 1e-4);
  auto impl = impls_by_layer(layers);
  for (const char* name : {"class_token", "last", "roll_w", "width"}) EXPECT_EQ(impl[name], "host:concat") << name;
  EXPECT_EQ(impl["roll_h"], "host:channel_concat");  // axis 1 of a 4-D tensor: channels-last's innermost
}

TEST(OneDnn, DataMovementAndViews) {
  GraphBuilder b;
  ValueId x = b.input("x", {1, 16, 6, 6});
  ValueId y = b.input("y", {1, 8, 6, 6});
  ValueId cat = b.add1("Concat", "cat", {b.add1("Relu", "rx", {x}), y}, {{"axis", int64_t{1}}});
  auto parts = b.add("Split", "split", {cat, b.ints("sizes", {12, 12})}, {{"axis", int64_t{1}}}, 2);
  ValueId sl = b.add1("Slice", "slice", {parts[0], b.ints("st", {1}), b.ints("en", {5}), b.ints("ax", {2})});
  ValueId pad = b.add1("Pad", "pad", {parts[1], b.ints("pads", {0, 0, 1, 2, 0, 0, 2, 1})});
  ValueId shuf = b.add1("Reshape", "view", {pad, b.ints("s5", {1, 2, 6, 9, 9})});
  ValueId tr = b.add1("Transpose", "shuffle", {shuf}, {{"perm", std::vector<int64_t>{0, 2, 1, 3, 4}}});
  ValueId back = b.add1("Reshape", "unview", {tr, b.ints("s4", {1, 12, 9, 9})});
  ValueId flat = b.add1("Flatten", "flat", {b.add1("GlobalAveragePool", "gap", {back})}, {{"axis", int64_t{1}}});
  ValueId us = b.add1("Unsqueeze", "us", {flat, b.ints("a0", {0})});
  b.output(b.add1("Squeeze", "sq", {us, b.ints("a00", {0})}));
  b.output(sl);
  Graph g = b.finish();
  EXPECT_MATCHES_REFERENCE(g);
}

// Inception's average pools: a constant Pad of a channels-last activation writes channels-last,
// so the pool after it runs on a vector kernel, not oneDNN's plain nchw one (3x slower).
TEST(OneDnn, AConstantPadKeepsChannelsLastForThePoolAfterIt) {
  GraphBuilder b;
  ValueId x = b.input("x", {2, 16, 9, 9});
  ValueId c = b.add1("Relu", "r", {b.conv("c", x, 16, 24, 1)});
  ValueId pad = b.add1("Pad", "pad", {c, b.ints("pads", {0, 0, 1, 1, 0, 0, 1, 1})});
  b.output(b.add1("AveragePool", "pool", {pad},
                  {{"kernel_shape", std::vector<int64_t>{3, 3}}, {"strides", std::vector<int64_t>{1, 1}}}));
  b.output(b.add1("Pad", "value", {c, b.ints("pads2", {0, 0, 2, 0, 0, 0, 0, 3}), b.reals("v", {}, {-1.5f})}));
  Graph g = b.finish();
  std::string why;
  std::vector<LayerTiming> layers;
  const double e = max_error(g, &why, true, &layers);
  if (e < 0) GTEST_SKIP() << why;
  EXPECT_LT(e, 1e-4);
  for (const LayerTiming& l : layers) {
    if (l.name == "pool") {
      EXPECT_EQ(l.impl.find("nchw"), std::string::npos) << l.impl;
    }
  }
}

// Slices with steps other than 1 (Swin's patch merging reads x[:, 0::2, 1::2, :]), one that
// does not divide its dim and one that runs backwards: a host copy on the oneDNN backend.
TEST(OneDnn, StridedSlices) {
  GraphBuilder b;
  ValueId x = b.input("x", {2, 8, 8, 6});
  ValueId r = b.add1("Relu", "r", {x});
  b.output(b.add1("Slice", "merge01",
                  {r, b.ints("st", {0, 1}), b.ints("en", {8, 8}), b.ints("ax", {1, 2}), b.ints("sp", {2, 2})}));
  b.output(
      b.add1("Slice", "every3", {r, b.ints("st3", {0}), b.ints("en3", {8}), b.ints("ax3", {2}), b.ints("sp3", {3})}));
  b.output(b.add1("Slice", "backwards",
                  {r, b.ints("stb", {-1}), b.ints("enb", {-9}), b.ints("axb", {3}), b.ints("spb", {-2})}));
  Graph g = b.finish();
  EXPECT_MATCHES_REFERENCE(g);
}

// TResNet's anti-aliased downsampling: a reflect Pad, then a depthwise blur whose weights
// are a Constant node (stored data, as an initializer is; the 3x3 filter here is in the file,
// the wider one stripped, so generated); edge and wrap pads too, all as host copies.
TEST(OneDnn, NonConstantPadsAndConstantNodeWeights) {
  GraphBuilder b;
  ValueId x = b.input("x", {2, 4, 7, 6});
  ValueId r = b.add1("Relu", "r", {x});
  std::vector<double> blur;
  for (int c = 0; c < 4; ++c)
    for (double v : {1., 2., 1., 2., 4., 2., 1., 2., 1.}) blur.push_back(v / 16);
  ValueId filt = b.add1("Constant", "filt", {}, {{"value", TensorConst{DType::kF32, {4, 1, 3, 3}, {}, blur}}});
  ValueId refl =
      b.add1("Pad", "reflect", {r, b.ints("p1", {0, 0, 1, 1, 0, 0, 1, 1})}, {{"mode", std::string("reflect")}});
  b.output(b.add1("Conv", "blur", {refl, filt}, {{"group", int64_t{4}}, {"strides", std::vector<int64_t>{2, 2}}}));
  ValueId wide = b.add1("Constant", "wide", {}, {{"value", TensorConst{DType::kF32, {8, 4, 1, 1}, {}, {}}}});
  b.output(b.add1("Conv", "mix", {r, wide}));
  b.output(b.add1("Pad", "edge", {r, b.ints("p2", {0, 1, 2, 0, 0, 0, 1, 3})}, {{"mode", std::string("edge")}}));
  b.output(b.add1("Pad", "wrap", {r, b.ints("p3", {0, 0, 3, 2, 0, 0, 0, 4})}, {{"mode", std::string("wrap")}}));
  Graph g = b.finish();
  EXPECT_MATCHES_REFERENCE(g);
}

// ShuffleNet's unit on channels-last activations: the channel shuffle (Reshape, Transpose,
// Reshape) and the channel Split / Slice run as host passes on acdb; a Transpose that is
// not a shuffle and a Reshape read by something else go through row-major.
TEST(OneDnn, ChannelShuffleAndSplitOnChannelsLast) {
  GraphBuilder b;
  ValueId x = b.input("x", {2, 8, 5, 7});
  ValueId c = b.add1("Relu", "r", {b.conv("c", x, 8, 24, 1)});
  ValueId v = b.add1("Reshape", "v", {c, b.ints("s5", {2, 4, 6, 5, 7})});
  ValueId t = b.add1("Transpose", "t", {v}, {{"perm", std::vector<int64_t>{0, 2, 1, 3, 4}}});
  ValueId u = b.add1("Reshape", "u", {t, b.ints("s4", {2, 24, 5, 7})});
  auto halves = b.add("Split", "split", {u, b.ints("sizes", {12, 12})}, {{"axis", int64_t{1}}}, 2);
  ValueId c2 = b.conv("c2", halves[1], 12, 12, 3, {.pad = 1});
  ValueId cat = b.add1("Concat", "cat", {halves[0], c2}, {{"axis", int64_t{1}}});
  ValueId mid = b.add1("Slice", "mid", {cat, b.ints("st", {5}), b.ints("en", {17}), b.ints("ax", {1})});
  ValueId v2 = b.add1("Reshape", "v2", {mid, b.ints("s5b", {2, 3, 4, 5, 7})});
  b.output(b.add1("Transpose", "t2", {v2}, {{"perm", std::vector<int64_t>{0, 2, 1, 4, 3}}}));
  b.output(b.add1("Reshape", "flat", {cat, b.ints("s2", {2, 840})}));
  Graph g = b.finish();
  EXPECT_MATCHES_REFERENCE(g);
}

TEST(OneDnn, RefusesUnknownOpsWithAReason) {
  GraphBuilder b;
  ValueId x = b.input("x", {1, 4});
  b.output(b.add1("FrobnicateOp", "frob", {x}));
  Graph g = b.finish();
  auto inferred = infer_shapes(g);
  ASSERT_TRUE(inferred);
  auto dnnl = make_onednn_backend();
  if (!dnnl) GTEST_SKIP() << "built without oneDNN";
  std::string reason;
  EXPECT_FALSE(dnnl->supports(g, 0, &reason));
  EXPECT_NE(reason.find("FrobnicateOp"), std::string::npos);
  Status s = dnnl->prepare(g, analyze_graph(g, *inferred, {}), {});
  EXPECT_FALSE(s);
  EXPECT_NE(s.message().find("frob"), std::string::npos) << s.message();
}

class ZooOnOneDnn : public ::testing::TestWithParam<std::string> {};

TEST_P(ZooOnOneDnn, MatchesReferenceAtBatch1) {
  auto g = import_onnx_file(std::string(ROOFLENS_SOURCE_DIR) + "/models/" + GetParam() + ".onnx", {});
  ASSERT_TRUE(g) << g.status().message();
  EXPECT_MATCHES_REFERENCE(*g);
}

INSTANTIATE_TEST_SUITE_P(Zoo, ZooOnOneDnn,
                         ::testing::Values("squeezenet1_1", "shufflenet_v2_x1_0", "mobilenet_v3_small",
                                           "efficientnet_b0", "mnasnet0_5", "resnet18", "convnext_tiny"));

}  // namespace
}  // namespace rooflens
