// Resize (opset 10: X, scales; opset 11+: X, roi, scales, sizes). Scales or sizes must be known.
#include "op_util.h"

#include <cmath>

namespace rooflens {

Status infer_Resize(InferContext& ctx) {
  ROOFLENS_RETURN_IF_ERROR(ctx.require_io(1, 4));
  const Shape& x = ctx.in_shape(0);
  auto mode = ctx.attr_string("mode", std::string("nearest"));
  if (!mode) return mode.status();
  if (*mode != "nearest" && *mode != "linear" && *mode != "cubic")
    return ctx.invalid("mode", "unknown mode '" + *mode + "'");
  const bool old_form = ctx.graph().opset > 0 && ctx.graph().opset < 11;
  const size_t scales_at = old_form ? 1 : 2;
  Shape y = x;
  if (!old_form && ctx.has_input(3) && !ctx.in_shape(3).empty() && ctx.in_shape(3)[0] > 0) {
    auto sizes = ops::known_ints(ctx, 3, "input sizes");
    if (!sizes) return sizes.status();
    if (sizes->size() != x.size())
      return ctx.invalid("input sizes", "has " + std::to_string(sizes->size()) +
                                            " entries for rank " + std::to_string(x.size()));
    y = *sizes;
  } else if (ctx.has_input(scales_at)) {
    const auto& scales = ctx.in_reals(scales_at);
    if (!scales)
      return ctx.unsupported("input scales", "must be known at analysis time");
    if (scales->size() != x.size())
      return ctx.invalid("input scales", "has " + std::to_string(scales->size()) +
                                             " entries for rank " + std::to_string(x.size()));
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
  auto it = ctx.node().attrs.find("mode");
  const std::string mode = it == ctx.node().attrs.end() ? "nearest" : std::get<std::string>(it->second);
  const auto r = static_cast<double>(ctx.out_shape(0).size() > 2 ? ctx.out_shape(0).size() - 2 : 1);
  const double points = mode == "linear" ? std::pow(2.0, r) : mode == "cubic" ? std::pow(4.0, r) : 0;
  c.flops = static_cast<int64_t>(3 * points) * ctx.out_numel(0);
  return c;
}

}  // namespace rooflens
