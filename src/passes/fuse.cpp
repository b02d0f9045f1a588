// Fusion rules (see docs/cost-model.md, "Fusion"):
//  1. BatchNormalization directly after Conv/Gemm/MatMul, as that output's only reader,
//     is folded into the weights.
//  2. A layer absorbs a pointwise epilogue: activations and binary elementwise ops whose
//     other operands are constants or values of the layer itself (this covers ReLU, Clip,
//     SiLU = x * sigmoid(x), hard-swish, and GELU written as Div/Erf/Add/Mul/Mul).
//  3. A Conv/Gemm/MatMul layer absorbs one residual Add of a same-shaped tensor (a "sum"
//     post-op), then more epilogue (the ReLU after the add).
//  4. Attention (Q.K^T, its scale/bias/mask, Softmax, A.V) is one layer, as fused attention
//     kernels run it; the score matrix is internal to the layer.
//  An absorption is kept only if the layer still writes exactly one tensor that others read.
//  FusionMode::kPointwise (torch.compile) applies rule 2 and 3 to a chain that starts at a
//  normalisation or pointwise op instead of the linear op, never rule 1, and rule 4 as kEngine.
#include "rooflens/passes/fuse.h"

#include <algorithm>
#include <optional>

namespace rooflens {
namespace {

constexpr size_t kMaxEpilogue = 12;

bool is_pointwise(OpKind k) {
  if (k == OpKind::kUnknown) return false;  // not in the op table (found by fuzz/fuzz_onnx)
  const OpCategory c = op_info(k).category;
  return c == OpCategory::kActivation || c == OpCategory::kElementwise;
}

bool is_const(const Graph& g, ValueId v) {
  const Value& val = g.value(v);
  return val.is_stored || val.ints || val.reals;
}

class Fuser {
 public:
  Fuser(const Graph& g, const std::vector<NodeId>& order, FusionMode mode)
      : g_(g), pos_(g.nodes.size(), -1), mode_(mode) {
    for (size_t i = 0; i < order.size(); ++i) pos_[static_cast<size_t>(order[i])] = static_cast<int>(i);
    assigned_.assign(g.nodes.size(), false);
  }

  FusedLayer grow(NodeId anchor) {
    FusedLayer L;
    L.anchor = anchor;
    L.nodes.push_back(anchor);
    assigned_[static_cast<size_t>(anchor)] = true;
    const OpCategory cat = op_info(g_.node(anchor).kind).category;
    if (mode_ == FusionMode::kPointwise) {
      // The library call runs alone; a pointwise chain (normalisation first) is one kernel.
      if (cat == OpCategory::kNorm || cat == OpCategory::kActivation || cat == OpCategory::kElementwise)
        absorb_epilogue(L, true);
    } else {
      if (cat == OpCategory::kLinear) fold_bn(L);
      if (cat == OpCategory::kLinear || cat == OpCategory::kNorm || cat == OpCategory::kActivation ||
          cat == OpCategory::kElementwise)
        absorb_epilogue(L, cat == OpCategory::kLinear);
    }
    std::sort(L.nodes.begin() + 1, L.nodes.end(),
              [&](NodeId a, NodeId b) { return pos_[static_cast<size_t>(a)] < pos_[static_cast<size_t>(b)]; });
    return L;
  }

