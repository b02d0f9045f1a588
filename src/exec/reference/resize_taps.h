// Resize's interpolation taps along one axis (ONNX semantics: every nearest mode, linear,
// cubic with exclude_outside, every coordinate_transformation_mode), shared by the reference
// backend (resize.cpp) and the CUDA backend (src/exec/cuda/tensor_nodes.cpp), so both read
// the same source positions and weights.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace rooflens::ref {

struct ResizeParams {
  std::string mode, coord, nearest;
  double cubic_a = -0.75, extrapolation = 0;
  bool exclude_outside = false;
};

struct ResizeTap {
  int64_t index;
  double weight;
};

// Taps of output coordinate `o` along an axis of `n` inputs and `m` outputs; empty when the
// coordinate falls outside a tf_crop_and_resize roi (the output takes extrapolation_value).
inline std::vector<ResizeTap> taps_for(const ResizeParams& p, int64_t o, int64_t n, int64_t m, double scale,
                                       double roi_start, double roi_end) {
  const double xr = static_cast<double>(o), nd = static_cast<double>(n), md = static_cast<double>(m);
  double x = 0;
  if (p.coord == "half_pixel")
    x = (xr + 0.5) / scale - 0.5;
  else if (p.coord == "asymmetric")
    x = xr / scale;
  else if (p.coord == "align_corners")
    x = m == 1 ? 0.0 : xr * (nd - 1) / (md - 1);
  else if (p.coord == "pytorch_half_pixel")
    x = m > 1 ? (xr + 0.5) / scale - 0.5 : 0.0;
  else if (p.coord == "tf_half_pixel_for_nn")
    x = (xr + 0.5) / scale;
  else if (p.coord == "half_pixel_symmetric") {
    const double adjustment = md / (scale * nd);
    x = nd / 2 * (1 - adjustment) + (xr + 0.5) / scale - 0.5;
  } else {  // tf_crop_and_resize
    x = m > 1 ? roi_start * (nd - 1) + xr * (roi_end - roi_start) * (nd - 1) / (md - 1)
              : 0.5 * (roi_start + roi_end) * (nd - 1);
    if (x < 0 || x > nd - 1) return {};
  }
  const double fl = std::floor(x);
  const bool whole = x == fl;
  const auto xi = static_cast<int64_t>(fl);
  std::vector<ResizeTap> t;
  if (p.mode == "nearest") {
    const double frac = x - fl;
    bool up = false;
    if (!whole) {
      if (p.nearest == "round_prefer_ceil")
        up = frac >= 0.5;
      else if (p.nearest == "floor")
        up = false;
      else if (p.nearest == "ceil")
        up = true;
      else
        up = frac > 0.5;  // round_prefer_floor
    }
    t.push_back({xi + (up ? 1 : 0), 1.0});
  } else {
    // The ONNX reference keeps the ratio in (0, 1]: a whole x takes the left neighbours.
    const double ratio = whole ? 1.0 : x - fl;
    if (p.mode == "linear") {
      const int64_t base = whole ? xi - 1 : xi;
      t = {{base, 1 - ratio}, {base + 1, ratio}};
    } else {
      const double a = p.cubic_a, r1 = ratio + 1, s = 1 - ratio, s1 = s + 1;
      const int64_t base = whole ? xi - 2 : xi - 1;
      t = {{base, ((a * r1 - 5 * a) * r1 + 8 * a) * r1 - 4 * a},
           {base + 1, ((a + 2) * ratio - (a + 3)) * ratio * ratio + 1},
           {base + 2, ((a + 2) * s - (a + 3)) * s * s + 1},
           {base + 3, ((a * s1 - 5 * a) * s1 + 8 * a) * s1 - 4 * a}};
    }
    if (p.exclude_outside) {
      double sum = 0;
      for (ResizeTap& tp : t) {
        if (tp.index < 0 || tp.index >= n) tp.weight = 0;
        sum += tp.weight;
      }
      if (sum != 0)
        for (ResizeTap& tp : t) tp.weight /= sum;
    }
  }
  for (ResizeTap& tp : t) tp.index = std::clamp<int64_t>(tp.index, 0, n - 1);  // edge padding
  return t;
}

}  // namespace rooflens::ref
