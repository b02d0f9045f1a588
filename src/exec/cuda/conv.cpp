// Conv layers on cuDNN: NHWC activations and KRSC weights in the compute dtype,
// BatchNormalization folded into the weights, the fastest algorithm that fits the
// workspace chosen by cudnnFindConvolutionForwardAlgorithmEx and its candidates timed again
// on this device (as cudnn.benchmark does, and more), and conv + bias (+ residual add) (+ ReLU) as one
// cudnnConvolutionBiasActivationForward call where cuDNN accepts it; otherwise the
// convolution and element-wise kernels for the rest.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>
#include <tuple>
#include <vector>

#include "cuda_backend.h"
#include "rooflens/exec/weights.h"

namespace rooflens::cuda {
namespace {

const char* algo_name(cudnnConvolutionFwdAlgo_t a) {
  switch (a) {
    case CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM: return "implicit_gemm";
    case CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM: return "implicit_precomp_gemm";
    case CUDNN_CONVOLUTION_FWD_ALGO_GEMM: return "gemm";
    case CUDNN_CONVOLUTION_FWD_ALGO_DIRECT: return "direct";
    case CUDNN_CONVOLUTION_FWD_ALGO_FFT: return "fft";
    case CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING: return "fft_tiling";
    case CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD: return "winograd";
    case CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED: return "winograd_nonfused";
    default: return "unknown";
  }
}
const char* math_name(cudnnMathType_t m) {
  switch (m) {
    case CUDNN_TENSOR_OP_MATH: return "tensor_op";
    case CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION: return "tensor_op_conv";
    case CUDNN_FMA_MATH: return "fma";
    default: return "default";
  }
}

// cuDNN descriptors of one convolution, destroyed with the step that uses them.
struct ConvDescs {
  cudnnTensorDescriptor_t x = nullptr, y = nullptr, bias = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  cudnnActivationDescriptor_t act = nullptr;
  ~ConvDescs() {
    if (x) cudnnDestroyTensorDescriptor(x);
    if (y) cudnnDestroyTensorDescriptor(y);
    if (bias) cudnnDestroyTensorDescriptor(bias);
    if (w) cudnnDestroyFilterDescriptor(w);
    if (conv) cudnnDestroyConvolutionDescriptor(conv);
    if (act) cudnnDestroyActivationDescriptor(act);
  }
};

// The symmetric padding cuDNN's convolution descriptor takes (pads resolved from auto_pad
// by shape inference); unsupported when asymmetric.
Status spatial_pads(const WindowDesc& win, int64_t pad[2]) {
  const std::vector<int64_t>& p = win.pads;  // top, left, bottom, right
  if (p[0] != p[2] || p[1] != p[3])
    return Status::unsupported(
        fmt::format("asymmetric padding (pads {},{},{},{}) cannot be expressed in cuDNN's "
                    "convolution descriptor",
                    p[0], p[1], p[2], p[3]));
  pad[0] = p[0];
  pad[1] = p[1];
  return Status::ok();
}

Expected<size_t> build_depthwise(CudaBackend& b, const LayerReport& L, const Tensor& w, const Tensor& bias, size_t next,
                                 ValueId tip) {
  const Graph& g = b.graph();
  const Node& n = g.node(L.nodes[0]);
  const Shape& xs = *g.value(n.inputs[0]).shape;
  const Shape& ys = *g.value(n.outputs[0]).shape;
  const int64_t c = xs[1], kh = w.shape[2], kw = w.shape[3];
  const auto& win = std::get<WindowDesc>(n.desc);
  const auto& st = win.strides;
  const auto& dil = win.dilations;
  const auto& pad = win.pads;  // the kernel takes the begin pads; the output size is the graph's
  Activation act;
  if (b.options().fuse_conv_epilogue) {
    act = activation_after(g, L, next, tip);
    if (act.post.kind != EwPost::kNone) {
      tip = act.out;
      next += act.nodes;
    }
  }
  // [c][1][kh][kw] -> [kh][kw][c]: neighbouring threads (channels) read neighbouring weights.
  std::vector<float> hwc(w.data.size());
  for (int64_t ch = 0; ch < c; ++ch)
    for (int64_t r = 0; r < kh * kw; ++r)
      hwc[static_cast<size_t>(r * c + ch)] = w.data[static_cast<size_t>(ch * kh * kw + r)];
  auto wdev = b.upload(hwc);
  if (!wdev) return wdev.status();
  auto bdev = b.upload(bias.data);
  if (!bdev) return bdev.status();
  auto x = b.value_as(n.inputs[0], true);
  if (!x) return x.status();
  auto y = b.new_output(tip);
  if (!y) return y.status();
  const auto I = [](int64_t v) { return static_cast<int>(v); };
  const DwShape p{I(xs[0]), I(c),     I(xs[2]), I(xs[3]),  I(ys[2]),  I(ys[3]),  I(kh),
                  I(kw),    I(st[0]), I(st[1]), I(pad[0]), I(pad[1]), I(dil[0]), I(dil[1])};
  const void* xp = x->ptr;
  const void* wp = *wdev;
  const void* bp = *bdev;
  void* yp = y->ptr;
  const Elem e = b.elem();
  const EwPostOp post = act.post;
  b.add_step(
      [=](cudaStream_t s) {
        return cuda_status(launch_depthwise_nhwc(e, xp, wp, bp, yp, p, post, s), "depthwise " + L.desc);
      },
      std::string("rooflens:depthwise+bias") + post_name(post));
  b.set_value(tip, *y);
  return next;
}

// OIHW -> OHWI (KRSC), the filter layout of NHWC convolutions.
std::vector<float> to_krsc(const Tensor& w) {
  const int64_t m = w.shape[0], ci = w.shape[1], kh = w.shape[2], kw = w.shape[3];
  std::vector<float> krsc(w.data.size());
  for (int64_t o = 0; o < m; ++o)
    for (int64_t c = 0; c < ci; ++c)
      for (int64_t r = 0; r < kh; ++r)
        for (int64_t s = 0; s < kw; ++s)
          krsc[static_cast<size_t>(((o * kh + r) * kw + s) * ci + c)] =
              w.data[static_cast<size_t>(((o * ci + c) * kh + r) * kw + s)];
  return krsc;
}

// cuDNN's descriptors of an NHWC convolution of x `xs` into y `ys` with KRSC filters
// `filter` (m, ci, kh, kw); unsupported when cuDNN's output size differs from the graph's.
Expected<std::shared_ptr<ConvDescs>> make_conv_descs(CudaBackend& b, const Shape& xs, const Shape& ys,
                                                     const std::array<int64_t, 4>& filter, const int64_t pad[2],
                                                     const std::vector<int64_t>& st, const std::vector<int64_t>& dil,
                                                     int64_t group) {
  auto d = std::make_shared<ConvDescs>();
  const cudnnDataType_t dt = b.cudnn_type();
  const auto I = [](int64_t v) { return static_cast<int>(v); };
  const auto [m, ci, kh, kw] = filter;
  ROOFLENS_RETURN_IF_ERROR(cudnn_status(cudnnCreateTensorDescriptor(&d->x), "descriptor"));
  ROOFLENS_RETURN_IF_ERROR(cudnn_status(cudnnCreateTensorDescriptor(&d->y), "descriptor"));
  ROOFLENS_RETURN_IF_ERROR(cudnn_status(cudnnCreateTensorDescriptor(&d->bias), "descriptor"));
  ROOFLENS_RETURN_IF_ERROR(cudnn_status(cudnnCreateFilterDescriptor(&d->w), "descriptor"));
  ROOFLENS_RETURN_IF_ERROR(cudnn_status(cudnnCreateConvolutionDescriptor(&d->conv), "descriptor"));
  ROOFLENS_RETURN_IF_ERROR(cudnn_status(cudnnCreateActivationDescriptor(&d->act), "descriptor"));
  ROOFLENS_RETURN_IF_ERROR(
      cudnn_status(cudnnSetTensor4dDescriptor(d->x, CUDNN_TENSOR_NHWC, dt, I(xs[0]), I(xs[1]), I(xs[2]), I(xs[3])),
                   "input descriptor " + shape_str(xs)));
  ROOFLENS_RETURN_IF_ERROR(
      cudnn_status(cudnnSetTensor4dDescriptor(d->y, CUDNN_TENSOR_NHWC, dt, I(ys[0]), I(ys[1]), I(ys[2]), I(ys[3])),
                   "output descriptor " + shape_str(ys)));
  ROOFLENS_RETURN_IF_ERROR(
      cudnn_status(cudnnSetTensor4dDescriptor(d->bias, CUDNN_TENSOR_NCHW, dt, 1, I(m), 1, 1), "bias descriptor"));
  ROOFLENS_RETURN_IF_ERROR(cudnn_status(
      cudnnSetFilter4dDescriptor(d->w, dt, CUDNN_TENSOR_NHWC, I(m), I(ci), I(kh), I(kw)), "filter descriptor"));
  ROOFLENS_RETURN_IF_ERROR(
      cudnn_status(cudnnSetConvolution2dDescriptor(d->conv, I(pad[0]), I(pad[1]), I(st[0]), I(st[1]), I(dil[0]),
                                                   I(dil[1]), CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
                   "convolution descriptor"));
  ROOFLENS_RETURN_IF_ERROR(cudnn_status(cudnnSetConvolutionGroupCount(d->conv, I(group)), "group count"));
  const cudnnMathType_t math = b.elem() == Elem::kF16 ? CUDNN_TENSOR_OP_MATH : CUDNN_FMA_MATH;
  ROOFLENS_RETURN_IF_ERROR(cudnn_status(cudnnSetConvolutionMathType(d->conv, math), "math type"));
  int on = 0, oc = 0, oh = 0, ow = 0;
  ROOFLENS_RETURN_IF_ERROR(
      cudnn_status(cudnnGetConvolution2dForwardOutputDim(d->conv, d->x, d->w, &on, &oc, &oh, &ow), "output size"));
  if (on != ys[0] || oc != ys[1] || oh != ys[2] || ow != ys[3])
    return Status::unsupported("cuDNN computes output " + std::to_string(on) + "x" + std::to_string(oc) + "x" +
                               std::to_string(oh) + "x" + std::to_string(ow) + ", the graph says " + shape_str(ys));
  return d;
}

// The algorithms found in this process, per device and convolution (shapes, geometry,
// dtype, workspace): a second backend for the same model (eager, then as a CUDA graph) or
// another model with the same layer does not search again, as cudnn.benchmark keeps its
// choices for the process.
std::mutex& found_mutex() {
  static std::mutex m;
  return m;
}
std::map<std::string, cudnnConvolutionFwdAlgoPerf_t>& found_algorithms() {
  static std::map<std::string, cudnnConvolutionFwdAlgoPerf_t> m;
  return m;
}

std::string algorithm_key(const CudaBackend& b, const Shape& xs, const Shape& ys, const std::array<int64_t, 4>& filter,
                          const int64_t pad[2], const std::vector<int64_t>& st, const std::vector<int64_t>& dil,
                          int64_t group) {
  return fmt::format("dev{} {} x{} y{} w{}x{}x{}x{} p{},{} s{},{} d{},{} g{} ws{}", b.options().device,
                     b.elem() == Elem::kF16 ? "f16" : "f32", shape_str(xs), shape_str(ys), filter[0], filter[1],
                     filter[2], filter[3], pad[0], pad[1], st[0], st[1], dil[0], dil[1], group, b.workspace_bytes());
}

// cuDNN's search times each algorithm once, and its ranking did not hold when the layers
// ran: on the H200 (2026-12-04) it put fp16 1x1 convolutions on CUDA-core IMPLICIT_GEMM,
// which then ran 3-10x slower than the tensor-op kernels of the same layers' neighbours
// (ResNet-50 batch 1: 23-159 us against 8-15 us; MobileNetV2 batch 256: 205-286 us against
// 17-35 us). So the usable candidates are timed again, as they will run, and the fastest
// kept: the first kRetimed of the search's order, and its first tensor-op one in fp16.
constexpr int kRetimed = 4;
constexpr int kRetimeWarmups = 2, kRetimeRuns = 5;

bool tensor_op(cudnnMathType_t m) { return m == CUDNN_TENSOR_OP_MATH || m == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION; }

bool usable(const CudaBackend& b, const cudnnConvolutionFwdAlgoPerf_t& p) {
  return p.status == CUDNN_STATUS_SUCCESS && p.memory <= b.workspace_bytes() &&
         (b.elem() == Elem::kF16 || !tensor_op(p.mathType));
}

std::vector<cudnnConvolutionFwdAlgoPerf_t> retime_candidates(const CudaBackend& b,
                                                             const cudnnConvolutionFwdAlgoPerf_t* perf, int found) {
  std::vector<cudnnConvolutionFwdAlgoPerf_t> out;
  bool tensor_op_in = false;
  for (int i = 0; i < found; ++i) {
    if (!usable(b, perf[i])) continue;
    const bool tc = tensor_op(perf[i].mathType);
    if (static_cast<int>(out.size()) < kRetimed || (tc && !tensor_op_in)) out.push_back(perf[i]);
    tensor_op_in = tensor_op_in || tc;
  }
  return out;
}

// Milliseconds per call of the convolution with `p`'s algorithm and math type, as the layer
// will call it (mean of kRetimeRuns after kRetimeWarmups); nullopt when cuDNN refuses it.
std::optional<float> time_algorithm(CudaBackend& b, const ConvDescs& d, const void* x, const void* w, void* y,
                                    const cudnnConvolutionFwdAlgoPerf_t& p) {
  if (cudnnSetConvolutionMathType(d.conv, p.mathType) != CUDNN_STATUS_SUCCESS) return std::nullopt;
  const float one = 1.f, zero = 0.f;
  auto call = [&] {
    return cudnnConvolutionForward(b.cudnn(), &one, d.x, x, d.w, w, d.conv, p.algo, b.workspace(), b.workspace_bytes(),
                                   &zero, d.y, y) == CUDNN_STATUS_SUCCESS;
  };
  for (int i = 0; i < kRetimeWarmups; ++i)
    if (!call()) return std::nullopt;
  cudaEvent_t start, stop;
  if (cudaEventCreate(&start) != cudaSuccess) return std::nullopt;
  if (cudaEventCreate(&stop) != cudaSuccess) {
    cudaEventDestroy(start);
    return std::nullopt;
  }
  bool ok = cudaEventRecord(start, b.stream()) == cudaSuccess;
  for (int i = 0; ok && i < kRetimeRuns; ++i) ok = call();
  ok = ok && cudaEventRecord(stop, b.stream()) == cudaSuccess && cudaEventSynchronize(stop) == cudaSuccess;
  float ms = 0;
  ok = ok && cudaEventElapsedTime(&ms, start, stop) == cudaSuccess;
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return ok ? std::optional<float>(ms / kRetimeRuns) : std::nullopt;
}

// The fastest forward algorithm within the workspace, timed on this device (fp32: no
// tensor-op math): cuDNN's search, its candidates retimed; `key` (algorithm_key) looks up
// and keeps the choice for the process.
Expected<cudnnConvolutionFwdAlgoPerf_t> fastest_algorithm(CudaBackend& b, const ConvDescs& d, const void* x,
                                                          const void* w, void* y, const std::string& desc,
                                                          const std::string& key) {
  {
    std::lock_guard<std::mutex> lock(found_mutex());
    auto it = found_algorithms().find(key);
    if (it != found_algorithms().end()) return it->second;
  }
  cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
  int found = 0;
  ROOFLENS_RETURN_IF_ERROR(cudnn_status(cudnnFindConvolutionForwardAlgorithmEx(
                                            b.cudnn(), d.x, x, d.w, w, d.conv, d.y, y, CUDNN_CONVOLUTION_FWD_ALGO_COUNT,
                                            &found, perf, b.workspace(), b.workspace_bytes()),
                                        "algorithm search"));
  std::optional<cudnnConvolutionFwdAlgoPerf_t> best;
  for (cudnnConvolutionFwdAlgoPerf_t p : retime_candidates(b, perf, found)) {
    auto ms = time_algorithm(b, d, x, w, y, p);
    if (!ms) continue;
    p.time = *ms;
    if (!best || p.time < best->time) best = p;
  }
  ROOFLENS_RETURN_IF_ERROR(cuda_status(cudaGetLastError(), "algorithm timing"));
  if (!best) return Status::unsupported("cuDNN found no forward algorithm for " + desc + " within the workspace");
  std::lock_guard<std::mutex> lock(found_mutex());
  found_algorithms()[key] = *best;
  return *best;
}

struct ConvGeometry {
  const int64_t* pad;  // 2 values
  const std::vector<int64_t>& st;
  const std::vector<int64_t>& dil;
  int64_t group;
};

// The convolution on an input padded with zero channels to a multiple of 8.
struct PaddedConv {
  std::shared_ptr<ConvDescs> d;
  cudnnConvolutionFwdAlgoPerf_t perf{};
  void* w = nullptr;  // KRSC filters, zero taps on the added channels
  void* x = nullptr;  // the padded input, N x ci8 x H x W NHWC
  DevValue x_view;    // its real channels: where each run copies the input
  int64_t ci = 0;     // ci8
};

// Tensor cores take channel counts that are multiples of 8. An fp16 convolution whose input
// channels are not (conv1's 3; odd-width 1x1s) is also searched on an input padded with zero
// channels (zeroed once at prepare; each run copies the real channels in) and zero filter
// taps, and runs that way when cuDNN's timings, with the copy estimated at 2.5 TB/s, say it
// is faster (as TensorRT pads conv1). nullopt when it is not, or not applicable.
Expected<std::optional<PaddedConv>> padded_input_conv(CudaBackend& b, const LayerReport& L, const Tensor& w,
                                                      const Shape& xs, const Shape& ys, const ConvGeometry& geo,
                                                      const cudnnConvolutionFwdAlgoPerf_t& unpadded, void* y) {
  const int64_t m = w.shape[0], ci = w.shape[1], kh = w.shape[2], kw = w.shape[3];
  const std::optional<PaddedConv> none;
  if (b.elem() != Elem::kF16 || !b.options().pad_channels || geo.group != 1 || ci % 8 == 0) return none;
  const int64_t ci8 = (ci + 7) / 8 * 8;
  Tensor wp = Tensor::zeros({m, ci8, kh, kw});
  for (int64_t o = 0; o < m; ++o)
    for (int64_t c = 0; c < ci; ++c)
      for (int64_t r = 0; r < kh * kw; ++r)
        wp.data[static_cast<size_t>((o * ci8 + c) * kh * kw + r)] =
            w.data[static_cast<size_t>((o * ci + c) * kh * kw + r)];
  Shape xs8 = xs;
  xs8[1] = ci8;
  auto d8 = make_conv_descs(b, xs8, ys, {m, ci8, kh, kw}, geo.pad, geo.st, geo.dil, 1);
  if (!d8) return none;  // cuDNN refuses the padded form: keep the plain one
  auto wdev = b.upload(to_krsc(wp));
  if (!wdev) return wdev.status();
  const int64_t x8_elems = xs8[0] * ci8 * xs8[2] * xs8[3];
  auto x8 = b.alloc(static_cast<size_t>(x8_elems) * 2);
  if (!x8) return x8.status();
  ROOFLENS_RETURN_IF_ERROR(cuda_status(cudaMemset(*x8, 0, static_cast<size_t>(x8_elems) * 2), "padded input"));
  auto perf = fastest_algorithm(b, **d8, *x8, *wdev, y, L.desc,
                                algorithm_key(b, xs8, ys, {m, ci8, kh, kw}, geo.pad, geo.st, geo.dil, 1));
  if (!perf) return none;
  const double copy_ms = 1e3 * (3e-6 + 2.0 * 2 * static_cast<double>(xs[0] * ci * xs[2] * xs[3]) / 2.5e12);
  if (perf->time + copy_ms >= unpadded.time) return none;
  const int64_t hw = xs[2] * xs[3];
  DevValue view{*x8, xs, Elem::kF16, false, {hw * ci8, 1, xs[3] * ci8, ci8}};
  return std::optional<PaddedConv>(PaddedConv{*d8, *perf, *wdev, *x8, std::move(view), ci8});
}

// The epilogue cuDNN can fuse after the convolution (and the BatchNormalization folded into
// it): the residual Add the fusion found (L.residual) when it directly follows, then ReLU
// or Clip. `next` and `tip` advance past what it covers.
struct ConvEpilogue {
  size_t next = 0;
  ValueId tip = kNoValue;
  ValueId residual = kNoValue;
  Activation act;
};
ConvEpilogue conv_epilogue(const CudaBackend& b, const LayerReport& L, size_t next, ValueId tip) {
  ConvEpilogue e{next, tip, kNoValue, {}};
  if (!b.options().fuse_conv_epilogue) return e;
  const Graph& g = b.graph();
  if (L.residual != kNoValue && e.next < L.nodes.size()) {
    const Node& a = g.node(L.nodes[e.next]);
    if (a.kind == OpKind::kAdd && a.inputs.size() == 2 &&
        ((a.inputs[0] == e.tip && a.inputs[1] == L.residual) || (a.inputs[1] == e.tip && a.inputs[0] == L.residual))) {
      e.residual = L.residual;
      e.tip = a.outputs[0];
      ++e.next;
    }
  }
  e.act = activation_after(g, L, e.next, e.tip);
  if (e.act.post.kind != EwPost::kNone) {
    e.tip = e.act.out;
    e.next += e.act.nodes;
  }
  return e;
}

}  // namespace

const char* post_name(EwPostOp p) {
  switch (p.kind) {
    case EwPost::kRelu: return "+relu";
    case EwPost::kClip: return "+clip";
    case EwPost::kHardSwish: return "+hardswish";
    case EwPost::kSigmoid: return "+sigmoid";
    case EwPost::kHardSigmoid: return "+hardsigmoid";
    case EwPost::kSwish: return "+swish";
    default: return "";
  }
}

namespace {

// `v` is read by `readers` nodes and is no graph output: once fused away, nobody misses it.
bool only_read_by(const Graph& g, ValueId v, size_t readers) {
  if (g.value(v).consumers.size() != readers) return false;
  return std::find(g.outputs.begin(), g.outputs.end(), v) == g.outputs.end();
}

}  // namespace

Activation activation_after(const Graph& g, const LayerReport& L, size_t next, ValueId tip) {
  Activation a;
  if (next >= L.nodes.size()) return a;
  const Node& n = g.node(L.nodes[next]);
  if (n.inputs.empty() || n.inputs[0] != tip) return a;
  if (n.kind == OpKind::kRelu) a.post.kind = EwPost::kRelu;
  if (n.kind == OpKind::kHardSwish) a.post.kind = EwPost::kHardSwish;
  if (n.kind == OpKind::kClip) {
    a.post.kind = EwPost::kClip;
    std::tie(a.post.lo, a.post.hi) = clip_bounds(n);
  }
  if (n.kind == OpKind::kHardSigmoid && only_read_by(g, tip, 1)) {
    const auto& d = std::get<ActivationDesc>(n.desc);
    a.post = {EwPost::kHardSigmoid, static_cast<float>(d.alpha), static_cast<float>(d.beta)};
  }
  if (n.kind == OpKind::kSigmoid) {
    // Swish written out (x * sigmoid(x), EfficientNet's SiLU): the Mul right after it
    // reads the tip and the gate, and nothing else reads either.
    const ValueId gate = n.outputs[0];
    if (next + 1 < L.nodes.size() && only_read_by(g, tip, 2) && only_read_by(g, gate, 1)) {
      const Node& m = g.node(L.nodes[next + 1]);
      if (m.kind == OpKind::kMul && m.inputs.size() == 2 &&
          ((m.inputs[0] == tip && m.inputs[1] == gate) || (m.inputs[0] == gate && m.inputs[1] == tip))) {
        a.post.kind = EwPost::kSwish;
        a.out = m.outputs[0];
        a.nodes = 2;
        return a;
      }
    }
    if (only_read_by(g, tip, 1)) a.post.kind = EwPost::kSigmoid;
  }
  if (a.post.kind != EwPost::kNone) a.out = n.outputs[0];
  return a;
}

Expected<size_t> build_conv(CudaBackend& b, const LayerReport& L) {
  const Graph& g = b.graph();
  const Node& n = g.node(L.nodes[0]);
  const Shape& xs = *g.value(n.inputs[0]).shape;
  const Shape& ys = *g.value(n.outputs[0]).shape;
  if (xs.size() != 4) return Status::unsupported("only 2-D convolutions run on the CUDA backend");
  if (!g.value(n.inputs[1]).is_stored) return Status::unsupported("convolution weights computed at run time");
  auto wt = stored_tensor(g, n.inputs[1], b.seed());
  if (!wt) return wt.status();
  Tensor w = std::move(*wt);
  const int64_t m = ys[1];
  Tensor bias = Tensor::zeros({m});
  if (n.inputs.size() > 2 && n.inputs[2] != kNoValue) {
    auto bt = stored_tensor(g, n.inputs[2], b.seed());
    if (!bt) return bt.status();
    bias = std::move(*bt);
  }
  size_t next = 1;
  ValueId tip = n.outputs[0];
  if (L.folded_bn >= 0) {  // fusion folded it (nodes[1]): into the weights and bias
    ROOFLENS_RETURN_IF_ERROR(fold_batchnorm(g, L.folded_bn, b.seed(), &w, &bias));
    tip = g.node(L.folded_bn).outputs[0];
    next = 2;
  }
  const auto& win = std::get<WindowDesc>(n.desc);  // 2 spatial dims (checked above)
  const int64_t group = win.groups;
  const auto k = std::vector<int64_t>{w.shape[2], w.shape[3]};
  const auto& st = win.strides;
  const auto& dil = win.dilations;
  // Depthwise (one filter per channel): rooflens's own kernel with bias and activation.
  if (group > 1 && group == xs[1] && m == group && w.shape[1] == 1) return build_depthwise(b, L, w, bias, next, tip);

  const ConvEpilogue ep = conv_epilogue(b, L, next, tip);
  next = ep.next;
  tip = ep.tip;
  const ValueId residual = ep.residual;
  const Activation act = ep.act;
  const bool relu = act.post.kind == EwPost::kRelu;
  int64_t pad[2];
  ROOFLENS_RETURN_IF_ERROR(spatial_pads(win, pad));

  const int64_t ci = w.shape[1], kh = k[0], kw = k[1];
  auto wdev = b.upload(to_krsc(w));
  if (!wdev) return wdev.status();
  auto bdev = b.upload(bias.data);
  if (!bdev) return bdev.status();
  auto x = b.value_as(n.inputs[0], true);
  if (!x) return x.status();
  DevValue zval;
  if (residual != kNoValue) {
    auto z = b.value_as(residual, true);
    if (!z) return z.status();
    zval = *z;
  }
  auto y = b.new_output(tip);
  if (!y) return y.status();

  auto descs = make_conv_descs(b, xs, ys, {m, ci, kh, kw}, pad, st, dil, group);
  if (!descs) return descs.status();
  std::shared_ptr<ConvDescs> d = *descs;
  auto best = fastest_algorithm(b, *d, x->ptr, *wdev, y->ptr, L.desc,
                                algorithm_key(b, xs, ys, {m, ci, kh, kw}, pad, st, dil, group));
  if (!best) return best.status();
  cudnnConvolutionFwdAlgoPerf_t perf = *best;
  const void* xp = x->ptr;
  const void* wp = *wdev;
  std::string padded_note;
  auto padded = padded_input_conv(b, L, w, xs, ys, ConvGeometry{pad, st, dil, group}, perf, y->ptr);
  if (!padded) return padded.status();
  if (*padded) {
    ROOFLENS_RETURN_IF_ERROR(b.add_copy(*x, (*padded)->x_view, "layout:pad_channels"));
    d = (*padded)->d;
    perf = (*padded)->perf;
    xp = (*padded)->x;
    wp = (*padded)->w;
    padded_note = "+pad" + std::to_string((*padded)->ci) + "ch";
  }
  // fp32 stays on FMA math (no TF32), whatever the search reported.
  const cudnnMathType_t chosen = b.elem() == Elem::kF16 ? perf.mathType : CUDNN_FMA_MATH;
  ROOFLENS_RETURN_IF_ERROR(cudnn_status(cudnnSetConvolutionMathType(d->conv, chosen), "math type"));
  const cudnnConvolutionFwdAlgo_t algo = perf.algo;
  const std::string base = std::string("cudnn:") + algo_name(algo) + "/" + math_name(chosen) + padded_note;

  void* ws = b.workspace();
  const size_t wsb = b.workspace_bytes();
  const void* bp = *bdev;
  void* yp = y->ptr;
  const void* zp = residual != kNoValue ? zval.ptr : yp;
  const float alpha2 = residual != kNoValue ? 1.f : 0.f;
  cudnnHandle_t h = b.cudnn();
  const std::string what = "convolution " + L.desc;

  // One call for conv + bias (+ residual) (+ ReLU): cuDNN fuses ReLU only, and IDENTITY
  // only with IMPLICIT_PRECOMP_GEMM. Other activations go with the bias into one pass.
  const bool fusable =
      relu || (act.post.kind == EwPost::kNone && algo == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM);
  if (fusable) {
    ROOFLENS_RETURN_IF_ERROR(
        cudnn_status(cudnnSetActivationDescriptor(d->act, relu ? CUDNN_ACTIVATION_RELU : CUDNN_ACTIVATION_IDENTITY,
                                                  CUDNN_NOT_PROPAGATE_NAN, 0.0),
                     "activation descriptor"));
    Step fused = [=](cudaStream_t) {
      const float one = 1.f;
      return cudnn_status(cudnnConvolutionBiasActivationForward(h, &one, d->x, xp, d->w, wp, d->conv, algo, ws, wsb,
                                                                &alpha2, d->y, zp, d->bias, bp, d->act, d->y, yp),
                          what);
    };
    // Tried once now: cuDNN refuses some configurations only when called. A refusal
    // falls back to separate kernels below; a device fault is an error.
    if (fused(b.stream())) {
      ROOFLENS_RETURN_IF_ERROR(cuda_status(cudaStreamSynchronize(b.stream()), what));
      std::string impl = base + "+bias";
      if (residual != kNoValue) impl += "+add";
      if (relu) impl += "+relu";
      b.add_step(std::move(fused), impl + " (one call)");
      b.set_value(tip, *y);
      return next;
    }
  }
  // Convolution, then bias, residual and ReLU as element-wise kernels (in place).
  b.add_step(
      [=](cudaStream_t) {
        const float one = 1.f, zero = 0.f;
        return cudnn_status(
            cudnnConvolutionForward(h, &one, d->x, xp, d->w, wp, d->conv, algo, ws, wsb, &zero, d->y, yp), what);
      },
      base);
  // Bias (+ residual) and the activation in one element-wise pass, in place.
  const DevValue bias_v{*bdev, Shape{1, m, 1, 1}, b.elem(), false, {}};
  const std::string ew = std::string("ew:bias") + (residual != kNoValue ? "+add" : "") + post_name(act.post);
  if (residual != kNoValue)
    ROOFLENS_RETURN_IF_ERROR(b.add_elementwise(EwOp::kAdd3, 0, 0, *y, &bias_v, *y, ew, act.post, &zval));
  else
    ROOFLENS_RETURN_IF_ERROR(b.add_elementwise(EwOp::kAdd, 0, 0, *y, &bias_v, *y, ew, act.post));
  b.set_value(tip, *y);
  return next;
}

}  // namespace rooflens::cuda