  // Rule 4: the attention layer around `softmax`, or nullopt when the pattern is not there.
  std::optional<FusedLayer> attention(NodeId softmax) {
    std::vector<NodeId> nodes{softmax};
    auto single_reader = [&](ValueId v) {
      auto c = unique_consumers(v);
      return c.size() == 1 && !is_graph_output(v) ? c[0] : NodeId{-1};
    };
    auto free_node = [&](NodeId n) { return n >= 0 && !assigned(n) && !g_.node(n).folded; };
    // Back from the Softmax through views and pointwise ops to the Q.K^T product.
    NodeId qk = -1;
    ValueId v = g_.node(softmax).inputs[0];
    for (int hops = 0; hops < 8 && qk < 0; ++hops) {
      const NodeId p = g_.value(v).producer;
      if (!free_node(p) || single_reader(v) != nodes.back()) return std::nullopt;
      const Node& pn = g_.node(p);
      if (is_product(p)) {
        qk = p;
      } else if (is_view_op(pn.kind) && !pn.inputs.empty() && pn.inputs[0] != kNoValue) {
        v = pn.inputs[0];
      } else if (is_pointwise(pn.kind)) {
        ValueId next = kNoValue;
        for (ValueId in : pn.inputs)
          if (in != kNoValue && !is_const(g_, in) && g_.value(in).shape == g_.value(pn.outputs[0]).shape) {
            next = in;
            break;
          }
        if (next == kNoValue) return std::nullopt;
        v = next;
      } else {
        return std::nullopt;
      }
      nodes.push_back(p);
    }
    if (qk < 0) return std::nullopt;
    // Forward from the Softmax through views to A.V (the scores are its first operand).
    NodeId av = -1;
    v = g_.node(softmax).outputs[0];
    for (int hops = 0; hops < 4 && av < 0; ++hops) {
      const NodeId c = single_reader(v);
      if (!free_node(c)) return std::nullopt;
      const Node& cn = g_.node(c);
      if (is_product(c) && cn.inputs[0] == v)
        av = c;
      else if (is_view_op(cn.kind))
        v = cn.outputs[0];
      else
        return std::nullopt;
      nodes.push_back(c);
    }
    if (av < 0) return std::nullopt;
    FusedLayer L;
    L.anchor = qk;
    L.attention = true;
    std::sort(nodes.begin(), nodes.end(),
              [&](NodeId a, NodeId b) { return pos_[static_cast<size_t>(a)] < pos_[static_cast<size_t>(b)]; });
    std::stable_partition(nodes.begin(), nodes.end(), [qk](NodeId n) { return n == qk; });
    L.nodes = nodes;
    for (NodeId n : nodes) mark(n);
    return L;
  }

  bool assigned(NodeId n) const { return assigned_[static_cast<size_t>(n)]; }
  void mark(NodeId n) { assigned_[static_cast<size_t>(n)] = true; }

 private:
  // A product of two run-time operands: MatMul, or a two-operand Einsum.
  bool is_product(NodeId n) const {
    const Node& node = g_.node(n);
    if (node.kind != OpKind::kMatMul && node.kind != OpKind::kEinsum) return false;
    if (node.inputs.size() != 2) return false;
    for (ValueId in : node.inputs)
      if (in == kNoValue || is_const(g_, in)) return false;
    return true;
  }

  std::vector<NodeId> unique_consumers(ValueId v) const {
    std::vector<NodeId> c = g_.value(v).consumers;
    std::sort(c.begin(), c.end());
    c.erase(std::unique(c.begin(), c.end()), c.end());
    return c;
  }

  bool is_graph_output(ValueId v) const {
    return std::find(g_.outputs.begin(), g_.outputs.end(), v) != g_.outputs.end();
  }

  void fold_bn(FusedLayer& L) {
    const ValueId out = g_.node(L.anchor).outputs[0];
    auto cons = unique_consumers(out);
    if (cons.size() != 1 || is_graph_output(out)) return;
    const NodeId bn = cons[0];
    if (assigned(bn) || g_.node(bn).kind != OpKind::kBatchNormalization) return;
    const Node& b = g_.node(bn);
    if (b.inputs[0] != out) return;
    for (size_t i = 1; i < b.inputs.size(); ++i)
      if (b.inputs[i] == kNoValue || !is_const(g_, b.inputs[i])) return;
    L.nodes.push_back(bn);
    L.folded_bn = bn;
    mark(bn);
  }

  // Values the layer writes, in the layer: sorted ascending, no duplicates. (A layer is
  // a handful of nodes, so a sorted vector beats a tree set.)
  std::vector<ValueId> produced(const std::vector<NodeId>& nodes) const {
    std::vector<ValueId> s;
    for (NodeId n : nodes)
      for (ValueId o : g_.node(n).outputs)
        if (o != kNoValue) s.push_back(o);
    std::sort(s.begin(), s.end());
    s.erase(std::unique(s.begin(), s.end()), s.end());
    return s;
  }

