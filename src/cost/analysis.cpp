// Layer costs over a fused (or unfused) view of the graph.
#include "rooflens/cost/analysis.h"

#include <algorithm>
#include <set>

namespace rooflens {
namespace {

std::string conv_desc(const Graph& g, const Node& n) {
  const Shape& x = *g.value(n.inputs[0]).shape;
  const Shape& w = *g.value(n.inputs[1]).shape;
  const Shape& y = *g.value(n.outputs[0]).shape;
  if (x.size() != 4) return {};
  auto attr = [&](const char* name, size_t i, int64_t def) {
    auto it = n.attrs.find(name);
    if (it == n.attrs.end()) return def;
    const auto* v = std::get_if<std::vector<int64_t>>(&it->second);
    return v && i < v->size() ? (*v)[i] : def;
  };
  auto git = n.attrs.find("group");
  int64_t group = git == n.attrs.end() ? 1 : std::get<int64_t>(git->second);
  std::string d = "mb" + std::to_string(x[0]);
  if (group != 1) d += "g" + std::to_string(group);
  d += "ic" + std::to_string(x[1]) + "ih" + std::to_string(x[2]) + "iw" + std::to_string(x[3]) +
       "oc" + std::to_string(y[1]) + "oh" + std::to_string(y[2]) + "ow" + std::to_string(y[3]) +
       "kh" + std::to_string(w[2]) + "kw" + std::to_string(w[3]) + "sh" +
       std::to_string(attr("strides", 0, 1)) + "sw" + std::to_string(attr("strides", 1, 1)) + "ph" +
       std::to_string(attr("pads", 0, 0)) + "pw" + std::to_string(attr("pads", 1, 0));
  if (attr("dilations", 0, 1) != 1 || attr("dilations", 1, 1) != 1)
    d += "dh" + std::to_string(attr("dilations", 0, 1) - 1) + "dw" + std::to_string(attr("dilations", 1, 1) - 1);
  return d;
}

std::string matmul_desc(const Graph& g, const Node& n, int64_t macs) {
  const Shape& y = *g.value(n.outputs[0]).shape;
  if (y.empty()) return {};
  int64_t cols = y.back();
  int64_t rows = 1;
  for (size_t i = 0; i + 1 < y.size(); ++i) rows *= y[i];
  if (rows == 0 || cols == 0) return {};
  return "m" + std::to_string(rows) + "n" + std::to_string(cols) + "k" + std::to_string(macs / (rows * cols));
}

bool has_bias(const Node& n) {
  return (n.kind == OpKind::kConv || n.kind == OpKind::kGemm) && n.inputs.size() > 2 &&
         n.inputs[2] != kNoValue;
}

}  // namespace

int64_t count_params(const Graph& g) {
  std::set<ValueId> counted;
  std::set<ValueId> bn_stats;
  for (const Node& n : g.nodes)
    if (n.kind == OpKind::kBatchNormalization)
      for (size_t i = 3; i < n.inputs.size() && i < 5; ++i) bn_stats.insert(n.inputs[i]);
  int64_t total = 0;
  for (const Node& n : g.nodes) {
    for (size_t i = 0; i < n.inputs.size(); ++i) {
      ValueId v = n.inputs[i];
      if (v == kNoValue) continue;
      const Value& val = g.value(v);
      if (val.kind != ValueKind::kInitializer || !dtype_is_float(val.dtype) || !val.shape) continue;
      // BN running statistics are buffers; they count only if something else reads them.
      if (n.kind == OpKind::kBatchNormalization && (i == 3 || i == 4)) continue;
      if (bn_stats.count(v)) {
        bool other = false;
        for (NodeId c : val.consumers)
          if (g.node(c).kind != OpKind::kBatchNormalization) other = true;
        if (!other) continue;
      }
      const int64_t numel = checked_numel(*val.shape).value_or(0);
      if (numel <= 1) continue;  // exporter scalars (0.5, sqrt(2), clip bounds)
      if (counted.insert(v).second) total += numel;
    }
  }
  return total;
}

ModelAnalysis analyze_graph(const Graph& g, const InferResult& inferred, const AnalyzeOptions& opts) {
  ModelAnalysis m;
  m.model = g.name;
  m.dtype = opts.cost.dtype;
  m.fused = opts.fusion == FusionMode::kEngine;
  m.opset = g.opset;
  m.folded_nodes = inferred.folded_nodes;
  for (ValueId in : g.inputs) m.input_shapes.push_back(*g.value(in).shape);
  m.batch = m.input_shapes.empty() || m.input_shapes[0].empty() ? 1 : m.input_shapes[0][0];
  for (NodeId n : inferred.unknown_nodes)
    m.unknown_nodes.push_back(g.node(n).name + " (" + g.node(n).op_type + ")");
  for (NodeId n : inferred.unresolved)
    m.unresolved_nodes.push_back(g.node(n).name + " (" + g.node(n).op_type + ")");
  std::set<NodeId> unresolved(inferred.unresolved.begin(), inferred.unresolved.end());

  for (const FusedLayer& L : fuse_layers(g, inferred.order, opts.fusion)) {
    LayerReport r;
    const Node& anchor = g.node(L.anchor);
    r.name = anchor.name;
    r.nodes = L.nodes;
    for (size_t i = 0; i < L.nodes.size(); ++i) {
      if (i) r.op += '+';
      r.op += g.node(L.nodes[i]).op_type;
    }
    if (anchor.kind == OpKind::kUnknown) {
      r.status = LayerStatus::kUnknownOp;
      m.layers.push_back(std::move(r));
      continue;
    }
    if (unresolved.count(L.anchor)) {
      r.status = LayerStatus::kUnresolved;
      m.layers.push_back(std::move(r));
      continue;
    }
    // Work: the sum over nodes; traffic: the layer's boundary.
    std::set<NodeId> in_layer(L.nodes.begin(), L.nodes.end());
    std::set<ValueId> seen_in;
    OpCost c;
    CostContext anchor_ctx(g, L.anchor, opts.cost);
    for (NodeId n : L.nodes) {
      CostContext ctx(g, n, opts.cost);
      OpCost nc = cost_node(g.node(n).kind, ctx);
      if (n == L.folded_bn) {
        // Folded into the weights: no work and no stored tensors of its own; the anchor
        // gains a bias (one add per output, C stored values) if it had none.
        if (!has_bias(anchor)) {
          const Shape& y = *g.value(anchor.outputs[0]).shape;
          c.flops += checked_numel(y).value_or(0);
          c.bytes_weights += (y.size() > 1 ? y[1] : 1) * dtype_bytes(opts.cost.dtype);
        }
        nc = OpCost{};
      }
      c.macs += nc.macs;
      c.flops += nc.flops;
      if (L.nodes.size() == 1) {
        c = nc;
        break;
      }
      c.bytes_weights += nc.bytes_weights;
      for (ValueId in : g.node(n).inputs) {
        if (in == kNoValue) continue;
        const Value& v = g.value(in);
        if (v.is_stored || v.ints || v.reals) continue;
        if (v.producer >= 0 && in_layer.count(v.producer)) continue;
        if (seen_in.insert(in).second) c.bytes_in += anchor_ctx.bytes_of(v);
      }
      for (ValueId out : g.node(n).outputs) {
        if (out == kNoValue) continue;
        const Value& v = g.value(out);
        bool escapes = std::find(g.outputs.begin(), g.outputs.end(), out) != g.outputs.end();
        for (NodeId cons : v.consumers) escapes |= !in_layer.count(cons);
        if (escapes) c.bytes_out += anchor_ctx.bytes_of(v);
      }
    }
    r.cost = c;
    // Shapes for display.
    for (NodeId n : L.nodes) {
      for (ValueId in : g.node(n).inputs) {
        if (in == kNoValue) continue;
        const Value& v = g.value(in);
        if (!v.shape || (v.producer >= 0 && in_layer.count(v.producer))) continue;
        if (v.ints || v.reals) continue;
        (v.is_stored ? r.weight_shapes : r.in_shapes).push_back(*v.shape);
      }
    }
    for (NodeId n : L.nodes)
      for (ValueId out : g.node(n).outputs) {
        if (out == kNoValue || !g.value(out).shape) continue;
        bool escapes = std::find(g.outputs.begin(), g.outputs.end(), out) != g.outputs.end();
        for (NodeId cons : g.value(out).consumers) escapes |= !in_layer.count(cons);
        if (escapes || L.nodes.size() == 1) r.out_shapes.push_back(*g.value(out).shape);
      }
    if (anchor.kind == OpKind::kConv) r.desc = conv_desc(g, anchor);
    else if (anchor.kind == OpKind::kGemm || anchor.kind == OpKind::kMatMul) {
      CostContext ctx(g, L.anchor, opts.cost);
      r.desc = matmul_desc(g, anchor, cost_node(anchor.kind, ctx).macs);
    }
    const int64_t bytes = c.bytes_in + c.bytes_out + c.bytes_weights;
    r.ai = bytes > 0 ? static_cast<double>(c.flops) / static_cast<double>(bytes) : 0.0;
    m.layers.push_back(std::move(r));
  }
  for (const LayerReport& r : m.layers) {
    m.totals.macs += r.cost.macs;
    m.totals.flops += r.cost.flops;
    m.totals.bytes_in += r.cost.bytes_in;
    m.totals.bytes_out += r.cost.bytes_out;
    m.totals.bytes_weights += r.cost.bytes_weights;
  }
  for (LayerReport& r : m.layers)
    r.flops_share = m.totals.flops > 0 ? static_cast<double>(r.cost.flops) / static_cast<double>(m.totals.flops) : 0;
  const int64_t bytes = m.totals.bytes_in + m.totals.bytes_out + m.totals.bytes_weights;
  m.ai = bytes > 0 ? static_cast<double>(m.totals.flops) / static_cast<double>(bytes) : 0;
  m.params = count_params(g);
  return m;
}

}  // namespace rooflens
