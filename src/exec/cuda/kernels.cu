// Element-wise CUDA kernels (see kernels.h). Arithmetic in fp32 whatever the storage type.
#include <cuda_fp16.h>

#include <cmath>

#include "kernels.h"

namespace rooflens::cuda {
namespace {

__device__ __forceinline__ float load(const float* p, int64_t i) { return p[i]; }
__device__ __forceinline__ float load(const __half* p, int64_t i) { return __half2float(p[i]); }
__device__ __forceinline__ void store(float* p, int64_t i, float v) { p[i] = v; }
__device__ __forceinline__ void store(__half* p, int64_t i, float v) { p[i] = __float2half_rn(v); }

__device__ __forceinline__ float apply(EwOp op, float a, float b, float alpha, float beta) {
  switch (op) {
    case EwOp::kCopy: return a;
    case EwOp::kRelu: return a > 0.f ? a : 0.f;
    case EwOp::kLeakyRelu: return a >= 0.f ? a : alpha * a;
    case EwOp::kClip: return fminf(fmaxf(a, alpha), beta);
    case EwOp::kSigmoid: return 1.f / (1.f + __expf(-a));
    case EwOp::kHardSigmoid: return fminf(fmaxf(alpha * a + beta, 0.f), 1.f);
    case EwOp::kHardSwish: return a * fminf(fmaxf(a * (1.f / 6.f) + 0.5f, 0.f), 1.f);
    case EwOp::kTanh: return tanhf(a);
    case EwOp::kNeg: return -a;
    case EwOp::kSqrt: return sqrtf(a);
    case EwOp::kAdd: return a + b;
    case EwOp::kSub: return a - b;
    case EwOp::kMul: return a * b;
    case EwOp::kDiv: return a / b;
  }
  return a;
}

// Contiguous operands of one shape: the flat index is the element index of all three.
template <typename Ti, typename To>
__global__ void ew_flat(EwOp op, float alpha, float beta, const Ti* a, const Ti* b, To* y, int64_t n) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const float bv = b ? load(b, i) : 0.f;
    store(y, i, apply(op, load(a, i), bv, alpha, beta));
  }
}

template <typename Ti, typename To>
__global__ void ew_strided(EwOp op, float alpha, float beta, const Ti* a, const Ti* b, To* y, EwShape s, int64_t n) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int64_t r = i;
    const int64_t i3 = r % s.dims[3];
    r /= s.dims[3];
    const int64_t i2 = r % s.dims[2];
    r /= s.dims[2];
    const int64_t i1 = r % s.dims[1];
    const int64_t i0 = r / s.dims[1];
    const int64_t ao = i0 * s.a_strides[0] + i1 * s.a_strides[1] + i2 * s.a_strides[2] + i3 * s.a_strides[3];
    const int64_t yo = s.out_offset + i0 * s.out_strides[0] + i1 * s.out_strides[1] + i2 * s.out_strides[2] +
                       i3 * s.out_strides[3];
    float bv = 0.f;
    if (b) bv = load(b, i0 * s.b_strides[0] + i1 * s.b_strides[1] + i2 * s.b_strides[2] + i3 * s.b_strides[3]);
    store(y, yo, apply(op, load(a, ao), bv, alpha, beta));
  }
}

bool dense_rowmajor(const int64_t* dims, const int64_t* strides) {
  int64_t expect = 1;
  for (int k = 3; k >= 0; --k) {
    if (dims[k] != 1 && strides[k] != expect) return false;
    expect *= dims[k];
  }
  return true;
}

template <typename Ti, typename To>
cudaError_t launch_typed(EwOp op, float alpha, float beta, const void* a, const void* b, void* y, const EwShape& s,
                         cudaStream_t stream) {
  const int64_t n = s.dims[0] * s.dims[1] * s.dims[2] * s.dims[3];
  if (n == 0) return cudaSuccess;
  const int threads = 256;
  const int64_t want = (n + threads - 1) / threads;
  const int blocks = static_cast<int>(want < 65536 ? want : 65536);
  const bool flat = s.out_offset == 0 && dense_rowmajor(s.dims, s.out_strides) && dense_rowmajor(s.dims, s.a_strides) &&
                    (!b || dense_rowmajor(s.dims, s.b_strides));
  if (flat)
    ew_flat<Ti, To><<<blocks, threads, 0, stream>>>(op, alpha, beta, static_cast<const Ti*>(a),
                                                    static_cast<const Ti*>(b), static_cast<To*>(y), n);
  else
    ew_strided<Ti, To><<<blocks, threads, 0, stream>>>(op, alpha, beta, static_cast<const Ti*>(a),
                                                       static_cast<const Ti*>(b), static_cast<To*>(y), s, n);
  return cudaGetLastError();
}

template <typename T>
__global__ void fill_nan(T* y, int64_t n) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    store(y, i, nanf(""));
}