  // Whether exactly one value of `have` (what `nodes` write, ascending) is read outside
  // `nodes` or is a graph output, and that value is `v`.
  bool only_escaping(const std::vector<NodeId>& nodes, const std::vector<ValueId>& have, ValueId v) const {
    size_t count = 0;
    bool found = false;
    for (ValueId h : have) {
      bool esc = is_graph_output(h);
      for (NodeId c : g_.value(h).consumers) esc |= std::find(nodes.begin(), nodes.end(), c) == nodes.end();
      if (!esc) continue;
      ++count;
      found |= h == v;
    }
    return count == 1 && found;
  }

  void absorb_epilogue(FusedLayer& L, bool allow_residual) {
    std::vector<NodeId> nodes = L.nodes;
    ValueId residual = kNoValue;
    std::vector<NodeId> best_nodes = nodes;
    ValueId best_residual = kNoValue;
    const ValueId anchor_out = g_.node(L.anchor).outputs[0];
    const Shape* anchor_shape = g_.value(anchor_out).shape ? &*g_.value(anchor_out).shape : nullptr;
    if (!anchor_shape) return;
    std::vector<ValueId> have = produced(nodes);  // kept ascending as nodes are added
    std::vector<NodeId>& cands = cands_;
    for (size_t step = 0; step < kMaxEpilogue; ++step) {
      // Candidates: unassigned pointwise readers of the layer's values, earliest first.
      cands.clear();
      for (ValueId v : have)
        for (NodeId c : g_.value(v).consumers)
          if (!assigned(c) && std::find(nodes.begin(), nodes.end(), c) == nodes.end()) cands.push_back(c);
      std::sort(cands.begin(), cands.end(),
                [&](NodeId a, NodeId b) { return pos_[static_cast<size_t>(a)] < pos_[static_cast<size_t>(b)]; });
      cands.erase(std::unique(cands.begin(), cands.end()), cands.end());
      NodeId pick = -1;
      ValueId pick_residual = kNoValue;
      for (NodeId c : cands) {
        const Node& n = g_.node(c);
        if (!is_pointwise(n.kind) || n.outputs.size() != 1) continue;
        const Value& out = g_.value(n.outputs[0]);
        if (!out.shape || *out.shape != *anchor_shape) continue;
        bool ok = true;
        ValueId res = kNoValue;
        for (ValueId in : n.inputs) {
          if (in == kNoValue || std::binary_search(have.begin(), have.end(), in) || is_const(g_, in)) continue;
          const Value& iv = g_.value(in);
          if (allow_residual && residual == kNoValue && res == kNoValue && n.kind == OpKind::kAdd && iv.shape &&
              *iv.shape == *anchor_shape) {
            res = in;
            continue;
          }
          ok = false;
        }
        if (ok) {
          pick = c;
          pick_residual = res;
          break;
        }
      }
      if (pick < 0) break;
      nodes.push_back(pick);
      for (ValueId o : g_.node(pick).outputs) {
        if (o == kNoValue) continue;
        auto at = std::lower_bound(have.begin(), have.end(), o);
        if (at == have.end() || *at != o) have.insert(at, o);
      }
      if (pick_residual != kNoValue) residual = pick_residual;
      if (only_escaping(nodes, have, g_.node(pick).outputs[0])) {
        best_nodes = nodes;
        best_residual = residual;
      }
    }
    for (size_t i = L.nodes.size(); i < best_nodes.size(); ++i) mark(best_nodes[i]);
    L.nodes = best_nodes;
    L.residual = best_residual;
  }

