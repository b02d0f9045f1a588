// Data-movement and normalization kernels of the CUDA backend (see kernels.h): strided copies
// of any rank up to 8 (Transpose, Slice, Split and layout changes that no view can express),
// Gather along one axis, separable resampling with host-computed taps (Resize),
// LayerNormalization over rows and the L2 norm of each row (ReduceL2). Arithmetic in fp32 whatever the storage type.
#include <cuda_fp16.h>

#include <algorithm>

#include "kernels.h"

namespace rooflens::cuda {
namespace {

__device__ __forceinline__ float load(const float* p, int64_t i) { return p[i]; }
__device__ __forceinline__ float load(const __half* p, int64_t i) { return __half2float(p[i]); }
__device__ __forceinline__ void store(float* p, int64_t i, float v) { p[i] = v; }
__device__ __forceinline__ void store(__half* p, int64_t i, float v) { p[i] = __float2half_rn(v); }

constexpr int kThreads = 256;
int grid_for(int64_t n) { return static_cast<int>(std::min<int64_t>((n + kThreads - 1) / kThreads, int64_t{1} << 20)); }
constexpr int64_t kNarrowLimit = (int64_t{1} << 31) - (int64_t{1} << 29);

template <typename I>
struct CopyIdx {
  int rank;
  I dims[kMaxCopyRank], src[kMaxCopyRank], dst[kMaxCopyRank];
};

// Element-size copy (no conversion): T is the unit moved (uint16_t for one fp16 element,
// uint4 for 16 bytes of them; launch_strided_copy's CopyPlan chooses).
template <typename T, typename I>
__global__ void strided_copy(const T* __restrict__ x, T* __restrict__ y, CopyIdx<I> s, I n) {
  for (I i = blockIdx.x * static_cast<I>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<I>(gridDim.x) * blockDim.x) {
    I r = i, so = 0, dof = 0;
    for (int k = s.rank - 1; k >= 0; --k) {
      const I q = r % s.dims[k];
      r /= s.dims[k];
      so += q * s.src[k];
      dof += q * s.dst[k];
    }
    y[dof] = x[so];
  }
}

template <typename T, typename I>
void launch_copy_typed(const void* x, void* y, const CopyShape& s, int64_t n, cudaStream_t stream) {
  CopyIdx<I> t{};
  t.rank = s.rank;
  for (int k = 0; k < s.rank; ++k) {
    t.dims[k] = static_cast<I>(s.dims[k]);
    t.src[k] = static_cast<I>(s.src_strides[k]);
    t.dst[k] = static_cast<I>(s.dst_strides[k]);
  }
  strided_copy<T, I>
      <<<grid_for(n), kThreads, 0, stream>>>(static_cast<const T*>(x), static_cast<T*>(y), t, static_cast<I>(n));
}

template <typename T, typename I>
__global__ void gather_rows(const T* __restrict__ x, const int64_t* __restrict__ idx, T* __restrict__ y, I dim, I n_idx,
                            I inner, I n) {
  for (I i = blockIdx.x * static_cast<I>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<I>(gridDim.x) * blockDim.x) {
    const I in = i % inner, j = (i / inner) % n_idx, o = i / inner / n_idx;
    y[i] = x[(o * dim + static_cast<I>(idx[j])) * inner + in];
  }
}

// y[n, oh, ow, c] = sum_a sum_b wh[oh][a] ww[ow][b] x[n, ih[oh][a], iw[ow][b], c].
template <typename T>
__global__ void resize_nhwc(const T* __restrict__ x, T* __restrict__ y, const int* __restrict__ ih,
                            const float* __restrict__ wh, const int* __restrict__ iw, const float* __restrict__ ww,
                            ResizeShape p, int64_t total) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int64_t r = i;
    const int c = static_cast<int>(r % p.c);
    r /= p.c;
    const int ow = static_cast<int>(r % p.ow);
    r /= p.ow;
    const int oh = static_cast<int>(r % p.oh);
    const int64_t n = r / p.oh;
    float acc = 0.f;
    for (int a = 0; a < p.taps_h; ++a) {
      const float wa = wh[oh * p.taps_h + a];
      if (wa == 0.f) continue;
      const int64_t row = (n * p.h + ih[oh * p.taps_h + a]) * p.w;
      for (int b = 0; b < p.taps_w; ++b) {
        const float wb = ww[ow * p.taps_w + b];
        if (wb == 0.f) continue;
        acc += wa * wb * load(x, (row + iw[ow * p.taps_w + b]) * p.c + c);
      }
    }
    store(y, i, acc);
  }
}

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

