// Helpers shared by op family files: sliding-window geometry, known inputs, constant folding
// (broadcasting and dim products are public: rooflens/ops/shape_math.h).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "rooflens/ops/op_hooks.h"
#include "rooflens/ops/shape_math.h"

namespace rooflens::ops {

// Largest tensor whose contents rooflens keeps for constant folding. Swin's shifted-window
// attention mask (windows x tokens x tokens, 262144 elements for swin_v2 at 256 px) is
// computed from shapes by the exported graph and must fold, so the limit sits above it.
inline constexpr int64_t kMaxFoldElements = int64_t{1} << 19;

// Known contents of input `in` moved to output 0 through an index map: output element j is
// input element src[j] (ints or reals, whichever the input holds; nothing when neither, or
// when an index is out of range).
void fold_gather(InferContext& ctx, size_t in, const std::vector<int64_t>& src);

// The row-major flat index map of a transpose of `x` by `perm` (output element -> input).
std::vector<int64_t> transpose_map(const Shape& x, const std::vector<int64_t>& perm);

// Reads kernel_shape (if `kernel_from_weights` is empty), strides, dilations, pads, auto_pad
// and ceil_mode of a sliding window (Conv, MaxPool, AveragePool) over `spatial_in` into `p`,
// resolving auto_pad into explicit pads (the one place SAME padding is computed); fills the
// output spatial dims. Errors name the attribute.
Status window_geometry(const InferContext& ctx, const Shape& spatial_in,
                       const std::vector<int64_t>& kernel_from_weights, WindowDesc* p, Shape* spatial_out);

// Reads an int64 input that must be known at analysis time (Reshape's shape, Slice's starts...).
Expected<std::vector<int64_t>> known_ints(const InferContext& ctx, size_t i, std::string_view what);

// Per-element FLOPs x output elements + default traffic.
OpCost pointwise_cost(const CostContext& ctx, int64_t flops_per_element);

}  // namespace rooflens::ops
