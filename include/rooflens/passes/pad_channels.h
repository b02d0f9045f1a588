// Channel padding: the tensor-core alignment what-if. Every conv / dense layer's output
// width is rounded up to a multiple (8 for FP16 tensor cores, 16 for INT8, ...), and the
// new widths propagate through the graph exactly as fold's do (same machinery:
// rewrite_widths in passes/folded_cnn.h), so residual adds and concats stay consistent.
#pragma once

#include "rooflens/ir/graph.h"

namespace rooflens {

// Returns a NEW graph (g is not changed; g must be shape-inferred), shape-inferred again.
// - The graph input's channel dim (dim 1) is padded up to `multiple` too (3 -> 8 for RGB):
//   the first layer then reads zero channels, as a padded deployment feeds them.
// - Classifier outputs are padded like every other layer (1000 stays 1000 at 8; 1001
//   becomes 1008): the what-if costs the padded layer; the extra scores are ignored.
// - Grouped convs: widths are rounded to a multiple of lcm(multiple, group); depthwise convs
//   keep group == channels.
// `multiple` must be >= 1 (1 returns an equivalent graph). Errors as rewrite_widths.
Expected<Graph> pad_channels(const Graph& g, int multiple);

}  // namespace rooflens
