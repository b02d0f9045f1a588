// Compute ops of the oneDNN backend, one node each: eltwise activations, binary arithmetic
// (with a host loop for broadcasts oneDNN serves only with its reference kernel), pooling,
// batch normalization (and the ReLU it can fuse), layer normalization, ReduceMean, Softmax
// and Erf. Called by the layer dispatcher (nodes.cpp).
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <utility>

#include "nodes_internal.h"
#include "rooflens/ops/shape_math.h"

namespace rooflens::onednn {

using dnnl::algorithm;
using dnnl::memory;

Status eltwise(OneDnnBackend& b, const Node& n, algorithm a, float alpha, float beta,
               std::optional<std::pair<float, float>> clip_after) {
  auto src = b.mem(n.inputs[0]);
  if (!src) return src.status();
  dnnl::eltwise_forward::desc d(dnnl::prop_kind::forward_inference, a, src->get_desc(), alpha, beta);
  dnnl::primitive_attr attr;
  if (clip_after) {
    dnnl::post_ops po;
    po.append_eltwise(1.0f, algorithm::eltwise_clip, clip_after->first, clip_after->second);
    attr.set_post_ops(po);
  }
  dnnl::eltwise_forward::primitive_desc pd(d, attr, b.engine());
  memory dst = b.new_buffer(pd.dst_desc());
  dnnl::eltwise_forward prim(pd);
  memory s = *src;
  b.add_primitive(prim, {{DNNL_ARG_SRC, s}, {DNNL_ARG_DST, dst}}, pd.impl_info_str());
  b.set_mem(n.outputs[0], dst);
  return Status::ok();
}

namespace {

// oneDNN 2.x runs a binary op whose second operand is broadcast over some leading dims but
// not others (Swin's shift mask [1, windows, 1, N, N] on the scores [batch, windows, heads, N,
// N]) only in its reference implementation, far slower than a plain loop: this is that loop,
// on row-major tensors. `a` has the output's shape; `c` broadcasts to it.
Status host_broadcast_binary(OneDnnBackend& b, const Node& n, ValueId a, ValueId c) {
  const Graph& g = b.graph();
  const Shape& ys = shape_of(g, n.outputs[0]);
  Shape cs(ys.size() - shape_of(g, c).size(), 1);
  cs.insert(cs.end(), shape_of(g, c).begin(), shape_of(g, c).end());
  auto x0 = b.rowmajor(a);
  if (!x0) return x0.status();
  auto x1 = b.rowmajor(c);
  if (!x1) return x1.status();
  const size_t r = ys.size();
  std::vector<int64_t> cstride(r, 0);
  for (size_t d = r, st = 1; d-- > 0;) {
    cstride[d] = cs[d] == 1 ? 0 : static_cast<int64_t>(st);
    st *= static_cast<size_t>(cs[d]);
  }
  const int64_t inner = r ? ys[r - 1] : 1, total = checked_numel(ys).value_or(0);
  const int64_t rows = inner > 0 ? total / inner : 0, inner_step = r ? cstride[r - 1] : 0;
  const int op = n.kind == OpKind::kAdd ? 0 : n.kind == OpKind::kSub ? 1 : n.kind == OpKind::kMul ? 2 : 3;
  memory s0 = *x0, s1 = *x1, dst = b.new_buffer(md_rowmajor(ys));
  b.add_step(
      [s0, s1, dst, ys, cstride, inner, rows, inner_step, op, r](dnnl::stream&) {
        const float* p = static_cast<const float*>(s0.get_data_handle());
        const float* q = static_cast<const float*>(s1.get_data_handle());
        float* y = static_cast<float*>(dst.get_data_handle());
#pragma omp parallel for
        for (int64_t row = 0; row < rows; ++row) {
          int64_t rem = row, off = 0;
          for (size_t d = r - 1; d-- > 0;) {
            off += (rem % ys[d]) * cstride[d];
            rem /= ys[d];
          }
          const float* pa = p + row * inner;
          const float* qa = q + off;
          float* ya = y + row * inner;
          for (int64_t i = 0; i < inner; ++i) {
            const float u = pa[i], v = qa[i * inner_step];
            ya[i] = op == 0 ? u + v : op == 1 ? u - v : op == 2 ? u * v : u / v;
          }
        }
      },
      "host:broadcast_binary", {s0, s1, dst});
  b.set_mem(n.outputs[0], dst);
  return Status::ok();
}

}  // namespace

Status binary(OneDnnBackend& b, const Node& n) {
  const Graph& g = b.graph();
  const Shape& ys = shape_of(g, n.outputs[0]);
  ValueId a = n.inputs[0], c = n.inputs[1];
  const bool commutative = n.kind == OpKind::kAdd || n.kind == OpKind::kMul;
  if (shape_of(g, a) != ys) {
    if (!commutative) return Status::unsupported("the first operand of " + n.op_type + " is broadcast");
    std::swap(a, c);
  }
  auto s0 = b.mem(a);
  if (!s0) return s0.status();
  memory s1;
  if (shape_of(g, c) == ys) {
    auto m = b.as_desc(c, s0->get_desc());
    if (!m) return m.status();
    s1 = *m;
  } else {
    auto m = b.rowmajor(c);
    if (!m) return m.status();
    Shape padded(ys.size() - shape_of(g, c).size(), 1);
    padded.insert(padded.end(), shape_of(g, c).begin(), shape_of(g, c).end());
    s1 = memory(md_rowmajor(padded), b.engine(), m->get_data_handle());
    if (ys.size() == 4 && s0->get_desc() == md_blocked16(ys) && padded[1] == ys[1]) {
      // oneDNN 2.6 has no JIT kernel for a blocked operand against a plain broadcast one
      // (an SE block's scale): the small operand goes blocked too.
      memory blk = b.new_buffer(md_blocked16(padded));
      b.add_reorder(s1, blk);
      s1 = blk;
    }
  }
  const algorithm alg = n.kind == OpKind::kAdd   ? algorithm::binary_add
                        : n.kind == OpKind::kSub ? algorithm::binary_sub
                        : n.kind == OpKind::kMul ? algorithm::binary_mul
                                                 : algorithm::binary_div;
  dnnl::binary::desc d(alg, s0->get_desc(), s1.get_desc(), s0->get_desc());
  dnnl::binary::primitive_desc pd(d, b.engine());
  if (shape_of(g, c) != ys && std::string(pd.impl_info_str()).rfind("ref", 0) == 0)
    return host_broadcast_binary(b, n, a, c);
  memory dst = b.new_buffer(pd.dst_desc());
  dnnl::binary prim(pd);
  memory x = *s0;
  b.add_primitive(prim, {{DNNL_ARG_SRC_0, x}, {DNNL_ARG_SRC_1, s1}, {DNNL_ARG_DST, dst}}, pd.impl_info_str());
  b.set_mem(n.outputs[0], dst);
  return Status::ok();
}

Status pooling(OneDnnBackend& b, const Node& n) {
  const Graph& g = b.graph();
  const Shape& xs = shape_of(g, n.inputs[0]);
  const Shape& ys = shape_of(g, n.outputs[0]);
  if (xs.size() != 4) return Status::unsupported("only 2-D pooling is lowered to oneDNN");
  const auto& win = std::get<WindowDesc>(n.desc);  // global pools: the whole input, stride 1
  const std::vector<int64_t>& k = win.kernel;
  const std::vector<int64_t>& s = win.strides;
  const std::vector<int64_t>& p = win.pads;
  if (win.dilated()) return Status::unsupported("dilated pooling");
  if (win.auto_pad == AutoPad::kSameUpper || win.auto_pad == AutoPad::kSameLower)
    return Status::unsupported("pooling with auto_pad SAME");
  memory::dims pl = {p[0], p[1]}, pr(2);
  for (size_t i = 0; i < 2; ++i)  // right padding that yields ONNX's output size (ceil_mode included)
    pr[i] = std::max<int64_t>(p[i + 2], (ys[i + 2] - 1) * s[i] + k[i] - xs[i + 2] - p[i]);
  const bool is_max = n.kind == OpKind::kMaxPool || n.kind == OpKind::kGlobalMaxPool;
  const algorithm alg = is_max                  ? algorithm::pooling_max
                        : win.count_include_pad ? algorithm::pooling_avg_include_padding
                                                : algorithm::pooling_avg_exclude_padding;
  auto src = b.mem(n.inputs[0]);
  if (!src) return src.status();
  const memory::desc dst_md(memory::dims(ys.begin(), ys.end()), memory::data_type::f32, memory::format_tag::any);
  dnnl::pooling_forward::desc d(dnnl::prop_kind::forward_inference, alg, src->get_desc(), dst_md, {s[0], s[1]},
                                {k[0], k[1]}, pl, pr);
  dnnl::pooling_forward::primitive_desc pd(d, b.engine());
  memory dst = b.new_buffer(pd.dst_desc());
  dnnl::pooling_forward prim(pd);
  memory x = *src;
  b.add_primitive(prim, {{DNNL_ARG_SRC, x}, {DNNL_ARG_DST, dst}}, pd.impl_info_str());
  b.set_mem(n.outputs[0], dst);
  return Status::ok();
}

// Inference batch norm; with `relu_out`, a ReLU that only it feeds runs inside the same
// pass (oneDNN's fuse_norm_relu) and `relu_out` receives the result.
Status batchnorm(OneDnnBackend& b, const Node& n, ValueId relu_out) {
  auto src = b.mem(n.inputs[0]);
  if (!src) return src.status();
  memory p[4];
  for (int i = 0; i < 4; ++i) {
    auto m = b.rowmajor(n.inputs[static_cast<size_t>(i) + 1]);
    if (!m) return m.status();
    p[i] = *m;
  }
  auto flags = dnnl::normalization_flags::use_global_stats | dnnl::normalization_flags::use_scale |
               dnnl::normalization_flags::use_shift;
  if (relu_out != kNoValue) flags |= dnnl::normalization_flags::fuse_norm_relu;
  dnnl::batch_normalization_forward::desc d(dnnl::prop_kind::forward_inference, src->get_desc(),
                                            static_cast<float>(std::get<NormDesc>(n.desc).epsilon), flags);
  dnnl::batch_normalization_forward::primitive_desc pd(d, b.engine());
  memory dst = b.new_buffer(pd.dst_desc());
  dnnl::batch_normalization_forward prim(pd);
  std::unordered_map<int, memory> args = {{DNNL_ARG_SRC, *src},  {DNNL_ARG_SCALE, p[0]},    {DNNL_ARG_SHIFT, p[1]},
                                          {DNNL_ARG_MEAN, p[2]}, {DNNL_ARG_VARIANCE, p[3]}, {DNNL_ARG_DST, dst}};
  b.add_primitive(prim, args, pd.impl_info_str());
  b.set_mem(relu_out != kNoValue ? relu_out : n.outputs[0], dst);
  return Status::ok();
}

// A BatchNormalization whose only reader is the next node of its layer, a ReLU: that ReLU's
// output, else kNoValue.
ValueId fusable_relu(const Graph& g, const LayerReport& L) {
  if (L.nodes.size() < 2) return kNoValue;
  const Node& bn = g.node(L.nodes[0]);
  const Node& r = g.node(L.nodes[1]);
  if (bn.kind != OpKind::kBatchNormalization || r.kind != OpKind::kRelu || bn.outputs.empty() || r.inputs.empty() ||
      r.inputs[0] != bn.outputs[0] || r.outputs.empty())
    return kNoValue;
  if (g.value(bn.outputs[0]).consumers.size() != 1 || g.is_output(bn.outputs[0])) return kNoValue;
  return r.outputs[0];
}

Status layernorm(OneDnnBackend& b, const Node& n) {
  const Graph& g = b.graph();
  const Shape& xs = shape_of(g, n.inputs[0]);
  const auto& nd = std::get<NormDesc>(n.desc);  // axis normalised
  if (nd.axis != static_cast<int64_t>(xs.size()) - 1)
    return Status::unsupported("LayerNormalization over more than the last axis");
  auto src = b.rowmajor(n.inputs[0]);
  if (!src) return src.status();
  auto flags = dnnl::normalization_flags::use_scale;
  memory scale, shift;
  auto sc = b.rowmajor(n.inputs[1]);
  if (!sc) return sc.status();
  scale = *sc;
  if (n.inputs.size() > 2 && n.inputs[2] != kNoValue) {
    auto sh = b.rowmajor(n.inputs[2]);
    if (!sh) return sh.status();
    shift = *sh;
    flags = flags | dnnl::normalization_flags::use_shift;
  }
  dnnl::layer_normalization_forward::desc d(dnnl::prop_kind::forward_inference, src->get_desc(),
                                            static_cast<float>(nd.epsilon), flags);
  dnnl::layer_normalization_forward::primitive_desc pd(d, b.engine());
  memory dst = b.new_buffer(pd.dst_desc());
  dnnl::layer_normalization_forward prim(pd);
  std::unordered_map<int, memory> args = {{DNNL_ARG_SRC, *src}, {DNNL_ARG_SCALE, scale}, {DNNL_ARG_DST, dst}};
  if (shift) args[DNNL_ARG_SHIFT] = shift;
  b.add_primitive(prim, args, pd.impl_info_str());
  b.set_mem(n.outputs[0], dst);
  return Status::ok();
}

Status reduce_mean(OneDnnBackend& b, const Node& n) {
  const Graph& g = b.graph();
  const Shape& xs = shape_of(g, n.inputs[0]);
  const Shape& ys = shape_of(g, n.outputs[0]);
  Shape keep = xs;  // the reduced axes (normalised, every axis when none is named) become 1
  for (int64_t a : std::get<ReduceDesc>(n.desc).axes) keep[static_cast<size_t>(a)] = 1;
  auto src = b.mem(n.inputs[0]);
  if (!src) return src.status();
  if (xs.size() == 4 && keep[2] == 1 && keep[3] == 1 && keep[0] == xs[0] && keep[1] == xs[1]) {
    // A mean over H and W (ShuffleNet's and EfficientNet's heads, SE blocks written as
    // ReduceMean) is a global average pooling: oneDNN's reduction runs it with its reference
    // kernel here (ref:any, 29 ms for [32, 1024, 7, 7]), its pooling with a JIT kernel.
    const memory::desc pooled_md(memory::dims(keep.begin(), keep.end()), memory::data_type::f32,
                                 memory::format_tag::any);
    dnnl::pooling_forward::desc d(dnnl::prop_kind::forward_inference, algorithm::pooling_avg_exclude_padding,
                                  src->get_desc(), pooled_md, {1, 1}, {xs[2], xs[3]}, {0, 0}, {0, 0});
    dnnl::pooling_forward::primitive_desc pd(d, b.engine());
    memory pooled = b.new_buffer(pd.dst_desc());
    dnnl::pooling_forward prim(pd);
    memory x = *src;
    b.add_primitive(prim, {{DNNL_ARG_SRC, x}, {DNNL_ARG_DST, pooled}}, pd.impl_info_str());
    memory plain = pooled;
    if (pd.dst_desc() != md_rowmajor(keep)) {  // a blocked [N, C, 1, 1]: into row-major for the view below
      plain = b.new_buffer(md_rowmajor(keep));
      b.add_reorder(pooled, plain);
    }
    b.set_mem(n.outputs[0], memory(md_rowmajor(ys), b.engine(), plain.get_data_handle()));
    return Status::ok();
  }
  return reduction(b, n, algorithm::reduction_mean, 0.f);
}

// oneDNN's reduction over the node's axes (kept as 1 in the row-major result): a mean, or the
// L2 norm (norm_lp_sum with p = 2: Swin V2's cosine attention normalises Q and K with it).
Status reduction(OneDnnBackend& b, const Node& n, algorithm alg, float p) {
  const Graph& g = b.graph();
  const Shape& ys = shape_of(g, n.outputs[0]);
  Shape keep = shape_of(g, n.inputs[0]);
  const auto& rd = std::get<ReduceDesc>(n.desc);
  if (rd.noop) return Status::unsupported(n.op_type + " with noop_with_empty_axes and no axes");
  for (int64_t a : rd.axes) keep[static_cast<size_t>(a)] = 1;
  auto src = b.mem(n.inputs[0]);
  if (!src) return src.status();
  dnnl::reduction::desc d(alg, src->get_desc(), md_rowmajor(keep), p, 0.f);
  dnnl::reduction::primitive_desc pd(d, b.engine());
  memory dst = b.new_buffer(pd.dst_desc());
  dnnl::reduction prim(pd);
  memory x = *src;
  b.add_primitive(prim, {{DNNL_ARG_SRC, x}, {DNNL_ARG_DST, dst}}, pd.impl_info_str());
  b.set_mem(n.outputs[0], memory(md_rowmajor(ys), b.engine(), dst.get_data_handle()));
  return Status::ok();
}

// The L2 norm over the trailing axes (Swin V2 normalises Q and K over the last one) as a host
// loop over rows: oneDNN 2.6 runs norm_lp_sum with its reference kernel (ref:any, 5.5 ms for
// [64, 3, 49, 32], half of swin_v2_t's time at batch 1). Other axes go to oneDNN's reduction.
Status reduce_l2(OneDnnBackend& b, const Node& n) {
  const Graph& g = b.graph();
  const Shape& xs = shape_of(g, n.inputs[0]);
  const auto& rd = std::get<ReduceDesc>(n.desc);  // axes normalised, ascending
  const size_t first = xs.size() - std::min(xs.size(), rd.axes.size());
  bool trailing = !rd.noop && !rd.axes.empty() && g.value(n.inputs[0]).dtype == DType::kF32;
  for (size_t i = 0; trailing && i < rd.axes.size(); ++i) trailing = rd.axes[i] == static_cast<int64_t>(first + i);
  if (!trailing) return reduction(b, n, algorithm::reduction_norm_lp_sum, 2.f);
  int64_t inner = 1;
  for (size_t d = first; d < xs.size(); ++d) inner *= xs[d];
  const int64_t rows = inner > 0 ? ops::prod(xs) / inner : 0;
  auto src = b.rowmajor(n.inputs[0]);
  if (!src) return src.status();
  memory s = *src, dst = b.new_buffer(md_rowmajor(shape_of(g, n.outputs[0])));
  b.add_step(
      [s, dst, rows, inner](dnnl::stream&) {
        const float* x = static_cast<const float*>(s.get_data_handle());
        float* y = static_cast<float*>(dst.get_data_handle());
#pragma omp parallel for
        for (int64_t r = 0; r < rows; ++r) {
          const float* xr = x + r * inner;
          float acc = 0;
#pragma omp simd reduction(+ : acc)
          for (int64_t i = 0; i < inner; ++i) acc += xr[i] * xr[i];
          y[r] = std::sqrt(acc);
        }
      },
      "host:reduce_l2", {s, dst});
  b.set_mem(n.outputs[0], dst);
  return Status::ok();
}

Status softmax(OneDnnBackend& b, const Node& n) {
  const Graph& g = b.graph();
  const Shape& xs = shape_of(g, n.inputs[0]);
  const int64_t axis = std::get<AxisDesc>(n.desc).axis;  // normalised, opset default applied
  if (g.opset < 13 && axis != static_cast<int64_t>(xs.size()) - 1)
    return Status::unsupported("opset < 13 Softmax over a flattened tail");
  auto src = b.rowmajor(n.inputs[0]);
  if (!src) return src.status();
  dnnl::softmax_forward::desc d(dnnl::prop_kind::forward_inference, src->get_desc(), static_cast<int>(axis));
  dnnl::softmax_forward::primitive_desc pd(d, b.engine());
  memory dst = b.new_buffer(pd.dst_desc());
  dnnl::softmax_forward prim(pd);
  memory x = *src;
  b.add_primitive(prim, {{DNNL_ARG_SRC, x}, {DNNL_ARG_DST, dst}}, pd.impl_info_str());
  b.set_mem(n.outputs[0], dst);
  return Status::ok();
}

Status erf(OneDnnBackend& b, const Node& n) {
  auto src = b.rowmajor(n.inputs[0]);
  if (!src) return src.status();
  memory dst = b.new_buffer(src->get_desc());
  const size_t count = src->get_desc().get_size() / sizeof(float);
  memory s = *src;
  b.add_step(
      [s, dst, count](dnnl::stream&) {
        const float* x = static_cast<const float*>(s.get_data_handle());
        float* y = static_cast<float*>(dst.get_data_handle());
#pragma omp parallel for
        for (size_t i = 0; i < count; ++i) y[i] = std::erf(x[i]);
      },
      "host:erf", {s, dst});
  b.set_mem(n.outputs[0], dst);
  return Status::ok();
}

}  // namespace rooflens::onednn
