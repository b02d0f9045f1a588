// The class of a fused layer as the performance model and its reports name it: what kind of
// kernel an engine runs for it. Transformer layers have their own classes (attention,
// batched GEMM of two activations, softmax, layer normalization) beside the CNN ones.
#pragma once

#include <string_view>

#include "rooflens/cost/cost.h"

namespace rooflens {

enum class LayerClass {
  kConv,         // a convolution (not depthwise), with its epilogue
  kDepthwise,    // a depthwise convolution
  kGemm,         // Gemm/MatMul with stored weights (a linear layer)
  kBatchedGemm,  // MatMul/Einsum of two run-time operands (attention's products when unfused)
  kAttention,    // fused attention: Q.K^T, softmax, A.V in one kernel (FusedLayer::attention)
  kSoftmax,
  kLayerNorm,
  kNorm,     // BatchNormalization on its own
  kEltwise,  // activations and binary pointwise ops
  kPool,     // pooling and reductions
  kMove,     // copies: Concat, Slice, Transpose, Gather, Expand, Pad, ...
  kOther,
};

// Classifies a layer by its anchor and fusion flags (pure function of the graph and report).
LayerClass layer_class(const Graph& g, const LayerReport& r);
std::string_view layer_class_name(LayerClass c);  // "attention", "batched_gemm", ...

}  // namespace rooflens
