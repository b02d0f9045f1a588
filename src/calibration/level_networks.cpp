// The generated networks of the in-network level (see level_networks.h).
#include "rooflens/calibration/level_networks.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "exported_ops.h"
#include "rooflens/ir/graph_builder.h"

namespace rooflens {
namespace {

enum class Act { kNone, kRelu, kRelu6, kSilu };

// A GraphBuilder that names each node after a running count.
class Net {
 public:
  Net(const std::string& name, int64_t batch) : b_(name) { x_ = b_.input("x", {batch, 3, 224, 224}); }

  ValueId input() const { return x_; }
  GraphBuilder& builder() { return b_; }
  std::string id(const std::string& what) { return what + std::to_string(++count_); }

  ValueId act(ValueId y, Act a) {
    switch (a) {
      case Act::kNone: return y;
      case Act::kRelu: return b_.add1("Relu", id("relu"), {y});
      case Act::kRelu6:
        return b_.add1("Clip", id("relu6"), {y, b_.reals(id("lo"), {}, {0.0}), b_.reals(id("hi"), {}, {6.0})});
      case Act::kSilu: return b_.add1("Mul", id("silu"), {y, b_.add1("Sigmoid", id("sigmoid"), {y})});
    }
    return y;
  }

  // Conv, BatchNormalization (as exported before folding) and an activation.
  ValueId conv(ValueId x, int64_t cin, int64_t cout, int64_t k, int64_t stride, Act a, int64_t group = 1) {
    ConvSpec s;
    s.stride = stride;
    s.group = group;
    ValueId y = b_.conv(id("conv"), x, cin, cout, k, s);
    return act(b_.batchnorm(id("bn"), y, cout), a);
  }

  ValueId bn(ValueId x, int64_t c) { return b_.batchnorm(id("bn"), x, c); }

  ValueId pool(const std::string& op, ValueId x, int64_t k, int64_t s, int64_t p) {
    return b_.add1(op, id("pool"), {x},
                   {{"kernel_shape", std::vector<int64_t>{k, k}},
                    {"strides", std::vector<int64_t>{s, s}},
                    {"pads", std::vector<int64_t>{p, p, p, p}}});
  }

  ValueId add(ValueId a, ValueId c) { return b_.add1("Add", id("add"), {a, c}); }

  // Squeeze-excite: pooled, reduced by a 1x1 with SiLU, expanded by a 1x1 with a sigmoid, scaling x.
  ValueId squeeze_excite(ValueId x, int64_t c, int64_t reduced) {
    ConvSpec s;
    s.bias = true;
    ValueId p = b_.add1("GlobalAveragePool", id("se_pool"), {x});
    ValueId r = act(b_.conv(id("se_reduce"), p, c, reduced, 1, s), Act::kSilu);
    ValueId e = b_.add1("Sigmoid", id("se_gate"), {b_.conv(id("se_expand"), r, reduced, c, 1, s)});
    return b_.add1("Mul", id("se_scale"), {x, e});
  }

  ValueId concat(std::vector<ValueId> parts) { return b_.add1("Concat", id("concat"), parts, {{"axis", int64_t{1}}}); }

  // The two halves of x's channels.
  std::vector<ValueId> split(ValueId x) { return b_.add("Split", id("split"), {x}, {{"axis", int64_t{1}}}, 2); }

  // ShuffleNet's channel shuffle of x [batch, c, hw, hw] in two groups: a view, a transpose, a view.
  ValueId shuffle(ValueId x, int64_t batch, int64_t c, int64_t hw) {
    return reshape(transpose(reshape(x, {batch, 2, c / 2, hw, hw}), {0, 2, 1, 3, 4}), {batch, c, hw, hw});
  }

  // y = x W + bias over the last axis of x [..., cin] (MatMul and Add, as torch exports a
  // linear layer over tokens).
  ValueId linear(ValueId x, int64_t cin, int64_t cout) {
    ValueId y = b_.add1("MatMul", id("linear"), {x, b_.weight(id("linear_w"), {cin, cout})});
    return b_.add1("Add", id("linear_bias"), {y, b_.weight(id("linear_b"), {cout})});
  }

  ValueId layer_norm(ValueId x, int64_t c) {
    return b_.add1("LayerNormalization", id("ln"), {x, b_.weight(id("ln_w"), {c}), b_.weight(id("ln_b"), {c})},
                   {{"axis", int64_t{-1}}, {"epsilon", 1e-6}});
  }

  ValueId gelu(ValueId x) { return calibration::exported_gelu(b_, id("gelu"), x); }

  ValueId reshape(ValueId x, std::vector<int64_t> shape) {
    return b_.add1("Reshape", id("view"), {x, b_.ints(id("shape"), std::move(shape))});
  }