template <typename T>
__global__ void maxpool_nhwc(const T* x, T* y, PoolShape p, int64_t total) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int64_t r = i;
    const int c = static_cast<int>(r % p.c);
    r /= p.c;
    const int ow = static_cast<int>(r % p.ow);
    r /= p.ow;
    const int oh = static_cast<int>(r % p.oh);
    const int64_t n = r / p.oh;
    const int h0 = oh * p.sh - p.pad_top, w0 = ow * p.sw - p.pad_left;
    float m = -INFINITY;
    for (int dh = 0; dh < p.kh; ++dh) {
      const int h = h0 + dh;
      if (h < 0 || h >= p.h) continue;
      for (int dw = 0; dw < p.kw; ++dw) {
        const int w = w0 + dw;
        if (w < 0 || w >= p.w) continue;
        m = fmaxf(m, load(x, ((n * p.h + h) * p.w + w) * p.c + c));
      }
    }
    store(y, i, m);
  }
}

template <typename T>
__global__ void depthwise_nhwc(const T* x, const T* wt, const T* bias, T* y, DwShape p, DwAct act, float lo, float hi,
                               int64_t total) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int64_t r = i;
    const int c = static_cast<int>(r % p.c);
    r /= p.c;
    const int ow = static_cast<int>(r % p.ow);
    r /= p.ow;
    const int oh = static_cast<int>(r % p.oh);
    const int64_t n = r / p.oh;
    const int h0 = oh * p.sh - p.pad_top, w0 = ow * p.sw - p.pad_left;
    float acc = load(bias, c);
    for (int dh = 0; dh < p.kh; ++dh) {
      const int h = h0 + dh * p.dil_h;
      if (h < 0 || h >= p.h) continue;
      for (int dw = 0; dw < p.kw; ++dw) {
        const int w = w0 + dw * p.dil_w;
        if (w < 0 || w >= p.w) continue;
        acc += load(x, ((n * p.h + h) * p.w + w) * p.c + c) * load(wt, (static_cast<int64_t>(dh) * p.kw + dw) * p.c + c);
      }
    }
    if (act == DwAct::kRelu) acc = fmaxf(acc, 0.f);
    else if (act == DwAct::kClip) acc = fminf(fmaxf(acc, lo), hi);
    else if (act == DwAct::kHardSwish) acc = acc * fminf(fmaxf(acc * (1.f / 6.f) + 0.5f, 0.f), 1.f);
    store(y, i, acc);
  }
}

}  // namespace

cudaError_t launch_depthwise_nhwc(Elem e, const void* x, const void* wt, const void* bias, void* y, const DwShape& p,
                                  DwAct act, float lo, float hi, cudaStream_t stream) {
  const int64_t total = static_cast<int64_t>(p.n) * p.oh * p.ow * p.c;
  if (total == 0) return cudaSuccess;
  const int64_t want = (total + 255) / 256;
  const int blocks = static_cast<int>(want < 1048576 ? want : 1048576);
  if (e == Elem::kF32)
    depthwise_nhwc<float><<<blocks, 256, 0, stream>>>(static_cast<const float*>(x), static_cast<const float*>(wt),
                                                      static_cast<const float*>(bias), static_cast<float*>(y), p, act, lo, hi, total);
  else
    depthwise_nhwc<__half><<<blocks, 256, 0, stream>>>(static_cast<const __half*>(x), static_cast<const __half*>(wt),
                                                       static_cast<const __half*>(bias), static_cast<__half*>(y), p, act, lo, hi, total);
  return cudaGetLastError();
}

cudaError_t launch_maxpool_nhwc(Elem e, const void* x, void* y, const PoolShape& p, cudaStream_t stream) {
  const int64_t total = static_cast<int64_t>(p.n) * p.oh * p.ow * p.c;
  if (total == 0) return cudaSuccess;
  const int64_t want = (total + 255) / 256;
  const int blocks = static_cast<int>(want < 65536 ? want : 65536);
  if (e == Elem::kF32) maxpool_nhwc<float><<<blocks, 256, 0, stream>>>(static_cast<const float*>(x), static_cast<float*>(y), p, total);
  else maxpool_nhwc<__half><<<blocks, 256, 0, stream>>>(static_cast<const __half*>(x), static_cast<__half*>(y), p, total);
  return cudaGetLastError();
}

cudaError_t launch_elementwise(EwOp op, float alpha, float beta, Elem in, Elem out, const void* a, const void* b,
                               void* y, const EwShape& s, cudaStream_t stream) {
  if (in == Elem::kF32 && out == Elem::kF32) return launch_typed<float, float>(op, alpha, beta, a, b, y, s, stream);
  if (in == Elem::kF32 && out == Elem::kF16) return launch_typed<float, __half>(op, alpha, beta, a, b, y, s, stream);
  if (in == Elem::kF16 && out == Elem::kF32) return launch_typed<__half, float>(op, alpha, beta, a, b, y, s, stream);
  return launch_typed<__half, __half>(op, alpha, beta, a, b, y, s, stream);
}

cudaError_t launch_fill_nan(Elem e, void* y, int64_t n, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  const int blocks = static_cast<int>(n / 256 + 1 < 65536 ? n / 256 + 1 : 65536);
  if (e == Elem::kF32) fill_nan<float><<<blocks, 256, 0, stream>>>(static_cast<float*>(y), n);
  else fill_nan<__half><<<blocks, 256, 0, stream>>>(static_cast<__half*>(y), n);
  return cudaGetLastError();
}

}  // namespace rooflens::cuda
