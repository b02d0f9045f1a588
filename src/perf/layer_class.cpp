// Layer classes of the performance model (perf/layer_class.h).
#include "rooflens/perf/layer_class.h"

#include "rooflens/perf/gemm_view.h"

namespace rooflens {

LayerClass layer_class(const Graph& g, const LayerReport& r) {
  if (r.status != LayerStatus::kOk || r.nodes.empty()) return LayerClass::kOther;
  if (r.attention) return LayerClass::kAttention;
  const Node& a = g.node(r.nodes.front());
  if (a.kind == OpKind::kUnknown) return LayerClass::kOther;
  switch (a.kind) {
    case OpKind::kConv: return gemm_shape(g, a).depthwise ? LayerClass::kDepthwise : LayerClass::kConv;
    case OpKind::kGemm: return LayerClass::kGemm;
    case OpKind::kMatMul:
    case OpKind::kEinsum: {
      for (ValueId in : a.inputs) {
        if (in == kNoValue) continue;
        const Value& v = g.value(in);
        if (v.is_stored || v.ints || v.reals) return LayerClass::kGemm;
      }
      return LayerClass::kBatchedGemm;
    }
    case OpKind::kSoftmax: return LayerClass::kSoftmax;
    case OpKind::kLayerNormalization: return LayerClass::kLayerNorm;
    case OpKind::kBatchNormalization: return LayerClass::kNorm;
    default: break;
  }
  switch (op_info(a.kind).category) {
    case OpCategory::kActivation:
    case OpCategory::kElementwise: return LayerClass::kEltwise;
    case OpCategory::kPool:
    case OpCategory::kReduce: return LayerClass::kPool;
    case OpCategory::kMove: return LayerClass::kMove;
    default: return LayerClass::kOther;
  }
}

std::string_view layer_class_name(LayerClass c) {
  switch (c) {
    case LayerClass::kConv: return "conv";
    case LayerClass::kDepthwise: return "depthwise";
    case LayerClass::kGemm: return "gemm";
    case LayerClass::kBatchedGemm: return "batched_gemm";
    case LayerClass::kAttention: return "attention";
    case LayerClass::kSoftmax: return "softmax";
    case LayerClass::kLayerNorm: return "layernorm";
    case LayerClass::kNorm: return "norm";
    case LayerClass::kEltwise: return "eltwise";
    case LayerClass::kPool: return "pool";
    case LayerClass::kMove: return "move";
    case LayerClass::kOther: return "other";
  }
  return "other";
}

}  // namespace rooflens
