// The strided copy's plan (kernels.h, CopyPlan): host code, checked without a device
// (tests/backend/cuda_test.cpp, CudaViews.StridedCopyPlan*).
#include <cstdint>

#include "kernels.h"

namespace rooflens::cuda {
namespace {

// Size-1 dims dropped; an outer dim merged into the inner one next to it when stepping the
// outer equals stepping over the whole inner, on both sides.
CopyShape collapsed(const CopyShape& s) {
  CopyShape o;
  for (int k = 0; k < s.rank; ++k) {
    if (s.dims[k] == 1) continue;
    const int j = o.rank - 1;
    if (j >= 0 && o.src_strides[j] == s.dims[k] * s.src_strides[k] &&
        o.dst_strides[j] == s.dims[k] * s.dst_strides[k]) {
      o.dims[j] *= s.dims[k];
      o.src_strides[j] = s.src_strides[k];
      o.dst_strides[j] = s.dst_strides[k];
      continue;
    }
    o.dims[o.rank] = s.dims[k];
    o.src_strides[o.rank] = s.src_strides[k];
    o.dst_strides[o.rank] = s.dst_strides[k];
    ++o.rank;
  }
  if (o.rank == 0) {  // a single element
    o.rank = 1;
    o.dims[0] = 1;
    o.src_strides[0] = o.dst_strides[0] = 1;
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
