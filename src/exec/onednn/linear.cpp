// Conv, Gemm and MatMul as oneDNN convolution / inner product / matmul primitives with
// weights in the layout oneDNN picks (reordered once; a MatMul's stored weights also timed
// column-major), BatchNormalization folded into the weights, and the layer's epilogue as
// post-ops.
#include <cmath>
#include <cstring>
#include <string>

#include "epilogue.h"
#include "linear.h"
#include "rooflens/exec/weights.h"
#include "tactics.h"

namespace rooflens::onednn {

using dnnl::memory;
using tag = memory::format_tag;

namespace {

memory to_memory(const Tensor& t, const memory::desc& md, dnnl::engine& eng) {
  memory m(md, eng);
  std::memcpy(m.get_data_handle(), t.data.data(), t.data.size() * sizeof(float));
  return m;
}

// Reorders a plain tensor into the layout a primitive asked for, once.
memory reorder_once(memory src, const memory::desc& want, dnnl::engine& eng) {
  if (src.get_desc() == want) return src;
  memory dst(want, eng);
  dnnl::stream s(eng);
  dnnl::reorder(src, dst).execute(s, src, dst);
  s.wait();
  return dst;
}

dnnl::primitive_attr make_attr(const Epilogue& e) {
  dnnl::primitive_attr attr;
  attr.set_post_ops(e.ops);
  return attr;
}

void add_post_args(std::unordered_map<int, memory>& args, const Epilogue& e) {
  for (const auto& [idx, m] : e.binary_args) args[DNNL_ARG_ATTR_MULTIPLE_POST_OP(idx) | DNNL_ARG_SRC_1] = m;
}

// The epilogue's last eltwise op as its own pass on `dst`, in place, when the tactic split it off.
template <typename PD>
void add_split_eltwise(OneDnnBackend& b, const Tactic<PD>& tactic, const memory& dst) {
  if (!tactic.split) return;
  dnnl::eltwise_forward::desc ed(dnnl::prop_kind::forward_inference, tactic.alg, dst.get_desc(), tactic.alpha,
                                 tactic.beta);
  dnnl::eltwise_forward::primitive_desc epd(ed, b.engine());
  dnnl::eltwise_forward ep(epd);
  b.add_primitive(ep, {{DNNL_ARG_SRC, dst}, {DNNL_ARG_DST, dst}}, epd.impl_info_str());
}

// A product with stored 2-D weights [K, N] may also run with them stored column-major (N
// rows of K): oneDNN 2.6's gemm:jit on AVX2 runs ViT-B's 768 -> 3072 layer at 197 rows 2.2x
// faster so (78 -> 169 GFLOP/s on a Zen 3 host, 2026-12-07), while row-major wins at 1576
// rows and at 8. Its implementations join the timed candidates; none without `tune`.
std::vector<dnnl::matmul::primitive_desc> column_major_weights(OneDnnBackend& b, const memory::desc& a_md,
                                                               const Shape& bs, const memory::desc& y_md,
                                                               const Epilogue& e) {
  if (!b.options().tune || bs.size() != 2) return {};
  const memory::desc w_cols({bs[0], bs[1]}, memory::data_type::f32, tag::ba);
  dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a_md, w_cols, y_md), make_attr(e), b.engine(), true);
  if (!pd || std::string(pd.impl_info_str()).rfind("ref", 0) == 0) return {};
  return {pd};
}

