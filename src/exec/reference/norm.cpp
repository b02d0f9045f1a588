// Reference BatchNormalization (inference form, per channel on dim 1) and
// LayerNormalization (over dims axis..rank-1, with its optional Mean / InvStdDev outputs).
#include <cmath>

#include "kernels.h"
#include "rooflens/ops/shape_math.h"

namespace rooflens::ref {

// y = (x - mean) / sqrt(var + epsilon) * scale + B
Status run_BatchNormalization(KernelContext& ctx) {
  for (size_t i = 0; i < 5; ++i) ROOFLENS_RETURN_IF_ERROR(require_float_tensor(ctx, i, "inputs"));
  const double eps = ctx.desc<NormDesc>().epsilon;
  const Tensor& x = ctx.in(0);
  const Tensor &scale = ctx.in(1), &bias = ctx.in(2), &mean = ctx.in(3), &var = ctx.in(4);
  Tensor& y = ctx.alloc_out(0);
  const int64_t n = x.shape[0], c = x.shape[1], inner = ops::prod(x.shape, 2);
  for (int64_t ci = 0; ci < c; ++ci) {
    const auto k = static_cast<size_t>(ci);
    const double a = static_cast<double>(scale.data[k]) / std::sqrt(static_cast<double>(var.data[k]) + eps);
    const double sh = static_cast<double>(bias.data[k]) - a * static_cast<double>(mean.data[k]);
    for (int64_t ni = 0; ni < n; ++ni) {
      const int64_t base = (ni * c + ci) * inner;
      for (int64_t i = 0; i < inner; ++i) {
        const auto at = static_cast<size_t>(base + i);
        y.data[at] = static_cast<float>(a * static_cast<double>(x.data[at]) + sh);
      }
    }
  }
  return Status::ok();
}

// Mean and variance (population) over the normalized dims, in double.
Status run_LayerNormalization(KernelContext& ctx) {
  for (size_t i = 0; i < 3; ++i)
    if (ctx.has_input(i)) ROOFLENS_RETURN_IF_ERROR(require_float_tensor(ctx, i, "inputs"));
  const auto& d = ctx.desc<NormDesc>();
  const double eps = d.epsilon;
  const int64_t axis = d.axis;
  const Tensor& x = ctx.in(0);
  const Shape norm(x.shape.begin() + axis, x.shape.end());
  const int64_t rows = ops::prod(x.shape, 0, static_cast<size_t>(axis));
  const int64_t cols = ops::prod(norm);
  const Tensor* scale = ctx.has_input(1) ? &ctx.in(1) : nullptr;
  const Tensor* bias = ctx.has_input(2) ? &ctx.in(2) : nullptr;
  Tensor& y = ctx.alloc_out(0);
  Tensor* mean_out = ctx.has_out(1) ? &ctx.alloc_out(1) : nullptr;
  Tensor* inv_out = ctx.has_out(2) ? &ctx.alloc_out(2) : nullptr;
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x.data.data() + r * cols;
    double sum = 0;
    for (int64_t j = 0; j < cols; ++j) sum += xr[j];
    const double mean = cols > 0 ? sum / static_cast<double>(cols) : 0.0;
    double sq = 0;
    for (int64_t j = 0; j < cols; ++j) sq += (xr[j] - mean) * (xr[j] - mean);
    const double var = cols > 0 ? sq / static_cast<double>(cols) : 0.0;
    const double inv = 1.0 / std::sqrt(var + eps);
    for (int64_t j = 0; j < cols; ++j) {
      double v = (xr[j] - mean) * inv;
      if (scale) v *= scale->data[static_cast<size_t>(ops::broadcast_source_index(norm, scale->shape, j))];
      if (bias) v += bias->data[static_cast<size_t>(ops::broadcast_source_index(norm, bias->shape, j))];
      y.data[static_cast<size_t>(r * cols + j)] = static_cast<float>(v);
    }
    if (mean_out) mean_out->data[static_cast<size_t>(r)] = static_cast<float>(mean);
    if (inv_out) inv_out->data[static_cast<size_t>(r)] = static_cast<float>(inv);
  }
  return Status::ok();
}

}  // namespace rooflens::ref
