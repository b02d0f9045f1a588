// Maps a fused layer's pointwise epilogue onto oneDNN post-ops (eltwise and binary),
// as production engines do: ReLU, Clip, SiLU, hard-swish, hard-sigmoid, GELU (erf),
// bias and residual adds.
#include "epilogue.h"

#include <algorithm>
#include <cfloat>
#include <cmath>

namespace rooflens::onednn {

using dnnl::algorithm;
using dnnl::memory;

std::optional<double> known_scalar(const Graph& g, ValueId v) {
  if (v == kNoValue) return std::nullopt;
  const Value& val = g.value(v);
  if (val.reals && val.reals->size() == 1) return (*val.reals)[0];
  if (val.ints && val.ints->size() == 1) return static_cast<double>((*val.ints)[0]);
  return std::nullopt;
}

// Memory descriptor for src1 of a binary op broadcast against `dst_shape` (or, with
// `run_shape`, against the collapsed 2-D shape the primitive computes in).
static Expected<memory> broadcast_operand(OneDnnBackend& b, ValueId v, const Shape& dst_shape,
                                          const memory::desc& dst_md, const Shape* run_shape) {
  const Shape& s = *b.graph().value(v).shape;
  if (s == dst_shape) {
    if (!run_shape) return b.as_desc(v, dst_md);
    auto m = b.rowmajor(v);
    if (!m) return m.status();
    return memory(dst_md, b.engine(), m->get_data_handle());
  }
  auto m = b.rowmajor(v);
  if (!m) return m.status();
  Shape padded(dst_shape.size() - std::min(dst_shape.size(), s.size()), 1);
  padded.insert(padded.end(), s.begin(), s.end());
  if (padded.size() != dst_shape.size()) return Status::unsupported("operand rank exceeds the output's");
  if (run_shape) {
    for (size_t i = 0; i + 1 < padded.size(); ++i)
      if (padded[i] != 1) return Status::unsupported("operand broadcast along a collapsed dim");
    return memory(md_rowmajor({1, padded.back()}), b.engine(), m->get_data_handle());
  }
  return memory(md_rowmajor(padded), b.engine(), m->get_data_handle());
}

Expected<memory> epilogue_dst(OneDnnBackend& b, const Epilogue& e, const memory::desc& dst_desc) {
  if (!e.sum_into) return b.new_buffer(dst_desc);
  if (e.sum_into->get_desc() != dst_desc)
    return Status::internal("in-place residual in another layout than the primitive's");
  return *e.sum_into;
}

namespace {

// The layer being mapped: its nodes, the running epilogue, and the questions the mapping asks.
struct EpilogueMapping {
  OneDnnBackend& b;
  const Graph& g;
  const std::vector<NodeId>& nodes;
  const Shape& dst_shape;
  const memory::desc& dst_md;
  const Shape* run_shape;
  Epilogue e;

  bool in_layer(ValueId v) const {
    const Value& val = g.value(v);
    for (NodeId n : nodes)
      if (val.producer == n) return true;
    return false;
  }
  // Whether a node of the layer other than `self` reads `v` (the anchor's input, say).
  bool read_elsewhere(ValueId v, NodeId self) const {
    for (NodeId m : nodes)
      if (m != self && std::find(g.node(m).inputs.begin(), g.node(m).inputs.end(), v) != g.node(m).inputs.end())
        return true;
    return false;
  }
  // A post-op overwrites the running value, so it may map only when nothing else reads it.
  bool tip_read_only_by(std::initializer_list<NodeId> readers) const {
    if (g.is_output(e.tip)) return false;
    for (NodeId c : g.value(e.tip).consumers)
      if (std::find(readers.begin(), readers.end(), c) == readers.end()) return false;
    return true;
  }
  void eltwise(algorithm a, float alpha, float beta) { e.ops.append_eltwise(1.0f, a, alpha, beta); }
  bool sole_reader(ValueId v) const { return g.value(v).consumers.size() == 1; }

  // x * sigmoid(x) is SiLU (swish with alpha 1) when the Mul follows in this layer.
  bool match_silu(const Node& n) { return match_product_with_tip(n, algorithm::eltwise_swish, 1); }

