// Per-layer and whole-model costs: MACs, FLOPs, bytes, arithmetic intensity, params.
#pragma once

#include <string>
#include <vector>

#include "rooflens/ir/graph.h"
#include "rooflens/ops/op_hooks.h"
#include "rooflens/passes/fuse.h"
#include "rooflens/passes/infer_shapes.h"

namespace rooflens {

enum class LayerStatus { kOk, kUnknownOp, kUnresolved };

struct LayerReport {
  std::string name;               // the anchor node's name
  std::string op;                 // op types joined by '+', e.g. "Conv+BatchNormalization+Relu"
  std::string desc;               // problem descriptor, e.g. mb1ic64ih56iw56oc64oh56ow56kh3kw3sh1sw1ph1pw1g1
  std::vector<Shape> in_shapes;   // activation inputs
  std::vector<Shape> out_shapes;  // activation outputs read by later layers
  std::vector<Shape> weight_shapes;
  OpCost cost;
  double ai = 0;           // FLOP per byte (0 when the layer moves no bytes)
  double flops_share = 0;  // share of the model's FLOPs
  LayerStatus status = LayerStatus::kOk;
  std::vector<NodeId> nodes;
  // The fusion the layer stands for (passes/fuse.h), handed to the backends so that none
  // re-detects it: the BatchNormalization folded into the anchor's weights (nodes[1]) and
  // the tensor a fused residual Add reads.
  NodeId folded_bn = -1;
  ValueId residual = kNoValue;
  bool attention = false;  // fused attention (FusedLayer::attention): the scores stay on chip
};

struct AnalyzeOptions {
  CostOptions cost;
  FusionMode fusion = FusionMode::kEngine;
};

struct ModelAnalysis {
  std::string model;  // display name (file stem)
  DType dtype = DType::kF32;
  int64_t batch = 1;
  bool fused = true;
  std::vector<Shape> input_shapes;
  std::vector<LayerReport> layers;
  OpCost totals;
  int64_t params = 0;
  double ai = 0;                              // aggregate: total FLOPs / total bytes
  std::vector<std::string> unknown_nodes;     // "name (OpType)"
  std::vector<std::string> unresolved_nodes;  // nodes without shapes (after unknown ops)
  int64_t folded_nodes = 0;
  int64_t opset = 0;
};

// Unknown-op nodes ("name (OpType)" entries) grouped by op type, most frequent first:
// "Einsum x44 (e.g. n1, n2, n3); Foo x1 (e.g. f)"; at most `names` node names per type.
std::string unknown_ops_summary(const std::vector<std::string>& unknown_nodes, size_t names = 3);

// Trainable parameters: elements of floating-point stored tensors that nodes read, except
// BatchNormalization running mean/var and one-element constants (see docs/cost-model.md).
int64_t count_params(const Graph& g);

// Costs the graph (after infer_shapes) layer by layer under the options.
ModelAnalysis analyze_graph(const Graph& g, const InferResult& inferred, const AnalyzeOptions& opts);

}  // namespace rooflens
