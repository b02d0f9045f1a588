// Layer costs over a fused (or unfused) view of the graph.
#include "rooflens/cost/cost.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <string_view>

namespace rooflens {
namespace {

// A descriptor built in place: tags and decimal values (std::to_string's text).
class Desc {
 public:
  void put(std::string_view tag, int64_t v) {
    std::memcpy(p_, tag.data(), tag.size());
    p_ = std::to_chars(p_ + tag.size(), buf_ + sizeof buf_, v).ptr;
  }
  std::string str() const { return std::string(buf_, static_cast<size_t>(p_ - buf_)); }

 private:
  char buf_[20 * 24];  // up to 20 tags of 2 characters with 20 digits and a sign
  char* p_ = buf_;
};

std::string conv_desc(const Graph& g, const Node& n) {
  const Shape& x = *g.value(n.inputs[0]).shape;
  const Shape& w = *g.value(n.inputs[1]).shape;
  const Shape& y = *g.value(n.outputs[0]).shape;
  const auto* win = std::get_if<WindowDesc>(&n.desc);
  if (x.size() != 4 || !win) return {};
  const std::vector<int64_t>* strides = &win->strides;
  const std::vector<int64_t>* pads = &win->pads;  // begins (auto_pad resolved)
  const std::vector<int64_t>* dilations = &win->dilations;
  auto at = [](const std::vector<int64_t>* v, size_t i, int64_t def) { return v && i < v->size() ? (*v)[i] : def; };
  const int64_t group = win->groups;
  Desc d;
  d.put("mb", x[0]);
  if (group != 1) d.put("g", group);
  d.put("ic", x[1]);
  d.put("ih", x[2]);
  d.put("iw", x[3]);
  d.put("oc", y[1]);
  d.put("oh", y[2]);
  d.put("ow", y[3]);
  d.put("kh", w[2]);
  d.put("kw", w[3]);
  d.put("sh", at(strides, 0, 1));
  d.put("sw", at(strides, 1, 1));
  d.put("ph", at(pads, 0, 0));
  d.put("pw", at(pads, 1, 0));
  if (at(dilations, 0, 1) != 1 || at(dilations, 1, 1) != 1) {
    d.put("dh", at(dilations, 0, 1) - 1);
    d.put("dw", at(dilations, 1, 1) - 1);
  }
  return d.str();
}

std::string matmul_desc(const Graph& g, const Node& n, int64_t macs) {
  const Shape& y = *g.value(n.outputs[0]).shape;
  if (y.empty()) return {};
  int64_t cols = y.back();
  int64_t rows = 1;
  for (size_t i = 0; i + 1 < y.size(); ++i) rows *= y[i];
  if (rows == 0 || cols == 0) return {};
  Desc d;
  d.put("m", rows);
  d.put("n", cols);
  d.put("k", macs / (rows * cols));
  return d.str();
}

bool has_bias(const Node& n) {
  return (n.kind == OpKind::kConv || n.kind == OpKind::kGemm) && n.inputs.size() > 2 && n.inputs[2] != kNoValue;
}

// The stored tensor a view of stored data aliases (itself when it is no such view).
ValueId stored_root(const Graph& g, ValueId v) {
  for (int depth = 0; depth < 64; ++depth) {
    const Value& val = g.value(v);
    if (val.producer < 0) return v;
    const Node& p = g.node(val.producer);
    if (!is_view_op(p.kind) || p.inputs.empty() || p.inputs[0] == kNoValue || !g.value(p.inputs[0]).is_stored) return v;
    v = p.inputs[0];
  }
  return v;
}

}  // namespace

int64_t count_params(const Graph& g) {
  std::vector<bool> counted(g.values.size(), false);
  std::vector<bool> bn_stats(g.values.size(), false);
  for (const Node& n : g.nodes)
    if (n.kind == OpKind::kBatchNormalization)
      for (size_t i = 3; i < n.inputs.size() && i < 5; ++i)
        if (n.inputs[i] != kNoValue) bn_stats[static_cast<size_t>(n.inputs[i])] = true;
  int64_t total = 0;
  // Stored tensors the inference reads: nodes folded at load time read the file's tensors,
  // the tensor they compute is what is stored.
  for (const Node& n : g.nodes) {
    if (n.folded) continue;
    for (size_t i = 0; i < n.inputs.size(); ++i) {
      if (n.inputs[i] == kNoValue || !g.value(n.inputs[i]).is_stored) continue;
      const ValueId v = stored_root(g, n.inputs[i]);
      const Value& val = g.value(v);
      if (!val.is_stored || !dtype_is_float(val.dtype) || !val.shape) continue;
      // A Constant node's tensor is a fixed buffer the exporter wrote into the graph (TResNet's
      // blur filter), not a trained parameter; the backends read it as stored data.
      if (val.producer >= 0 && g.node(val.producer).kind == OpKind::kConstant) continue;
      // BN running statistics are buffers; they count only if something else reads them.
      if (n.kind == OpKind::kBatchNormalization && (i == 3 || i == 4)) continue;
      if (bn_stats[static_cast<size_t>(v)]) {
        bool other = false;
        for (NodeId c : val.consumers)
          if (g.node(c).kind != OpKind::kBatchNormalization) other = true;
        if (!other) continue;
      }
      const int64_t numel = checked_numel(*val.shape).value_or(0);
      if (numel <= 1) continue;  // exporter scalars (0.5, sqrt(2), clip bounds)
      if (!counted[static_cast<size_t>(v)]) {
        counted[static_cast<size_t>(v)] = true;
        total += numel;
      }
    }
  }
  return total;
}

std::string unknown_ops_summary(const std::vector<std::string>& unknown_nodes, size_t names) {
  struct Group {
    std::string op;
    size_t count = 0;
    std::vector<std::string> names;
  };
  std::vector<Group> groups;
  for (const std::string& u : unknown_nodes) {
    const auto open = u.rfind(" (");
    const bool tagged = open != std::string::npos && u.back() == ')';
    const std::string op = tagged ? u.substr(open + 2, u.size() - open - 3) : std::string("?");
    const std::string name = tagged ? u.substr(0, open) : u;
    auto it = std::find_if(groups.begin(), groups.end(), [&](const Group& g) { return g.op == op; });
    if (it == groups.end()) it = groups.insert(groups.end(), Group{op, 0, {}});
    ++it->count;
    if (it->names.size() < names) it->names.push_back(name.empty() ? "<unnamed>" : name);
  }
  std::stable_sort(groups.begin(), groups.end(), [](const Group& a, const Group& b) { return a.count > b.count; });
  std::string s;
  for (const Group& g : groups) {
    s += (s.empty() ? "" : "; ") + g.op + " x" + std::to_string(g.count) + " (" +
         (g.count > g.names.size() ? "e.g. " : "");
    for (size_t i = 0; i < g.names.size(); ++i) s += (i ? ", " : "") + g.names[i];
    s += ")";
  }
  return s;
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
  for (NodeId n : inferred.unknown_nodes) m.unknown_nodes.push_back(g.node(n).name + " (" + g.node(n).op_type + ")");
  for (NodeId n : inferred.unresolved) m.unresolved_nodes.push_back(g.node(n).name + " (" + g.node(n).op_type + ")");
  std::vector<bool> unresolved(g.nodes.size(), false);
  for (NodeId n : inferred.unresolved) unresolved[static_cast<size_t>(n)] = true;
  // layer_of[n]: the index of the layer node n was last seen in (in_layer below).
  std::vector<int> layer_of(g.nodes.size(), -1);
  std::vector<ValueId> seen_in;  // scratch: a layer's boundary inputs counted so far

  const std::vector<FusedLayer> layers = fuse_layers(g, inferred.order, opts.fusion);
  m.layers.reserve(layers.size());
  for (size_t li = 0; li < layers.size(); ++li) {
    const FusedLayer& L = layers[li];
    LayerReport r;
    const Node& anchor = g.node(L.anchor);
    r.name = anchor.name;
    r.nodes = L.nodes;
    r.folded_bn = L.folded_bn;
    r.residual = L.residual;
    r.attention = L.attention;
    for (size_t i = 0; i < L.nodes.size(); ++i) {
      if (i) r.op += '+';
      r.op += g.node(L.nodes[i]).op_type;
    }
    if (anchor.kind == OpKind::kUnknown) {
      r.status = LayerStatus::kUnknownOp;
      m.layers.push_back(std::move(r));
      continue;
    }
    if (unresolved[static_cast<size_t>(L.anchor)]) {
      r.status = LayerStatus::kUnresolved;
      m.layers.push_back(std::move(r));
      continue;
    }
    // Work: the sum over nodes; traffic: the layer's boundary.
    for (NodeId n : L.nodes) layer_of[static_cast<size_t>(n)] = static_cast<int>(li);
    auto in_layer = [&](NodeId n) { return layer_of[static_cast<size_t>(n)] == static_cast<int>(li); };
    seen_in.clear();
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
        if (v.producer >= 0 && in_layer(v.producer)) continue;
        if (std::find(seen_in.begin(), seen_in.end(), in) != seen_in.end()) continue;
        seen_in.push_back(in);
        c.bytes_in += anchor_ctx.bytes_of(v);
      }
      for (ValueId out : g.node(n).outputs) {
        if (out == kNoValue) continue;
        const Value& v = g.value(out);
        bool escapes = std::find(g.outputs.begin(), g.outputs.end(), out) != g.outputs.end();
        for (NodeId cons : v.consumers) escapes |= !in_layer(cons);
        if (escapes) c.bytes_out += anchor_ctx.bytes_of(v);
      }
    }
    r.cost = c;
    // Shapes for display.
    for (NodeId n : L.nodes) {
      for (ValueId in : g.node(n).inputs) {
        if (in == kNoValue) continue;
        const Value& v = g.value(in);
        if (!v.shape || (v.producer >= 0 && in_layer(v.producer))) continue;
        if (v.ints || v.reals) continue;
        (v.is_stored ? r.weight_shapes : r.in_shapes).push_back(*v.shape);
      }
    }
    for (NodeId n : L.nodes)
      for (ValueId out : g.node(n).outputs) {
        if (out == kNoValue || !g.value(out).shape) continue;
        bool escapes = std::find(g.outputs.begin(), g.outputs.end(), out) != g.outputs.end();
        for (NodeId cons : g.value(out).consumers) escapes |= !in_layer(cons);
        if (escapes || L.nodes.size() == 1) r.out_shapes.push_back(*g.value(out).shape);
      }
    if (anchor.kind == OpKind::kConv)
      r.desc = conv_desc(g, anchor);
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
