// Every node outside a convolution's fused call: element-wise ops (own kernels), pooling
// and softmax (cuDNN), Gemm and MatMul by stored weights (cuBLAS), concatenation,
// standalone BatchNormalization, spatial ReduceMean, reshapes; Transpose/Slice/Split
// (views.cpp), LayerNormalization, Gather, Resize, Erf, Gelu, Expand, ReduceL2 and MatMul
// of two computed operands (tensor_nodes.cpp) and Einsum (einsum.cpp) are dispatched from
// here; the layer dispatcher and what the backend supports.
#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "cuda_backend.h"
#include "rooflens/exec/weights.h"

namespace rooflens::cuda {
namespace {

const Shape& shape_of(const Graph& g, ValueId v) { return *g.value(v).shape; }

// What softmax() refuses for an input of shape `xs` and a normalised `axis`; empty when nothing.
std::string softmax_refusal(const Shape& xs, int64_t axis) {
  if (xs.empty() || xs.size() > static_cast<size_t>(kMaxCopyRank))
    return "Softmax of a rank-" + std::to_string(xs.size()) + " tensor (the CUDA backend: rank 1 to " +
           std::to_string(kMaxCopyRank) + ")";
  if (axis != static_cast<int64_t>(xs.size()) - 1)
    return "Softmax runs on the CUDA backend over the last axis only (axis " + std::to_string(axis) + " of a rank-" +
           std::to_string(xs.size()) + " tensor)";
  if (ops_prod(xs, 0, xs.size()) > std::numeric_limits<int>::max())
    return "Softmax over more than 2^31 elements (cuDNN's descriptor)";
  return {};
}

// An element-wise output keeps the layout of an operand of its own shape (a row-major
// chain after a MatMul stays row-major); NHWC otherwise.
bool output_nhwc(const DevValue& a, const DevValue* z, const Shape& ys) {
  for (const DevValue* d : {&a, z})
    if (d && d->shape == ys && d->strides.empty()) return d->nhwc;
  return true;
}

Status unary(CudaBackend& b, const Node& n, EwOp op, float alpha = 0, float beta = 0) {
  auto x = b.value(n.inputs[0]);
  if (!x) return x.status();
  auto y = b.new_output(n.outputs[0], output_nhwc(*x, nullptr, shape_of(b.graph(), n.outputs[0])));
  if (!y) return y.status();
  ROOFLENS_RETURN_IF_ERROR(b.add_elementwise(op, alpha, beta, *x, nullptr, *y, "ew:" + n.op_type));
  b.set_value(n.outputs[0], *y);
  return Status::ok();
}

Status binary(CudaBackend& b, const Node& n) {
  const EwOp op = n.kind == OpKind::kAdd   ? EwOp::kAdd
                  : n.kind == OpKind::kSub ? EwOp::kSub
                  : n.kind == OpKind::kMul ? EwOp::kMul
                                           : EwOp::kDiv;
  auto x = b.value(n.inputs[0]);
  if (!x) return x.status();
  auto z = b.value(n.inputs[1]);
  if (!z) return z.status();
  auto y = b.new_output(n.outputs[0], output_nhwc(*x, &*z, shape_of(b.graph(), n.outputs[0])));
  if (!y) return y.status();
  ROOFLENS_RETURN_IF_ERROR(b.add_elementwise(op, 0, 0, *x, &*z, *y, "ew:" + n.op_type));
  b.set_value(n.outputs[0], *y);
  return Status::ok();
}

struct PoolDescs {
  cudnnTensorDescriptor_t x = nullptr, y = nullptr;
  cudnnPoolingDescriptor_t pool = nullptr;
  ~PoolDescs() {
    if (x) cudnnDestroyTensorDescriptor(x);
    if (y) cudnnDestroyTensorDescriptor(y);
    if (pool) cudnnDestroyPoolingDescriptor(pool);
  }
};

// Pooling over the spatial dims of an NHWC tensor; `global` takes the whole plane.
Status pooling(CudaBackend& b, const Node& n, bool max, bool global, ValueId out_v) {
  const Graph& g = b.graph();
  const Shape& xs = shape_of(g, n.inputs[0]);
  if (xs.size() != 4) return Status::unsupported("only 2-D pooling runs on the CUDA backend");
  Shape ys = {xs[0], xs[1], 1, 1};
  int64_t k[2] = {xs[2], xs[3]}, st[2] = {1, 1}, pad[2] = {0, 0};
  bool include_pad = false;
  if (!global) {
    ys = shape_of(g, out_v);
    const auto& win = std::get<WindowDesc>(n.desc);  // 2 spatial dims; pads resolved
    if (win.auto_pad == AutoPad::kSameUpper || win.auto_pad == AutoPad::kSameLower)
      return Status::unsupported(std::string("pooling with auto_pad ") +
                                 (win.auto_pad == AutoPad::kSameUpper ? "SAME_UPPER" : "SAME_LOWER"));
    if (win.dilated()) return Status::unsupported("dilated pooling");
    const auto& ps = win.pads;
    k[0] = win.kernel[0];
    k[1] = win.kernel[1];
    st[0] = win.strides[0];
    st[1] = win.strides[1];
    pad[0] = ps[0];
    pad[1] = ps[1];
    include_pad = win.count_include_pad;
    // cuDNN pads symmetrically and rounds the output size down; max pooling with
    // asymmetric pads or ceil_mode runs on rooflens's own kernel instead.
    const auto floor_out = [&](int d) { return (xs[2 + d] + 2 * pad[d] - k[d]) / st[d] + 1; };
    const bool symmetric = win.pads_symmetric();
    if (!symmetric || floor_out(0) != ys[2] || floor_out(1) != ys[3]) {
      if (!max) return Status::unsupported("average pooling with asymmetric pads or ceil_mode");
      auto x = b.value_as(n.inputs[0], true);
      if (!x) return x.status();
      auto y = b.new_output(out_v);
      if (!y) return y.status();
      const auto I = [](int64_t v) { return static_cast<int>(v); };
      const PoolShape p{I(xs[0]), I(xs[1]), I(xs[2]), I(xs[3]), I(ys[2]),  I(ys[3]),
                        I(k[0]),  I(k[1]),  I(st[0]), I(st[1]), I(pad[0]), I(pad[1])};
      const void* xp = x->ptr;
      void* yp = y->ptr;
      const Elem e = x->elem;
      b.add_step([=](cudaStream_t s) { return cuda_status(launch_maxpool_nhwc(e, xp, yp, p, s), "MaxPool"); },
                 "ew:maxpool");
      b.set_value(out_v, *y);
      return Status::ok();
    }
  }
  auto x = b.value_as(n.inputs[0], true);
  if (!x) return x.status();
  auto y = b.new_output(out_v);
  if (!y) return y.status();
  auto d = std::make_shared<PoolDescs>();
  const auto I = [](int64_t v) { return static_cast<int>(v); };
  const cudnnDataType_t dt = b.cudnn_type();
  ROOFLENS_RETURN_IF_ERROR(cudnn_status(cudnnCreateTensorDescriptor(&d->x), "descriptor"));
  ROOFLENS_RETURN_IF_ERROR(cudnn_status(cudnnCreateTensorDescriptor(&d->y), "descriptor"));
  ROOFLENS_RETURN_IF_ERROR(cudnn_status(cudnnCreatePoolingDescriptor(&d->pool), "descriptor"));
  ROOFLENS_RETURN_IF_ERROR(cudnn_status(
      cudnnSetTensor4dDescriptor(d->x, CUDNN_TENSOR_NHWC, dt, I(xs[0]), I(xs[1]), I(xs[2]), I(xs[3])), "pool input"));
  ROOFLENS_RETURN_IF_ERROR(cudnn_status(
      cudnnSetTensor4dDescriptor(d->y, CUDNN_TENSOR_NHWC, dt, I(ys[0]), I(ys[1]), I(ys[2]), I(ys[3])), "pool output"));
  const cudnnPoolingMode_t mode = max           ? CUDNN_POOLING_MAX
                                  : include_pad ? CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING
                                                : CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING;
  ROOFLENS_RETURN_IF_ERROR(cudnn_status(cudnnSetPooling2dDescriptor(d->pool, mode, CUDNN_NOT_PROPAGATE_NAN, I(k[0]),
                                                                    I(k[1]), I(pad[0]), I(pad[1]), I(st[0]), I(st[1])),
                                        "pooling descriptor"));
  int on = 0, oc = 0, oh = 0, ow = 0;
  ROOFLENS_RETURN_IF_ERROR(
      cudnn_status(cudnnGetPooling2dForwardOutputDim(d->pool, d->x, &on, &oc, &oh, &ow), "pool output size"));
  if (oh != ys[2] || ow != ys[3])
    return Status::unsupported("cuDNN pooling gives " + std::to_string(oh) + "x" + std::to_string(ow) +
                               ", the graph says " + shape_str(ys) + " (ceil_mode is not expressible in cuDNN)");
  cudnnHandle_t h = b.cudnn();
  const void* xp = x->ptr;
  void* yp = y->ptr;
  const std::string what = n.op_type + " '" + n.name + "'";
  b.add_step(
      [=](cudaStream_t) {
        const float one = 1.f, zero = 0.f;
        return cudnn_status(cudnnPoolingForward(h, d->pool, &one, d->x, xp, &zero, d->y, yp), what);
      },
      max ? "cudnn:pool_max" : "cudnn:pool_avg");
  // Rank-2 outputs (ReduceMean without keepdims) are the same bytes as N x C x 1 x 1.
  b.set_value(out_v, *y);
  return Status::ok();
}

Status reduce_mean(CudaBackend& b, const Node& n) {
  const Graph& g = b.graph();
  const Shape& xs = shape_of(g, n.inputs[0]);
  const std::vector<int64_t>& axes = std::get<ReduceDesc>(n.desc).axes;  // normalised, ascending
  if (xs.size() != 4 || axes != std::vector<int64_t>{2, 3})
    return Status::unsupported("ReduceMean runs on the CUDA backend only over the spatial axes of a 4-D tensor");
  return pooling(b, n, false, true, n.outputs[0]);
}

// `post`/`post_out`: an activation node fused into the same pass (its output is set).
Status batchnorm(CudaBackend& b, const Node& n, EwPostOp post = {}, ValueId post_out = kNoValue) {
  const Graph& g = b.graph();
  const Shape& xs = shape_of(g, n.inputs[0]);
  if (xs.size() < 2) return Status::unsupported("BatchNormalization on a rank-1 tensor");
  const int64_t c = xs[1];
  // y = x s + t, s = scale / sqrt(var + eps), t = beta - mean s: the fold of an identity "weight".
  Tensor s = Tensor::zeros({c, 1}), t = Tensor::zeros({c});
  for (auto& v : s.data) v = 1.f;
  ROOFLENS_RETURN_IF_ERROR(fold_batchnorm(g, static_cast<NodeId>(&n - g.nodes.data()), b.seed(), &s, &t));
  auto sp = b.upload(s.data);
  if (!sp) return sp.status();
  auto tp = b.upload(t.data);
  if (!tp) return tp.status();
  Shape cs(xs.size(), 1);
  cs[1] = c;
  const DevValue sv{*sp, cs, b.elem(), false, {}}, tv{*tp, cs, b.elem(), false, {}};
  auto x = b.value(n.inputs[0]);
  if (!x) return x.status();
  const ValueId out = post_out != kNoValue ? post_out : n.outputs[0];
  auto y = b.new_output(out);
  if (!y) return y.status();
  ROOFLENS_RETURN_IF_ERROR(
      b.add_elementwise(EwOp::kMulAdd, 0, 0, *x, &sv, *y, std::string("ew:bn") + post_name(post), post, &tv));
  b.set_value(out, *y);
  return Status::ok();
}

// Softmax over the last axis of a tensor of rank <= 8: the row-major copy seen as
// [rows, cols] (rows: the product of the leading dims), cuDNN's channel softmax on N=rows,
// C=cols.
Status softmax(CudaBackend& b, const Node& n) {
  const Graph& g = b.graph();
  const Shape& xs = shape_of(g, n.inputs[0]);
  if (std::string why = softmax_refusal(xs, std::get<AxisDesc>(n.desc).axis); !why.empty())
    return Status::unsupported(why);
  const int64_t rows = ops_prod(xs, 0, xs.size() - 1), cols = xs.back();
  auto x = b.value_as(n.inputs[0], false);
  if (!x) return x.status();
  auto y = b.new_output(n.outputs[0], false);
  if (!y) return y.status();
  cudnnTensorDescriptor_t raw = nullptr;
  ROOFLENS_RETURN_IF_ERROR(cudnn_status(cudnnCreateTensorDescriptor(&raw), "descriptor"));
  std::shared_ptr<cudnnTensorStruct> d(raw, [](cudnnTensorDescriptor_t p) { cudnnDestroyTensorDescriptor(p); });
  ROOFLENS_RETURN_IF_ERROR(
      cudnn_status(cudnnSetTensor4dDescriptor(raw, CUDNN_TENSOR_NCHW, b.cudnn_type(), static_cast<int>(rows),
                                              static_cast<int>(cols), 1, 1),
                   "softmax descriptor"));
  cudnnHandle_t h = b.cudnn();
  const void* xp = x->ptr;
  void* yp = y->ptr;
  const std::string what = "Softmax '" + n.name + "'";
  b.add_step(
      [=](cudaStream_t) {
        const float one = 1.f, zero = 0.f;
        return cudnn_status(cudnnSoftmaxForward(h, CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_CHANNEL, &one, d.get(),
                                                xp, &zero, d.get(), yp),
                            what);
      },
      "cudnn:softmax");
  b.set_value(n.outputs[0], *y);
  return Status::ok();
}

Status concat(CudaBackend& b, const Node& n) {
  const Graph& g = b.graph();
  const Shape& ys = shape_of(g, n.outputs[0]);
  const int64_t rank = static_cast<int64_t>(ys.size());
  if (rank > 4) return Status::unsupported("Concat of rank above 4");
  const int64_t axis = std::get<AxisDesc>(n.desc).axis;  // normalised
  auto y = b.new_output(n.outputs[0]);
  if (!y) return y.status();
  const Layout lo = layout_of(*y);
  int ord[4];
  physical_order(*y, ord);
  const int64_t axis4 = axis + 4 - rank;
  int64_t offset = 0;
  for (ValueId in : n.inputs) {
    auto a = b.value(in);
    if (!a) return a.status();
    const Layout la = layout_of(*a);
    EwShape s;
    for (int k = 0; k < 4; ++k) {
      s.dims[k] = la.dims[ord[k]];
      s.out_strides[k] = lo.strides[ord[k]];
      s.a_strides[k] = la.strides[ord[k]];
    }
    s.out_offset = offset * lo.strides[axis4];
    offset += la.dims[axis4];
    const void* ap = a->ptr;
    void* yp = y->ptr;
    const Elem e = a->elem;
    b.add_step(
        [=](cudaStream_t st) {
          return cuda_status(launch_elementwise(EwOp::kCopy, 0, 0, e, e, ap, nullptr, yp, s, st), "Concat");
        },
        "ew:concat");
  }
  if (offset != lo.dims[axis4]) return Status::internal("Concat inputs do not add up to the output along the axis");
  b.set_value(n.outputs[0], *y);
  return Status::ok();
}

// Constant zero padding: the output is cleared, then the input copied into its interior.
Status pad(CudaBackend& b, const Node& n) {
  const Graph& g = b.graph();
  const auto& pd = std::get<PadDesc>(n.desc);
  static const char* kModes[] = {"constant", "reflect", "edge", "wrap"};
  if (pd.mode != PadMode::kConstant)
    return Status::unsupported(std::string("Pad mode '") + kModes[static_cast<int>(pd.mode)] +
                               "' (the CUDA backend pads with zeros only)");
  const std::vector<int64_t>& pads = pd.pads;  // every dim: begins then ends
  if (n.inputs.size() > 3 && n.inputs[3] != kNoValue) return Status::unsupported("Pad with axes");
  const double value = pd.value;
  if (value != 0.0) return Status::unsupported("Pad with the non-zero constant " + std::to_string(value));
  const Shape& xs = shape_of(g, n.inputs[0]);
  const size_t r = xs.size();
  if (r > 4 || pads.size() != 2 * r) return Status::unsupported("Pad of rank " + std::to_string(r));
  for (int64_t p : pads)
    if (p < 0) return Status::unsupported("Pad with negative amounts (cropping)");
  auto x = b.value(n.inputs[0]);
  if (!x) return x.status();
  auto y = b.new_output(n.outputs[0]);
  if (!y) return y.status();
  const Layout ly = layout_of(*y), lx = layout_of(*x);
  int ord[4];
  physical_order(*y, ord);
  EwShape s;
  for (int k = 0; k < 4; ++k) {
    s.dims[k] = lx.dims[ord[k]];
    s.out_strides[k] = ly.strides[ord[k]];
    s.a_strides[k] = lx.strides[ord[k]];
  }
  for (size_t d = 0; d < r; ++d) s.out_offset += pads[d] * ly.strides[d + 4 - r];
  const size_t bytes = static_cast<size_t>(checked_numel(y->shape).value_or(0)) * b.elem_bytes();
  const void* xp = x->ptr;
  void* yp = y->ptr;
  const Elem e = x->elem;
  b.add_step(
      [=](cudaStream_t st) {
        ROOFLENS_RETURN_IF_ERROR(cuda_status(cudaMemsetAsync(yp, 0, bytes, st), "Pad"));
        return cuda_status(launch_elementwise(EwOp::kCopy, 0, 0, e, e, xp, nullptr, yp, s, st), "Pad");
      },
      "ew:pad");
  b.set_value(n.outputs[0], *y);
  return Status::ok();
}

// Gemm (Y = alpha A op(B) + beta C) and MatMul by a stored matrix B, through cuBLAS
// (MatMul of two computed operands: batched_matmul in tensor_nodes.cpp).
Status gemm(CudaBackend& b, const Node& n) {
  const Graph& g = b.graph();
  const bool is_gemm = n.kind == OpKind::kGemm;
  const Shape& as = shape_of(g, n.inputs[0]);
  if (as.size() < 2 || (is_gemm && as.size() != 2) || shape_of(g, n.inputs[1]).size() != 2)
    return Status::unsupported(n.op_type + " on a rank-" + std::to_string(as.size()) + " input");
  const auto& gd = std::get<GemmDesc>(n.desc);  // MatMul: no transposes, alpha 1
  if (gd.trans_a) return Status::unsupported("Gemm with transA=1");
  if (!g.value(n.inputs[1]).is_stored && !g.value(n.inputs[1]).reals)
    return Status::unsupported(n.op_type + " with weights computed at run time");
  const bool trans_b = gd.trans_b;
  const float alpha = static_cast<float>(gd.alpha);
  const float beta = is_gemm ? static_cast<float>(gd.beta) : 0.f;
  const Shape& ws = shape_of(g, n.inputs[1]);
  // MatMul of a rank > 2 input by a matrix: the leading dims are rows (a Linear layer on
  // channels-last activations, ConvNeXt's).
  const int64_t m = ops_prod(as, 0, as.size() - 1), kdim = as.back(), nout = trans_b ? ws[0] : ws[1];
  auto a = b.value_as(n.inputs[0], false);
  if (!a) return a.status();
  auto w = b.value(n.inputs[1]);
  if (!w) return w.status();
  auto y = b.new_output(n.outputs[0], false);
  if (!y) return y.status();
  const bool f16 = b.elem() == Elem::kF16;
  const cudaDataType_t t = b.cublas_data_type();
  const cublasComputeType_t ct = b.cublas_compute_type();
  cublasHandle_t h = b.cublas();
  const void* ap = a->ptr;
  const void* wp = w->ptr;
  void* yp = y->ptr;
  const int M = static_cast<int>(m), K = static_cast<int>(kdim), N = static_cast<int>(nout);
  const std::string what = n.op_type + " '" + n.name + "'";
  // Row-major Y[M,N] = A[M,K] B: column-major Y^T[N,M] = op(B^T) A^T.
  b.add_step(
      [=](cudaStream_t) {
        const float zero = 0.f;
        return cublas_status(cublasGemmEx(h, trans_b ? CUBLAS_OP_T : CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &alpha, wp, t,
                                          trans_b ? K : N, ap, t, K, &zero, yp, t, N, ct, CUBLAS_GEMM_DEFAULT),
                             what);
      },
      f16 ? "cublas:gemm_f16" : "cublas:gemm_f32");
  if (is_gemm && n.inputs.size() > 2 && n.inputs[2] != kNoValue && beta != 0.f) {
    auto ct_host = stored_tensor(g, n.inputs[2], b.seed());
    if (!ct_host) return ct_host.status();
    for (auto& v : ct_host->data) v *= beta;
    auto cp = b.upload(ct_host->data);
    if (!cp) return cp.status();
    const DevValue cv{*cp, ct_host->shape, b.elem(), false, {}};
    ROOFLENS_RETURN_IF_ERROR(b.add_elementwise(EwOp::kAdd, 0, 0, *y, &cv, *y, "ew:bias"));
  }
  b.set_value(n.outputs[0], *y);
  return Status::ok();
}

Status lower_node(CudaBackend& b, NodeId id) {
  const Graph& g = b.graph();
  const Node& n = g.node(id);
  switch (n.kind) {
    case OpKind::kRelu: return unary(b, n, EwOp::kRelu);
    case OpKind::kLeakyRelu:
      return unary(b, n, EwOp::kLeakyRelu, static_cast<float>(std::get<ActivationDesc>(n.desc).alpha));
    case OpKind::kSigmoid: return unary(b, n, EwOp::kSigmoid);
    case OpKind::kTanh: return unary(b, n, EwOp::kTanh);
    case OpKind::kHardSwish: return unary(b, n, EwOp::kHardSwish);
    case OpKind::kSqrt: return unary(b, n, EwOp::kSqrt);
    case OpKind::kNeg: return unary(b, n, EwOp::kNeg);
    case OpKind::kHardSigmoid:
      return unary(b, n, EwOp::kHardSigmoid, static_cast<float>(std::get<ActivationDesc>(n.desc).alpha),
                   static_cast<float>(std::get<ActivationDesc>(n.desc).beta));
    case OpKind::kClip: {
      const auto [lo, hi] = clip_bounds(n);
      return unary(b, n, EwOp::kClip, lo, hi);
    }
    case OpKind::kAdd:
    case OpKind::kSub:
    case OpKind::kMul:
    case OpKind::kDiv: return binary(b, n);
    case OpKind::kMaxPool:
    case OpKind::kAveragePool: return pooling(b, n, n.kind == OpKind::kMaxPool, false, n.outputs[0]);
    case OpKind::kGlobalAveragePool:
    case OpKind::kGlobalMaxPool: return pooling(b, n, n.kind == OpKind::kGlobalMaxPool, true, n.outputs[0]);
    case OpKind::kReduceMean: return reduce_mean(b, n);
    case OpKind::kBatchNormalization: return batchnorm(b, n);
    case OpKind::kSoftmax: return softmax(b, n);
    case OpKind::kConcat: return concat(b, n);
    case OpKind::kPad: return pad(b, n);
    case OpKind::kGemm: return gemm(b, n);
    case OpKind::kMatMul: return matmul_by_weights(g, n) ? gemm(b, n) : lower_tensor_node(b, n);
    case OpKind::kEinsum: return lower_einsum(b, n);
    case OpKind::kTranspose:
    case OpKind::kSlice:
    case OpKind::kSplit: return lower_view_node(b, n);
    case OpKind::kLayerNormalization:
    case OpKind::kGather:
    case OpKind::kResize:
    case OpKind::kErf:
    case OpKind::kGelu:
    case OpKind::kExpand:
    case OpKind::kReduceL2: return lower_tensor_node(b, n);
    case OpKind::kFlatten:
    case OpKind::kReshape:
    case OpKind::kSqueeze:
    case OpKind::kUnsqueeze:
    case OpKind::kIdentity:
    case OpKind::kDropout: {
      auto v = b.value(n.outputs[0]);  // resolves the view (a copy only when the layout demands it)
      return v ? Status::ok() : v.status();
    }
    default: return Status::unsupported(n.op_type + " is not run by the CUDA backend");
  }
}

}  // namespace

std::pair<float, float> clip_bounds(const Node& n) {
  const auto& d = std::get<ActivationDesc>(n.desc);  // attributes or inputs known at analysis time
  return {static_cast<float>(d.clip_min), static_cast<float>(d.clip_max)};
}

namespace {

// What prepare would refuse in the node's own parameters (its descriptor, shapes and stored
// operands), whatever layer it lands in; empty when nothing. cuDNN's own refusals (an
// algorithm, a configuration) are known only when it is asked, in prepare.
std::string parameter_refusal(const Graph& g, const Node& n) {
  if (n.outputs.empty() || n.outputs[0] == kNoValue || !g.value(n.outputs[0]).shape) return "its shapes are not known";
  const auto shape = [&](size_t i) -> Shape { return g.value(n.inputs[i]).shape.value_or(Shape{}); };
  const Shape& ys = *g.value(n.outputs[0]).shape;
  switch (n.kind) {
    case OpKind::kConv: {
      const Shape xs = shape(0), ws = shape(1);
      if (xs.size() != 4) return "only 2-D convolutions run on the CUDA backend";
      if (!g.value(n.inputs[1]).is_stored) return "convolution weights computed at run time";
      const auto& w = std::get<WindowDesc>(n.desc);
      const bool depthwise = w.groups > 1 && w.groups == xs[1] && ys[1] == w.groups && ws[1] == 1;
      if (!depthwise && !w.pads_symmetric())
        return fmt::format(
            "asymmetric padding (pads {},{},{},{}) cannot be expressed in cuDNN's convolution descriptor", w.pads[0],
            w.pads[1], w.pads[2], w.pads[3]);
      return {};
    }
    case OpKind::kMaxPool:
    case OpKind::kAveragePool: {
      const Shape xs = shape(0);
      if (xs.size() != 4) return "only 2-D pooling runs on the CUDA backend";
      const auto& w = std::get<WindowDesc>(n.desc);
      if (w.auto_pad == AutoPad::kSameUpper || w.auto_pad == AutoPad::kSameLower)
        return std::string("pooling with auto_pad ") +
               (w.auto_pad == AutoPad::kSameUpper ? "SAME_UPPER" : "SAME_LOWER");
      if (w.dilated()) return "dilated pooling";
      const auto floor_out = [&](size_t d) { return (xs[2 + d] + 2 * w.pads[d] - w.kernel[d]) / w.strides[d] + 1; };
      if (n.kind == OpKind::kAveragePool && (!w.pads_symmetric() || floor_out(0) != ys[2] || floor_out(1) != ys[3]))
        return "average pooling with asymmetric pads or ceil_mode";
      return {};
    }
    case OpKind::kGlobalAveragePool:
    case OpKind::kGlobalMaxPool: return shape(0).size() != 4 ? "only 2-D pooling runs on the CUDA backend" : "";
    case OpKind::kReduceMean:
      return shape(0).size() != 4 || std::get<ReduceDesc>(n.desc).axes != std::vector<int64_t>{2, 3}
                 ? "ReduceMean runs on the CUDA backend only over the spatial axes of a 4-D tensor"
                 : "";
    case OpKind::kSoftmax: return softmax_refusal(shape(0), std::get<AxisDesc>(n.desc).axis);
    case OpKind::kPad: {
      const auto& d = std::get<PadDesc>(n.desc);
      static const char* kModes[] = {"constant", "reflect", "edge", "wrap"};
      if (d.mode != PadMode::kConstant)
        return std::string("Pad mode '") + kModes[static_cast<int>(d.mode)] +
               "' (the CUDA backend pads with zeros only)";
      if (n.inputs.size() > 3 && n.inputs[3] != kNoValue) return "Pad with axes";
      if (d.value != 0.0) return "Pad with the non-zero constant " + std::to_string(d.value);
      for (int64_t p : d.pads)
        if (p < 0) return "Pad with negative amounts (cropping)";
      return {};
    }
    case OpKind::kGemm:
    case OpKind::kMatMul: {
      if (n.kind == OpKind::kMatMul && !matmul_by_weights(g, n)) return tensor_node_refusal(g, n);
      const size_t ra = shape(0).size();
      if (ra < 2 || (n.kind == OpKind::kGemm && ra != 2))
        return n.op_type + " on a rank-" + std::to_string(ra) + " input";
      if (shape(1).size() != 2)
        return n.op_type + " by a rank-" + std::to_string(shape(1).size()) + " operand (the CUDA backend: a matrix)";
      if (std::get<GemmDesc>(n.desc).trans_a) return "Gemm with transA=1";
      if (!g.value(n.inputs[1]).is_stored && !g.value(n.inputs[1]).reals)
        return n.op_type + " with weights computed at run time";
      return {};
    }
    case OpKind::kEinsum: return einsum_refusal(g, n);
    case OpKind::kTranspose:
    case OpKind::kSlice:
    case OpKind::kSplit: return view_node_refusal(g, n);
    case OpKind::kLayerNormalization:
    case OpKind::kGather:
    case OpKind::kResize:
    case OpKind::kErf:
    case OpKind::kGelu:
    case OpKind::kExpand:
    case OpKind::kReduceL2: return tensor_node_refusal(g, n);
    default: return {};
  }
}

// Ops that move or reinterpret data without arithmetic: views and copies of any rank up to
// the strided copy's.
bool any_rank(OpKind k) {
  return is_view_op(k) || k == OpKind::kTranspose || k == OpKind::kSlice || k == OpKind::kSplit || k == OpKind::kGather;
}

// The element-wise ops: unary, binary with broadcasting, Expand (one kernel over at most 4
// dims, which a higher-rank iteration collapses into).
bool elementwise(OpKind k) {
  switch (k) {
    case OpKind::kRelu:
    case OpKind::kLeakyRelu:
    case OpKind::kSigmoid:
    case OpKind::kTanh:
    case OpKind::kHardSwish:
    case OpKind::kSqrt:
    case OpKind::kNeg:
    case OpKind::kHardSigmoid:
    case OpKind::kClip:
    case OpKind::kAdd:
    case OpKind::kSub:
    case OpKind::kMul:
    case OpKind::kDiv:
    case OpKind::kErf:
    case OpKind::kGelu:
    case OpKind::kExpand: return true;
    default: return false;
  }
}

// The highest output rank the backend runs `k` at: kMaxCopyRank for views and copies, the
// element-wise ops, Softmax, ReduceL2 (row-major, any rank) and Einsum (a batched GEMM over
// views or copies); 4 for every other op.
size_t rank_limit(OpKind k) {
  const bool high =
      any_rank(k) || elementwise(k) || k == OpKind::kSoftmax || k == OpKind::kReduceL2 || k == OpKind::kEinsum;
  return high ? static_cast<size_t>(kMaxCopyRank) : 4;
}

// An element-wise op above rank 4: its iteration, for dense operands, must collapse to the
// kernel's 4 dims (numpy broadcasting of each operand against the output).
std::string elementwise_refusal(const Graph& g, const Node& n) {
  const Shape& ys = *g.value(n.outputs[0]).shape;
  if (ys.size() <= 4) return {};
  std::vector<Shape> operands;
  const size_t count =
      n.kind == OpKind::kAdd || n.kind == OpKind::kSub || n.kind == OpKind::kMul || n.kind == OpKind::kDiv ? 2 : 1;
  for (size_t i = 0; i < count && i < n.inputs.size(); ++i) {
    if (n.inputs[i] == kNoValue || !g.value(n.inputs[i]).shape) return "its shapes are not known";
    operands.push_back(*g.value(n.inputs[i]).shape);
  }
  const auto r = collapsed_rank(ys, operands);
  if (!r) return n.op_type + " operands that do not broadcast to " + shape_str(ys);
  if (*r > 4)
    return n.op_type + " over " + shape_str(ys) + " whose broadcast leaves " + std::to_string(*r) +
           " dims after merging (the CUDA backend's element-wise kernel walks 4)";
  return {};
}

}  // namespace

bool node_supported(const Graph& g, NodeId id, std::string* reason) {
  const Node& n = g.node(id);
  switch (elementwise(n.kind) ? OpKind::kIdentity : n.kind) {  // the element-wise ops: elementwise()
    case OpKind::kConv:
    case OpKind::kMaxPool:
    case OpKind::kAveragePool:
    case OpKind::kGlobalAveragePool:
    case OpKind::kGlobalMaxPool:
    case OpKind::kReduceMean:
    case OpKind::kBatchNormalization:
    case OpKind::kSoftmax:
    case OpKind::kConcat:
    case OpKind::kGemm:
    case OpKind::kMatMul:
    case OpKind::kFlatten:
    case OpKind::kReshape:
    case OpKind::kSqueeze:
    case OpKind::kUnsqueeze:
    case OpKind::kIdentity:
    case OpKind::kDropout:
    case OpKind::kPad:
    case OpKind::kTranspose:
    case OpKind::kSlice:
    case OpKind::kSplit:
    case OpKind::kLayerNormalization:
    case OpKind::kGather:
    case OpKind::kResize:
    case OpKind::kReduceL2:
    case OpKind::kEinsum: break;
    default:
      *reason =
          n.kind == OpKind::kUnknown ? "unknown op " + n.op_type : n.op_type + " is not run by the CUDA backend yet";
      return false;
  }
  for (ValueId v : n.outputs) {
    if (v == kNoValue) continue;
    const auto& s = g.value(v).shape;
    const size_t limit = rank_limit(n.kind);
    if (s && s->size() > limit) {
      *reason = "output of rank " + std::to_string(s->size()) + " (the CUDA backend runs " +
                (limit == 4 ? "this op on tensors of rank <= 4)"
                            : "views, element-wise ops, Softmax, ReduceL2 and Einsum on tensors of rank <= " +
                                  std::to_string(limit) + ")");
      return false;
    }
  }
  if (n.kind == OpKind::kMaxPool && n.outputs.size() > 1 && n.outputs[1] != kNoValue &&
      !g.value(n.outputs[1]).consumers.empty()) {
    *reason = "MaxPool indices output";
    return false;
  }
  *reason = parameter_refusal(g, n);
  if (reason->empty() && elementwise(n.kind)) *reason = elementwise_refusal(g, n);
  return reason->empty();
}

Status build_fused_layer(CudaBackend& b, const LayerReport& L) {
  const Graph& g = b.graph();
  const Node& anchor = g.node(L.nodes[0]);
  size_t next = 0;
  if (anchor.kind == OpKind::kConv) {
    auto r = build_conv(b, L);
    if (!r) return r.status();
    next = *r;
  }
  for (size_t i = next; i < L.nodes.size(); ++i) {
    const Node& n = g.node(L.nodes[i]);
    const std::string where = n.op_type + " node '" + n.name + "'";
    if (n.kind == OpKind::kBatchNormalization) {
      // BatchNormalization and the activation after it: one pass.
      const Activation act = activation_after(g, L, i + 1, n.outputs[0]);
      ROOFLENS_RETURN_IF_ERROR(batchnorm(b, n, act.post, act.out).with_context(where));
      if (act.post.kind != EwPost::kNone) i += act.nodes;
      continue;
    }
    ROOFLENS_RETURN_IF_ERROR(lower_node(b, L.nodes[i]).with_context(where));
  }
  return Status::ok();
}

}  // namespace rooflens::cuda
