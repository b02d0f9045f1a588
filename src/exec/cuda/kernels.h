// CUDA kernels of the CUDA backend: one strided element-wise kernel covers unary ops,
// binary ops with broadcast, layout conversion (NCHW <-> NHWC), dtype conversion and
// concatenation (kernels.cu); strided copies of any rank, Gather, Resize,
// LayerNormalization and ReduceL2 are in tensor_kernels.cu. Plain C++ interface so backend code needs no
// nvcc.
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
  kErf,
  kGelu,      // exact: a/2 (1 + erf(a / sqrt 2))
  kGeluTanh,  // tanh approximation
  kAdd,       // binary: y = a op b
  kSub,
  kMul,
  kDiv,
  kMulAdd,  // ternary: y = a b + c
  kAdd3,    // ternary: y = a + b + c
};

// An activation applied to the result of any element-wise op, in the same pass (a conv's
// bias and its ReLU6, hard-swish or swish, BatchNormalization and its ReLU, a
// squeeze-excite gate's sigmoid).
enum class EwPost : int { kNone = 0, kRelu, kClip, kHardSwish, kSigmoid, kHardSigmoid, kSwish };
struct EwPostOp {
  EwPost kind = EwPost::kNone;
  float lo = 0, hi = 0;  // kClip bounds; kHardSigmoid alpha and beta
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

// A copy of `rank` (1..kMaxCopyRank) dims, outermost first: element strides (not bytes,
// non-negative) of source and destination along each; same storage type on both sides.
// Transpose, Slice, Split and layout changes of any rank that no view can express.
inline constexpr int kMaxCopyRank = 8;
struct CopyShape {
  int rank = 0;
  int64_t dims[kMaxCopyRank] = {};
  int64_t src_strides[kMaxCopyRank] = {};
  int64_t dst_strides[kMaxCopyRank] = {};
};
// The copy as the kernel runs it (copy_plan.cpp): size-1 dims dropped, neighbours merged
// where both sides step over them as one, and the innermost run, when contiguous on both
// sides, moved in the widest unit of 16, 8 or 4 bytes that divides it, every other stride
// and both addresses. `shape` counts units of `unit_bytes` (the element size when no wider
// unit fits). A transpose that keeps the last dim (ViT's heads) then moves 16-byte units
// with a few index divisions each instead of one element per division chain.
struct CopyPlan {
  CopyShape shape;
  int unit_bytes = 0;
};
CopyPlan plan_strided_copy(const CopyShape& s, int elem_bytes, const void* x, const void* y);
// The planned copy (made once, when the step is queued: its addresses are fixed).
cudaError_t launch_strided_copy(const CopyPlan& p, const void* x, void* y, cudaStream_t stream);

// Gather along one axis of a dense row-major tensor viewed as [outer, dim, inner]:
// y[o, j, i] = x[o, idx[j], i]; `idx` (device, n_idx values) already in [0, dim).
cudaError_t launch_gather(Elem e, const void* x, const int64_t* idx, void* y, int64_t outer, int64_t dim, int64_t n_idx,
                          int64_t inner, cudaStream_t stream);

// Separable resampling of an NHWC tensor over H and W (Resize): per output row `taps_h`
// source rows and weights (ih/wh, [oh][taps_h], device), per output column likewise
// (iw/ww); indices already clamped into the input. Nearest, linear and cubic are taps.
struct ResizeShape {
  int n, c, h, w, oh, ow, taps_h, taps_w;
};
cudaError_t launch_resize_nhwc(Elem e, const void* x, void* y, const int* ih, const float* wh, const int* iw,
                               const float* ww, const ResizeShape& p, cudaStream_t stream);

// LayerNormalization of a dense row-major [rows, cols] tensor over each row (population
// variance, fp32 statistics): y = (x - mean) / sqrt(var + eps) * scale + bias; scale and
// bias are [cols] or null.
cudaError_t launch_layernorm(Elem e, const void* x, const void* scale, const void* bias, void* y, int64_t rows,
                             int64_t cols, float eps, cudaStream_t stream);

// ReduceL2 over the trailing dims: a dense row-major [rows, cols] tensor to y[rows] =
// sqrt(sum of squares of the row), summed in fp32 (cols 0: zeros).
cudaError_t launch_reduce_l2_rows(Elem e, const void* x, void* y, int64_t rows, int64_t cols, cudaStream_t stream);

// Fills `n` elements with NaN (to prove that a run writes every output element).
cudaError_t launch_fill_nan(Elem e, void* y, int64_t n, cudaStream_t stream);

}  // namespace rooflens::cuda
