// Resize (opset 10: X, scales; opset 11+: X, roi, scales, sizes). Scales or sizes must be known.
#include "op_util.h"

#include <algorithm>
#include <cmath>
#include <iterator>

namespace rooflens {
namespace {

// The attributes, checked (mode, coordinate mapping, nearest rounding, aspect policy).
Expected<ResizeDesc> resize_desc(const InferContext& ctx) {
  auto mode = ctx.attr_string("mode", std::string("nearest"));
  auto coord = ctx.attr_string("coordinate_transformation_mode", std::string("half_pixel"));
  auto nearest = ctx.attr_string("nearest_mode", std::string("round_prefer_floor"));
  auto cubic_a = ctx.attr_float("cubic_coeff_a", -0.75);
  auto exclude = ctx.attr_int("exclude_outside", 0);
  auto extrap = ctx.attr_float("extrapolation_value", 0.0);
  auto antialias = ctx.attr_int("antialias", 0);
  auto policy = ctx.attr_string("keep_aspect_ratio_policy", std::string("stretch"));
  for (const Status* st : {&mode.status(), &coord.status(), &nearest.status(), &cubic_a.status(), &exclude.status(),
                           &extrap.status(), &antialias.status(), &policy.status()})
    if (!st->is_ok()) return *st;
  if (*mode != "nearest" && *mode != "linear" && *mode != "cubic")
    return ctx.invalid("mode", "unknown mode '" + *mode + "'");
  static const char* kCoords[] = {"half_pixel",         "asymmetric",           "align_corners",
                                  "pytorch_half_pixel", "tf_half_pixel_for_nn", "half_pixel_symmetric",
                                  "tf_crop_and_resize"};
  if (std::find(std::begin(kCoords), std::end(kCoords), *coord) == std::end(kCoords))
    return ctx.invalid("coordinate_transformation_mode", "unknown value '" + *coord + "'");
  if (*nearest != "round_prefer_floor" && *nearest != "round_prefer_ceil" && *nearest != "floor" && *nearest != "ceil")
    return ctx.invalid("nearest_mode", "unknown value '" + *nearest + "'");
  if (*policy != "stretch")
    return ctx.unsupported("keep_aspect_ratio_policy",
                           "'" + *policy + "' is not supported (shape inference assumes 'stretch')");
  ResizeDesc d{*mode, *coord, *nearest, *cubic_a, *extrap, *exclude != 0, *antialias != 0, {}};
  const auto r = static_cast<int64_t>(ctx.in_shape(0).size());
  if (ctx.has_attr("axes")) {
    auto a = ctx.attr_ints("axes");
    if (!a) return a.status();
    for (int64_t v : *a) {
      auto n = ctx.normalize_axis(v, r, "axes");
      if (!n) return n.status();
      d.axes.push_back(*n);
    }
  } else {
    for (int64_t i = 0; i < r; ++i) d.axes.push_back(i);
  }
  return d;
}

}  // namespace

Status infer_Resize(InferContext& ctx) {
  ROOFLENS_RETURN_IF_ERROR(ctx.require_io(1, 4));
  const Shape& x = ctx.in_shape(0);
  auto desc = resize_desc(ctx);
  if (!desc) return desc.status();
  ctx.set_desc(std::move(*desc));
  const bool old_form = ctx.graph().opset > 0 && ctx.graph().opset < 11;
  const size_t scales_at = old_form ? 1 : 2;
  Shape y = x;
  if (!old_form && ctx.has_input(3) && !ctx.in_shape(3).empty() && ctx.in_shape(3)[0] > 0) {
    auto sizes = ops::known_ints(ctx, 3, "input sizes");
    if (!sizes) return sizes.status();
    if (sizes->size() != x.size())
      return ctx.invalid("input sizes",
                         "has " + std::to_string(sizes->size()) + " entries for rank " + std::to_string(x.size()));
    y = *sizes;
  } else if (ctx.has_input(scales_at)) {
    const auto& scales = ctx.in_reals(scales_at);
    if (!scales) return ctx.unsupported("input scales", "must be known at analysis time");
    if (scales->size() != x.size())
      return ctx.invalid("input scales",
                         "has " + std::to_string(scales->size()) + " entries for rank " + std::to_string(x.size()));
    for (size_t i = 0; i < x.size(); ++i) {
      if ((*scales)[i] <= 0) return ctx.invalid("input scales", "must be positive");
      y[i] = static_cast<int64_t>(std::floor(static_cast<double>(x[i]) * (*scales)[i]));
    }
  } else {
    return ctx.invalid("inputs", "Resize needs scales or sizes");
  }
  return ctx.set_output(0, ctx.in_dtype(0), y);
}

// Nearest copies (0 FLOPs); linear interpolates 2^r points with r spatial dims
// (3 FLOPs per point: two multiplies and an add); cubic uses 4^r points.
OpCost cost_Resize(const CostContext& ctx) {
  OpCost c;
  c.bytes_in = ctx.bytes_of(ctx.input(0));
  c.bytes_out = ctx.bytes_of(ctx.output(0));
  const auto* d = std::get_if<ResizeDesc>(&ctx.node().desc);
  const std::string mode = d ? d->mode : "nearest";
  const auto r = static_cast<double>(ctx.out_shape(0).size() > 2 ? ctx.out_shape(0).size() - 2 : 1);
  const double points = mode == "linear" ? std::pow(2.0, r) : mode == "cubic" ? std::pow(4.0, r) : 0;
  c.flops = static_cast<int64_t>(3 * points) * ctx.out_numel(0);
  return c;
}

}  // namespace rooflens