// One warp per row: mean, then the variance about it (two passes over the row, which stays
// in L1/L2 for the row lengths of vision models), then the normalized, scaled output.
template <typename T>
__global__ void layernorm_rows(const T* __restrict__ x, const T* __restrict__ scale, const T* __restrict__ bias,
                               T* __restrict__ y, int64_t rows, int cols, float eps) {
  const int lane = threadIdx.x & 31;
  const int64_t warps = static_cast<int64_t>(gridDim.x) * (blockDim.x / 32);
  for (int64_t row = blockIdx.x * static_cast<int64_t>(blockDim.x / 32) + threadIdx.x / 32; row < rows; row += warps) {
    const T* xr = x + row * cols;
    float s = 0.f;
    for (int j = lane; j < cols; j += 32) s += load(xr, j);
    const float mean = warp_sum(s) / static_cast<float>(cols);
    float q = 0.f;
    for (int j = lane; j < cols; j += 32) {
      const float d = load(xr, j) - mean;
      q += d * d;
    }
    const float inv = rsqrtf(warp_sum(q) / static_cast<float>(cols) + eps);
    T* yr = y + row * cols;
    for (int j = lane; j < cols; j += 32) {
      float v = (load(xr, j) - mean) * inv;
      if (scale) v *= load(scale, j);
      if (bias) v += load(bias, j);
      store(yr, j, v);
    }
  }
}

// One warp per row: y[row] = sqrt(sum_j x[row, j]^2), summed in fp32.
template <typename T>
__global__ void l2_rows(const T* __restrict__ x, T* __restrict__ y, int64_t rows, int cols) {
  const int lane = threadIdx.x & 31;
  const int64_t warps = static_cast<int64_t>(gridDim.x) * (blockDim.x / 32);
  for (int64_t row = blockIdx.x * static_cast<int64_t>(blockDim.x / 32) + threadIdx.x / 32; row < rows; row += warps) {
    const T* xr = x + row * cols;
    float q = 0.f;
    for (int j = lane; j < cols; j += 32) {
      const float v = load(xr, j);
      q += v * v;
    }
    q = warp_sum(q);
    if (lane == 0) store(y, row, sqrtf(q));
  }
}

}  // namespace

cudaError_t launch_reduce_l2_rows(Elem e, const void* x, void* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  if (rows == 0) return cudaSuccess;
  if (cols > (int64_t{1} << 30)) return cudaErrorInvalidValue;
  constexpr int kWarpsPerBlock = kThreads / 32;
  const int blocks = static_cast<int>(std::min<int64_t>((rows + kWarpsPerBlock - 1) / kWarpsPerBlock, 1 << 20));
  const int c = static_cast<int>(cols);
  if (e == Elem::kF32)
    l2_rows<float><<<blocks, kThreads, 0, stream>>>(static_cast<const float*>(x), static_cast<float*>(y), rows, c);
  else
    l2_rows<__half><<<blocks, kThreads, 0, stream>>>(static_cast<const __half*>(x), static_cast<__half*>(y), rows, c);
  return cudaGetLastError();
}

