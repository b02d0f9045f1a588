// The GEMM view of a fused layer (perf/gemm_view.h).
#include "rooflens/perf/gemm_view.h"

#include <algorithm>

namespace rooflens {

GemmShape gemm_shape(const Graph& g, const Node& n) {
  GemmShape s;
  if (n.kind == OpKind::kConv) {
    const Shape& x = *g.value(n.inputs[0]).shape;
    const Shape& w = *g.value(n.inputs[1]).shape;
    const Shape& y = *g.value(n.outputs[0]).shape;
    const auto* win = std::get_if<WindowDesc>(&n.desc);  // resolved by shape inference (ops/)
    s.groups = win ? win->groups : 1;
    const int64_t cin_g = x[1] / s.groups, cout_g = y[1] / s.groups;
    int64_t spatial = 1;
    for (size_t i = 2; i < y.size(); ++i) spatial *= y[i];
    int64_t kernel = 1;
    for (size_t i = 2; i < w.size(); ++i) kernel *= w[i];
    s.rows = y[0] * spatial;
    s.cols = cout_g;
    s.k = cin_g * kernel;
    s.align_in = cin_g;
    s.align_out = cout_g;
    s.depthwise = cin_g == 1 && s.groups > 1;
    s.valid = true;
  } else if (n.kind == OpKind::kGemm || n.kind == OpKind::kMatMul) {
    const Shape& y = *g.value(n.outputs[0]).shape;
    const Shape& a = *g.value(n.inputs[0]).shape;
    if (y.empty()) return s;
    s.cols = y.back();
    s.rows = 1;
    for (size_t i = 0; i + 1 < y.size(); ++i) s.rows *= y[i];
    const auto* gd = std::get_if<GemmDesc>(&n.desc);
    const bool ta = n.kind == OpKind::kGemm && gd && gd->trans_a;
    s.k = ta ? a[0] : a.back();
    s.align_in = s.k;
    s.align_out = s.cols;
    s.valid = true;
  } else if (n.kind == OpKind::kEinsum && n.inputs.size() == 2) {
    // A batched product: output rows x last output dim, K = MACs per output element.
    const Shape& y = *g.value(n.outputs[0]).shape;
    const auto* ed = std::get_if<EinsumDesc>(&n.desc);
    const int64_t outs = checked_numel(y).value_or(0);
    if (y.empty() || !ed || outs <= 0) return s;
    s.cols = y.back();
    s.rows = outs / std::max<int64_t>(1, s.cols);
    s.k = ed->macs / outs;
    s.align_in = s.k;
    s.align_out = s.cols;
    s.valid = true;
  }
  return s;
}

LayerWork layer_work(const Graph& g, const LayerReport& r) {
  LayerWork w;
  w.flops = r.cost.flops;
  w.bytes = r.cost.bytes_in + r.cost.bytes_out + r.cost.bytes_weights;
  w.costed = r.status == LayerStatus::kOk && !(w.flops == 0 && w.bytes == 0);
  if (!w.costed) return w;
  w.gemm = gemm_shape(g, g.node(r.nodes.front()));
  for (const auto& sh : r.out_shapes) w.out_elems += checked_numel(sh).value_or(0);
  return w;
}

}  // namespace rooflens