  ValueId transpose(ValueId x, std::vector<int64_t> perm) {
    return b_.add1("Transpose", id("transpose"), {x}, {{"perm", std::move(perm)}});
  }

  // Multi-head self-attention over x [batch, tokens, heads * width], as torch exports timm's:
  // one product to Q, K and V, split by heads, Q.K^T scaled, Softmax, A.V, heads merged, a
  // projection.
  ValueId attention(ValueId x, int64_t batch, int64_t tokens, int64_t heads, int64_t width) {
    const int64_t d = heads * width;
    ValueId qkv = transpose(reshape(linear(x, d, 3 * d), {batch, tokens, 3, heads, width}), {2, 0, 3, 1, 4});
    std::vector<ValueId> parts = b_.add("Split", id("split"), {qkv}, {{"axis", int64_t{0}}}, 3);
    for (ValueId& p : parts) p = reshape(p, {batch, heads, tokens, width});
    ValueId s = b_.add1("MatMul", id("scores"), {parts[0], transpose(parts[1], {0, 1, 3, 2})});
    s = b_.add1("Mul", id("scale"), {s, b_.reals(id("scale_factor"), {}, {1.0 / std::sqrt(double(width))})});
    ValueId p = b_.add1("Softmax", id("softmax"), {s}, {{"axis", int64_t{-1}}});
    ValueId o = b_.add1("MatMul", id("av"), {p, parts[2]});
    return linear(reshape(transpose(o, {0, 2, 1, 3}), {batch, tokens, d}), d, d);
  }

  // Global average pool, flatten and a 1000-way classifier.
  Graph finish(ValueId x, int64_t c) {
    ValueId p = b_.add1("GlobalAveragePool", id("gap"), {x});
    ValueId f = b_.add1("Flatten", id("flatten"), {p}, {{"axis", int64_t{1}}});
    b_.output(b_.add1("Gemm", "fc", {f, b_.weight("fc.weight", {1000, c}), b_.weight("fc.bias", {1000})},
                      {{"transB", int64_t{1}}}));
    return b_.finish();
  }

