// Layer fusion as inference engines (TensorRT, oneDNN post-ops) perform it.
// The result groups the graph's nodes into layers; the graph itself is not changed.
// Rules are written down in docs/cost-model.md.
#pragma once

#include <vector>

#include "rooflens/ir/graph.h"

namespace rooflens {

struct FusedLayer {
  NodeId anchor = -1;
  std::vector<NodeId> nodes;    // execution order, anchor first
  NodeId folded_bn = -1;        // BatchNormalization folded into the anchor's weights
  ValueId residual = kNoValue;  // tensor read by a fused residual Add
  // Attention as one fused kernel (engine view): Q.K^T (MatMul or Einsum, the anchor), the
  // pointwise ops and views between it and the Softmax (scale, position bias, mask), the
  // Softmax, the views after it and the A.V product, in execution order. The score matrix
  // stays inside the layer: it never reaches DRAM.
  bool attention = false;
};

enum class FusionMode {
  kNone,    // one layer per computing node (views and folded nodes still appear, at zero cost)
  kEngine,  // BN folding, pointwise epilogues, residual adds, fused attention; views and folded nodes dropped
  // torch.compile (Inductor) without freezing: Conv/Gemm/MatMul run alone (an external
  // cuDNN/cuBLAS call); the pointwise ops after one (BatchNormalization, activations, a
  // residual add) form one generated kernel; attention is one layer, as in kEngine. Views and
  // folded nodes dropped.
  kPointwise,
};

// `order` is a topological order (from infer_shapes). Unknown and unresolved nodes each
// form their own layer in both modes.
std::vector<FusedLayer> fuse_layers(const Graph& g, const std::vector<NodeId>& order, FusionMode mode);

}  // namespace rooflens
