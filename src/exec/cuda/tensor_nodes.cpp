// LayerNormalization, Gather, Resize, Erf, Gelu, Expand and ReduceL2 on the CUDA backend
// (kernels in tensor_kernels.cu and kernels.cu), and MatMul of two computed operands (attention's
// Q K^T and attn V: cuBLAS's strided batched GEMM). Parameters come from the node's
// descriptor; the constant inputs (Gather's indices, Resize's scales) from the values shape
// inference knows before run time.
#include <cmath>
#include <cstring>
#include <limits>

#include "../reference/resize_taps.h"
#include "cuda_backend.h"

namespace rooflens::cuda {
namespace {

const Shape& shape_of(const Graph& g, ValueId v) { return *g.value(v).shape; }

bool has_input(const Node& n, size_t i) { return n.inputs.size() > i && n.inputs[i] != kNoValue; }

int64_t numel_of(const Shape& s) { return checked_numel(s).value_or(0); }

// Raw bytes to a fresh device buffer (indices, taps), outside the timed runs.
Expected<void*> upload_bytes(CudaBackend& b, const void* host, size_t bytes) {
  auto p = b.alloc(bytes);
  if (!p) return p.status();
  ROOFLENS_RETURN_IF_ERROR(cuda_status(cudaMemcpy(*p, host, bytes, cudaMemcpyHostToDevice), "upload"));
  return p;
}

Status layernorm(CudaBackend& b, const Node& n) {
  const Graph& g = b.graph();
  const auto& d = std::get<NormDesc>(n.desc);
  const Shape& xs = shape_of(g, n.inputs[0]);
  const auto axis = static_cast<size_t>(d.axis);
  const int64_t rows = ops_prod(xs, 0, axis), cols = ops_prod(xs, axis, xs.size());
  auto x = b.value_as(n.inputs[0], false);
  if (!x) return x.status();
  const void* sp = nullptr;
  const void* bp = nullptr;
  if (has_input(n, 1)) {
    auto s = b.value(n.inputs[1]);
    if (!s) return s.status();
    sp = s->ptr;
  }
  if (has_input(n, 2)) {
    auto t = b.value(n.inputs[2]);
    if (!t) return t.status();
    bp = t->ptr;
  }
  auto y = b.new_output(n.outputs[0], false);
  if (!y) return y.status();
  const void* xp = x->ptr;
  void* yp = y->ptr;
  const Elem e = b.elem();
  const auto eps = static_cast<float>(d.epsilon);
  const std::string what = "LayerNormalization '" + n.name + "'";
  b.add_step([=](cudaStream_t s) { return cuda_status(launch_layernorm(e, xp, sp, bp, yp, rows, cols, eps, s), what); },
             "rooflens:layernorm");
  b.set_value(n.outputs[0], *y);
  return Status::ok();
}

Status gather(CudaBackend& b, const Node& n) {
  const Graph& g = b.graph();
  const auto a = static_cast<size_t>(std::get<AxisDesc>(n.desc).axis);
  const Shape& xs = shape_of(g, n.inputs[0]);
  const std::vector<int64_t>& raw = *g.value(n.inputs[1]).ints;  // checked by the refusal rules
  const int64_t dim = xs[a];
  std::vector<int64_t> idx(raw.size());
  for (size_t i = 0; i < raw.size(); ++i) idx[i] = raw[i] < 0 ? raw[i] + dim : raw[i];
  const Shape& ys = shape_of(g, n.outputs[0]);
  if (idx.size() == 1 && ys.size() + 1 == xs.size()) {
    // One scalar index: a view of the input without that axis.
    auto x = b.value(n.inputs[0]);
    if (!x) return x.status();
    std::vector<int64_t> st = strides_of(*x), out;
    for (size_t k = 0; k < st.size(); ++k)
      if (k != a) out.push_back(st[k]);
    void* p = static_cast<char*>(x->ptr) + idx[0] * st[a] * static_cast<int64_t>(b.elem_bytes());
    b.set_value(n.outputs[0], strided_view(p, ys, x->elem, std::move(out)));
    return Status::ok();
  }
  auto x = b.value_as(n.inputs[0], false);
  if (!x) return x.status();
  auto ip = upload_bytes(b, idx.data(), idx.size() * sizeof(int64_t));
  if (!ip) return ip.status();
  auto y = b.new_output(n.outputs[0], false);
  if (!y) return y.status();
  const int64_t outer = ops_prod(xs, 0, a), inner = ops_prod(xs, a + 1, xs.size());
  const auto n_idx = static_cast<int64_t>(idx.size());
  const void* xp = x->ptr;
  const auto* idev = static_cast<const int64_t*>(*ip);
  void* yp = y->ptr;
  const Elem e = b.elem();
  b.add_step(
      [=](cudaStream_t s) {
        return cuda_status(launch_gather(e, xp, idev, yp, outer, dim, n_idx, inner, s), "Gather");
      },
      "rooflens:gather");
  b.set_value(n.outputs[0], *y);
  return Status::ok();
}

// Scale per dim: the scales input when shape inference knew it and no sizes are given,
// else output / input.
std::vector<double> resize_scales(const Graph& g, const Node& n) {
  const Shape& xs = shape_of(g, n.inputs[0]);
  const Shape& ys = shape_of(g, n.outputs[0]);
  std::vector<double> scale(xs.size(), 1.0);
  for (size_t d = 0; d < xs.size(); ++d)
    if (xs[d] > 0) scale[d] = static_cast<double>(ys[d]) / static_cast<double>(xs[d]);
  const bool old_form = g.opset > 0 && g.opset < 11;
  const size_t at = old_form ? 1 : 2;
  const bool sizes = !old_form && has_input(n, 3) && numel_of(shape_of(g, n.inputs[3])) > 0;
  if (!sizes && has_input(n, at)) {
    const auto& r = g.value(n.inputs[at]).reals;
    if (r && r->size() == xs.size()) scale = *r;
  }
  return scale;
}

// Per output coordinate, `taps` (index, weight) pairs, padded with zero weights.
void axis_taps(const ref::ResizeParams& p, int64_t n, int64_t m, double scale, int taps, std::vector<int>* idx,
               std::vector<float>* wt) {
  for (int64_t o = 0; o < m; ++o) {
    const auto t = ref::taps_for(p, o, n, m, scale, 0.0, 1.0);
    for (int k = 0; k < taps; ++k) {
      const bool real = static_cast<size_t>(k) < t.size();
      idx->push_back(real ? static_cast<int>(t[static_cast<size_t>(k)].index) : 0);
      wt->push_back(real ? static_cast<float>(t[static_cast<size_t>(k)].weight) : 0.f);
    }
  }
}

Status resize(CudaBackend& b, const Node& n) {
  const Graph& g = b.graph();
  const auto& rd = std::get<ResizeDesc>(n.desc);
  const Shape& xs = shape_of(g, n.inputs[0]);
  const Shape& ys = shape_of(g, n.outputs[0]);
  const std::vector<double> scale = resize_scales(g, n);
  const ref::ResizeParams p{
      rd.mode,           rd.coordinate_transformation_mode, rd.nearest_mode, rd.cubic_coeff_a, rd.extrapolation_value,
      rd.exclude_outside};
  const int taps = rd.mode == "nearest" ? 1 : rd.mode == "linear" ? 2 : 4;
  std::vector<int> ih, iw;
  std::vector<float> wh, ww;
  axis_taps(p, xs[2], ys[2], scale[2], taps, &ih, &wh);
  axis_taps(p, xs[3], ys[3], scale[3], taps, &iw, &ww);
  auto ihd = upload_bytes(b, ih.data(), ih.size() * sizeof(int));
  auto whd = upload_bytes(b, wh.data(), wh.size() * sizeof(float));
  auto iwd = upload_bytes(b, iw.data(), iw.size() * sizeof(int));
  auto wwd = upload_bytes(b, ww.data(), ww.size() * sizeof(float));
  for (const auto* r : {&ihd, &whd, &iwd, &wwd})
    if (!*r) return r->status();
  auto x = b.value_as(n.inputs[0], true);
  if (!x) return x.status();
  auto y = b.new_output(n.outputs[0]);
  if (!y) return y.status();
  const auto I = [](int64_t v) { return static_cast<int>(v); };
  const ResizeShape rs{I(xs[0]), I(xs[1]), I(xs[2]), I(xs[3]), I(ys[2]), I(ys[3]), taps, taps};
  const void* xp = x->ptr;
  void* yp = y->ptr;
  const Elem e = b.elem();
  const auto* a0 = static_cast<const int*>(*ihd);
  const auto* a1 = static_cast<const float*>(*whd);
  const auto* a2 = static_cast<const int*>(*iwd);
  const auto* a3 = static_cast<const float*>(*wwd);
  b.add_step(
      [=](cudaStream_t s) { return cuda_status(launch_resize_nhwc(e, xp, yp, a0, a1, a2, a3, rs, s), "Resize"); },
      "rooflens:resize_" + rd.mode);
  b.set_value(n.outputs[0], *y);
  return Status::ok();
}

Status activation(CudaBackend& b, const Node& n, EwOp op) {
  auto x = b.value(n.inputs[0]);
  if (!x) return x.status();
  auto y = b.new_output(n.outputs[0], x->strides.empty() ? x->nhwc : true);
  if (!y) return y.status();
  ROOFLENS_RETURN_IF_ERROR(b.add_elementwise(op, 0, 0, *x, nullptr, *y, "ew:" + n.op_type));
  b.set_value(n.outputs[0], *y);
  return Status::ok();
}

// Expand: a broadcasting copy (the element-wise kernel with a zero stride along each
// broadcast dim). The output keeps the input's layout where both are 4-D, else row-major
// (rank 4: NHWC, as the other element-wise outputs).
Status expand(CudaBackend& b, const Node& n) {
  auto x = b.value(n.inputs[0]);
  if (!x) return x.status();
  const bool nhwc = x->shape.size() == 4 ? (x->strides.empty() ? x->nhwc : true) : false;
  auto y = b.new_output(n.outputs[0], nhwc);
  if (!y) return y.status();
  ROOFLENS_RETURN_IF_ERROR(b.add_elementwise(EwOp::kCopy, 0, 0, *x, nullptr, *y, "ew:expand"));
  b.set_value(n.outputs[0], *y);
  return Status::ok();
}

// ReduceL2 over trailing axes: the input row-major, seen as [rows, cols] (cols: the product
// of the reduced dims), one norm per row; the output's bytes are the same with or without
// keepdims.
Status reduce_l2(CudaBackend& b, const Node& n) {
  const Graph& g = b.graph();
  const Shape& xs = shape_of(g, n.inputs[0]);
  const size_t first = xs.size() - std::get<ReduceDesc>(n.desc).axes.size();  // a suffix: see the refusal
  const int64_t rows = ops_prod(xs, 0, first), cols = ops_prod(xs, first, xs.size());
  auto x = b.value_as(n.inputs[0], false);
  if (!x) return x.status();
  auto y = b.new_output(n.outputs[0], false);
  if (!y) return y.status();
  const void* xp = x->ptr;
  void* yp = y->ptr;
  const Elem e = b.elem();
  const std::string what = "ReduceL2 '" + n.name + "'";
  b.add_step([=](cudaStream_t s) { return cuda_status(launch_reduce_l2_rows(e, xp, yp, rows, cols, s), what); },
             "rooflens:reduce_l2");
  b.set_value(n.outputs[0], *y);
  return Status::ok();
}

// What reduce_l2 refuses; empty when nothing.
std::string reduce_l2_refusal(const Graph& g, const Node& n) {
  const auto& d = std::get<ReduceDesc>(n.desc);
  if (d.noop) return "ReduceL2 with noop_with_empty_axes and no axes";
  const Shape xs = g.value(n.inputs[0]).shape.value_or(Shape{});
  for (size_t i = 0; i < d.axes.size(); ++i)
    if (d.axes[i] != static_cast<int64_t>(xs.size() - d.axes.size() + i))
      return "ReduceL2 over axes that are not the trailing dims of a rank-" + std::to_string(xs.size()) +
             " tensor (the CUDA backend reduces the last axes only)";
  if (ops_prod(xs, xs.size() - d.axes.size(), xs.size()) > (int64_t{1} << 30))
    return "ReduceL2 over more than 2^30 elements per output";
  return {};
}

// The batch dims of `s` (all but the last two), left-padded with 1s to `rank` dims.
Shape batch_dims(const Shape& s, size_t rank) {
  Shape d(rank, 1);
  const size_t own = s.size() - 2;
  for (size_t k = 0; k < own; ++k) d[rank - own + k] = s[k];
  return d;
}

// What batched_matmul refuses; empty when nothing.
std::string batched_matmul_refusal(const Graph& g, const Node& n) {
  const Shape as = g.value(n.inputs[0]).shape.value_or(Shape{}), bs = g.value(n.inputs[1]).shape.value_or(Shape{});
  const Shape& ys = *g.value(n.outputs[0]).shape;
  for (const Shape* s : {&as, &bs})
    if (s->size() < 2 || s->size() > 4)
      return "MatMul of a rank-" + std::to_string(s->size()) +
             " operand computed at run time (the CUDA backend: 2-D to 4-D)";
  for (ValueId v : {n.inputs[0], n.inputs[1]})
    if (g.value(v).dtype != DType::kUnknown && !dtype_is_float(g.value(v).dtype)) return "MatMul of integer tensors";
  if (ys.size() != std::max(as.size(), bs.size()) || as.back() != bs[bs.size() - 2])
    return "MatMul with shapes " + shape_str(as) + " x " + shape_str(bs) + " -> " + shape_str(ys);
  const size_t rb = ys.size() - 2;
  const Shape yb = batch_dims(ys, rb);
  for (const Shape* s : {&as, &bs}) {
    const Shape sb = batch_dims(*s, rb);
    if (sb != yb && ops_prod(sb, 0, rb) != 1)
      return "MatMul broadcasting " + shape_str(as) + " x " + shape_str(bs) +
             " (the CUDA backend: batch dims equal, or one operand's all 1)";
  }
  constexpr int64_t kIntMax = std::numeric_limits<int>::max();
  if (as[as.size() - 2] > kIntMax || as.back() > kIntMax || bs.back() > kIntMax || ops_prod(ys, 0, rb) > kIntMax)
    return "MatMul dims beyond cuBLAS's 32-bit sizes";
  return {};
}

// Y[b] = A[b] B[b] over the batch dims (a zero stride for an operand whose batch dims are
// all 1), row-major, through cublasGemmStridedBatchedEx. Row-major Y = A B is column-major
// Y^T = B^T A^T, so B goes first, as in gemm().
Status batched_matmul(CudaBackend& b, const Node& n) {
  const Graph& g = b.graph();
  if (std::string why = batched_matmul_refusal(g, n); !why.empty()) return Status::unsupported(why);
  const Shape& as = shape_of(g, n.inputs[0]);
  const Shape& bs = shape_of(g, n.inputs[1]);
  const Shape& ys = shape_of(g, n.outputs[0]);
  const int64_t m = as[as.size() - 2], kdim = as.back(), nout = bs.back(), batch = ops_prod(ys, 0, ys.size() - 2);
  const long long stride_a = ops_prod(as, 0, as.size() - 2) == 1 ? 0 : m * kdim;
  const long long stride_b = ops_prod(bs, 0, bs.size() - 2) == 1 ? 0 : kdim * nout;
  const long long stride_y = m * nout;
  auto a = b.value_as(n.inputs[0], false);
  if (!a) return a.status();
  auto w = b.value_as(n.inputs[1], false);
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
  const int count = static_cast<int>(batch);
  const std::string what = "MatMul '" + n.name + "'";
  b.add_step(
      [=](cudaStream_t) {
        const float one = 1.f, zero = 0.f;
        return cublas_status(cublasGemmStridedBatchedEx(h, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, wp, t, N, stride_b,
                                                        ap, t, K, stride_a, &zero, yp, t, N, stride_y, count, ct,
                                                        CUBLAS_GEMM_DEFAULT),
                             what);
      },
      f16 ? "cublas:gemm_batched_f16" : "cublas:gemm_batched_f32");
  b.set_value(n.outputs[0], *y);
  return Status::ok();
}

}  // namespace

bool matmul_by_weights(const Graph& g, const Node& n) {
  if (n.inputs.size() < 2 || n.inputs[1] == kNoValue) return false;
  const Value& w = g.value(n.inputs[1]);
  return (w.is_stored || w.reals) && w.shape && w.shape->size() == 2;
}

int64_t ops_prod(const Shape& s, size_t from, size_t to) {
  int64_t p = 1;
  for (size_t k = from; k < to && k < s.size(); ++k) p *= s[k];
  return p;
}

std::string tensor_node_refusal(const Graph& g, const Node& n) {
  const auto shape = [&](size_t i) { return g.value(n.inputs[i]).shape.value_or(Shape{}); };
  switch (n.kind) {
    case OpKind::kErf:
    case OpKind::kGelu: return {};
    case OpKind::kLayerNormalization: {
      for (size_t o = 1; o < n.outputs.size(); ++o)
        if (n.outputs[o] != kNoValue && !g.value(n.outputs[o]).consumers.empty())
          return "LayerNormalization's Mean and InvStdDev outputs";
      const Shape xs = shape(0);
      const auto axis = static_cast<size_t>(std::get<NormDesc>(n.desc).axis);
      const int64_t cols = ops_prod(xs, axis, xs.size());
      for (size_t i = 1; i < 3; ++i) {
        if (!has_input(n, i)) continue;
        if (!g.value(n.inputs[i]).is_stored && !g.value(n.inputs[i]).reals)
          return "LayerNormalization with a scale or bias computed at run time";
        if (numel_of(shape(i)) != cols)
          return "LayerNormalization with a scale or bias broadcast over the normalized dims";
      }
      return {};
    }
    case OpKind::kGather: {
      if (!g.value(n.inputs[1]).ints) return "Gather with indices computed at run time";
      const Shape xs = shape(0);
      const int64_t dim = xs[static_cast<size_t>(std::get<AxisDesc>(n.desc).axis)];
      for (int64_t i : *g.value(n.inputs[1]).ints)
        if (i < -dim || i >= dim) return "Gather index " + std::to_string(i) + " out of range";
      return {};
    }
    case OpKind::kResize: {
      const auto& rd = std::get<ResizeDesc>(n.desc);
      const Shape xs = shape(0), ys = *g.value(n.outputs[0]).shape;
      if (xs.size() != 4) return "Resize of a rank-" + std::to_string(xs.size()) + " tensor (the CUDA backend: 4-D)";
      if (xs[0] != ys[0] || xs[1] != ys[1]) return "Resize over the batch or channel dims";
      if (rd.coordinate_transformation_mode == "tf_crop_and_resize") return "Resize with tf_crop_and_resize";
      if (rd.antialias && rd.mode != "nearest") return "antialiased Resize";
      if (rd.mode != "nearest" && rd.mode != "linear" && rd.mode != "cubic") return "Resize mode '" + rd.mode + "'";
      const std::vector<double> scale = resize_scales(g, n);
      if (!(scale[2] > 0) || !(scale[3] > 0)) return "Resize with non-positive scales";
      return {};
    }
    case OpKind::kExpand: {
      const DType t = g.value(n.inputs[0]).dtype;
      return t == DType::kUnknown || dtype_is_float(t) ? "" : "Expand of an integer tensor";
    }
    case OpKind::kMatMul: return batched_matmul_refusal(g, n);
    case OpKind::kReduceL2: return reduce_l2_refusal(g, n);
    default: return n.op_type + " is not a tensor op of tensor_nodes.cpp";
  }
}

Status lower_tensor_node(CudaBackend& b, const Node& n) {
  switch (n.kind) {
    case OpKind::kLayerNormalization: return layernorm(b, n);
    case OpKind::kGather: return gather(b, n);
    case OpKind::kResize: return resize(b, n);
    case OpKind::kErf: return activation(b, n, EwOp::kErf);
    case OpKind::kGelu:
      return activation(b, n, std::get<ActivationDesc>(n.desc).gelu_tanh ? EwOp::kGeluTanh : EwOp::kGelu);
    case OpKind::kExpand: return expand(b, n);
    case OpKind::kMatMul: return batched_matmul(b, n);
    case OpKind::kReduceL2: return reduce_l2(b, n);
    default: return Status::unsupported(n.op_type + " is not run by the CUDA backend");
  }
}

}  // namespace rooflens::cuda
