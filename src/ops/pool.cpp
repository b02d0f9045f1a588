// Pooling: MaxPool, AveragePool (windowed) and GlobalAveragePool, GlobalMaxPool.
#include "op_util.h"

namespace rooflens {
namespace {

Status infer_window_pool(InferContext& ctx, bool is_max) {
  ROOFLENS_RETURN_IF_ERROR(ctx.require_io(1, 1, 1, is_max ? 2 : 1));
  ROOFLENS_RETURN_IF_ERROR(ctx.require_float(0, "input X"));
  const Shape& x = ctx.in_shape(0);
  if (x.size() < 3) return ctx.invalid("input X", "needs rank >= 3 (N, C, spatial...), got shape " + shape_str(x));
  WindowDesc p;
  if (!is_max) {
    auto cip = ctx.attr_int("count_include_pad", 0);
    if (!cip) return cip.status();
    p.count_include_pad = *cip != 0;
  } else {
    auto order = ctx.attr_int("storage_order", 0);
    if (!order) return order.status();
    p.storage_order = *order;
  }
  Shape spatial_out;
  ROOFLENS_RETURN_IF_ERROR(ops::window_geometry(ctx, Shape(x.begin() + 2, x.end()), {}, &p, &spatial_out));
  Shape y = {x[0], x[1]};
  y.insert(y.end(), spatial_out.begin(), spatial_out.end());
  ROOFLENS_RETURN_IF_ERROR(ctx.set_output(0, ctx.in_dtype(0), y));
  int64_t work = 0;
  if (__builtin_mul_overflow(*checked_numel(y), ops::prod(p.kernel), &work) || work > kMaxNodeMacs)
    return ctx.invalid("kernel_shape", "the pooling work (outputs x window) exceeds 2^52");
  ctx.set_desc(std::move(p));
  return ctx.set_output(1, DType::kI64, y);  // MaxPool's optional Indices
}

int64_t window_size(const CostContext& ctx) {
  const auto* w = std::get_if<WindowDesc>(&ctx.node().desc);
  return w ? ops::prod(w->kernel) : 1;
}

Status infer_global_pool(InferContext& ctx) {
  ROOFLENS_RETURN_IF_ERROR(ctx.require_io(1, 1));
  ROOFLENS_RETURN_IF_ERROR(ctx.require_float(0, "input X"));
  const Shape& x = ctx.in_shape(0);
  if (x.size() < 3) return ctx.invalid("input X", "needs rank >= 3 (N, C, spatial...), got shape " + shape_str(x));
  Shape y(x.size(), 1);
  y[0] = x[0];
  y[1] = x[1];
  const size_t r = x.size() - 2;
  WindowDesc p;
  p.kernel.assign(x.begin() + 2, x.end());
  p.strides.assign(r, 1);
  p.dilations.assign(r, 1);
  p.pads.assign(2 * r, 0);
  p.global = true;
  ctx.set_desc(std::move(p));
  return ctx.set_output(0, ctx.in_dtype(0), y);
}

}  // namespace

Status infer_MaxPool(InferContext& ctx) { return infer_window_pool(ctx, true); }
// One comparison per window element per output.
OpCost cost_MaxPool(const CostContext& ctx) {
  OpCost c = ctx.default_traffic();
  c.flops = ctx.out_numel(0) * window_size(ctx);
  return c;
}

Status infer_AveragePool(InferContext& ctx) { return infer_window_pool(ctx, false); }
// One add per window element plus one divide per output.
OpCost cost_AveragePool(const CostContext& ctx) {
  OpCost c = ctx.default_traffic();
  c.flops = ctx.out_numel(0) * (window_size(ctx) + 1);
  return c;
}

Status infer_GlobalAveragePool(InferContext& ctx) { return infer_global_pool(ctx); }
// One add per input element plus one divide per output.
OpCost cost_GlobalAveragePool(const CostContext& ctx) {
  OpCost c = ctx.default_traffic();
  c.flops = ctx.in_numel(0) + ctx.out_numel(0);
  return c;
}

Status infer_GlobalMaxPool(InferContext& ctx) { return infer_global_pool(ctx); }
OpCost cost_GlobalMaxPool(const CostContext& ctx) {
  OpCost c = ctx.default_traffic();
  c.flops = ctx.in_numel(0);
  return c;
}

}  // namespace rooflens