 private:
  GraphBuilder b_;
  ValueId x_;
  int count_ = 0;
};

Graph plain(int64_t batch) {
  Net n("level_plain", batch);
  ValueId x = n.conv(n.input(), 3, 32, 3, 2, Act::kRelu);
  int64_t c = 32;
  for (auto [w, layers] : std::vector<std::pair<int64_t, int>>{{64, 1}, {128, 2}, {256, 2}, {384, 2}}) {
    for (int i = 0; i < layers; ++i, c = w) x = n.conv(x, c, w, 3, 1, Act::kRelu);
    x = n.pool("MaxPool", x, 2, 2, 0);
  }
  return n.finish(x, c);
}

// VGG's full-resolution stages: three 3x3s at 224x224 and three at 112x112 (the plain
// network's first stage is at 112x112 with one layer), then one at 56x56.
Graph plain_full(int64_t batch) {
  Net n("level_plain_full", batch);
  ValueId x = n.conv(n.input(), 3, 32, 3, 1, Act::kRelu);
  int64_t c = 32;
  for (auto [w, layers] : std::vector<std::pair<int64_t, int>>{{48, 3}, {96, 3}, {160, 1}}) {
    for (int i = 0; i < layers; ++i, c = w) x = n.conv(x, c, w, 3, 1, Act::kRelu);
    x = n.pool("MaxPool", x, 2, 2, 0);
  }
  return n.finish(x, c);
}

// A ResNet stem: 7x7 stride 2 and a 3x3 max pool, to 56x56.
ValueId resnet_stem(Net& n, int64_t c) { return n.pool("MaxPool", n.conv(n.input(), 3, c, 7, 2, Act::kRelu), 3, 2, 1); }

Graph basic(int64_t batch) {
  Net n("level_basic", batch);
  ValueId x = resnet_stem(n, 48);
  int64_t c = 48;
  const std::vector<std::pair<int64_t, int>> stages = {{48, 1}, {96, 2}, {192, 2}, {384, 1}};
  for (size_t s = 0; s < stages.size(); ++s)
    for (int i = 0; i < stages[s].second; ++i) {
      const int64_t w = stages[s].first, stride = s > 0 && i == 0 ? 2 : 1;
      ValueId y = n.conv(n.conv(x, c, w, 3, stride, Act::kRelu), w, w, 3, 1, Act::kNone);
      ValueId skip = stride == 1 && c == w ? x : n.conv(x, c, w, 1, stride, Act::kNone);
      x = n.act(n.add(y, skip), Act::kRelu);
      c = w;
    }
  return n.finish(x, c);
}

// Bottleneck blocks: 1x1 down to `w`, 3x3 (in groups of `group_width` channels, or dense when
// 0), 1x1 up to `w * expansion`, the shortcut added.
Graph bottleneck_net(const std::string& name, int64_t batch, ValueId (*stem)(Net&, int64_t), int64_t stem_c,
                     const std::vector<std::pair<int64_t, int>>& stages, int64_t expansion, int64_t group_width) {
  Net n(name, batch);
  ValueId x = stem(n, stem_c);
  int64_t c = stem_c;
  for (size_t s = 0; s < stages.size(); ++s)
    for (int i = 0; i < stages[s].second; ++i) {
      const int64_t w = stages[s].first, out = w * expansion, stride = s > 0 && i == 0 ? 2 : 1;
      ValueId y = n.conv(x, c, w, 1, 1, Act::kRelu);
      y = n.conv(y, w, w, 3, stride, Act::kRelu, group_width > 0 ? w / group_width : 1);
      y = n.conv(y, w, out, 1, 1, Act::kNone);
      ValueId skip = stride == 1 && c == out ? x : n.conv(x, c, out, 1, stride, Act::kNone);
      x = n.act(n.add(y, skip), Act::kRelu);
      c = out;
    }
  return n.finish(x, c);
}

struct InvertedStage {
  int64_t expand, width;
  int blocks;
  int64_t stride, kernel;
};

// Inverted residuals: 1x1 expansion, depthwise kxk, squeeze-excite (when `se`), 1x1 projection,
// the input added when the shape allows; a 1x1 to `last` channels before the head.
Graph inverted_net(const std::string& name, int64_t batch, const std::vector<InvertedStage>& stages, Act a, bool se,
                   int64_t last) {
  Net n(name, batch);
  ValueId x = n.conv(n.input(), 3, 32, 3, 2, a);
  int64_t c = 32;
  for (const InvertedStage& st : stages)
    for (int i = 0; i < st.blocks; ++i) {
      const int64_t mid = c * st.expand, stride = i == 0 ? st.stride : 1;
      ValueId y = st.expand > 1 ? n.conv(x, c, mid, 1, 1, a) : x;
      y = n.conv(y, mid, mid, st.kernel, stride, a, mid);
      if (se) y = n.squeeze_excite(y, mid, std::max<int64_t>(8, c / 4));
      y = n.conv(y, mid, st.width, 1, 1, Act::kNone);
      x = stride == 1 && c == st.width ? n.add(y, x) : y;
      c = st.width;
    }
  return n.finish(n.conv(x, c, last, 1, 1, a), last);
}

// ShuffleNetV2 units: a stage opens with two strided branches (a depthwise 3x3 and a 1x1; a
// 1x1, a depthwise 3x3 and a 1x1), then each unit splits the channels in two, runs one half
// through the 1x1-depthwise-1x1 branch and concatenates; every unit ends in a channel shuffle.
Graph shuffle_net(int64_t batch) {
  Net n("level_shuffle", batch);
  ValueId x = n.pool("MaxPool", n.conv(n.input(), 3, 24, 3, 2, Act::kRelu), 3, 2, 1);
  int64_t c = 24, hw = 56;
  for (auto [w, units] : std::vector<std::pair<int64_t, int>>{{144, 3}, {288, 5}, {576, 3}}) {
    const int64_t half = w / 2;
    hw /= 2;
    ValueId left = n.conv(n.conv(x, c, c, 3, 2, Act::kNone, c), c, half, 1, 1, Act::kRelu);
    ValueId right = n.conv(x, c, half, 1, 1, Act::kRelu);
    right = n.conv(n.conv(right, half, half, 3, 2, Act::kNone, half), half, half, 1, 1, Act::kRelu);
    x = n.shuffle(n.concat({left, right}), batch, w, hw);
    c = w;
    for (int u = 1; u < units; ++u) {
      const std::vector<ValueId> parts = n.split(x);
      ValueId y = n.conv(parts[1], half, half, 1, 1, Act::kRelu);
      y = n.conv(n.conv(y, half, half, 3, 1, Act::kNone, half), half, half, 1, 1, Act::kRelu);
      x = n.shuffle(n.concat({parts[0], y}), batch, w, hw);
    }
  }
  return n.finish(n.conv(x, c, 1024, 1, 1, Act::kRelu), 1024);
}

Graph dense(int64_t batch) {
  Net n("level_dense", batch);
  ValueId x = resnet_stem(n, 48);
  int64_t c = 48;
  const int64_t growth = 24;
  const std::vector<int> blocks = {4, 6, 6, 4};
  for (size_t b = 0; b < blocks.size(); ++b) {
    for (int i = 0; i < blocks[b]; ++i) {
      // Pre-activation: normalisation and ReLU before each convolution.
      ValueId y = n.act(n.bn(x, c), Act::kRelu);
      y = n.conv(y, c, 4 * growth, 1, 1, Act::kRelu);
      y = n.conv(y, 4 * growth, growth, 3, 1, Act::kNone);
      x = n.concat({x, y});
      c += growth;
    }
    if (b + 1 == blocks.size()) break;
    ValueId y = n.conv(n.act(n.bn(x, c), Act::kRelu), c, c / 2, 1, 1, Act::kNone);
    x = n.pool("AveragePool", y, 2, 2, 0);
    c /= 2;
  }
  return n.finish(n.act(n.bn(x, c), Act::kRelu), c);
}

// A Vision Transformer's encoder: 16x16 patches (196 tokens at 224x224), blocks of pre-norm
// attention and a 4x GELU MLP, each added to its input; the tokens back on their 14x14 grid for
// the head. 576 wide in 9 heads of 64, 5 blocks: no bundled ViT's width or depth.
Graph transformer(int64_t batch) {
  constexpr int64_t kWidth = 576, kHeads = 9, kSide = 14, kBlocks = 5;
  constexpr int64_t kTokens = kSide * kSide;
  Net n("level_transformer", batch);
  ConvSpec patch;
  patch.stride = 16;
  patch.bias = true;
  ValueId x = n.builder().conv(n.id("patch"), n.input(), 3, kWidth, 16, patch);
  x = n.transpose(n.reshape(x, {batch, kWidth, kTokens}), {0, 2, 1});
  x = n.add(x, n.builder().weight(n.id("position"), {1, kTokens, kWidth}));
  for (int i = 0; i < kBlocks; ++i) {
    x = n.add(x, n.attention(n.layer_norm(x, kWidth), batch, kTokens, kHeads, kWidth / kHeads));
    ValueId m = n.gelu(n.linear(n.layer_norm(x, kWidth), kWidth, 4 * kWidth));
    x = n.add(x, n.linear(m, 4 * kWidth, kWidth));
  }
  x = n.transpose(n.layer_norm(x, kWidth), {0, 2, 1});
  return n.finish(n.reshape(x, {batch, kWidth, kSide, kSide}), kWidth);
}

}  // namespace

std::vector<LevelNetwork> level_networks(int64_t batch) {
  std::vector<LevelNetwork> out;
  out.push_back({"plain", plain(batch)});
  out.push_back({"plain_full", plain_full(batch)});
  out.push_back({"basic", basic(batch)});
  out.push_back({"bottleneck", bottleneck_net("level_bottleneck", batch, resnet_stem, 48,
                                              {{40, 1}, {80, 2}, {160, 2}, {320, 1}}, 4, 0)});
  // The grouped convolutions at 56x56 and below, where ResNeXts and RegNets have theirs: with a
  // stage at 112x112 (2026-12-06, 04:19 UTC) the 16-channel groups read 1.93x the fit at batch
  // 8, the zoo's RegNets of 16-24 1.1-1.5x.
  out.push_back({"grouped", bottleneck_net("level_grouped", batch, resnet_stem, 32,
                                           {{48, 1}, {112, 2}, {256, 3}, {592, 1}}, 1, 16)});
  out.push_back({"grouped_wide", bottleneck_net("level_grouped_wide", batch, resnet_stem, 48,
                                                {{192, 1}, {384, 1}, {768, 1}, {1536, 1}}, 1, 96)});
  out.push_back({"inverted", inverted_net("level_inverted", batch,
                                          {{1, 16, 1, 1, 3},
                                           {6, 24, 2, 2, 3},
                                           {6, 40, 2, 2, 3},
                                           {6, 72, 2, 2, 3},
                                           {6, 104, 1, 1, 3},
                                           {6, 176, 2, 2, 3}},
                                          Act::kRelu6, false, 1024)});
  out.push_back({"inverted_se", inverted_net("level_inverted_se", batch,
                                             {{1, 16, 1, 1, 3},
                                              {6, 24, 2, 2, 3},
                                              {6, 48, 2, 2, 5},
                                              {6, 88, 2, 2, 3},
                                              {6, 120, 1, 1, 5},
                                              {6, 208, 2, 2, 5}},
                                             Act::kSilu, true, 1280)});
  out.push_back({"shuffle", shuffle_net(batch)});
  out.push_back({"dense", dense(batch)});
  out.push_back({"transformer", transformer(batch)});
  return out;
}

}  // namespace rooflens
