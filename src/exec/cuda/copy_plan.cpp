// The strided copy's plan (kernels.h, CopyPlan): host code, checked without a device
// (tests/backend/cuda_views_test.cpp, CudaViews.StridedCopyPlan*).
#include <algorithm>
#include <cstdint>
#include <vector>

#include "cuda_backend.h"

namespace rooflens::cuda {
namespace {

// Size-1 dims dropped and neighbours merged as the element-wise iteration is
// (collapse_iteration, views.cpp): the same rule over the two operands' strides.
CopyShape collapsed(const CopyShape& s) {
  const Shape dims(s.dims, s.dims + s.rank);
  const EwIteration it = collapse_iteration(dims, {std::vector<int64_t>(s.src_strides, s.src_strides + s.rank),
                                                   std::vector<int64_t>(s.dst_strides, s.dst_strides + s.rank)});
  CopyShape o;
  o.rank = std::max<int>(1, static_cast<int>(it.dims.size()));
  o.dims[0] = o.src_strides[0] = o.dst_strides[0] = 1;  // a single element when every dim is 1
  for (size_t k = 0; k < it.dims.size(); ++k) {
    o.dims[k] = it.dims[k];
    o.src_strides[k] = it.strides[0][k];
    o.dst_strides[k] = it.strides[1][k];
  }
  return o;
}

// Whether `per` elements can move as one unit of `bytes`: the innermost run contiguous on
// both sides and a multiple of it, every other stride a multiple, both addresses aligned.
bool fits_unit(const CopyShape& s, int64_t per, int bytes, const void* x, const void* y) {
  const int last = s.rank - 1;
  if (s.src_strides[last] != 1 || s.dst_strides[last] != 1 || s.dims[last] % per != 0) return false;
  if (reinterpret_cast<uintptr_t>(x) % bytes != 0 || reinterpret_cast<uintptr_t>(y) % bytes != 0) return false;
  for (int k = 0; k < last; ++k)
    if (s.src_strides[k] % per != 0 || s.dst_strides[k] % per != 0) return false;
  return true;
}

}  // namespace

CopyPlan plan_strided_copy(const CopyShape& s, int elem_bytes, const void* x, const void* y) {
  CopyPlan p{collapsed(s), elem_bytes};
  for (int bytes : {16, 8, 4}) {
    if (bytes <= elem_bytes || bytes % elem_bytes != 0) continue;
    const int64_t per = bytes / elem_bytes;
    if (!fits_unit(p.shape, per, bytes, x, y)) continue;
    const int last = p.shape.rank - 1;
    p.shape.dims[last] /= per;
    for (int k = 0; k < last; ++k) {
      p.shape.src_strides[k] /= per;
      p.shape.dst_strides[k] /= per;
    }
    p.unit_bytes = bytes;
    break;
  }
  return p;
}

}  // namespace rooflens::cuda
