// BatchNormalization (inference form) and LayerNormalization.
#include "op_util.h"

namespace rooflens {

// X [N, C, ...], scale/B/mean/var [C]. Training mode (extra outputs) is refused:
// rooflens analyses inference graphs.
Status infer_BatchNormalization(InferContext& ctx) {
  ROOFLENS_RETURN_IF_ERROR(ctx.require_io(5, 5, 1, 3));
  ROOFLENS_RETURN_IF_ERROR(ctx.require_float(0, "input X"));
  const Shape& x = ctx.in_shape(0);
  if (x.size() < 2) return ctx.invalid("input X", "needs rank >= 2, got shape " + shape_str(x));
  auto training = ctx.attr_int("training_mode", 0);
  if (!training) return training.status();
  if (*training != 0 || ctx.num_outputs() > 1)
    return ctx.unsupported("training_mode", "training-mode BatchNormalization is not an inference op");
  auto eps = ctx.attr_float("epsilon", 1e-5);
  auto momentum = ctx.attr_float("momentum", 0.9);
  if (!eps) return eps.status();
  if (!momentum) return momentum.status();
  ctx.set_desc(NormDesc{*eps, 1, *momentum});
  static const char* kNames[] = {"", "input scale", "input B", "input mean", "input var"};
  for (size_t i = 1; i < 5; ++i) {
    const Shape& s = ctx.in_shape(i);
    if (s.size() != 1 || s[0] != x[1])
      return ctx.invalid(kNames[i], "shape " + shape_str(s) + " must be [C] = [" + std::to_string(x[1]) + "]");
  }
  return ctx.set_output(0, ctx.in_dtype(0), x);
}

// Inference BN is y = a*x + b per channel once a, b are precomputed: 2 FLOPs per element.
// Running mean/var are read but are not parameters (see params in cost/cost.cpp).
OpCost cost_BatchNormalization(const CostContext& ctx) { return ops::pointwise_cost(ctx, 2); }

// X [..., D_axis, ...]; normalizes over dims axis..rank-1; Scale/B broadcast over them.
Status infer_LayerNormalization(InferContext& ctx) {
  ROOFLENS_RETURN_IF_ERROR(ctx.require_io(2, 3, 1, 3));
  ROOFLENS_RETURN_IF_ERROR(ctx.require_float(0, "input X"));
  const Shape& x = ctx.in_shape(0);
  auto axis_attr = ctx.attr_int("axis", -1);
  if (!axis_attr) return axis_attr.status();
  auto axis = ctx.normalize_axis(*axis_attr, static_cast<int64_t>(x.size()), "axis");
  if (!axis) return axis.status();
  auto eps = ctx.attr_float("epsilon", 1e-5);
  if (!eps) return eps.status();
  ctx.set_desc(NormDesc{*eps, *axis, 0.9});
  Shape norm(x.begin() + *axis, x.end());
  for (size_t i = 1; i < 3; ++i) {
    if (!ctx.has_input(i)) continue;
    if (!ops::broadcast_shapes(norm, ctx.in_shape(i)) || ops::broadcast_shapes(norm, ctx.in_shape(i)) != norm)
      return ctx.invalid(i == 1 ? "input Scale" : "input B", "shape " + shape_str(ctx.in_shape(i)) +
                                                                 " does not broadcast to the normalized dims " +
                                                                 shape_str(norm));
  }
  ROOFLENS_RETURN_IF_ERROR(ctx.set_output(0, ctx.in_dtype(0), x));
  Shape stat(x.begin(), x.begin() + *axis);
  stat.resize(x.size(), 1);
  ROOFLENS_RETURN_IF_ERROR(ctx.set_output(1, DType::kF32, stat));
  return ctx.set_output(2, DType::kF32, stat);
}

// Per element: mean (1 add), variance (sub, mul, add), normalize (sub, mul), affine (mul, add):
// 8 FLOPs; per row one sqrt and one reciprocal are not counted.
OpCost cost_LayerNormalization(const CostContext& ctx) {
  OpCost c = ctx.default_traffic();
  c.flops = 8 * ctx.in_numel(0);
  return c;
}

}  // namespace rooflens
