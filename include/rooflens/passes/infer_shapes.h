// Shape inference and constant folding over a whole graph.
#pragma once

#include <vector>

#include "rooflens/ir/graph.h"

namespace rooflens {

struct InferResult {
  std::vector<NodeId> order;          // topological order used
  std::vector<NodeId> unknown_nodes;  // ops missing from the op table
  std::vector<NodeId> unresolved;     // nodes whose inputs have no shape (downstream of unknown ops)
  int64_t folded_nodes = 0;           // nodes whose outputs are known at analysis time or load time
};

// Infers every value's shape and dtype in topological order through the op table, folds
// shape subgraphs (Shape -> Gather -> Unsqueeze -> Concat -> Reshape and similar), and marks
// folded nodes: those, and the nodes that read only stored data and known contents (their
// outputs are then stored: computed once at load, as an engine's constant folding does). Unknown ops are recorded, not
// fatal; their outputs take the file's value_info shape when it has one. Invalid input (bad attributes, inconsistent
// shapes, a cycle) returns the first error, naming the node and field.
Expected<InferResult> infer_shapes(Graph& g);

}  // namespace rooflens
