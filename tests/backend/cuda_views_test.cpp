// The CUDA backend's host-side rules, run without a device: numpy's no-copy reshapes and
// strided views, the element-wise iteration collapsed onto the kernel's 4 dims, the
// strided copy's plan (wide units, the same bytes as the element copy). Built with the CUDA
// backend only; the device cases are in cuda_test.cpp. (The Einsum plan, shared with the
// oneDNN backend, is tested in tests/unit/einsum_gemm_test.cpp.)
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "cuda_backend.h"  // src/exec/cuda

namespace rooflens {
namespace {
using cuda::reshape_strides;
using cuda::strided_view;
using cuda::strides_of;
using Strides = std::vector<int64_t>;

// numpy's no-copy reshape: splits and merges of contiguous dims are views, a merge across a
// transposed pair is not.
TEST(CudaViews, ReshapeWithoutACopyWhereTheMergedDimsAreContiguous) {
  EXPECT_EQ(reshape_strides({2, 6, 4}, {24, 4, 1}, {2, 2, 3, 4}), (Strides{24, 12, 4, 1}));
  EXPECT_EQ(reshape_strides({2, 2, 3, 4}, {24, 12, 4, 1}, {2, 24}), (Strides{24, 1}));
  // NHWC [N,C,H,W] = (H*W*C, 1, W*C, C): C split in two groups (ShuffleNet's reshape).
  EXPECT_EQ(reshape_strides({2, 24, 5, 6}, {720, 1, 144, 24}, {2, 2, 12, 5, 6}), (Strides{720, 12, 1, 144, 24}));
  // Its transpose (0,2,1,3,4) merged back to [N,C,H,W]: (1, 12) is not contiguous.
  EXPECT_FALSE(reshape_strides({2, 12, 2, 5, 6}, {720, 1, 12, 144, 24}, {2, 24, 5, 6}));
  // ... but the NHWC output seen in the transposed shape is a view: one strided copy.
  EXPECT_EQ(reshape_strides({2, 24, 5, 6}, {720, 1, 144, 24}, {2, 12, 2, 5, 6}), (Strides{720, 2, 1, 144, 24}));
  // Flatten of NHWC [N,C,1,1] (after global pooling) is plain row-major [N,C].
  EXPECT_EQ(reshape_strides({4, 8, 1, 1}, {8, 1, 8, 8}, {4, 8}), (Strides{8, 1}));
  EXPECT_FALSE(reshape_strides({4, 8, 2, 2}, {32, 1, 16, 8}, {4, 32}));
  // Size-1 dims anywhere.
  EXPECT_EQ(reshape_strides({3, 1, 4}, {4, 99, 1}, {1, 3, 4, 1}), (Strides{12, 4, 1, 1}));
}

TEST(CudaViews, StridedViewsBecomePlainWhenDense) {
  int dummy = 0;
  // ConvNeXt's permute(0,2,3,1) of an NHWC [N,C,H,W]: the row-major [N,H,W,C].
  const Strides nhwc{3 * 4 * 8, 1, 4 * 8, 8};  // N,C,H,W = 2,8,3,4
  const Strides perm{nhwc[0], nhwc[2], nhwc[3], nhwc[1]};
  auto v = strided_view(&dummy, {2, 3, 4, 8}, cuda::Elem::kF16, perm);
  EXPECT_TRUE(v.strides.empty());
  EXPECT_FALSE(v.nhwc);
  // ... and permute(0,3,1,2) of that row-major tensor is NHWC [N,C,H,W] again.
  const Strides rm{96, 32, 8, 1};
  auto back = strided_view(&dummy, {2, 8, 3, 4}, cuda::Elem::kF16, {rm[0], rm[3], rm[1], rm[2]});
  EXPECT_TRUE(back.strides.empty());
  EXPECT_TRUE(back.nhwc);
  EXPECT_EQ(strides_of(back), nhwc);
  // A channel slice of NHWC keeps its strides; a batch slice is dense.
  auto ch = strided_view(&dummy, {2, 4, 3, 4}, cuda::Elem::kF16, nhwc);
  EXPECT_EQ(ch.strides, nhwc);
  auto batch = strided_view(&dummy, {1, 8, 3, 4}, cuda::Elem::kF16, nhwc);
  EXPECT_TRUE(batch.strides.empty());
  EXPECT_TRUE(batch.nhwc);
}

// Element-wise ops above rank 4 run on the 4-D kernel: extent-1 dims dropped, neighbours
// merged where every operand steps through both as one (or broadcasts over both).
TEST(CudaViews, ElementwiseIterationsCollapseToTheKernelsFourDims) {
  using cuda::collapse_iteration;
  using cuda::collapsed_rank;
  // Swin's masked attention: [1,nW,heads,49,49] + mask [1,nW,1,49,49].
  const Shape swin{1, 64, 3, 49, 49};
  const auto mask = cuda::broadcast_strides({1, 64, 1, 49, 49}, {64 * 2401, 2401, 2401, 49, 1}, swin);
  ASSERT_TRUE(mask);
  const auto it = collapse_iteration(swin, {{3 * 64 * 2401, 3 * 2401, 2401, 49, 1}, *mask});
  EXPECT_EQ(it.dims, (Strides{64, 3, 2401}));
  EXPECT_EQ(it.strides[0], (Strides{3 * 2401, 2401, 1}));
  EXPECT_EQ(it.strides[1], (Strides{2401, 0, 1}));
  // MaxViT's relative-position bias [heads,49,49] over [1,G,heads,49,49]; a scalar scale.
  EXPECT_EQ(collapsed_rank({1, 16, 4, 49, 49}, {{1, 16, 4, 49, 49}, {4, 49, 49}}), 2u);
  EXPECT_EQ(collapsed_rank({1, 16, 4, 49, 32}, {{1, 16, 4, 49, 32}, {}}), 1u);
  // Alternating broadcast dims leave 5: refused by the support check.
  EXPECT_EQ(collapsed_rank({2, 3, 4, 5, 6}, {{2, 3, 4, 5, 6}, {2, 1, 4, 1, 6}}), 5u);
  EXPECT_FALSE(collapsed_rank({2, 3, 4, 5, 6}, {{2, 3, 4, 5, 6}, {3, 1}}));
  // A transposed view does not merge across the swapped pair.
  EXPECT_EQ(collapse_iteration({2, 3, 4, 5, 6}, {{360, 120, 30, 6, 1}, {360, 120, 30, 1, 5}}).dims,
            (Strides{24, 5, 6}));
}

// The strided copy as a host loop: `unit` bytes per element of `s` (the kernel's semantics).
std::vector<unsigned char> host_copy(const std::vector<unsigned char>& x, size_t y_bytes, const cuda::CopyShape& s,
                                     int unit) {
  std::vector<unsigned char> y(y_bytes, 0xEE);
  int64_t n = 1;
  for (int k = 0; k < s.rank; ++k) n *= s.dims[k];
  for (int64_t i = 0; i < n; ++i) {
    int64_t r = i, so = 0, dof = 0;
    for (int k = s.rank - 1; k >= 0; --k) {
      so += (r % s.dims[k]) * s.src_strides[k];
      dof += (r % s.dims[k]) * s.dst_strides[k];
      r /= s.dims[k];
    }
    std::memcpy(&y[static_cast<size_t>(dof * unit)], &x[static_cast<size_t>(so * unit)], static_cast<size_t>(unit));
  }
  return y;
}

// A copy into a dense output of `dims` reading the dense input of dims permuted by `perm`.
cuda::CopyShape permute_copy(const std::vector<int64_t>& dims, const std::vector<int>& perm) {
  const int r = static_cast<int>(dims.size());
  std::vector<int64_t> in_dims(dims.size()), in_strides(dims.size());
  for (int k = 0; k < r; ++k) in_dims[static_cast<size_t>(perm[static_cast<size_t>(k)])] = dims[static_cast<size_t>(k)];
  int64_t st = 1;
  for (int k = r - 1; k >= 0; --k) {
    in_strides[static_cast<size_t>(k)] = st;
    st *= in_dims[static_cast<size_t>(k)];
  }
  cuda::CopyShape s;
  s.rank = r;
  int64_t dst = 1;
  for (int k = r - 1; k >= 0; --k) {
    s.dims[k] = dims[static_cast<size_t>(k)];
    s.src_strides[k] = in_strides[static_cast<size_t>(perm[static_cast<size_t>(k)])];
    s.dst_strides[k] = dst;
    dst *= dims[static_cast<size_t>(k)];
  }
  return s;
}

// ViT's head split keeps the last dim: 16-byte units; a plain copy collapses to one dim; a
// misaligned start, a strided last dim or an odd run keep narrower units. Every plan moves
// the same bytes as the element-wise copy it replaces (random permutations, fp16 and fp32).
TEST(CudaViews, StridedCopyPlanMovesWideUnitsAndTheSameBytes) {
  alignas(16) static unsigned char base[64];
  const void* a16 = base;
  const void* a2 = base + 2;
  const void* a4 = base + 4;
  auto vit = permute_copy({2, 12, 197, 64}, {0, 2, 1, 3});  // [b, heads, tokens, d] from [b, tokens, heads, d]
  auto p = cuda::plan_strided_copy(vit, 2, a16, a16);
  EXPECT_EQ(p.unit_bytes, 16);
  EXPECT_EQ(p.shape.rank, 4);
  EXPECT_EQ(p.shape.dims[3], 8);
  auto plain = cuda::plan_strided_copy(permute_copy({4, 6, 8}, {0, 1, 2}), 2, a16, a16);
  EXPECT_EQ(plain.shape.rank, 1);
  EXPECT_EQ(plain.shape.dims[0], 4 * 6 * 8 / 8);
  EXPECT_EQ(cuda::plan_strided_copy(vit, 2, a4, a16).unit_bytes, 4);  // a 4-byte offset: 4-byte units
  EXPECT_EQ(cuda::plan_strided_copy(vit, 2, a16, a2).unit_bytes, 2);  // a 2-byte offset: elements
  EXPECT_EQ(cuda::plan_strided_copy(permute_copy({5, 3}, {1, 0}), 2, a16, a16).unit_bytes, 2);  // last dim strided
  EXPECT_EQ(cuda::plan_strided_copy(permute_copy({4, 6}, {1, 0}), 4, a16, a16).unit_bytes, 4);  // fp32 stays 4

  std::mt19937 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    const int rank = 1 + static_cast<int>(rng() % 5);
    std::vector<int64_t> dims;
    std::vector<int> perm(static_cast<size_t>(rank));
    int64_t n = 1;
    for (int k = 0; k < rank; ++k) {
      dims.push_back(1 + static_cast<int64_t>(rng() % 6) * (k == rank - 1 ? 4 : 1));
      n *= dims.back();
      perm[static_cast<size_t>(k)] = k;
    }
    std::shuffle(perm.begin(), perm.end() - (trial % 2 ? 0 : 1), rng);  // even trials keep the last dim
    const int elem = trial % 3 ? 2 : 4;
    const cuda::CopyShape s = permute_copy(dims, perm);
    std::vector<unsigned char> x(static_cast<size_t>(n * elem));
    for (auto& v : x) v = static_cast<unsigned char>(rng());
    const auto plan = cuda::plan_strided_copy(s, elem, a16, a16);
    EXPECT_EQ(host_copy(x, x.size(), plan.shape, plan.unit_bytes), host_copy(x, x.size(), s, elem))
        << "trial " << trial << ", unit " << plan.unit_bytes;
  }
}

}  // namespace
}  // namespace rooflens
