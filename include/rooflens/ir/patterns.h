// Graph patterns that a backend runs differently from node by node, named once so that the
// backend and the performance model that mirrors it agree.
#pragma once

#include "rooflens/ir/graph.h"

namespace rooflens {

// A Concat of two or more 4-D tensors along channels whose only reader is a
// BatchNormalization with stored statistics whose only reader is a ReLU, none of them a
// graph output (DenseNet's pre-activation: each layer concatenates the block's features,
// then normalises them): that BatchNormalization node, else -1. The oneDNN backend applies
// the normalisation and the ReLU while it copies the inputs into the concatenation, so
// the concatenated tensor is never written (src/exec/onednn/movement_nodes.cpp).
NodeId concat_feeding_norm_relu(const Graph& g, NodeId concat);

}  // namespace rooflens
