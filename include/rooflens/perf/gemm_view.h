// The GEMM view of a fused layer: what the per-layer model (perf/layer_model.h) and the
// kernel table (perf/kernel_predict.h) read of a layer's anchor op and cost.
#pragma once

#include <cstdint>

#include "rooflens/cost/cost.h"

namespace rooflens {

// GEMM view of a linear layer's anchor: rows x cols output tiles per group, K, and the
// channel counts tensor cores need aligned. valid = false for other ops.
struct GemmShape {
  bool valid = false;
  bool depthwise = false;
  int64_t groups = 1, rows = 0, cols = 0, k = 0;
  int64_t align_in = 0, align_out = 0;  // channels that must be multiples of the tile
};
GemmShape gemm_shape(const Graph& g, const Node& n);

// What the per-layer model reads of a fused layer (units: FLOPs, bytes, elements).
struct LayerWork {
  bool costed = false;  // status ok and the layer computes or moves something
  int64_t flops = 0;
  int64_t bytes = 0;      // counted traffic: bytes_in + bytes_out + bytes_weights
  GemmShape gemm;         // of the anchor
  int64_t out_elems = 0;  // elements of the layer's out_shapes (pointwise kernels' threads)
};
LayerWork layer_work(const Graph& g, const LayerReport& r);

}  // namespace rooflens