// The shared end of a weighted primitive: weights reordered once into the layout it chose,
// its input in the layout it wants, the post-op operands bound, one step added.
template <typename Prim, typename Desc, typename PD>
Expected<size_t> finish_weighted(OneDnnBackend& b, const Node& n, const Desc& desc, const PD& first_pd,
                                 const std::string& what, const Tensor& w, const memory::desc& w_plain,
                                 const Tensor& bias, const memory::desc& b_md, const Epilogue& e,
                                 const std::vector<PD>& also = {}) {
  const memory w_mem = to_memory(w, w_plain, b.engine());
  const Tactic<PD> tactic = fastest_tactic<Prim>(b, desc, first_pd, what, w_mem, b_md, e, also);
  const PD& pd = tactic.pd;
  memory wm = reorder_once(w_mem, pd.weights_desc(), b.engine());
  memory bm = to_memory(bias, b_md, b.engine());
  auto src = b.as_desc(n.inputs[0], pd.src_desc());
  if (!src) return src.status();
  auto dm = epilogue_dst(b, e, pd.dst_desc());
  if (!dm) return dm.status();
  memory dst = *dm;
  std::unordered_map<int, memory> args = {
      {DNNL_ARG_SRC, *src}, {DNNL_ARG_WEIGHTS, wm}, {DNNL_ARG_BIAS, bm}, {DNNL_ARG_DST, dst}};
  add_post_args(args, e);
  Prim prim(pd);
  b.add_primitive(prim, args, pd.impl_info_str());
  add_split_eltwise(b, tactic, dst);
  b.set_mem(e.tip, dst);
  return e.next;
}

}  // namespace

Expected<size_t> build_conv(OneDnnBackend& b, const LayerReport& L) {
  const Graph& g = b.graph();
  const Node& n = g.node(L.nodes[0]);
  const Shape& xs = *g.value(n.inputs[0]).shape;
  const Shape& ys = *g.value(n.outputs[0]).shape;
  if (xs.size() != 4) return Status::unsupported("only 2-D convolutions are lowered to oneDNN");
  if (!g.value(n.inputs[1]).is_stored) return Status::unsupported("convolution weights computed at run time");
  auto wt = b.stored(n.inputs[1]);
  if (!wt) return wt.status();
  Tensor w = std::move(*wt);
  const int64_t m = ys[1];
  Tensor bias = Tensor::zeros({m});
  if (n.inputs.size() > 2 && n.inputs[2] != kNoValue) {
    auto bt = b.stored(n.inputs[2]);
    if (!bt) return bt.status();
    bias = std::move(*bt);
  }
  size_t first = 1;
  ValueId tip = n.outputs[0];
  if (L.folded_bn >= 0) {  // fusion folded it (nodes[1]): into the weights and bias
    ROOFLENS_RETURN_IF_ERROR(fold_batchnorm(g, L.folded_bn, b.options().seed, &w, &bias));
    tip = g.node(L.folded_bn).outputs[0];
    first = 2;
  }
  const auto& win = std::get<WindowDesc>(n.desc);  // pads resolved from auto_pad by inference
  const int64_t group = win.groups;
  const auto& ws = w.shape;
  memory::dims wdims =
      group == 1 ? memory::dims{ws[0], ws[1], ws[2], ws[3]} : memory::dims{group, ws[0] / group, ws[1], ws[2], ws[3]};
  const memory::desc w_plain(wdims, memory::data_type::f32, group == 1 ? tag::oihw : tag::goihw);
  const memory::desc w_any(wdims, memory::data_type::f32, tag::any);
  const memory::desc b_md({m}, memory::data_type::f32, tag::a);
  memory::desc src_md = md_channels_last(xs), dst_md = md_channels_last(ys);

  const auto& strides = win.strides;
  memory::dims pl(2), pr(2), dd(2);
  for (size_t i = 0; i < 2; ++i) {
    pl[i] = win.pad_begin(i);
    pr[i] = win.pad_end(i);
    dd[i] = win.dilations[i] - 1;
  }
  auto conv_desc = [&](const memory::desc& x, const memory::desc& y,
                       dnnl::algorithm alg = dnnl::algorithm::convolution_direct) {
    return dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference, alg, x, w_any, b_md, y,
                                           {strides[0], strides[1]}, dd, pl, pr);
  };
  if (b.blocked() && (b.activation_md(xs) != src_md || b.activation_md(ys) != dst_md)) {
    // The blocked pair only where oneDNN has a JIT kernel for it (mixed channels-last and
    // blocked operands, or groups of other than 16k channels, may have none).
    const memory::desc bx = b.activation_md(xs), by = b.activation_md(ys);
    const auto d = conv_desc(bx, by);
    dnnl::convolution_forward::primitive_desc probe(d, b.engine(), true);
    if (probe && std::string(probe.impl_info_str()).rfind("ref", 0) != 0) src_md = bx, dst_md = by;
  }
  auto e = map_epilogue(b, L.nodes, first, tip, ys, dst_md);
  if (!e) return e.status();
  const auto desc = conv_desc(src_md, dst_md);
  dnnl::convolution_forward::primitive_desc pd(desc, make_attr(*e), b.engine());
  std::string what = "conv s" + std::to_string(strides[0]) + "," + std::to_string(strides[1]) + " d" +
                     std::to_string(dd[0]) + "," + std::to_string(dd[1]) + " p" + std::to_string(pl[0]) + "," +
                     std::to_string(pl[1]) + "," + std::to_string(pr[0]) + "," + std::to_string(pr[1]);
  // A 3x3 stride-1 convolution may also run as Winograd (oneDNN has it for blocked layouts on
  // AVX-512): its implementations are timed beside the direct ones (and key the cache apart).
  std::vector<dnnl::convolution_forward::primitive_desc> also;
  if (b.options().tune && group == 1 && ws[2] == 3 && ws[3] == 3 && strides[0] == 1 && strides[1] == 1 && dd[0] == 0 &&
      dd[1] == 0) {
    dnnl::convolution_forward::primitive_desc wino(conv_desc(src_md, dst_md, dnnl::algorithm::convolution_winograd),
                                                   make_attr(*e), b.engine(), true);
    if (wino) also.push_back(wino), what += " +winograd";
  }
  return finish_weighted<dnnl::convolution_forward>(b, n, desc, pd, what, w, w_plain, bias, b_md, *e, also);
}

