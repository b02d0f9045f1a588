// Element-wise CUDA kernels of the CUDA backend: one strided kernel covers unary ops,
// binary ops with broadcast, layout conversion (NCHW <-> NHWC), dtype conversion and
// concatenation. Plain C++ interface so backend code needs no nvcc.
#pragma once

#include <cuda_runtime.h>
#include <cstdint>

namespace rooflens::cuda {

enum class Elem : int { kF32 = 0, kF16 = 1 };

enum class EwOp : int {
  kCopy,         // y = a
  kRelu,         // y = max(a, 0)
  kLeakyRelu,    // y = a >= 0 ? a : alpha a
  kClip,         // y = min(max(a, alpha), beta)
  kSigmoid,      // y = 1 / (1 + exp(-a))
  kHardSigmoid,  // y = clip(alpha a + beta, 0, 1)
  kHardSwish,    // y = a * clip(a / 6 + 1/2, 0, 1)
  kTanh,
  kNeg,
  kSqrt,
  kAdd,  // binary: y = a op b
  kSub,
  kMul,
  kDiv,
  kMulAdd,  // ternary: y = a b + c
  kAdd3,    // ternary: y = a + b + c
};

// An activation applied to the result of any element-wise op, in the same pass (a conv's
// bias and its ReLU6 or hard-swish, BatchNormalization and its ReLU).
enum class EwPost : int { kNone = 0, kRelu, kClip, kHardSwish };
struct EwPostOp {
  EwPost kind = EwPost::kNone;
  float lo = 0, hi = 0;  // kClip bounds
};

// Iteration over up to 4 dimensions, outermost first. For each operand, the element
// stride (not bytes) along each iteration dimension; 0 broadcasts. `out_offset` is added
// to every output index (concatenation writes at a channel offset).
struct EwShape {
  int64_t dims[4] = {1, 1, 1, 1};
  int64_t out_strides[4] = {0, 0, 0, 0};
  int64_t a_strides[4] = {0, 0, 0, 0};
  int64_t b_strides[4] = {0, 0, 0, 0};
  int64_t c_strides[4] = {0, 0, 0, 0};
  int64_t out_offset = 0;
};

// Launches y = post(op(a[, b[, c]])) over `shape` on `stream`. a, b and c share `in`; y is
// `out`. Index arithmetic is 32-bit whenever every offset fits. Returns the launch error
// (cudaSuccess when queued).
cudaError_t launch_elementwise(EwOp op, float alpha, float beta, Elem in, Elem out, const void* a, const void* b,
                               void* y, const EwShape& shape, cudaStream_t stream, EwPostOp post = {},
                               const void* c = nullptr);

// Max pooling of an NHWC tensor with any padding (asymmetric, or the extra row/column of
// ceil_mode): the output size is the caller's; window positions start at -pad.
struct PoolShape {
  int n, c, h, w, oh, ow, kh, kw, sh, sw, pad_top, pad_left;
};
cudaError_t launch_maxpool_nhwc(Elem e, const void* x, void* y, const PoolShape& p, cudaStream_t stream);

// Depthwise convolution (one filter per channel) of an NHWC tensor with the bias and an
// activation fused: y = post(sum_taps x w + bias). Weights are [kh][kw][c]; padding may be
// asymmetric (the output size is the caller's; windows start at -pad_top/-pad_left).
struct DwShape {
  int n, c, h, w, oh, ow, kh, kw, sh, sw, pad_top, pad_left, dil_h, dil_w;
};
cudaError_t launch_depthwise_nhwc(Elem e, const void* x, const void* wt, const void* bias, void* y, const DwShape& p,
                                  EwPostOp post, cudaStream_t stream);

// Fills `n` elements with NaN (to prove that a run writes every output element).
cudaError_t launch_fill_nan(Elem e, void* y, int64_t n, cudaStream_t stream);

}  // namespace rooflens::cuda
