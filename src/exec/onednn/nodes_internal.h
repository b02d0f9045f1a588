// The node lowerings that cross files in the oneDNN backend: the compute ops
// (compute_nodes.cpp) and the data movement and views (movement_nodes.cpp), which the layer
// dispatcher (nodes.cpp) calls. Each lowers one node's outputs into `b`.
#pragma once

#include <optional>
#include <utility>

#include "onednn_backend.h"

namespace rooflens::onednn {

inline const Shape& shape_of(const Graph& g, ValueId v) { return *g.value(v).shape; }

// Compute ops (compute_nodes.cpp).
Status eltwise(OneDnnBackend& b, const Node& n, dnnl::algorithm a, float alpha, float beta,
               std::optional<std::pair<float, float>> clip_after = std::nullopt);
Status binary(OneDnnBackend& b, const Node& n);
Status pooling(OneDnnBackend& b, const Node& n);
Status batchnorm(OneDnnBackend& b, const Node& n, ValueId relu_out = kNoValue);
ValueId fusable_relu(const Graph& g, const LayerReport& L);
Status layernorm(OneDnnBackend& b, const Node& n);
Status reduce_mean(OneDnnBackend& b, const Node& n);
Status reduction(OneDnnBackend& b, const Node& n, dnnl::algorithm alg, float p);
Status reduce_l2(OneDnnBackend& b, const Node& n);
Status softmax(OneDnnBackend& b, const Node& n);
Status erf(OneDnnBackend& b, const Node& n);

// Data movement and views (movement_nodes.cpp).
Status concat(OneDnnBackend& b, const Node& n);
Status transpose(OneDnnBackend& b, const Node& n);
Status slice(OneDnnBackend& b, const Node& n);
Status split(OneDnnBackend& b, const Node& n);
Status pad(OneDnnBackend& b, const Node& n);
Status view(OneDnnBackend& b, const Node& n);
Status gather(OneDnnBackend& b, const Node& n);
Status expand(OneDnnBackend& b, const Node& n);
// The value's memory and its plain strides (a row-major copy when it is blocked).
Expected<std::pair<dnnl::memory, dnnl::memory::dims>> plain_operand(OneDnnBackend& b, ValueId v);
// einsum.cpp: a two-operand Einsum as one matmul; what it refuses before prepare.
Status einsum(OneDnnBackend& b, const Node& n);
std::string einsum_refusal(const Graph& g, const Node& n);

}  // namespace rooflens::onednn
