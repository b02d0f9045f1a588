// Single-node lowering for everything outside a linear layer's post-ops: eltwise,
// binary, pooling, batch/layer normalization, reduction, softmax, concat, views and
// data movement (reorders), and the layer dispatcher.
#include <cfloat>
#include <cmath>
#include <cstring>
#include <optional>
#include <string>

#include "epilogue.h"
#include "linear.h"
#include "rooflens/ir/patterns.h"
#include "rooflens/ops/shape_math.h"

namespace rooflens::onednn {

using dnnl::algorithm;
using dnnl::memory;

namespace {

const Shape& shape_of(const Graph& g, ValueId v) { return *g.value(v).shape; }

// Channels-last generalised to rank r >= 4 with a split channel: dim 0 outermost, then the
// last two (spatial) dims, then dims 1..r-3 row-major innermost. Merging dims 1..r-3 of it
// gives acdb.
memory::desc md_split_channels_last(const Shape& s) {
  const size_t r = s.size();
  memory::dims st(r);
  int64_t acc = 1;
  for (size_t i = r - 2; i-- > 1;) {
    st[i] = acc;
    acc *= s[i];
  }
  st[r - 1] = acc;
  st[r - 2] = acc * s[r - 1];
  st[0] = st[r - 2] * s[r - 2];
  return memory::desc(memory::dims(s.begin(), s.end()), memory::data_type::f32, st);
}

Status eltwise(OneDnnBackend& b, const Node& n, algorithm a, float alpha, float beta,
               std::optional<std::pair<float, float>> clip_after = std::nullopt) {
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
Status batchnorm(OneDnnBackend& b, const Node& n, ValueId relu_out = kNoValue) {
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
  dnnl::reduction::desc d(algorithm::reduction_mean, src->get_desc(), md_rowmajor(keep), 0.f, 0.f);
  dnnl::reduction::primitive_desc pd(d, b.engine());
  memory dst = b.new_buffer(pd.dst_desc());
  dnnl::reduction prim(pd);
  memory x = *src;
  b.add_primitive(prim, {{DNNL_ARG_SRC, x}, {DNNL_ARG_DST, dst}}, pd.impl_info_str());
  b.set_mem(n.outputs[0], memory(md_rowmajor(ys), b.engine(), dst.get_data_handle()));
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

// oneDNN's concat of `srcs` along `axis` into a new tensor of layout `dst_md`, as `out`.
Status onednn_concat(OneDnnBackend& b, ValueId out, const memory::desc& dst_md, int axis,
                     const std::vector<memory>& srcs) {
  std::vector<memory::desc> mds;
  for (const memory& m : srcs) mds.push_back(m.get_desc());
  dnnl::concat::primitive_desc pd(dst_md, axis, mds, b.engine());
  memory dst = b.new_buffer(pd.dst_desc());
  std::unordered_map<int, memory> args = {{DNNL_ARG_DST, dst}};
  for (size_t i = 0; i < srcs.size(); ++i) args[DNNL_ARG_MULTIPLE_SRC + static_cast<int>(i)] = srcs[i];
  dnnl::concat prim(pd);
  b.add_primitive(prim, args, pd.impl_info_str());
  b.set_mem(out, dst);
  return Status::ok();
}

// The BatchNormalization + ReLU that only reads this Concat (ir/patterns.h), when they form
// a layer of their own: its per-channel scale and shift (C of each) and the ReLU's output,
// and both nodes marked built; relu_out kNoValue otherwise.
struct NormRelu {
  ValueId relu_out = kNoValue;
  std::vector<float> scale_shift;
};
Expected<NormRelu> norm_relu_reading(OneDnnBackend& b, const Node& n) {
  const Graph& g = b.graph();
  const NodeId bn_id = concat_feeding_norm_relu(g, static_cast<NodeId>(&n - g.nodes.data()));
  if (bn_id < 0) return NormRelu{};
  const Node& bn = g.node(bn_id);
  const NodeId relu_id = g.value(bn.outputs[0]).consumers[0];
  const std::vector<NodeId>& layer = b.layer_nodes_of(bn_id);
  if (layer != std::vector<NodeId>{bn_id, relu_id}) return NormRelu{};
  Tensor p[4];
  for (size_t i = 0; i < 4; ++i) {
    auto t = b.stored(bn.inputs[i + 1]);
    if (!t) return t.status();
    p[i] = std::move(*t);
  }
  const size_t C = static_cast<size_t>(shape_of(g, n.outputs[0])[1]);
  for (const Tensor& t : p)
    if (t.data.size() != C) return NormRelu{};
  const double eps = std::get<NormDesc>(bn.desc).epsilon;
  NormRelu r;
  r.scale_shift.resize(2 * C);
  for (size_t c = 0; c < C; ++c) {
    const double s = p[0].data[c] / std::sqrt(static_cast<double>(p[3].data[c]) + eps);
    r.scale_shift[c] = static_cast<float>(s);
    r.scale_shift[C + c] = static_cast<float>(p[1].data[c] - p[2].data[c] * s);
  }
  r.relu_out = g.node(relu_id).outputs[0];
  b.mark_built(bn_id);
  b.mark_built(relu_id);
  return r;
}

Status concat(OneDnnBackend& b, const Node& n) {
  const Graph& g = b.graph();
  const Shape& ys = shape_of(g, n.outputs[0]);
  const int64_t axis = std::get<AxisDesc>(n.desc).axis;  // normalised
  if (n.inputs.size() == 1) {                            // DenseNet's first layer of a block: the output is the input
    auto in = b.mem(n.inputs[0]);
    if (!in) return in.status();
    b.set_mem(n.outputs[0], *in);
    return Status::ok();
  }
  std::vector<memory> srcs;
  if (b.blocked() && ys.size() == 4 && axis == 1) {
    // Blocked inputs of whole 16-channel blocks: oneDNN's concat copies each input's blocks.
    bool all_blocked = true;
    for (ValueId in : n.inputs) {
      auto m = b.mem(in);
      if (!m) return m.status();
      all_blocked = all_blocked && m->get_desc() == md_blocked16(shape_of(g, in)) && shape_of(g, in)[1] % 16 == 0;
    }
    if (all_blocked) {
      for (ValueId in : n.inputs) srcs.push_back(*b.mem(in));
      return onednn_concat(b, n.outputs[0], md_blocked16(ys), 1, srcs);
    }
  }
  for (ValueId in : n.inputs) {
    auto m = b.as_desc(in, md_channels_last(shape_of(g, in)));
    if (!m) return m.status();
    srcs.push_back(*m);
  }
  if (ys.size() == 4 && axis == 1) {
    // Channels of channels-last tensors: per pixel, each input's run of channels in turn, so
    // the output is written front to back (oneDNN 2.6's concat reaches half the bandwidth
    // here: DenseNet-121's concats at batch 32, 101 ms against ONNX Runtime's 39).
    memory dst = b.new_buffer(md_channels_last(ys));
    std::vector<int64_t> widths;
    for (ValueId in : n.inputs) widths.push_back(shape_of(g, in)[1]);
    const int64_t C = ys[1], pixels = ys[0] * ys[2] * ys[3];
    std::vector<memory> touched = srcs;
    touched.push_back(dst);
    auto norm = norm_relu_reading(b, n);
    if (!norm) return norm.status();
    // With a fused BatchNormalization + ReLU the concatenation itself is never written:
    // relu(x * scale + shift) per channel.
    const bool fused = norm->relu_out != kNoValue;
    b.add_step(
        [srcs, dst, widths, C, pixels, ss = norm->scale_shift](dnnl::stream&) {
          std::vector<const float*> x;
          for (const memory& m : srcs) x.push_back(static_cast<const float*>(m.get_data_handle()));
          float* y = static_cast<float*>(dst.get_data_handle());
          const float* scale = ss.data();
          const float* shift = ss.empty() ? nullptr : ss.data() + C;
#pragma omp parallel for schedule(static)
          for (int64_t p = 0; p < pixels; ++p) {
            float* out = y + p * C;
            int64_t off = 0;
            for (size_t i = 0; i < x.size(); ++i) {
              const float* a = x[i] + p * widths[i];
              const int64_t w = widths[i];
              if (!shift) {
                std::memcpy(out + off, a, static_cast<size_t>(w) * sizeof(float));
              } else {
#pragma omp simd
                for (int64_t c = 0; c < w; ++c) out[off + c] = std::max(0.0f, a[c] * scale[off + c] + shift[off + c]);
              }
              off += w;
            }
          }
        },
        fused ? "host:channel_concat+bn_relu" : "host:channel_concat", touched);
    b.set_mem(fused ? norm->relu_out : n.outputs[0], dst);
    return Status::ok();
  }
  return onednn_concat(b, n.outputs[0], md_channels_last(ys), static_cast<int>(axis), srcs);
}

// Copies a strided view of `src` (dims/strides in elements, offset) into a new row-major tensor.
Status copy_view(OneDnnBackend& b, const memory& src, const memory::desc& view, const Shape& out_shape, ValueId out) {
  memory v(view, b.engine(), src.get_data_handle());
  memory dst = b.new_buffer(md_rowmajor(out_shape));
  b.add_reorder(v, dst);
  b.set_mem(out, dst);
  return Status::ok();
}

// Transpose reads its input in the layout it was produced in (any plain strided layout, e.g. a
// channel-split view of a channels-last activation) through a permuted strided view: one
// reorder. A rank >= 4 transpose that keeps dim 0 and the two spatial dims in place (channel
// shuffle) writes the split-channels-last layout, so the Reshape that merges the channels
// back is a free view of acdb; any other transpose writes row-major.
Status transpose(OneDnnBackend& b, const Node& n) {
  const Graph& g = b.graph();
  const Shape& xs = shape_of(g, n.inputs[0]);
  const Shape& ys = shape_of(g, n.outputs[0]);
  const std::vector<int64_t>& perm = std::get<TransposeDesc>(n.desc).perm;  // default applied
  auto src = b.mem(n.inputs[0]);
  if (!src) return src.status();
  auto in_strides = plain_strides(src->get_desc());
  if (!in_strides) {
    src = b.rowmajor(n.inputs[0]);
    if (!src) return src.status();
    in_strides = plain_strides(src->get_desc());
  }
  memory::dims strides(ys.size());
  for (size_t i = 0; i < ys.size(); ++i) strides[i] = (*in_strides)[static_cast<size_t>(perm[i])];
  const size_t r = ys.size();
  const bool shuffle = r >= 4 && perm[0] == 0 && perm[r - 2] == static_cast<int64_t>(r - 2) &&
                       perm[r - 1] == static_cast<int64_t>(r - 1);
  memory dst = b.new_buffer(shuffle ? md_split_channels_last(ys) : md_rowmajor(ys));
  if (shuffle && r == 5 &&
      memory::desc(memory::dims(xs.begin(), xs.end()), memory::data_type::f32, *in_strides) ==
          md_split_channels_last(xs) &&
      perm[1] == 2 && perm[2] == 1) {
    // Channel shuffle of a channels-last activation: per pixel, a [G, Cg] -> [Cg, G]
    // transpose of its C contiguous channels (oneDNN's strided reorder is a slow generic one).
    const int64_t G = xs[1], Cg = xs[2], C = G * Cg, pixels = xs[0] * xs[3] * xs[4];
    memory s = *src;
    b.add_step(
        [s, dst, G, Cg, C, pixels](dnnl::stream&) {
          const float* x = static_cast<const float*>(s.get_data_handle());
          float* y = static_cast<float*>(dst.get_data_handle());
#pragma omp parallel for
          for (int64_t p = 0; p < pixels; ++p)
            for (int64_t g = 0; g < G; ++g)
              for (int64_t c = 0; c < Cg; ++c) y[p * C + c * G + g] = x[p * C + g * Cg + c];
        },
        "host:channel_shuffle", {s, dst});
    b.set_mem(n.outputs[0], dst);
    return Status::ok();
  }
  memory v(memory::desc(memory::dims(ys.begin(), ys.end()), memory::data_type::f32, strides), b.engine(),
           src->get_data_handle());
  b.add_reorder(v, dst);
  b.set_mem(n.outputs[0], dst);
  return Status::ok();
}

Status slice_like(OneDnnBackend& b, ValueId in, ValueId out, const std::vector<int64_t>& offsets) {
  const Graph& g = b.graph();
  const Shape& xs = shape_of(g, in);
  const Shape& ys = shape_of(g, out);
  auto cl = b.mem(in);
  if (!cl) return cl.status();
  if (xs.size() == 4 && cl->get_desc() == md_channels_last(xs) && offsets[0] == 0 && offsets[2] == 0 &&
      offsets[3] == 0 && ys[0] == xs[0] && ys[2] == xs[2] && ys[3] == xs[3]) {
    // A channel slice of a channels-last activation stays channels-last: per pixel, one
    // contiguous run of channels.
    memory s = *cl, dst = b.new_buffer(md_channels_last(ys));
    const int64_t C = xs[1], Cy = ys[1], c0 = offsets[1], pixels = xs[0] * xs[2] * xs[3];
    b.add_step(
        [s, dst, C, Cy, c0, pixels](dnnl::stream&) {
          const float* x = static_cast<const float*>(s.get_data_handle());
          float* y = static_cast<float*>(dst.get_data_handle());
#pragma omp parallel for
          for (int64_t p = 0; p < pixels; ++p)
            std::memcpy(y + p * Cy, x + p * C + c0, static_cast<size_t>(Cy) * sizeof(float));
        },
        "host:channel_slice", {s, dst});
    b.set_mem(out, dst);
    return Status::ok();
  }
  auto src = b.rowmajor(in);
  if (!src) return src.status();
  memory::desc sub =
      md_rowmajor(shape_of(g, in))
          .submemory_desc(memory::dims(ys.begin(), ys.end()), memory::dims(offsets.begin(), offsets.end()));
  return copy_view(b, *src, sub, ys, out);
}

// A Slice with a step other than 1 on some dim (Swin's patch merging reads x[:, 0::2, 1::2, :]):
// a host copy from the row-major input, output element (i0, i1, ...) from input element
// (first0 + i0 * step0, ...), negative steps included.
Status strided_slice(OneDnnBackend& b, const Node& n, const SliceDesc& sd) {
  const Graph& g = b.graph();
  if (g.value(n.outputs[0]).dtype != DType::kF32) return Status::unsupported("strided Slice of a non-fp32 tensor");
  const Shape& xs = shape_of(g, n.inputs[0]);
  const Shape& ys = shape_of(g, n.outputs[0]);
  auto src = b.rowmajor(n.inputs[0]);
  if (!src) return src.status();
  const size_t r = ys.size();
  std::vector<int64_t> jump(r);
  int64_t base = 0, stride = 1;
  for (size_t d = r; d-- > 0;) {
    base += sd.first[d] * stride;
    jump[d] = sd.step[d] * stride;
    stride *= xs[d];
  }
  const int64_t inner = r ? ys[r - 1] : 1, total = checked_numel(ys).value_or(0);
  const int64_t rows = inner > 0 ? total / inner : 0, inner_jump = r ? jump[r - 1] : 1;
  memory s = *src, dst = b.new_buffer(md_rowmajor(ys));
  b.add_step(
      [s, dst, ys, jump, base, inner, rows, inner_jump, r](dnnl::stream&) {
        const float* x = static_cast<const float*>(s.get_data_handle());
        float* y = static_cast<float*>(dst.get_data_handle());
#pragma omp parallel for
        for (int64_t row = 0; row < rows; ++row) {
          int64_t rem = row, off = base;
          for (size_t d = r - 1; d-- > 0;) {
            off += (rem % ys[d]) * jump[d];
            rem /= ys[d];
          }
          for (int64_t i = 0; i < inner; ++i) y[row * inner + i] = x[off + i * inner_jump];
        }
      },
      "host:strided_slice", {s, dst});
  b.set_mem(n.outputs[0], dst);
  return Status::ok();
}

Status slice(OneDnnBackend& b, const Node& n) {
  const auto& sd = std::get<SliceDesc>(n.desc);  // first index per dim, clamped
  for (int64_t s : sd.step)
    if (s != 1) return strided_slice(b, n, sd);
  return slice_like(b, n.inputs[0], n.outputs[0], sd.first);
}

Status split(OneDnnBackend& b, const Node& n) {
  const Graph& g = b.graph();
  const Shape& xs = shape_of(g, n.inputs[0]);
  const int64_t axis = std::get<AxisDesc>(n.desc).axis;  // normalised
  int64_t at = 0;
  for (ValueId out : n.outputs) {
    if (out == kNoValue) continue;
    std::vector<int64_t> off(xs.size(), 0);
    off[static_cast<size_t>(axis)] = at;
    ROOFLENS_RETURN_IF_ERROR(slice_like(b, n.inputs[0], out, off));
    at += shape_of(g, out)[static_cast<size_t>(axis)];
  }
  return Status::ok();
}

Status pad(OneDnnBackend& b, const Node& n) {
  const Graph& g = b.graph();
  const Shape& xs = shape_of(g, n.inputs[0]);
  const Shape& ys = shape_of(g, n.outputs[0]);
  const auto& pd = std::get<PadDesc>(n.desc);
  if (pd.mode != PadMode::kConstant) return Status::unsupported("Pad modes other than constant");
  if (n.inputs.size() > 3 && n.inputs[3] != kNoValue) return Status::unsupported("Pad with axes");
  const std::vector<int64_t>& pads = pd.pads;  // every dim: begins then ends
  auto value = static_cast<float>(pd.value);
  if (n.inputs.size() > 2 && n.inputs[2] != kNoValue) {
    auto v = known_scalar(g, n.inputs[2]);
    if (!v) return Status::unsupported("Pad value not known");
    value = static_cast<float>(*v);
  }
  for (int64_t p : pads)
    if (p < 0) return Status::unsupported("negative pads (cropping)");
  if (xs == ys) {  // pads all 0: the output is the input, in whatever layout it has
    auto in = b.mem(n.inputs[0]);
    if (!in) return in.status();
    b.set_mem(n.outputs[0], *in);
    return Status::ok();
  }
  auto src = b.rowmajor(n.inputs[0]);
  if (!src) return src.status();
  memory dst = b.new_buffer(md_rowmajor(ys));
  memory::desc sub =
      md_rowmajor(ys).submemory_desc(memory::dims(xs.begin(), xs.end()),
                                     memory::dims(pads.begin(), pads.begin() + static_cast<long>(xs.size())));
  memory inner(sub, b.engine(), dst.get_data_handle());
  dnnl::reorder r(*src, inner);
  memory s = *src;
  const size_t count = static_cast<size_t>(checked_numel(ys).value_or(0));
  b.add_step(
      [r, s, inner, dst, count, value](dnnl::stream& st) mutable {
        float* p = static_cast<float*>(dst.get_data_handle());
        std::fill(p, p + count, value);
        r.execute(st, s, inner);
      },
      "reorder(pad)", {s, inner, dst});
  b.set_mem(n.outputs[0], dst);
  return Status::ok();
}

// A view aliases its input without a copy when the input's layout allows it and the result
// is row-major or channels-last (acdb), or a strided layout read only by Transposes;
// otherwise it aliases the input converted to row-major.
Status view(OneDnnBackend& b, const Node& n) {
  const Graph& g = b.graph();
  if (n.kind == OpKind::kReshape && n.outputs.size() == 1 && g.value(n.outputs[0]).shape) {
    auto in = b.mem(n.inputs[0]);
    if (!in) return in.status();
    const Shape& ys = shape_of(g, n.outputs[0]);
    auto st = plain_strides(in->get_desc());
    auto os = st ? reshape_strides(shape_of(g, n.inputs[0]), *st, ys) : std::nullopt;
    if (os) {
      memory::desc md(memory::dims(ys.begin(), ys.end()), memory::data_type::f32, *os);
      bool ok = md == md_rowmajor(ys) || md == md_channels_last(ys);
      if (!ok) {
        ok = !g.value(n.outputs[0]).consumers.empty();
        for (NodeId c : g.value(n.outputs[0]).consumers) ok = ok && g.node(c).kind == OpKind::kTranspose;
      }
      if (ok) {
        b.set_mem(n.outputs[0], memory(md, b.engine(), in->get_data_handle()));
        return Status::ok();
      }
    }
  }
  auto src = b.rowmajor(n.inputs[0]);
  if (!src) return src.status();
  for (ValueId out : n.outputs)
    if (out != kNoValue && b.graph().value(out).dtype != DType::kBool)
      b.set_mem(out, memory(md_rowmajor(*b.graph().value(out).shape), b.engine(), src->get_data_handle()));
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

// Gather with indices known at analysis time (ViT's class-token pick, Swin's relative
// position bias table), as a host copy of rows.
Status gather(OneDnnBackend& b, const Node& n) {
  const Graph& g = b.graph();
  const auto& idx = g.value(n.inputs[1]).ints;
  if (!idx) return Status::unsupported("Gather with indices computed at run time");
  auto src = b.rowmajor(n.inputs[0]);
  if (!src) return src.status();
  const Shape& xs = *g.value(n.inputs[0]).shape;
  const Shape& ys = *g.value(n.outputs[0]).shape;
  const auto axis = static_cast<size_t>(std::get<AxisDesc>(n.desc).axis);
  const int64_t outer = ops::prod(xs, 0, axis), inner = ops::prod(xs, axis + 1), dim = xs[axis];
  std::vector<int64_t> rows;
  for (int64_t i : *idx) rows.push_back(i < 0 ? i + dim : i);
  memory dst = b.new_buffer(md_rowmajor(ys));
  memory s = *src;
  b.add_step(
      [s, dst, rows, outer, inner, dim](dnnl::stream&) {
        const float* x = static_cast<const float*>(s.get_data_handle());
        float* y = static_cast<float*>(dst.get_data_handle());
        const auto nr = static_cast<int64_t>(rows.size());
#pragma omp parallel for
        for (int64_t o = 0; o < outer; ++o)
          for (int64_t r = 0; r < nr; ++r)
            std::memcpy(y + (o * nr + r) * inner, x + (o * dim + rows[static_cast<size_t>(r)]) * inner,
                        static_cast<size_t>(inner) * sizeof(float));
      },
      "host:gather", {s, dst});
  b.set_mem(n.outputs[0], dst);
  return Status::ok();
}

// Expand (numpy broadcast to a known shape) as a host copy.
Status expand(OneDnnBackend& b, const Node& n) {
  const Graph& g = b.graph();
  auto src = b.rowmajor(n.inputs[0]);
  if (!src) return src.status();
  const Shape xs = *g.value(n.inputs[0]).shape;
  const Shape ys = *g.value(n.outputs[0]).shape;
  memory dst = b.new_buffer(md_rowmajor(ys));
  memory s = *src;
  const int64_t count = ops::prod(ys);
  b.add_step(
      [s, dst, xs, ys, count](dnnl::stream&) {
        const float* x = static_cast<const float*>(s.get_data_handle());
        float* y = static_cast<float*>(dst.get_data_handle());
#pragma omp parallel for
        for (int64_t i = 0; i < count; ++i) y[i] = x[ops::broadcast_source_index(ys, xs, i)];
      },
      "host:expand", {s, dst});
  b.set_mem(n.outputs[0], dst);
  return Status::ok();
}

Status lower_node(OneDnnBackend& b, NodeId id) {
  const Graph& g = b.graph();
  const Node& n = g.node(id);
  if (n.folded) return Status::ok();
  switch (n.kind) {
    case OpKind::kRelu: return eltwise(b, n, algorithm::eltwise_relu, 0, 0);
    case OpKind::kLeakyRelu:
      return eltwise(b, n, algorithm::eltwise_relu, static_cast<float>(std::get<ActivationDesc>(n.desc).alpha), 0);
    case OpKind::kSigmoid: return eltwise(b, n, algorithm::eltwise_logistic, 0, 0);
    case OpKind::kTanh: return eltwise(b, n, algorithm::eltwise_tanh, 0, 0);
    case OpKind::kHardSwish: return eltwise(b, n, algorithm::eltwise_hardswish, 0, 0);
    case OpKind::kSqrt: return eltwise(b, n, algorithm::eltwise_sqrt, 0, 0);
    case OpKind::kExp: return eltwise(b, n, algorithm::eltwise_exp, 0, 0);
    case OpKind::kNeg: return eltwise(b, n, algorithm::eltwise_linear, -1, 0);
    case OpKind::kHardSigmoid:
      return eltwise(b, n, algorithm::eltwise_linear, static_cast<float>(std::get<ActivationDesc>(n.desc).alpha),
                     static_cast<float>(std::get<ActivationDesc>(n.desc).beta), std::pair<float, float>{0.f, 1.f});
    case OpKind::kGelu: {
      const bool tanh = std::get<ActivationDesc>(n.desc).gelu_tanh;
      return eltwise(b, n, tanh ? algorithm::eltwise_gelu_tanh : algorithm::eltwise_gelu_erf, 0, 0);
    }
    case OpKind::kClip: {
      const auto& d = std::get<ActivationDesc>(n.desc);  // bounds: attributes or known inputs
      const double lo = std::isinf(d.clip_min) ? -FLT_MAX : d.clip_min;
      const double hi = std::isinf(d.clip_max) ? FLT_MAX : d.clip_max;
      return eltwise(b, n, algorithm::eltwise_clip, static_cast<float>(lo), static_cast<float>(hi));
    }
    case OpKind::kErf: return erf(b, n);
    case OpKind::kGather: return gather(b, n);
    case OpKind::kExpand: return expand(b, n);
    case OpKind::kAdd:
    case OpKind::kSub:
    case OpKind::kMul:
    case OpKind::kDiv: return binary(b, n);
    case OpKind::kMaxPool:
    case OpKind::kAveragePool:
    case OpKind::kGlobalAveragePool:
    case OpKind::kGlobalMaxPool: return pooling(b, n);
    case OpKind::kBatchNormalization: return batchnorm(b, n);
    case OpKind::kLayerNormalization: return layernorm(b, n);
    case OpKind::kReduceMean: return reduce_mean(b, n);
    case OpKind::kSoftmax: return softmax(b, n);
    case OpKind::kConcat: return concat(b, n);
    case OpKind::kTranspose: return transpose(b, n);
    case OpKind::kSlice: return slice(b, n);
    case OpKind::kSplit: return split(b, n);
    case OpKind::kPad: return pad(b, n);
    case OpKind::kFlatten:
    case OpKind::kReshape:
    case OpKind::kSqueeze:
    case OpKind::kUnsqueeze:
    case OpKind::kIdentity:
    case OpKind::kDropout: return view(b, n);
    case OpKind::kCast:
      if (dtype_is_float(n.kind == OpKind::kCast ? g.value(n.outputs[0]).dtype : DType::kF32)) return view(b, n);
      return Status::unsupported("Cast to an integer type at run time");
    default: return Status::unsupported(n.op_type + " is not lowered to oneDNN");
  }
}

}  // namespace

namespace {

// What prepare would refuse in the node's own parameters (its descriptor, shapes and stored
// operands), whatever layer it lands in; empty when nothing.
std::string parameter_refusal(const Graph& g, const Node& n) {
  const auto rank = [&](size_t i) { return g.value(n.inputs[i]).shape ? g.value(n.inputs[i]).shape->size() : 0; };
  const auto stored = [&](size_t i) { return g.value(n.inputs[i]).is_stored; };
  // Shape inference set the descriptors of every node whose outputs have shapes.
  if (n.outputs.empty() || n.outputs[0] == kNoValue || !g.value(n.outputs[0]).shape) return "its shapes are not known";
  switch (n.kind) {
    case OpKind::kConv:
      if (rank(0) != 4) return "only 2-D convolutions are lowered to oneDNN";
      if (!stored(1)) return "convolution weights computed at run time";
      return {};
    case OpKind::kGemm: {
      const auto& d = std::get<GemmDesc>(n.desc);
      if (d.trans_a) return "Gemm with transA=1";
      if (d.alpha != 1.0 || d.beta != 1.0) return "Gemm with alpha or beta other than 1";
      if (!stored(1)) return "Gemm weights computed at run time";
      return {};
    }
    case OpKind::kMatMul: return rank(0) < 2 || rank(1) < 2 ? "MatMul with a 1-D operand" : "";
    case OpKind::kGather:
      if (!g.value(n.inputs[1]).ints) return "Gather with indices computed at run time";
      return g.value(n.outputs[0]).dtype == DType::kF32 ? "" : "Gather of a non-fp32 tensor";
    case OpKind::kExpand: return g.value(n.outputs[0]).dtype == DType::kF32 ? "" : "Expand of a non-fp32 tensor";
    case OpKind::kEinsum: return "Einsum is not lowered to oneDNN";
    case OpKind::kReduceL2: return "ReduceL2 is not lowered to oneDNN";
    case OpKind::kMaxPool:
    case OpKind::kAveragePool:
    case OpKind::kGlobalAveragePool:
    case OpKind::kGlobalMaxPool: {
      const auto& w = std::get<WindowDesc>(n.desc);
      if (rank(0) != 4) return "only 2-D pooling is lowered to oneDNN";
      if (w.dilated()) return "dilated pooling";
      if (w.auto_pad == AutoPad::kSameUpper || w.auto_pad == AutoPad::kSameLower) return "pooling with auto_pad SAME";
      return {};
    }
    case OpKind::kLayerNormalization:
      return std::get<NormDesc>(n.desc).axis != static_cast<int64_t>(rank(0)) - 1
                 ? "LayerNormalization over more than the last axis"
                 : "";
    case OpKind::kSoftmax:
      return g.opset < 13 && std::get<AxisDesc>(n.desc).axis != static_cast<int64_t>(rank(0)) - 1
                 ? "opset < 13 Softmax over a flattened tail"
                 : "";
    case OpKind::kSlice:
      for (int64_t s : std::get<SliceDesc>(n.desc).step)
        if (s != 1 && g.value(n.outputs[0]).dtype != DType::kF32) return "strided Slice of a non-fp32 tensor";
      return {};
    case OpKind::kPad: {
      const auto& d = std::get<PadDesc>(n.desc);
      if (d.mode != PadMode::kConstant) return "Pad modes other than constant";
      if (n.inputs.size() > 3 && n.inputs[3] != kNoValue) return "Pad with axes";
      if (n.inputs.size() > 2 && n.inputs[2] != kNoValue && !known_scalar(g, n.inputs[2])) return "Pad value not known";
      for (int64_t p : d.pads)
        if (p < 0) return "negative pads (cropping)";
      return {};
    }
    default: return {};
  }
}

}  // namespace

bool node_supported(const Graph& g, NodeId id, std::string* reason) {
  const Node& n = g.node(id);
  switch (n.kind) {
    case OpKind::kUnknown: *reason = "unknown op " + n.op_type; return false;
    case OpKind::kResize:
    case OpKind::kEqual:
    case OpKind::kLess:
    case OpKind::kGreater:
    case OpKind::kAnd:
    case OpKind::kOr:
    case OpKind::kNot:
    case OpKind::kWhere:
    case OpKind::kMod:
    case OpKind::kRange:
    case OpKind::kScatterND:
    case OpKind::kPow:
    case OpKind::kShape:
    case OpKind::kConstant:
    case OpKind::kConstantOfShape:
      *reason = n.op_type + " on run-time data is not lowered to oneDNN (only as a folded shape computation)";
      return false;
    default: break;
  }
  *reason = parameter_refusal(g, n);
  return reason->empty();
}

namespace {

// A fused attention layer (FusedLayer::attention) as oneDNN primitives in node order: each
// product a matmul (with the pointwise ops after Q.K^T as its post-ops), then the Softmax.
// oneDNN 2.x has no attention primitive, so the scores pass through memory here; the cost
// model's engine view is what a fused kernel would do.
Status build_attention(OneDnnBackend& b, const LayerReport& L) {
  const Graph& g = b.graph();
  for (size_t i = 0; i < L.nodes.size();) {
    const Node& n = g.node(L.nodes[i]);
    if (n.kind != OpKind::kMatMul) {
      ROOFLENS_RETURN_IF_ERROR(lower_node(b, L.nodes[i]).with_context(n.op_type + " node '" + n.name + "'"));
      ++i;
      continue;
    }
    LayerReport sub;
    sub.name = n.name;
    sub.nodes.push_back(L.nodes[i]);
    // Post-ops: the pointwise nodes right after this product, up to the next view or Softmax.
    for (size_t j = i + 1; j < L.nodes.size(); ++j) {
      const OpCategory c = op_info(g.node(L.nodes[j]).kind).category;
      if (c != OpCategory::kActivation && c != OpCategory::kElementwise) break;
      sub.nodes.push_back(L.nodes[j]);
    }
    auto r = build_matmul(b, sub);
    if (!r) return r.status().with_context("MatMul node '" + n.name + "'");
    for (size_t j = *r; j < sub.nodes.size(); ++j)
      ROOFLENS_RETURN_IF_ERROR(
          lower_node(b, sub.nodes[j])
              .with_context(g.node(sub.nodes[j]).op_type + " node '" + g.node(sub.nodes[j]).name + "'"));
    i += sub.nodes.size();
  }
  return Status::ok();
}

}  // namespace

Status build_fused_layer(OneDnnBackend& b, const LayerReport& L) {
  const Graph& g = b.graph();
  const Node& anchor = g.node(L.nodes[0]);
  size_t next = 0;
  try {
    Expected<size_t> r = size_t{0};
    if (L.attention) return build_attention(b, L);
    if (anchor.kind == OpKind::kConv)
      r = build_conv(b, L);
    else if (anchor.kind == OpKind::kGemm)
      r = build_gemm(b, L);
    else if (anchor.kind == OpKind::kMatMul)
      r = build_matmul(b, L);
    else if (const ValueId relu = fusable_relu(g, L); relu != kNoValue) {
      ROOFLENS_RETURN_IF_ERROR(
          batchnorm(b, anchor, relu).with_context("BatchNormalization node '" + anchor.name + "'"));
      r = size_t{2};
    }
    if (!r) return r.status();
    next = *r;
    for (size_t i = next; i < L.nodes.size(); ++i)
      ROOFLENS_RETURN_IF_ERROR(
          lower_node(b, L.nodes[i])
              .with_context(g.node(L.nodes[i]).op_type + " node '" + g.node(L.nodes[i]).name + "'"));
  } catch (const dnnl::error& e) {
    return Status::unsupported(std::string("oneDNN refused ") + anchor.op_type + " node '" + anchor.name +
                               "': " + e.what());
  }
  return Status::ok();
}

}  // namespace rooflens::onednn
