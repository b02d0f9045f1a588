// Rebatching: the same graph at another batch size, shapes re-inferred.
#pragma once

#include "rooflens/ir/graph.h"
#include "rooflens/passes/infer_shapes.h"

namespace rooflens {

struct Rebatched {
  Graph graph;
  InferResult inferred;
};

// A copy of `g` whose graph inputs have dim 0 = `batch`, every activation's shape and
// known contents cleared and inferred again. Equivalent to importing the file again with
// ImportOptions::batch, without re-parsing it. Invalid input when batch < 1 or a graph
// input has no shape.
Expected<Rebatched> rebatch(const Graph& g, int64_t batch);

}  // namespace rooflens
