// Helpers shared by op family files: broadcasting, sliding-window geometry, constant folding.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "rooflens/ops/op_hooks.h"

namespace rooflens::ops {

// Numpy-style broadcast of two shapes; nullopt if incompatible.
std::optional<Shape> broadcast_shapes(const Shape& a, const Shape& b);

// Index of an output element's source in an input broadcast to `out`.
int64_t broadcast_source_index(const Shape& out, const Shape& in, int64_t flat_out);

// Largest tensor whose contents rooflens keeps for constant folding.
inline constexpr int64_t kMaxFoldElements = 4096;

// Geometry of a sliding window (Conv, MaxPool, AveragePool) over `spatial` input dims.
struct WindowParams {
  std::vector<int64_t> kernel, strides, dilations, pads;  // pads: begins then ends
  bool ceil_mode = false;
};
// Reads kernel_shape (if `kernel_from_weights` is empty), strides, dilations, pads, auto_pad
// and ceil_mode; fills output spatial dims. Errors name the attribute.
Status window_geometry(const InferContext& ctx, const Shape& spatial_in,
                       const std::vector<int64_t>& kernel_from_weights, WindowParams* p,
                       Shape* spatial_out);

// Product of a range of dims.
int64_t prod(const Shape& s, size_t begin = 0, size_t end = static_cast<size_t>(-1));

// Reads an int64 input that must be known at analysis time (Reshape's shape, Slice's starts...).
Expected<std::vector<int64_t>> known_ints(const InferContext& ctx, size_t i, std::string_view what);

// Per-element FLOPs x output elements + default traffic.
OpCost pointwise_cost(const CostContext& ctx, int64_t flops_per_element);

}  // namespace rooflens::ops