  // `n` (an activation of the tip) then Mul(tip, n): one post-op `a` with alpha `alpha`.
  bool match_product_with_tip(const Node& n, algorithm a, float alpha = 0) {
    if (e.next + 1 >= nodes.size()) return false;
    const ValueId out = n.outputs[0];
    const Node& m = g.node(nodes[e.next + 1]);
    if (m.kind != OpKind::kMul || m.inputs.size() != 2 || !tip_read_only_by({nodes[e.next], nodes[e.next + 1]}) ||
        !sole_reader(out))
      return false;
    if (!((m.inputs[0] == e.tip && m.inputs[1] == out) || (m.inputs[1] == e.tip && m.inputs[0] == out))) return false;
    eltwise(a, alpha, 0);
    e.tip = m.outputs[0];
    e.next += 2;
    return true;
  }

  // HardSwish as exported before opset 14: HardSigmoid(x; alpha 1/6, beta 0.5) -> Mul x. One
  // hardswish post-op; unmatched, the HardSigmoid's clip would leave the layer on oneDNN's
  // reference eltwise (a MobileNetV3-Large 0.75 exported at opset 13 ran at a tenth of its
  // prediction, docs/performance.md, "Issue 30, seventeenth pass").
  bool match_hardswish(const Node& n) {
    const auto& d = std::get<ActivationDesc>(n.desc);
    if (std::abs(d.alpha - 1.0 / 6) > 1e-6 || std::abs(d.beta - 0.5) > 1e-6) return false;
    return match_product_with_tip(n, algorithm::eltwise_hardswish);
  }

  // GELU as exported: Div(x, sqrt 2) -> Erf -> Add 1 -> Mul x -> Mul 0.5.
  bool match_gelu(const Node& n) {
    if (e.next + 4 >= nodes.size()) return false;
    const ValueId out = n.outputs[0];
    const Node& erf = g.node(nodes[e.next + 1]);
    const Node& add = g.node(nodes[e.next + 2]);
    const Node& mul = g.node(nodes[e.next + 3]);
    const Node& half = g.node(nodes[e.next + 4]);
    auto c = known_scalar(g, n.inputs[1]);
    if (!(n.inputs[0] == e.tip && c && std::abs(*c - std::sqrt(2.0)) < 1e-3 && erf.kind == OpKind::kErf &&
          erf.inputs[0] == out && add.kind == OpKind::kAdd && mul.kind == OpKind::kMul && half.kind == OpKind::kMul))
      return false;
    auto one = known_scalar(g, add.inputs[0] == erf.outputs[0] ? add.inputs[1] : add.inputs[0]);
    auto h = known_scalar(g, half.inputs[0] == mul.outputs[0] ? half.inputs[1] : half.inputs[0]);
    const bool mul_ok = (mul.inputs[0] == e.tip && mul.inputs[1] == add.outputs[0]) ||
                        (mul.inputs[1] == e.tip && mul.inputs[0] == add.outputs[0]);
    if (!(one && *one == 1.0 && h && *h == 0.5 && mul_ok && tip_read_only_by({nodes[e.next], nodes[e.next + 3]}) &&
          sole_reader(out) && sole_reader(erf.outputs[0]) && sole_reader(add.outputs[0]) &&
          sole_reader(mul.outputs[0])))
      return false;
    eltwise(algorithm::eltwise_gelu_erf, 0, 0);
    e.tip = half.outputs[0];
    e.next += 5;
    return true;
  }

  // Add/Sub/Mul/Div with one operand from outside the layer: a `sum` or a binary post-op.
  bool map_binary(const Node& n, bool tip_private) {
    if (n.inputs.size() != 2 || !tip_private) return false;
    const ValueId out = n.outputs[0];
    const bool tip_first = n.inputs[0] == e.tip;
    const ValueId other = tip_first ? n.inputs[1] : n.inputs[0];
    if (other == e.tip || in_layer(other)) return false;
    if (!tip_first && (n.kind == OpKind::kSub || n.kind == OpKind::kDiv)) return false;
    if (*g.value(out).shape != dst_shape) return false;
    // A residual nobody reads afterwards: accumulate into its buffer (`sum` post-op).
    if (n.kind == OpKind::kAdd && e.ops.len() == 0 && !run_shape && *g.value(other).shape == dst_shape &&
        b.dead_after(other, nodes) && !read_elsewhere(other, nodes[e.next])) {
      // In another layout, into its reordered copy (nothing else reads that either).
      auto as = b.as_desc(other, dst_md);
      if (as && as->get_desc() == dst_md) {
        e.ops.append_sum(1.0f);
        e.sum_into = *as;
        return true;
      }
    }
    auto src1 = broadcast_operand(b, other, dst_shape, dst_md, run_shape);
    if (!src1) return false;
    const algorithm a = n.kind == OpKind::kAdd   ? algorithm::binary_add
                        : n.kind == OpKind::kSub ? algorithm::binary_sub
                        : n.kind == OpKind::kMul ? algorithm::binary_mul
                                                 : algorithm::binary_div;
    e.binary_args.push_back({e.ops.len(), *src1});
    e.ops.append_binary(a, src1->get_desc());
    return true;
  }

