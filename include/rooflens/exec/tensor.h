// Host tensors for the CPU backends: dense, row-major (NCHW for images), fp32 or int64.
#pragma once

#include <cstdint>
#include <vector>

#include "rooflens/ir/graph.h"

namespace rooflens {

struct Tensor {
  Shape shape;
  DType dtype = DType::kF32;  // kF32 (data) or kI64 (ints)
  std::vector<float> data;
  std::vector<int64_t> ints;

  static Tensor zeros(Shape s) {
    Tensor t;
    t.data.assign(static_cast<size_t>(checked_numel(s).value_or(0)), 0.0f);
    t.shape = std::move(s);
    return t;
  }
  int64_t numel() const { return checked_numel(shape).value_or(0); }
};

}  // namespace rooflens
