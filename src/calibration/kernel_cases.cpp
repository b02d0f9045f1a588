// The sampled shapes of each kernel class, as small graphs (see kernel_probe.h). Shapes are
// drawn from the ranges CNNs use (torchvision's zoo and the NATS size space): batch 1-32,
// feature maps 7-112 (224 for stems), 8-1024 channels, 3x3 to 7x7 kernels, strides 1 and 2,
// up to 3 GFLOP; heavy_kernel_cases adds dense 3x3 and 1x1 convolutions of 3-30 GFLOP.
#include <algorithm>
#include <cstdint>

#include "exported_ops.h"
#include "rooflens/calibration/kernel_probe.h"
#include "rooflens/ir/graph_builder.h"

namespace rooflens {
namespace {

// splitmix64: portable and deterministic, unlike the standard distributions.
class Rng {
 public:
  explicit Rng(uint64_t seed) : s_(seed * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull) {}
  uint64_t next() {
    uint64_t z = (s_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  template <typename T>
  T pick(const std::vector<T>& v) {
    return v[next() % v.size()];
  }

 private:
  uint64_t s_;
};

const std::vector<int64_t> kBatches = {1, 1, 2, 4, 8, 8, 16, 32};
const std::vector<int64_t> kSpatial = {7, 14, 14, 28, 28, 56, 56, 112};
const std::vector<int64_t> kChannels = {8,   16,  24,  32,  40,  48,  64,  96,  112, 128,
                                        160, 192, 256, 320, 384, 512, 576, 960, 1024};

std::map<std::string, AttrValue> pool_attrs(int64_t k, int64_t s, int64_t p) {
  return {{"kernel_shape", std::vector<int64_t>{k, k}},
          {"strides", std::vector<int64_t>{s, s}},
          {"pads", std::vector<int64_t>{p, p, p, p}}};
}

// The fused activation: ReLU mostly, SiLU (x * sigmoid(x), EfficientNet's) a third of the time.
ValueId activation(GraphBuilder& b, ValueId y, Rng& r) {
  if (r.next() % 3 == 0) return b.add1("Mul", "probe.silu", {y, b.add1("Sigmoid", "probe.sigmoid", {y})});
  return b.add1("Relu", "probe.relu", {y});
}

ConvSpec spec_of(int64_t stride, int64_t group = 1) {
  ConvSpec s;
  s.stride = stride;
  s.group = group;
  return s;
}

// input [n, c, hw, hw] -> 1x1 adapter conv (its output channels-last, as a model's previous
// layer leaves it).
ValueId adapted_input(GraphBuilder& b, int64_t n, int64_t c, int64_t hw) {
  ValueId x = b.input("x", {n, c, hw, hw});
  return b.conv("adapter", x, c, c, 1, spec_of(1));
}

// A 1x1 conv to 8 channels reads the probed output channels-last and takes the conversion
// of the graph's output.
void consume(GraphBuilder& b, ValueId y, int64_t c, const std::string& name = "consumer") {
  b.output(b.conv(name, y, c, 8, 1, spec_of(1)));
}

double conv_flops(int64_t n, int64_t hw_out, int64_t cin, int64_t cout, int64_t k, int64_t groups = 1) {
  return 2.0 * static_cast<double>(n * hw_out * hw_out * cout) * static_cast<double>(cin / groups * k * k);
}

KernelCase dense_conv(Rng& r, bool pointwise) {
  for (;;) {
    const int64_t n = r.pick(kBatches), stride = r.pick(std::vector<int64_t>{1, 1, 1, 2});
    const bool stem = !pointwise && r.next() % 8 == 0;
    const int64_t hw = stem ? 224 : r.pick(kSpatial);
    const int64_t cin = stem ? 3 : r.pick(kChannels);
    const int64_t k = pointwise ? 1
                      : stem    ? r.pick(std::vector<int64_t>{3, 7})
                                : r.pick(std::vector<int64_t>{3, 3, 3, 5, 7});
    const bool residual = !stem && stride == 1 && r.next() % 3 == 0;
    const int64_t cout = residual ? cin : r.pick(kChannels);
    // Grouped 3x3 convolutions (ResNeXt, RegNet: 2-64 groups of 4 or more channels).
    int64_t group = 1;
    if (!pointwise && !stem && k == 3 && r.next() % 3 == 0) group = r.pick(std::vector<int64_t>{2, 4, 8, 16, 32, 64});
    if (cin % group || cout % group || cin / group < 4) group = 1;
    const int64_t hw_out = (hw + 2 * (k / 2) - k) / stride + 1;
    const double f = conv_flops(n, hw_out, cin, cout, k, group);
    if (f > 3e9 || f < 2e5) continue;
    GraphBuilder b("probe");
    ValueId x = stem ? b.input("x", {n, cin, hw, hw}) : adapted_input(b, n, cin, hw);
    ConvSpec s = spec_of(stride, group);
    s.pad = k / 2;
    ValueId y = b.conv("probe", x, cin, cout, k, s);
    if (residual) y = b.add1("Add", "probe.add", {y, x});  // ResNet's identity shortcut
    y = activation(b, y, r);
    consume(b, y, cout);
    // The stems among them are of the stem class (the probe fits each case in its own class).
    return {pointwise ? "pointwise" : stem ? "stem" : "conv", b.finish(), "probe"};
  }
}

// Dense convolutions of 3-30 GFLOP, past the draws above (which stop at 3): layers of the size
// of VGG's full-resolution stages and of the large models' at batch 8, where a fit drawn from
// smaller ones extrapolates. Batch 8 or 16, 3x3 (1x1 for the pointwise class) from 56x56 to
// 224x224 (28x28 to 112x112), no activation tensor over 64 Mi elements.
KernelCase heavy_conv(Rng& r, bool pointwise) {
  const std::vector<int64_t> spatial =
      pointwise ? std::vector<int64_t>{28, 56, 56, 112} : std::vector<int64_t>{56, 112, 112, 224};
  for (;;) {
    const int64_t n = r.pick(std::vector<int64_t>{8, 8, 16}), stride = r.pick(std::vector<int64_t>{1, 1, 1, 2});
    const int64_t hw = r.pick(spatial), cin = r.pick(kChannels), cout = r.pick(kChannels), k = pointwise ? 1 : 3;
    const int64_t hw_out = (hw + 2 * (k / 2) - k) / stride + 1;
    const double f = conv_flops(n, hw_out, cin, cout, k);
    const double elements = static_cast<double>(n) * std::max(cin * hw * hw, cout * hw_out * hw_out);
    if (f < 3e9 || f > 3e10 || elements > 64.0 * (1 << 20)) continue;
    GraphBuilder b("probe");
    ValueId x = adapted_input(b, n, cin, hw);
    ConvSpec s = spec_of(stride);
    s.pad = k / 2;
    ValueId y = activation(b, b.conv("probe", x, cin, cout, k, s), r);
    consume(b, y, cout);
    return {pointwise ? "pointwise" : "conv", b.finish(), "probe"};
  }
}

// Grouped 3x3 convolutions as ResNeXt and RegNet have them: as many outputs as inputs, in
// groups of 4 to 64 channels, the identity shortcut on a third of the stride-1 ones.
KernelCase grouped_conv(Rng& r) {
  for (;;) {
    const int64_t n = r.pick(kBatches), stride = r.pick(std::vector<int64_t>{1, 1, 1, 2});
    const int64_t hw = r.pick(kSpatial), width = r.pick(std::vector<int64_t>{4, 8, 16, 24, 32, 48, 64});
    const int64_t c = width * r.pick(std::vector<int64_t>{2, 4, 8, 16, 32, 64});
    const int64_t hw_out = (hw - 1) / stride + 1;
    const double f = conv_flops(n, hw_out, c, c, 3, c / width);
    if (c > 2048 || f > 3e9 || f < 2e5) continue;
    GraphBuilder b("probe");
    ValueId x = adapted_input(b, n, c, hw);
    ConvSpec s = spec_of(stride, c / width);
    s.pad = 1;
    ValueId y = b.conv("probe", x, c, c, 3, s);
    if (stride == 1 && r.next() % 3 == 0) y = b.add1("Add", "probe.add", {y, x});
    y = activation(b, y, r);
    consume(b, y, c);
    return {"conv", b.finish(), "probe"};
  }
}

// Stems as the zoo has them: 3 input channels (the image) at 224-300 pixels, 3x3 stride 2
// (MobileNet, EfficientNet, RegNet, Inception), 7x7 stride 2 (ResNet) or 11x11 stride 4
// (AlexNet), 16-64 outputs, read from the row-major graph input.
KernelCase stem_conv(Rng& r) {
  for (;;) {
    const int64_t n = r.pick(kBatches), hw = r.pick(std::vector<int64_t>{224, 224, 240, 260, 299, 300});
    const int64_t k = r.pick(std::vector<int64_t>{3, 3, 3, 7, 11}), stride = k == 11 ? 4 : 2;
    const int64_t cout = r.pick(std::vector<int64_t>{16, 24, 32, 32, 40, 48, 64});
    const int64_t hw_out = (hw + 2 * (k / 2) - k) / stride + 1;
    const double f = conv_flops(n, hw_out, 3, cout, k);
    if (f > 3e9 || f < 2e5) continue;
    GraphBuilder b("probe");
    ConvSpec s = spec_of(stride);
    s.pad = k / 2;
    ValueId y = b.conv("probe", b.input("x", {n, 3, hw, hw}), 3, cout, k, s);
    // Half SiLU (EfficientNet's stems), half ReLU: the activation is much of a stem's time.
    y = r.next() % 2 ? b.add1("Mul", "probe.silu", {y, b.add1("Sigmoid", "probe.sigmoid", {y})})
                     : b.add1("Relu", "probe.relu", {y});
    consume(b, y, cout);
    return {"stem", b.finish(), "probe"};
  }
}

KernelCase depthwise(Rng& r) {
  for (;;) {
    const int64_t n = r.pick(kBatches), hw = r.pick(kSpatial), c = r.pick(kChannels);
    const int64_t k = r.pick(std::vector<int64_t>{3, 3, 5, 7}), stride = r.pick(std::vector<int64_t>{1, 1, 2});
    if (static_cast<double>(n * c * hw * hw) > 6e7) continue;
    GraphBuilder b("probe");
    ValueId x = adapted_input(b, n, c, hw);
    ConvSpec s = spec_of(stride, c);
    s.pad = k / 2;
    ValueId y = activation(b, b.conv("probe", x, c, c, k, s), r);
    consume(b, y, c);
    return {"depthwise", b.finish(), "probe"};
  }
}

// Matrix products with weights. Skinny: classifier heads, a few rows (images) and wide K.
// Otherwise, half each: the per-token linear layers of Vision Transformers (50-1576 tokens,
// 768-4096 channels) and the per-pixel ones of ConvNeXt and Swin (rows = images x pixels,
// 96-3072 channels).
// `epilogue` decides, from a stream of its own (so the shapes stay those drawn before it
// existed), which token and pixel products end in a GELU (ConvNeXt's and ViT's first MLP
// layer, as torch exports it; fused into the product before it): a third of them.
KernelCase gemm(Rng& r, bool skinny, Rng& epilogue) {
  for (;;) {
    int64_t m = 0, k = 0, nn = 0;
    if (skinny) {
      m = r.pick(std::vector<int64_t>{1, 1, 2, 4, 8, 8, 16, 32});
      k = r.pick(std::vector<int64_t>{256, 512, 576, 960, 1024, 1280, 1536, 2048, 4096, 9216, 25088});
      nn = r.pick(std::vector<int64_t>{10, 100, 1000, 1000, 1024, 2048, 4096});
    } else if (r.next() % 2 == 0) {
      m = r.pick(std::vector<int64_t>{50, 197, 197, 400, 1576});
      k = r.pick(std::vector<int64_t>{768, 768, 1024, 3072, 4096});
      nn = r.pick(std::vector<int64_t>{768, 1024, 2304, 3072, 4096});
    } else {
      m = r.pick(std::vector<int64_t>{49, 196, 784, 3136, 6272, 25088});
      k = r.pick(std::vector<int64_t>{96, 192, 384, 768, 1536, 3072});
      nn = r.pick(std::vector<int64_t>{96, 192, 384, 768, 1536, 3072});
    }
    if (static_cast<double>(k) * static_cast<double>(nn) > 1.1e8) continue;
    if (2.0 * static_cast<double>(m) * static_cast<double>(k) * static_cast<double>(nn) > 3e9) continue;
    // As torch exports them: Gemm for a classifier head's [N, K] input, MatMul + Add for a
    // linear layer over tokens or pixels ([1, rows, K]); the backend runs the two as
    // different primitives (inner product, matmul).
    GraphBuilder b("probe");
    ValueId bias = b.weight("probe.bias", {nn});
    if (skinny) {
      ValueId x = b.input("x", {m, k});
      b.output(b.add1("Gemm", "probe", {x, b.weight("probe.weight", {nn, k}), bias}, {{"transB", int64_t{1}}}));
    } else {
      ValueId y = b.add1("MatMul", "probe", {b.input("x", {1, m, k}), b.weight("probe.weight", {k, nn})});
      y = b.add1("Add", "probe.bias_add", {y, bias});
      b.output(epilogue.next() % 3 == 0 ? calibration::exported_gelu(b, "probe", y) : y);
    }
    return {skinny ? "gemm_skinny" : "gemm", b.finish(), "probe"};
  }
}

// Fused attention as Vision Transformers (12-16 heads, 50-257 tokens, head width 64) and
// Swin (windows x heads = 24-768 matrices of 49 tokens, width 32) run it: Q.K^T, a scale,
// then (Swin) a position bias and a mask, Softmax, A.V. Q, K^T and V come in row-major, as
// the matrix products before them leave them.
KernelCase attention(Rng& r) {
  for (;;) {
    const int64_t m = r.pick(std::vector<int64_t>{12, 16, 24, 48, 96, 192, 384, 768, 1536});
    const int64_t q = r.pick(std::vector<int64_t>{49, 49, 50, 64, 197, 257});
    const int64_t kv = r.next() % 4 == 0 ? r.pick(std::vector<int64_t>{49, 50, 64, 197, 257}) : q;
    const int64_t d = r.pick(std::vector<int64_t>{32, 32, 64, 64, 80});
    const int64_t ops = r.pick(std::vector<int64_t>{1, 1, 2, 3});
    const double md = static_cast<double>(m);
    if (4.0 * md * static_cast<double>(q * kv * d) > 3e9 || 4.0 * md * static_cast<double>(q * kv) > 1e8) continue;
    GraphBuilder b("probe");
    ValueId qv = b.input("q", {1, m, q, d});
    ValueId kt = b.input("k_t", {1, m, d, kv});
    ValueId v = b.input("v", {1, m, kv, d});
    ValueId s = b.add1("MatMul", "probe", {qv, kt});
    s = b.add1("Mul", "probe.scale", {s, b.reals("probe.scale_factor", {}, {0.125})});
    if (ops >= 2) s = b.add1("Add", "probe.bias", {s, b.weight("probe.position_bias", {q, kv})});
    if (ops >= 3) s = b.add1("Add", "probe.mask", {s, b.weight("probe.mask_values", {q, kv})});
    ValueId p = b.add1("Softmax", "probe.softmax", {s}, {{"axis", int64_t{-1}}});
    b.output(b.add1("MatMul", "probe.av", {p, v}));
    return {"attention", b.finish(), "probe"};
  }
}

KernelCase pool(Rng& r) {
  for (;;) {
    const int64_t n = r.pick(kBatches), hw = r.pick(kSpatial), c = r.pick(kChannels);
    if (static_cast<double>(n * c * hw * hw) > 6e7) continue;
    GraphBuilder b("probe");
    ValueId x = adapted_input(b, n, c, hw);
    // The pools networks have: ResNet's 3x3 stride-2 max, VGG's 2x2 max, DenseNet's 2x2 average,
    // GoogLeNet's and Inception's 3x3 stride-1 max and average beside their convolutions, and the
    // global average. Until the twenty-ninth pass of issue 30 the probe had no stride-1 pool and no
    // 2x2 max: the fit put Inception v3's stride-1 average pools at 10x their time and VGG's max
    // pools at half of theirs (a max pool takes ~2x an average one's time here, docs/perf-model.md).
    const int kind = static_cast<int>(r.next() % 6);
    ValueId y = kind == 0   ? b.add1("MaxPool", "probe", {x}, pool_attrs(3, 2, 1))
                : kind == 1 ? b.add1("AveragePool", "probe", {x}, pool_attrs(2, 2, 0))
                : kind == 2 ? b.add1("GlobalAveragePool", "probe", {x})
                : kind == 3 ? b.add1("MaxPool", "probe", {x}, pool_attrs(2, 2, 0))
                : kind == 4 ? b.add1("MaxPool", "probe", {x}, pool_attrs(3, 1, 1))
                            : b.add1("AveragePool", "probe", {x}, pool_attrs(3, 1, 1));
    consume(b, y, c);
    return {"pool", b.finish(), "probe"};
  }
}

KernelCase eltwise(Rng& r) {
  for (;;) {
    const int64_t n = r.pick(kBatches), hw = r.pick(kSpatial), c = r.pick(kChannels);
    if (static_cast<double>(n * c * hw * hw) > 3e7) continue;
    GraphBuilder b("probe");
    // Pooling layers (which absorb nothing) before and after keep the probed op a layer of its
    // own: after a convolution it would be fused into it.
    const auto one = pool_attrs(1, 1, 0);
    ValueId x = b.add1("MaxPool", "before", {adapted_input(b, n, c, hw)}, one);
    const bool binary = r.next() % 2 == 0;
    ValueId y;
    if (binary && r.next() % 2 == 0) {  // the scale of a squeeze-and-excitation block: [N, C, 1, 1]
      ValueId s = b.add1("GlobalAveragePool", "squeeze", {x});
      y = b.add1("Mul", "probe", {x, b.add1("MaxPool", "before2", {s}, one)});
    } else if (binary) {
      ValueId x2 = b.conv("adapter2", b.input("x2", {n, c, hw, hw}), c, c, 1, spec_of(1));
      x2 = b.add1("MaxPool", "before2", {x2}, one);
      y = b.add1(r.next() % 2 ? "Add" : "Mul", "probe", {x, x2});
    } else if (r.next() % 3 == 0) {  // DenseNet's pre-activation: batch norm + ReLU on their own
      y = b.add1("Relu", "probe.relu", {b.batchnorm("probe", x, c)});
    } else {
      y = b.add1(r.pick(std::vector<std::string>{"Sigmoid", "Relu", "HardSwish", "Tanh"}), "probe", {x});
    }
    consume(b, b.add1("MaxPool", "after", {y}, one), c);
    return {"eltwise", b.finish(), "probe"};
  }
}

KernelCase move(Rng& r) {
  for (;;) {
    const int64_t n = r.pick(kBatches), hw = r.pick(kSpatial), c = r.pick(kChannels);
    if (static_cast<double>(n * c * hw * hw) > 3e7 || c % 2) continue;
    GraphBuilder b("probe");
    ValueId x = adapted_input(b, n, c, hw);
    const int kind = static_cast<int>(r.next() % 3);
    if (kind == 0) {  // concat of two convolution outputs, as Inception and DenseNet blocks
      ValueId x2 = b.conv("adapter2", b.input("x2", {n, c, hw, hw}), c, c, 1, spec_of(1));
      consume(b, b.add1("Concat", "probe", {x, x2}, {{"axis", int64_t{1}}}), 2 * c);
    } else if (kind == 1) {  // ShuffleNet's channel shuffle: reshape, transpose, reshape
      ValueId v = b.add1("Reshape", "shuffle.view", {x, b.ints("shuffle.shape", {n, 2, c / 2, hw, hw})});
      ValueId t = b.add1("Transpose", "probe", {v}, {{"perm", std::vector<int64_t>{0, 2, 1, 3, 4}}});
      consume(b, b.add1("Reshape", "shuffle.back", {t, b.ints("shuffle.shape2", {n, c, hw, hw})}), c);
    } else {  // a channel split in two
      auto parts = b.add("Split", "probe", {x}, {{"axis", int64_t{1}}}, 2);
      consume(b, parts[0], c / 2, "consumer0");
      consume(b, parts[1], c / 2, "consumer1");
    }
    return {"move", b.finish(), "probe"};
  }
}

constexpr int kGroupedConvShare = 5;  // one conv case in this many is grouped

// FNV-1a of the class name: one random stream per class.
uint64_t class_stream(const std::string& cls) {
  uint64_t h = 1469598103934665603ull;
  for (char ch : cls) h = (h ^ static_cast<unsigned char>(ch)) * 1099511628211ull;
  return h;
}

}  // namespace

std::vector<KernelCase> kernel_cases(const std::string& cls, int count, uint64_t seed) {
  const uint64_t h = class_stream(cls);
  Rng r(seed ^ h);
  // Streams of their own: cases added later leave the draws of the others as they were.
  Rng grouped(seed ^ h ^ 0x67726f75706564ull), epilogue(seed ^ h ^ 0x67656c75ull);
  std::vector<KernelCase> out;
  for (int i = 0; i < count; ++i) {
    if (cls == "conv")  // a fifth of them grouped, the last ones
      out.push_back(i < count - count / kGroupedConvShare ? dense_conv(r, false) : grouped_conv(grouped));
    else if (cls == "stem")
      out.push_back(stem_conv(r));
    else if (cls == "pointwise")
      out.push_back(dense_conv(r, true));
    else if (cls == "depthwise")
      out.push_back(depthwise(r));
    else if (cls == "gemm" || cls == "gemm_skinny")
      out.push_back(gemm(r, cls == "gemm_skinny", epilogue));
    else if (cls == "attention")
      out.push_back(attention(r));
    else if (cls == "pool")
      out.push_back(pool(r));
    else if (cls == "eltwise")
      out.push_back(eltwise(r));
    else if (cls == "move")
      out.push_back(move(r));
  }
  return out;
}

std::vector<KernelCase> heavy_kernel_cases(const std::string& cls, int count, uint64_t seed) {
  std::vector<KernelCase> out;
  if (cls != "conv" && cls != "pointwise") return out;
  Rng r(seed ^ class_stream(cls) ^ 0x6865617679ull);  // a stream of its own
  for (int i = 0; i < count; ++i) out.push_back(heavy_conv(r, cls == "pointwise"));
  return out;
}

}  // namespace rooflens