cudaError_t launch_strided_copy(const CopyPlan& p, const void* x, void* y, cudaStream_t stream) {
  if (p.shape.rank < 1 || p.shape.rank > kMaxCopyRank) return cudaErrorInvalidValue;
  int64_t n = 1, reach_src = 0, reach_dst = 0;
  for (int k = 0; k < p.shape.rank; ++k) {
    if (p.shape.dims[k] == 0) return cudaSuccess;
    if (p.shape.src_strides[k] < 0 || p.shape.dst_strides[k] < 0) return cudaErrorInvalidValue;
    n *= p.shape.dims[k];
    reach_src += (p.shape.dims[k] - 1) * p.shape.src_strides[k];
    reach_dst += (p.shape.dims[k] - 1) * p.shape.dst_strides[k];
  }
  const bool narrow = std::max({n, reach_src + 1, reach_dst + 1}) < kNarrowLimit;
  const auto launch = [&](auto unit) {
    using T = decltype(unit);
    if (narrow)
      launch_copy_typed<T, int32_t>(x, y, p.shape, n, stream);
    else
      launch_copy_typed<T, int64_t>(x, y, p.shape, n, stream);
  };
  switch (p.unit_bytes) {
    case 16: launch(uint4{}); break;
    case 8: launch(uint2{}); break;
    case 4: launch(uint32_t{}); break;
    default: launch(uint16_t{}); break;
  }
  return cudaGetLastError();
}

cudaError_t launch_gather(Elem e, const void* x, const int64_t* idx, void* y, int64_t outer, int64_t dim, int64_t n_idx,
                          int64_t inner, cudaStream_t stream) {
  const int64_t n = outer * n_idx * inner;
  if (n == 0) return cudaSuccess;
  const bool narrow = std::max(n, outer * dim * inner) < kNarrowLimit;
  const auto launch = [&](auto tag, auto itag) {
    using T = decltype(tag);
    using I = decltype(itag);
    gather_rows<T, I><<<grid_for(n), kThreads, 0, stream>>>(static_cast<const T*>(x), idx, static_cast<T*>(y),
                                                            static_cast<I>(dim), static_cast<I>(n_idx),
                                                            static_cast<I>(inner), static_cast<I>(n));
  };
  if (e == Elem::kF32) {
    if (narrow)
      launch(float{}, int32_t{});
    else
      launch(float{}, int64_t{});
  } else {
    if (narrow)
      launch(uint16_t{}, int32_t{});
    else
      launch(uint16_t{}, int64_t{});
  }
  return cudaGetLastError();
}

cudaError_t launch_resize_nhwc(Elem e, const void* x, void* y, const int* ih, const float* wh, const int* iw,
                               const float* ww, const ResizeShape& p, cudaStream_t stream) {
  const int64_t total = static_cast<int64_t>(p.n) * p.oh * p.ow * p.c;
  if (total == 0) return cudaSuccess;
  if (e == Elem::kF32)
    resize_nhwc<float><<<grid_for(total), kThreads, 0, stream>>>(static_cast<const float*>(x), static_cast<float*>(y),
                                                                 ih, wh, iw, ww, p, total);
  else
    resize_nhwc<__half><<<grid_for(total), kThreads, 0, stream>>>(static_cast<const __half*>(x),
                                                                  static_cast<__half*>(y), ih, wh, iw, ww, p, total);
  return cudaGetLastError();
}

cudaError_t launch_layernorm(Elem e, const void* x, const void* scale, const void* bias, void* y, int64_t rows,
                             int64_t cols, float eps, cudaStream_t stream) {
  if (rows == 0 || cols == 0) return cudaSuccess;
  if (cols > (int64_t{1} << 30)) return cudaErrorInvalidValue;
  constexpr int kWarpsPerBlock = kThreads / 32;
  const int blocks = static_cast<int>(std::min<int64_t>((rows + kWarpsPerBlock - 1) / kWarpsPerBlock, 1 << 20));
  const int c = static_cast<int>(cols);
  if (e == Elem::kF32)
    layernorm_rows<float>
        <<<blocks, kThreads, 0, stream>>>(static_cast<const float*>(x), static_cast<const float*>(scale),
                                          static_cast<const float*>(bias), static_cast<float*>(y), rows, c, eps);
  else
    layernorm_rows<__half>
        <<<blocks, kThreads, 0, stream>>>(static_cast<const __half*>(x), static_cast<const __half*>(scale),
                                          static_cast<const __half*>(bias), static_cast<__half*>(y), rows, c, eps);
  return cudaGetLastError();
}

}  // namespace rooflens::cuda
