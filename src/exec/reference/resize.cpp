// Reference Resize: nearest (round_prefer_floor / round_prefer_ceil / floor / ceil), linear
// and cubic (cubic_coeff_a, exclude_outside), every coordinate_transformation_mode
// (half_pixel, half_pixel_symmetric, pytorch_half_pixel, align_corners, asymmetric,
// tf_half_pixel_for_nn, tf_crop_and_resize with roi and extrapolation_value), optional axes.
// Interpolation is separable: one 1-D pass per axis, last axis first, as in the ONNX
// reference implementation. Opset 10 (X, scales) reads the same attribute defaults.
#include <algorithm>
#include <cmath>
#include <iterator>
#include <string>

#include "kernels.h"
#include "resize_taps.h"

namespace rooflens::ref {

Status run_Resize(KernelContext& ctx) {
  ROOFLENS_RETURN_IF_ERROR(require_float_tensor(ctx, 0, "input X"));
  const auto& rd = std::get<ResizeDesc>(ctx.node().desc);
  const ResizeParams p{
      rd.mode,           rd.coordinate_transformation_mode, rd.nearest_mode, rd.cubic_coeff_a, rd.extrapolation_value,
      rd.exclude_outside};
  const Tensor& x = ctx.in(0);
  const size_t r = x.shape.size();
  Tensor& y = ctx.alloc_out(0);
  const bool old_form = ctx.graph().opset > 0 && ctx.graph().opset < 11;
  const size_t scales_at = old_form ? 1 : 2;
  std::vector<size_t> axes(rd.axes.begin(), rd.axes.end());
  // Per-axis scale: the given scales, else output / input (sizes given).
  std::vector<double> scale(r, 1.0), roi_start(r, 0.0), roi_end(r, 1.0);
  for (size_t d = 0; d < r; ++d)
    scale[d] = x.shape[d] > 0 ? static_cast<double>(y.shape[d]) / static_cast<double>(x.shape[d]) : 1.0;
  const bool has_sizes = !old_form && ctx.has_input(3) && ctx.in(3).numel() > 0;
  if (!has_sizes && ctx.has_input(scales_at) && ctx.in(scales_at).numel() > 0) {
    const Tensor& s = ctx.in(scales_at);
    if (static_cast<size_t>(s.numel()) != axes.size())
      return ctx.invalid("input scales",
                         "has " + std::to_string(s.numel()) + " entries for " + std::to_string(axes.size()) + " axes");
    for (size_t i = 0; i < axes.size(); ++i) scale[axes[i]] = elem(s, static_cast<int64_t>(i));
  }
  if (!old_form && ctx.has_input(1) && ctx.in(1).numel() > 0) {
    const Tensor& roi = ctx.in(1);
    if (static_cast<size_t>(roi.numel()) != 2 * axes.size())
      return ctx.invalid("input roi", "has " + std::to_string(roi.numel()) + " entries, expected " +
                                          std::to_string(2 * axes.size()));
    for (size_t i = 0; i < axes.size(); ++i) {
      roi_start[axes[i]] = elem(roi, static_cast<int64_t>(i));
      roi_end[axes[i]] = elem(roi, static_cast<int64_t>(i + axes.size()));
    }
  }
  for (size_t d = 0; d < r; ++d) {
    if (rd.antialias && p.mode != "nearest" && scale[d] < 1)
      return ctx.unsupported("antialias", "antialiased downsampling is not implemented");
    if (!(scale[d] > 0)) return ctx.invalid("input scales", "must be positive");
  }

  // One 1-D resampling pass per axis, innermost first, in double.
  Shape cur_shape = x.shape;
  std::vector<double> cur(x.data.begin(), x.data.end());
  for (size_t d = r; d-- > 0;) {
    const int64_t n = cur_shape[d], m = y.shape[d];
    if (n == 0 && m > 0)
      return ctx.invalid("input X", "cannot resize an empty axis " + std::to_string(d) + " to " + std::to_string(m));
    std::vector<std::vector<ResizeTap>> taps(static_cast<size_t>(m));
    bool identity = n == m;
    for (int64_t o = 0; o < m; ++o) {
      taps[static_cast<size_t>(o)] = taps_for(p, o, n, m, scale[d], roi_start[d], roi_end[d]);
      const auto& t = taps[static_cast<size_t>(o)];
      double w_at_o = 0, w_other = 0;
      for (const ResizeTap& tp : t) (tp.index == o ? w_at_o : w_other) += std::fabs(tp.weight);
      if (t.empty() || w_at_o != 1.0 || w_other != 0.0) identity = false;
    }
    if (identity) continue;
    const int64_t outer = ops::prod(cur_shape, 0, d), inner = ops::prod(cur_shape, d + 1);
    std::vector<double> next(static_cast<size_t>(outer * m * inner));
    for (int64_t ou = 0; ou < outer; ++ou)
      for (int64_t o = 0; o < m; ++o)
        for (int64_t in = 0; in < inner; ++in) {
          const auto& t = taps[static_cast<size_t>(o)];
          double v = t.empty() ? p.extrapolation : 0.0;
          for (const ResizeTap& tp : t) v += tp.weight * cur[static_cast<size_t>((ou * n + tp.index) * inner + in)];
          next[static_cast<size_t>((ou * m + o) * inner + in)] = v;
        }
    cur.swap(next);
    cur_shape[d] = m;
  }
  for (size_t i = 0; i < y.data.size(); ++i) y.data[i] = static_cast<float>(cur[i]);
  return Status::ok();
}

}  // namespace rooflens::ref
