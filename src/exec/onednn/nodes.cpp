// The oneDNN backend's layer dispatcher and support check: build_fused_layer builds a fused
// layer (a linear anchor with its post-ops via linear.cpp, a BatchNormalization + ReLU pair,
// a fused attention) and lowers the nodes left over one by one (lower_node, onto
// compute_nodes.cpp and movement_nodes.cpp); node_supported answers before prepare what
// lowering would refuse.
#include <cfloat>
#include <cmath>
#include <string>

#include "epilogue.h"
#include "linear.h"
#include "nodes_internal.h"

namespace rooflens::onednn {

using dnnl::algorithm;

namespace {

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
    case OpKind::kEinsum: return einsum(b, n);
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
    case OpKind::kReduceL2: return reduce_l2(b, n);
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
    case OpKind::kEinsum: return einsum_refusal(g, n);
    case OpKind::kReduceL2:
      return std::get<ReduceDesc>(n.desc).noop ? "ReduceL2 with noop_with_empty_axes and no axes" : "";
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
      if (d.mode != PadMode::kConstant && g.value(n.outputs[0]).dtype != DType::kF32)
        return "non-constant Pad of a non-fp32 tensor";
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
