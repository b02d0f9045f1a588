// Conv: N-d convolution, grouped / depthwise / dilated / padded / strided.
// X [N, C, D1..Dr], W [M, C/group, k1..kr], optional B [M] -> Y [N, M, O1..Or].
#include "op_util.h"

namespace rooflens {

Status infer_Conv(InferContext& ctx) {
  ROOFLENS_RETURN_IF_ERROR(ctx.require_io(2, 3));
  ROOFLENS_RETURN_IF_ERROR(ctx.require_float(0, "input X"));
  const Shape& x = ctx.in_shape(0);
  const Shape& w = ctx.in_shape(1);
  if (x.size() < 3) return ctx.invalid("input X", "needs rank >= 3 (N, C, spatial...), got shape " + shape_str(x));
  if (w.size() != x.size())
    return ctx.invalid("input W", "rank " + std::to_string(w.size()) + " (shape " + shape_str(w) +
                                      ") differs from input rank " + std::to_string(x.size()));
  auto group = ctx.attr_int("group", 1);
  if (!group) return group.status();
  const int64_t g = *group, c = x[1], m = w[0];
  if (g <= 0) return ctx.invalid("group", "must be positive, got " + std::to_string(g));
  if (c % g != 0)
    return ctx.invalid("group", "group=" + std::to_string(g) + " does not divide input channels " + std::to_string(c));
  if (m % g != 0)
    return ctx.invalid("group", "group=" + std::to_string(g) + " does not divide output channels " + std::to_string(m));
  if (w[1] != c / g)
    return ctx.invalid("input W", "has " + std::to_string(w[1]) + " input channels per group, expected C/group = " +
                                      std::to_string(c / g) + " (shape " + shape_str(w) + ")");
  if (ctx.has_input(2)) {
    const Shape& b = ctx.in_shape(2);
    if (b.size() != 1 || b[0] != m)
      return ctx.invalid("input B", "bias shape " + shape_str(b) + " must be [" + std::to_string(m) + "]");
  }
  Shape spatial_in(x.begin() + 2, x.end());
  std::vector<int64_t> kernel(w.begin() + 2, w.end());
  WindowDesc p;
  Shape spatial_out;
  ROOFLENS_RETURN_IF_ERROR(ops::window_geometry(ctx, spatial_in, kernel, &p, &spatial_out));
  p.groups = g;
  Shape y = {x[0], m};
  y.insert(y.end(), spatial_out.begin(), spatial_out.end());
  ROOFLENS_RETURN_IF_ERROR(ctx.set_output(0, ctx.in_dtype(0), y));
  int64_t macs = 0;
  if (__builtin_mul_overflow(*checked_numel(y), ops::prod(w, 1), &macs) || macs > kMaxNodeMacs)
    return ctx.invalid("input W", "the layer's MAC count exceeds 2^52 (output " + shape_str(y) + ", weights " +
                                      shape_str(w) + ")");
  ctx.set_desc(std::move(p));
  return Status::ok();
}

// MACs = N * M * prod(O) * (C/group) * prod(k); FLOPs = 2 MACs + one add per output if biased.
OpCost cost_Conv(const CostContext& ctx) {
  OpCost c = ctx.default_traffic();
  const Shape& w = ctx.in_shape(1);
  const int64_t per_output = ops::prod(w, 1);  // (C/group) * prod(k)
  c.macs = ctx.out_numel(0) * per_output;
  c.flops = 2 * c.macs + (ctx.has_input(2) ? ctx.out_numel(0) : 0);
  return c;
}

}  // namespace rooflens
