// Shape arithmetic shared by shape inference and the kernels that follow it (the reference
// backend): broadcasting and products of dims. Pure functions of shapes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "rooflens/ir/graph.h"
#include "rooflens/ir/op_desc.h"

namespace rooflens::ops {

// Numpy-style broadcast of two shapes; nullopt if incompatible.
std::optional<Shape> broadcast_shapes(const Shape& a, const Shape& b);

// Index of an output element's source in an input broadcast to `out`.
int64_t broadcast_source_index(const Shape& out, const Shape& in, int64_t flat_out);

// The input index a non-constant Pad reads for index `j` of an axis whose kept input length is
// `k` (> 0), j counted from the first kept element (negative before it, >= k after it):
// edge clamps, wrap repeats, reflect mirrors without repeating the border element (ONNX Pad).
// Inside [0, k) it is j. Constant mode has no source outside; callers test that first.
int64_t pad_source_index(PadMode mode, int64_t j, int64_t k);

// Product of a range of dims.
int64_t prod(const Shape& s, size_t begin = 0, size_t end = static_cast<size_t>(-1));

}  // namespace rooflens::ops
