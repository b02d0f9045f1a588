// Conv layers on cuDNN: NHWC activations and KRSC weights in the compute dtype,
// BatchNormalization folded into the weights, the fastest algorithm that fits the
// workspace chosen by cudnnFindConvolutionForwardAlgorithmEx (timed on this device, as
// cudnn.benchmark does), and conv + bias (+ residual add) (+ ReLU) as one
// cudnnConvolutionBiasActivationForward call where cuDNN accepts it; otherwise the
// convolution and element-wise kernels for the rest.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <tuple>

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
      ++next;
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

// The fastest forward algorithm within the workspace, timed on this device (fp32: no
// tensor-op math).
Expected<cudnnConvolutionFwdAlgoPerf_t> fastest_algorithm(CudaBackend& b, const ConvDescs& d, const void* x,
                                                          const void* w, void* y, const std::string& desc) {
  cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
  int found = 0;
  ROOFLENS_RETURN_IF_ERROR(cudnn_status(cudnnFindConvolutionForwardAlgorithmEx(
                                            b.cudnn(), d.x, x, d.w, w, d.conv, d.y, y, CUDNN_CONVOLUTION_FWD_ALGO_COUNT,
                                            &found, perf, b.workspace(), b.workspace_bytes()),
                                        "algorithm search"));
  for (int i = 0; i < found; ++i)
    if (perf[i].status == CUDNN_STATUS_SUCCESS && perf[i].memory <= b.workspace_bytes() &&
        (b.elem() == Elem::kF16 ||
         (perf[i].mathType != CUDNN_TENSOR_OP_MATH && perf[i].mathType != CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION)))
      return perf[i];
  return Status::unsupported("cuDNN found no forward algorithm for " + desc + " within the workspace");
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
    ++e.next;
  }
  return e;
}

}  // namespace

const char* post_name(EwPostOp p) {
  switch (p.kind) {
    case EwPost::kRelu: return "+relu";
    case EwPost::kClip: return "+clip";
    case EwPost::kHardSwish: return "+hardswish";
    default: return "";
  }
}

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
  const std::shared_ptr<ConvDescs> d = *descs;
  auto best = fastest_algorithm(b, *d, x->ptr, *wdev, y->ptr, L.desc);
  if (!best) return best.status();
  // fp32 stays on FMA math (no TF32), whatever the search reported.
  const cudnnMathType_t chosen = b.elem() == Elem::kF16 ? best->mathType : CUDNN_FMA_MATH;
  ROOFLENS_RETURN_IF_ERROR(cudnn_status(cudnnSetConvolutionMathType(d->conv, chosen), "math type"));
  const cudnnConvolutionFwdAlgo_t algo = best->algo;
  const std::string base = std::string("cudnn:") + algo_name(algo) + "/" + math_name(chosen);

  void* ws = b.workspace();
  const size_t wsb = b.workspace_bytes();
  const void* xp = x->ptr;
  const void* wp = *wdev;
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
  const DevValue bias_v{*bdev, Shape{1, m, 1, 1}, b.elem(), false};
  const std::string ew = std::string("ew:bias") + (residual != kNoValue ? "+add" : "") + post_name(act.post);
  if (residual != kNoValue)
    ROOFLENS_RETURN_IF_ERROR(b.add_elementwise(EwOp::kAdd3, 0, 0, *y, &bias_v, *y, ew, act.post, &zval));
  else
    ROOFLENS_RETURN_IF_ERROR(b.add_elementwise(EwOp::kAdd, 0, 0, *y, &bias_v, *y, ew, act.post));
  b.set_value(tip, *y);
  return next;
}

}  // namespace rooflens::cuda