Expected<size_t> build_gemm(OneDnnBackend& b, const LayerReport& L) {
  const Graph& g = b.graph();
  const Node& n = g.node(L.nodes[0]);
  const auto& gd = std::get<GemmDesc>(n.desc);
  if (gd.trans_a) return Status::unsupported("Gemm with transA=1");
  if (gd.alpha != 1.0 || gd.beta != 1.0) return Status::unsupported("Gemm with alpha or beta other than 1");
  if (!g.value(n.inputs[1]).is_stored) return Status::unsupported("Gemm weights computed at run time");
  const Shape& as = *g.value(n.inputs[0]).shape;
  const Shape& ys = *g.value(n.outputs[0]).shape;
  const int64_t M = as[0], K = as[1], N = ys[1];
  auto wt = b.stored(n.inputs[1]);
  if (!wt) return wt.status();
  Tensor w = std::move(*wt);
  if (!gd.trans_b) {  // [K, N] -> [N, K]
    Tensor t = Tensor::zeros({N, K});
    for (int64_t k = 0; k < K; ++k)
      for (int64_t j = 0; j < N; ++j) t.data[static_cast<size_t>(j * K + k)] = w.data[static_cast<size_t>(k * N + j)];
    w = std::move(t);
  }
  Tensor bias = Tensor::zeros({N});
  if (n.inputs.size() > 2 && n.inputs[2] != kNoValue) {
    const Shape& cs = *g.value(n.inputs[2]).shape;
    if (checked_numel(cs).value_or(0) != N) return Status::unsupported("Gemm C that is not a [N] bias");
    auto bt = b.stored(n.inputs[2]);
    if (!bt) return bt.status();
    bias.data = bt->data;
  }
  const memory::desc src_md = md_rowmajor({M, K}), dst_md = md_rowmajor({M, N});
  const memory::desc w_plain({N, K}, memory::data_type::f32, tag::oi), w_any({N, K}, memory::data_type::f32, tag::any);
  const memory::desc b_md({N}, memory::data_type::f32, tag::a);
  auto e = map_epilogue(b, L.nodes, 1, n.outputs[0], ys, dst_md);
  if (!e) return e.status();
  dnnl::inner_product_forward::desc desc(dnnl::prop_kind::forward_inference, src_md, w_any, b_md, dst_md);
  dnnl::inner_product_forward::primitive_desc pd(desc, make_attr(*e), b.engine());
  return finish_weighted<dnnl::inner_product_forward>(b, n, desc, pd, "inner_product", w, w_plain, bias, b_md, *e);
}