  const Graph& g_;
  std::vector<int> pos_;
  FusionMode mode_;
  std::vector<bool> assigned_;
  std::vector<NodeId> cands_;  // scratch for absorb_epilogue
};

// Orders layers so each runs after the layers producing its inputs. A layer that absorbed
// a residual add reads a tensor another layer, later in node order, produces.
std::vector<FusedLayer> execution_order(const Graph& g, std::vector<FusedLayer> layers) {
  std::vector<int> layer_of(g.nodes.size(), -1);
  for (size_t i = 0; i < layers.size(); ++i)
    for (NodeId n : layers[i].nodes) layer_of[static_cast<size_t>(n)] = static_cast<int>(i);
  // A value's producing layer, looking through views and folded nodes (not in any layer).
  auto producer_layer = [&](ValueId v) -> int {
    for (int hops = 0; hops < 64 && v != kNoValue; ++hops) {
      const Value& val = g.value(v);
      if (val.producer < 0) return -1;
      const int l = layer_of[static_cast<size_t>(val.producer)];
      if (l >= 0) return l;
      const Node& p = g.node(val.producer);
      if (p.folded || p.inputs.empty()) return -1;
      v = p.inputs[0];
    }
    return -1;
  };
  std::vector<std::vector<int>> deps(layers.size());  // may hold duplicates: only tested
  for (size_t i = 0; i < layers.size(); ++i)
    for (NodeId n : layers[i].nodes)
      for (ValueId in : g.node(n).inputs) {
        if (in == kNoValue) continue;
        // Views between layers: follow each view's own inputs too.
        const int l = producer_layer(in);
        if (l >= 0 && l != static_cast<int>(i)) deps[i].push_back(l);
      }
  std::vector<FusedLayer> out;
  std::vector<bool> done(layers.size(), false);
  out.reserve(layers.size());
  size_t first_open = 0;  // every layer before it is done
  while (out.size() < layers.size()) {
    bool progressed = false;
    while (first_open < layers.size() && done[first_open]) ++first_open;
    for (size_t i = first_open; i < layers.size(); ++i) {
      if (done[i]) continue;
      bool ready = true;
      for (int d : deps[i]) ready &= done[static_cast<size_t>(d)];
      if (!ready) continue;
      done[i] = true;
      out.push_back(std::move(layers[i]));  // taken once: done[i] keeps it from being read again
      progressed = true;
      break;  // restart from the first open layer: keeps node order wherever possible
    }
    if (!progressed) {  // cannot happen for an acyclic graph; keep the rest as they are
      for (size_t i = 0; i < layers.size(); ++i)
        if (!done[i]) out.push_back(std::move(layers[i]));
      break;
    }
  }
  return out;
}

}  // namespace

std::vector<FusedLayer> fuse_layers(const Graph& g, const std::vector<NodeId>& order, FusionMode mode) {
  std::vector<FusedLayer> layers;
  if (mode == FusionMode::kNone) {
    for (NodeId n : order) {
      if (g.node(n).folded) continue;
      FusedLayer L;
      L.anchor = n;
      L.nodes = {n};
      layers.push_back(L);
    }
    return layers;
  }
  Fuser f(g, order, mode);
  // Rule 4 first, so that no epilogue takes a node of an attention pattern. Both modes apply
  // it (Inductor's pattern matcher also replaces attention with one SDPA kernel).
  std::vector<FusedLayer> attention;
  for (NodeId n : order)
    if (g.node(n).kind == OpKind::kSoftmax && !g.node(n).folded)
      if (auto L = f.attention(n)) attention.push_back(std::move(*L));
  for (NodeId n : order) {
    if (f.assigned(n)) {
      for (FusedLayer& L : attention)
        if (L.anchor == n) layers.push_back(std::move(L));
      continue;
    }
    const Node& node = g.node(n);
    if (node.folded) continue;
    if (is_view_op(node.kind)) continue;
    bool has_shapes = true;
    for (ValueId o : node.outputs)
      if (o != kNoValue && !g.value(o).shape) has_shapes = false;
    if (node.kind == OpKind::kUnknown || !has_shapes) {
      f.mark(n);
      FusedLayer L;
      L.anchor = n;
      L.nodes = {n};
      layers.push_back(L);
      continue;
    }
    layers.push_back(f.grow(n));
  }
  return execution_order(g, std::move(layers));
}

}  // namespace rooflens
