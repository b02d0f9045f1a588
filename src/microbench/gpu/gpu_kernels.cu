// The GPU probe's kernels (see gpu_kernels.h): operand fill, 16-byte vector copy, empty kernel.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "gpu_kernels.h"

namespace rooflens::microbench::gpu {
namespace {

constexpr int kThreads = 256;

template <typename T>
__device__ T from_float(float v);
template <>
__device__ float from_float<float>(float v) {
  return v;
}
template <>
__device__ __half from_float<__half>(float v) {
  return __float2half_rn(v);
}
template <>
__device__ __nv_bfloat16 from_float<__nv_bfloat16>(float v) {
  return __float2bfloat16_rn(v);
}

template <typename T>
__global__ void fill_kernel(T* p, size_t n, uint32_t seed) {
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    p[i] = from_float<T>(hash_uniform(i, seed));
}

// Four independent 16-byte loads in flight per thread before the stores, then the tail.
__global__ void copy_vec16_kernel(const int4* __restrict__ src, int4* __restrict__ dst, size_t n) {
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  for (; i + 3 * stride < n; i += 4 * stride) {
    const int4 a = src[i], b = src[i + stride], c = src[i + 2 * stride], d = src[i + 3 * stride];
    dst[i] = a;
    dst[i + stride] = b;
    dst[i + 2 * stride] = c;
    dst[i + 3 * stride] = d;
  }
  for (; i < n; i += stride) dst[i] = src[i];
}

__global__ void empty_kernel() {}

template <typename T>
Status fill_typed(void* p, size_t count, uint32_t seed, cudaStream_t s) {
  const size_t blocks = std::min<size_t>((count + kThreads - 1) / kThreads, 65536);
  fill_kernel<T>
      <<<static_cast<unsigned>(std::max<size_t>(blocks, 1)), kThreads, 0, s>>>(static_cast<T*>(p), count, seed);
  RL_CUDA_LAUNCHED("fill_kernel");
  return Status::ok();
}

}  // namespace

Status fill_uniform(void* p, size_t count, FillType type, uint32_t seed, cudaStream_t s) {
  switch (type) {
    case FillType::kF32: return fill_typed<float>(p, count, seed, s);
    case FillType::kF16: return fill_typed<__half>(p, count, seed, s);
    case FillType::kBF16: return fill_typed<__nv_bfloat16>(p, count, seed, s);
  }
  return Status::internal("fill_uniform: unknown FillType");
}

float rounded_uniform(uint64_t i, uint32_t seed, FillType type) {
  const float v = hash_uniform(i, seed);
  switch (type) {
    case FillType::kF32: return v;
    case FillType::kF16: return __half2float(__float2half_rn(v));
    case FillType::kBF16: return __bfloat162float(__float2bfloat16_rn(v));
  }
  return v;
}

Status copy_vec16(const void* src, void* dst, size_t bytes, int blocks, cudaStream_t s) {
  if (bytes % 16 != 0 || reinterpret_cast<uintptr_t>(src) % 16 != 0 || reinterpret_cast<uintptr_t>(dst) % 16 != 0)
    return Status::internal("copy_vec16: buffers must be 16-byte aligned and a multiple of 16 bytes");
  copy_vec16_kernel<<<static_cast<unsigned>(std::max(blocks, 1)), kThreads, 0, s>>>(static_cast<const int4*>(src),
                                                                                    static_cast<int4*>(dst),
                                                                                    bytes / 16);
  RL_CUDA_LAUNCHED("copy_vec16_kernel");
  return Status::ok();
}

Status launch_empty(cudaStream_t s) {
  empty_kernel<<<1, 32, 0, s>>>();
  RL_CUDA_LAUNCHED("empty_kernel");
  return Status::ok();
}

}  // namespace rooflens::microbench::gpu