  // One eltwise node as a post-op; false when it cannot map.
  bool map_activation(const Node& n) {
    switch (n.kind) {
      case OpKind::kRelu: eltwise(algorithm::eltwise_relu, 0, 0); return true;
      case OpKind::kLeakyRelu:
        eltwise(algorithm::eltwise_relu, static_cast<float>(std::get<ActivationDesc>(n.desc).alpha), 0);
        return true;
      case OpKind::kTanh: eltwise(algorithm::eltwise_tanh, 0, 0); return true;
      case OpKind::kHardSwish: eltwise(algorithm::eltwise_hardswish, 0, 0); return true;
      case OpKind::kHardSigmoid:
        eltwise(algorithm::eltwise_linear, static_cast<float>(std::get<ActivationDesc>(n.desc).alpha),
                static_cast<float>(std::get<ActivationDesc>(n.desc).beta));
        eltwise(algorithm::eltwise_clip, 0, 1);
        return true;
      case OpKind::kClip: {
        const auto& d = std::get<ActivationDesc>(n.desc);  // bounds: attributes or known inputs
        if (!d.clip_bounds_known) return false;
        const double lo = std::isinf(d.clip_min) ? -FLT_MAX : d.clip_min;
        const double hi = std::isinf(d.clip_max) ? FLT_MAX : d.clip_max;
        eltwise(algorithm::eltwise_clip, static_cast<float>(lo), static_cast<float>(hi));
        return true;
      }
      default: return false;
    }
  }
};

}  // namespace

Expected<Epilogue> map_epilogue(OneDnnBackend& b, const std::vector<NodeId>& nodes, size_t first, ValueId tip,
                                const Shape& dst_shape, const memory::desc& dst_md, const Shape* run_shape) {
  EpilogueMapping m{b, b.graph(), nodes, dst_shape, dst_md, run_shape, Epilogue{}};
  Epilogue& e = m.e;
  e.tip = tip;
  e.next = first;
  const Graph& g = m.g;
  while (e.next < nodes.size()) {
    const Node& n = g.node(nodes[e.next]);
    if (n.inputs.empty() || n.outputs.size() != 1) break;
    const bool reads_tip = n.inputs[0] == e.tip || (n.inputs.size() > 1 && n.inputs[1] == e.tip);
    if (!reads_tip) break;
    const bool tip_private = m.tip_read_only_by({nodes[e.next]});
    if (!tip_private && n.kind != OpKind::kSigmoid && n.kind != OpKind::kHardSigmoid && n.kind != OpKind::kDiv) break;
    bool mapped = false;
    if (n.kind == OpKind::kSigmoid) {
      if (m.match_silu(n)) continue;
      mapped = tip_private;
      if (mapped) m.eltwise(algorithm::eltwise_logistic, 0, 0);
    } else if (n.kind == OpKind::kHardSigmoid) {
      if (m.match_hardswish(n)) continue;
      mapped = tip_private && m.map_activation(n);
    } else if (n.kind == OpKind::kDiv) {
      if (m.match_gelu(n)) continue;
      mapped = m.map_binary(n, tip_private);
    } else if (n.kind == OpKind::kAdd || n.kind == OpKind::kSub || n.kind == OpKind::kMul) {
      mapped = m.map_binary(n, tip_private);
    } else {
      mapped = m.map_activation(n);
    }
    if (!mapped) break;
    e.tip = n.outputs[0];
    e.next += 1;
  }
  return e;
}

}  // namespace rooflens::onednn