Expected<size_t> build_matmul(OneDnnBackend& b, const LayerReport& L) {
  const Graph& g = b.graph();
  const Node& n = g.node(L.nodes[0]);
  Shape as = *g.value(n.inputs[0]).shape, bs = *g.value(n.inputs[1]).shape;
  const Shape& ys = *g.value(n.outputs[0]).shape;
  if (as.size() < 2 || bs.size() < 2) return Status::unsupported("MatMul with a 1-D operand");
  const bool stored_b = g.value(n.inputs[1]).is_stored;
  // A [..., M, K] times stored 2-D weights [K, N] is one GEMM of (prod ... * M) rows: oneDNN
  // would otherwise run it as a batch of small products (3-6x slower on ConvNeXt's blocks).
  const bool collapse = stored_b && bs.size() == 2 && as.size() > 2 && ys.size() == as.size();
  Shape run_y;
  if (collapse) {
    int64_t rows = 1;
    for (size_t i = 0; i + 1 < as.size(); ++i) rows *= as[i];
    as = {rows, as.back()};
    run_y = {rows, ys.back()};
  } else {
    while (as.size() < ys.size()) as.insert(as.begin(), 1);
    while (bs.size() < ys.size()) bs.insert(bs.begin(), 1);
  }
  const memory::desc a_md = md_rowmajor(as), y_md = md_rowmajor(collapse ? run_y : ys);
  const memory::desc b_plain = md_rowmajor(bs);
  const memory::desc b_want =
      stored_b ? memory::desc(memory::dims(bs.begin(), bs.end()), memory::data_type::f32, tag::any) : b_plain;
  auto e = map_epilogue(b, L.nodes, 1, n.outputs[0], ys, y_md, collapse ? &run_y : nullptr);
  if (!e) return e.status();
  dnnl::matmul::desc desc(a_md, b_want, y_md);
  dnnl::matmul::primitive_desc pd(desc, make_attr(*e), b.engine());
  if (e->next > 1 && std::string(pd.impl_info_str()).rfind("ref", 0) == 0) {
    // Some post-ops (a binary operand broadcast over the batch dims only, as Swin's position
    // bias [1, heads, N, N] on the scores [windows, heads, N, N]) leave oneDNN only its
    // reference matmul, two orders of magnitude slower than the product alone: then the
    // product runs without them and they run as primitives of their own.
    e = map_epilogue(b, {L.nodes[0]}, 1, n.outputs[0], ys, y_md, collapse ? &run_y : nullptr);
    if (!e) return e.status();
    pd = dnnl::matmul::primitive_desc(desc, make_attr(*e), b.engine());
  }
  auto a = b.rowmajor(n.inputs[0]);
  if (!a) return a.status();
  memory am(a_md, b.engine(), a->get_data_handle());
  memory bm;
  Tactic<dnnl::matmul::primitive_desc> tactic{pd};
  if (stored_b) {
    auto bt = b.stored(n.inputs[1]);
    if (!bt) return bt.status();
    const memory w_mem = to_memory(*bt, b_plain, b.engine());
    tactic = fastest_tactic<dnnl::matmul>(b, desc, pd, "matmul", w_mem, memory::desc(), *e,
                                          column_major_weights(b, a_md, bs, y_md, *e));
    bm = reorder_once(w_mem, tactic.pd.weights_desc(), b.engine());
  } else {
    auto r = b.rowmajor(n.inputs[1]);
    if (!r) return r.status();
    bm = memory(b_plain, b.engine(), r->get_data_handle());
  }
  auto dm = epilogue_dst(b, *e, tactic.pd.dst_desc());
  if (!dm) return dm.status();
  memory dst = *dm;
  std::unordered_map<int, memory> args = {{DNNL_ARG_SRC, am}, {DNNL_ARG_WEIGHTS, bm}, {DNNL_ARG_DST, dst}};
  add_post_args(args, *e);
  dnnl::matmul prim(tactic.pd);
  b.add_primitive(prim, args, tactic.pd.impl_info_str());
  add_split_eltwise(b, tactic, dst);
  // The tip keeps the graph's shape (every mapped node's output has the MatMul's shape).
  b.set_mem(e->tip, collapse ? memory(md_rowmajor(ys), b.engine(), dst.get_data_handle()) : dst);
  return e->next;
}

}  // namespace rooflens::onednn
