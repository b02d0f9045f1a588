// Element-wise CUDA kernels (see kernels.h). Arithmetic in fp32 whatever the storage type.
#include <cuda_fp16.h>

#include <algorithm>
#include <cmath>

#include "kernels.h"

namespace rooflens::cuda {
namespace {

__device__ __forceinline__ float load(const float* p, int64_t i) { return p[i]; }
__device__ __forceinline__ float load(const __half* p, int64_t i) { return __half2float(p[i]); }
__device__ __forceinline__ void store(float* p, int64_t i, float v) { p[i] = v; }
__device__ __forceinline__ void store(__half* p, int64_t i, float v) { p[i] = __float2half_rn(v); }

constexpr int kThreads = 256;
// Blocks for a grid-stride loop over n items: one item per thread, at most 2^20 blocks.
int grid_for(int64_t n) { return static_cast<int>(std::min<int64_t>((n + kThreads - 1) / kThreads, int64_t{1} << 20)); }

__device__ __forceinline__ float apply(EwOp op, float a, float b, float c, float alpha, float beta) {
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
    case EwOp::kErf: return erff(a);
    case EwOp::kGelu: return 0.5f * a * (1.f + erff(a * 0.70710678118654752f));
    case EwOp::kGeluTanh: return 0.5f * a * (1.f + tanhf(0.79788456080286536f * (a + 0.044715f * a * a * a)));
    case EwOp::kAdd: return a + b;
    case EwOp::kSub: return a - b;
    case EwOp::kMul: return a * b;
    case EwOp::kDiv: return a / b;
    case EwOp::kMulAdd: return a * b + c;
    case EwOp::kAdd3: return a + b + c;
  }
  return a;
}

__device__ __forceinline__ float post_op(EwPostOp p, float v) {
  switch (p.kind) {
    case EwPost::kNone: return v;
    case EwPost::kRelu: return v > 0.f ? v : 0.f;
    case EwPost::kClip: return fminf(fmaxf(v, p.lo), p.hi);
    case EwPost::kHardSwish: return v * fminf(fmaxf(v * (1.f / 6.f) + 0.5f, 0.f), 1.f);
    case EwPost::kSigmoid: return 1.f / (1.f + __expf(-v));
    case EwPost::kHardSigmoid: return fminf(fmaxf(p.lo * v + p.hi, 0.f), 1.f);
    case EwPost::kSwish: return v / (1.f + __expf(-v));
  }
  return v;
}

// Index arithmetic in I (int32_t when every offset fits, else int64_t).
template <typename I>
struct Strides {
  I dims[4], so[4], sa[4], sb[4], sc[4];
  I out_offset;
};

// Contiguous operands of one shape: the flat index is the element index of all of them.
template <typename Ti, typename To, typename I>
__global__ void ew_flat(EwOp op, float alpha, float beta, EwPostOp post, const Ti* a, const Ti* b, const Ti* c, To* y,
                        I n) {
  for (I i = blockIdx.x * static_cast<I>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<I>(gridDim.x) * blockDim.x) {
    const float bv = b ? load(b, i) : 0.f;
    const float cv = c ? load(c, i) : 0.f;
    store(y, i, post_op(post, apply(op, load(a, i), bv, cv, alpha, beta)));
  }
}

template <typename Ti, typename To, typename I>
__global__ void ew_strided(EwOp op, float alpha, float beta, EwPostOp post, const Ti* a, const Ti* b, const Ti* c,
                           To* y, Strides<I> s, I n) {
  for (I i = blockIdx.x * static_cast<I>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<I>(gridDim.x) * blockDim.x) {
    I r = i;
    const I i3 = r % s.dims[3];
    r /= s.dims[3];
    const I i2 = r % s.dims[2];
    r /= s.dims[2];
    const I i1 = r % s.dims[1];
    const I i0 = r / s.dims[1];
    const I ao = i0 * s.sa[0] + i1 * s.sa[1] + i2 * s.sa[2] + i3 * s.sa[3];
    const I yo = s.out_offset + i0 * s.so[0] + i1 * s.so[1] + i2 * s.so[2] + i3 * s.so[3];
    float bv = 0.f, cv = 0.f;
    if (b) bv = load(b, i0 * s.sb[0] + i1 * s.sb[1] + i2 * s.sb[2] + i3 * s.sb[3]);
    if (c) cv = load(c, i0 * s.sc[0] + i1 * s.sc[1] + i2 * s.sc[2] + i3 * s.sc[3]);
    store(y, yo, post_op(post, apply(op, load(a, ao), bv, cv, alpha, beta)));
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

// The largest element offset an operand reaches (strides are non-negative).
int64_t max_offset(const int64_t* dims, const int64_t* strides, int64_t base) {
  int64_t m = base;
  for (int k = 0; k < 4; ++k) m += (dims[k] - 1) * strides[k];
  return m;
}

template <typename I>
Strides<I> narrow(const EwShape& s) {
  Strides<I> t;
  for (int k = 0; k < 4; ++k) {
    t.dims[k] = static_cast<I>(s.dims[k]);
    t.so[k] = static_cast<I>(s.out_strides[k]);
    t.sa[k] = static_cast<I>(s.a_strides[k]);
    t.sb[k] = static_cast<I>(s.b_strides[k]);
    t.sc[k] = static_cast<I>(s.c_strides[k]);
  }
  t.out_offset = static_cast<I>(s.out_offset);
  return t;
}

template <typename Ti, typename To, typename I>
void launch_indexed(EwOp op, float alpha, float beta, EwPostOp post, const void* a, const void* b, const void* c,
                    void* y, const EwShape& s, int64_t n, bool flat, cudaStream_t stream) {
  const int blocks = grid_for(n);
  const auto* at = static_cast<const Ti*>(a);
  const auto* bt = static_cast<const Ti*>(b);
  const auto* ct = static_cast<const Ti*>(c);
  auto* yt = static_cast<To*>(y);
  if (flat)
    ew_flat<Ti, To, I><<<blocks, kThreads, 0, stream>>>(op, alpha, beta, post, at, bt, ct, yt, static_cast<I>(n));
  else
    ew_strided<Ti, To, I>
        <<<blocks, kThreads, 0, stream>>>(op, alpha, beta, post, at, bt, ct, yt, narrow<I>(s), static_cast<I>(n));
}

// fp16, 8 channels per thread with 16-byte accesses: out and a dense; b and c each dense
// or constant except along the outermost dim and the channels (a bias, a per-image
// squeeze-excite scale): element offset outer * s0 + channel.
union H8 {
  uint4 u;
  __half2 h[4];
};

template <typename I>
__global__ void ew_h8(EwOp op, float alpha, float beta, EwPostOp post, const __half* __restrict__ a,
                      const __half* __restrict__ b, const __half* __restrict__ c, __half* __restrict__ y, I n8, I c8,
                      I inner8, I sb0, I sc0, bool b_dense, bool c_dense) {
  for (I i = blockIdx.x * static_cast<I>(blockDim.x) + threadIdx.x; i < n8;
       i += static_cast<I>(gridDim.x) * blockDim.x) {
    const I cg = i % c8, outer = i / inner8;
    H8 av, bv, cv, yv;
    av.u = reinterpret_cast<const uint4*>(a)[i];
    if (b) bv.u = *reinterpret_cast<const uint4*>(b + (b_dense ? i * 8 : outer * sb0 + cg * 8));
    if (c) cv.u = *reinterpret_cast<const uint4*>(c + (c_dense ? i * 8 : outer * sc0 + cg * 8));
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      const float2 af = __half22float2(av.h[k]);
      const float2 bf = b ? __half22float2(bv.h[k]) : make_float2(0.f, 0.f);
      const float2 cf = c ? __half22float2(cv.h[k]) : make_float2(0.f, 0.f);
      yv.h[k] = __floats2half2_rn(post_op(post, apply(op, af.x, bf.x, cf.x, alpha, beta)),
                                  post_op(post, apply(op, af.y, bf.y, cf.y, alpha, beta)));
    }
    reinterpret_cast<uint4*>(y)[i] = yv.u;
  }
}

// Whether an operand fits ew_h8: dense, or offset = outer * strides[0] + channel.
bool h8_operand(const EwShape& s, const int64_t* st, bool* dense) {
  *dense = dense_rowmajor(s.dims, st);
  return *dense || (st[1] == 0 && st[2] == 0 && (st[3] == 1 || s.dims[3] == 1) && s.dims[3] % 8 == 0 && st[0] % 8 == 0);
}

bool try_h8(EwOp op, float alpha, float beta, EwPostOp post, const void* a, const void* b, const void* c, void* y,
            const EwShape& s, int64_t n, cudaStream_t stream) {
  if (s.out_offset != 0 || s.dims[3] % 8 != 0 || !dense_rowmajor(s.dims, s.out_strides) ||
      !dense_rowmajor(s.dims, s.a_strides))
    return false;
  // Views (a slice, a split part) may start anywhere: 16-byte accesses need 16-byte starts.
  const auto aligned = [](const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; };
  if (!aligned(a) || !aligned(y) || (b && !aligned(b)) || (c && !aligned(c))) return false;
  bool b_dense = false, c_dense = false;
  if (b && !h8_operand(s, s.b_strides, &b_dense)) return false;
  if (c && !h8_operand(s, s.c_strides, &c_dense)) return false;
  if (n >= (int64_t{1} << 31) - (int64_t{1} << 29)) return false;
  const int64_t n8 = n / 8, c8 = s.dims[3] / 8, inner8 = s.dims[1] * s.dims[2] * c8;
  ew_h8<int32_t><<<grid_for(n8), kThreads, 0, stream>>>(op, alpha, beta, post, static_cast<const __half*>(a),
                                                        static_cast<const __half*>(b), static_cast<const __half*>(c),
                                                        static_cast<__half*>(y), static_cast<int32_t>(n8),
                                                        static_cast<int32_t>(c8), static_cast<int32_t>(inner8),
                                                        static_cast<int32_t>(s.b_strides[0]),
                                                        static_cast<int32_t>(s.c_strides[0]), b_dense, c_dense);
  return true;
}

template <typename Ti, typename To>
cudaError_t launch_typed(EwOp op, float alpha, float beta, EwPostOp post, const void* a, const void* b, const void* c,
                         void* y, const EwShape& s, cudaStream_t stream) {
  const int64_t n = s.dims[0] * s.dims[1] * s.dims[2] * s.dims[3];
  if (n == 0) return cudaSuccess;
  const bool flat = s.out_offset == 0 && dense_rowmajor(s.dims, s.out_strides) && dense_rowmajor(s.dims, s.a_strides) &&
                    (!b || dense_rowmajor(s.dims, s.b_strides)) && (!c || dense_rowmajor(s.dims, s.c_strides));
  int64_t reach = n;
  reach = std::max(reach, max_offset(s.dims, s.out_strides, s.out_offset));
  reach = std::max(reach, max_offset(s.dims, s.a_strides, 0));
  if (b) reach = std::max(reach, max_offset(s.dims, s.b_strides, 0));
  if (c) reach = std::max(reach, max_offset(s.dims, s.c_strides, 0));
  // 2^31 less one block-stride of headroom for the grid-stride loop's increment.
  if (reach < (int64_t{1} << 31) - (int64_t{1} << 29))
    launch_indexed<Ti, To, int32_t>(op, alpha, beta, post, a, b, c, y, s, n, flat, stream);
  else
    launch_indexed<Ti, To, int64_t>(op, alpha, beta, post, a, b, c, y, s, n, flat, stream);
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

template <typename T, typename I>
__global__ void depthwise_nhwc(const T* __restrict__ x, const T* __restrict__ wt, const T* __restrict__ bias,
                               T* __restrict__ y, DwShape p, EwPostOp post, I total) {
  for (I i = blockIdx.x * static_cast<I>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<I>(gridDim.x) * blockDim.x) {
    I r = i;
    const int c = static_cast<int>(r % p.c);
    r /= p.c;
    const int ow = static_cast<int>(r % p.ow);
    r /= p.ow;
    const int oh = static_cast<int>(r % p.oh);
    const I n = r / p.oh;
    const int h0 = oh * p.sh - p.pad_top, w0 = ow * p.sw - p.pad_left;
    float acc = load(bias, c);
    for (int dh = 0; dh < p.kh; ++dh) {
      const int h = h0 + dh * p.dil_h;
      if (h < 0 || h >= p.h) continue;
      const I row = (n * p.h + h) * p.w;
      for (int dw = 0; dw < p.kw; ++dw) {
        const int w = w0 + dw * p.dil_w;
        if (w < 0 || w >= p.w) continue;
        acc += load(x, (row + w) * p.c + c) * load(wt, (dh * p.kw + dw) * p.c + c);
      }
    }
    acc = post_op(post, acc);
    store(y, i, acc);
  }
}

// Depthwise fp16, 8 channels per thread (C % 8 == 0): 16-byte loads of input and weights.
template <typename I>
__global__ void depthwise_nhwc_h8(const __half* __restrict__ x, const __half* __restrict__ wt,
                                  const __half* __restrict__ bias, __half* __restrict__ y, DwShape p, EwPostOp post,
                                  I total8) {
  const int c8 = p.c / 8;
  for (I i = blockIdx.x * static_cast<I>(blockDim.x) + threadIdx.x; i < total8;
       i += static_cast<I>(gridDim.x) * blockDim.x) {
    I r = i;
    const int cg = static_cast<int>(r % c8);
    r /= c8;
    const int ow = static_cast<int>(r % p.ow);
    r /= p.ow;
    const int oh = static_cast<int>(r % p.oh);
    const I n = r / p.oh;
    const int h0 = oh * p.sh - p.pad_top, w0 = ow * p.sw - p.pad_left;
    float acc[8];
    H8 v;
    v.u = *reinterpret_cast<const uint4*>(bias + cg * 8);
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      const float2 f = __half22float2(v.h[k]);
      acc[2 * k] = f.x;
      acc[2 * k + 1] = f.y;
    }
    for (int dh = 0; dh < p.kh; ++dh) {
      const int h = h0 + dh * p.dil_h;
      if (h < 0 || h >= p.h) continue;
      const I row = (n * p.h + h) * p.w;
      for (int dw = 0; dw < p.kw; ++dw) {
        const int w = w0 + dw * p.dil_w;
        if (w < 0 || w >= p.w) continue;
        H8 xv, wv;
        xv.u = *reinterpret_cast<const uint4*>(x + (row + w) * p.c + cg * 8);
        wv.u = *reinterpret_cast<const uint4*>(wt + (dh * p.kw + dw) * p.c + cg * 8);
#pragma unroll
        for (int k = 0; k < 4; ++k) {
          const float2 xf = __half22float2(xv.h[k]), wf = __half22float2(wv.h[k]);
          acc[2 * k] += xf.x * wf.x;
          acc[2 * k + 1] += xf.y * wf.y;
        }
      }
    }
    H8 out;
#pragma unroll
    for (int k = 0; k < 4; ++k) out.h[k] = __floats2half2_rn(post_op(post, acc[2 * k]), post_op(post, acc[2 * k + 1]));
    *reinterpret_cast<uint4*>(y + i * 8) = out.u;
  }
}

}  // namespace

cudaError_t launch_depthwise_nhwc(Elem e, const void* x, const void* wt, const void* bias, void* y, const DwShape& p,
                                  EwPostOp post, cudaStream_t stream) {
  const int64_t total = static_cast<int64_t>(p.n) * p.oh * p.ow * p.c;
  if (total == 0) return cudaSuccess;
  const int64_t in_size = static_cast<int64_t>(p.n) * p.h * p.w * p.c;
  const bool narrow_index = std::max(total, in_size) < (int64_t{1} << 31) - (int64_t{1} << 29);
  const auto launch = [&](auto tag) {
    using T = decltype(tag);
    const auto* xt = static_cast<const T*>(x);
    const auto* wtt = static_cast<const T*>(wt);
    const auto* bt = static_cast<const T*>(bias);
    auto* yt = static_cast<T*>(y);
    if (narrow_index)
      depthwise_nhwc<T, int32_t>
          <<<grid_for(total), kThreads, 0, stream>>>(xt, wtt, bt, yt, p, post, static_cast<int32_t>(total));
    else
      depthwise_nhwc<T, int64_t><<<grid_for(total), kThreads, 0, stream>>>(xt, wtt, bt, yt, p, post, total);
  };
  if (e == Elem::kF32) {
    launch(float{});
  } else if (p.c % 8 == 0 && narrow_index && reinterpret_cast<uintptr_t>(x) % 16 == 0) {
    // fp16 with 8 channels per thread and 16-byte accesses.
    depthwise_nhwc_h8<int32_t>
        <<<grid_for(total / 8), kThreads, 0, stream>>>(static_cast<const __half*>(x), static_cast<const __half*>(wt),
                                                       static_cast<const __half*>(bias), static_cast<__half*>(y), p,
                                                       post, static_cast<int32_t>(total / 8));
  } else {
    launch(__half{});
  }
  return cudaGetLastError();
}

cudaError_t launch_maxpool_nhwc(Elem e, const void* x, void* y, const PoolShape& p, cudaStream_t stream) {
  const int64_t total = static_cast<int64_t>(p.n) * p.oh * p.ow * p.c;
  if (total == 0) return cudaSuccess;
  const int blocks = grid_for(total);
  if (e == Elem::kF32)
    maxpool_nhwc<float>
        <<<blocks, kThreads, 0, stream>>>(static_cast<const float*>(x), static_cast<float*>(y), p, total);
  else
    maxpool_nhwc<__half>
        <<<blocks, kThreads, 0, stream>>>(static_cast<const __half*>(x), static_cast<__half*>(y), p, total);
  return cudaGetLastError();
}

cudaError_t launch_elementwise(EwOp op, float alpha, float beta, Elem in, Elem out, const void* a, const void* b,
                               void* y, const EwShape& s, cudaStream_t stream, EwPostOp post, const void* c) {
  if (in == Elem::kF32 && out == Elem::kF32)
    return launch_typed<float, float>(op, alpha, beta, post, a, b, c, y, s, stream);
  if (in == Elem::kF32 && out == Elem::kF16)
    return launch_typed<float, __half>(op, alpha, beta, post, a, b, c, y, s, stream);
  if (in == Elem::kF16 && out == Elem::kF32)
    return launch_typed<__half, float>(op, alpha, beta, post, a, b, c, y, s, stream);
  if (try_h8(op, alpha, beta, post, a, b, c, y, s, s.dims[0] * s.dims[1] * s.dims[2] * s.dims[3], stream))
    return cudaGetLastError();
  return launch_typed<__half, __half>(op, alpha, beta, post, a, b, c, y, s, stream);
}

cudaError_t launch_fill_nan(Elem e, void* y, int64_t n, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  if (e == Elem::kF32)
    fill_nan<float><<<grid_for(n), kThreads, 0, stream>>>(static_cast<float*>(y), n);
  else
    fill_nan<__half><<<grid_for(n), kThreads, 0, stream>>>(static_cast<__half*>(y), n);
  return cudaGetLastError();
}

}  // namespace rooflens::cuda
