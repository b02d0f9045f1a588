// Reductions: ReduceMean and ReduceL2 (axes as attribute before opset 18, as input from 18)
// and Softmax.
#include "op_util.h"

#include <algorithm>

namespace rooflens {

namespace {

Status infer_reduce(InferContext& ctx) {
  ROOFLENS_RETURN_IF_ERROR(ctx.require_io(1, 2));
  const Shape& x = ctx.in_shape(0);
  const auto rank = static_cast<int64_t>(x.size());
  auto keep = ctx.attr_int("keepdims", 1);
  auto noop = ctx.attr_int("noop_with_empty_axes", 0);
  if (!keep) return keep.status();
  if (!noop) return noop.status();
  std::vector<int64_t> axes;
  if (ctx.has_input(1)) {
    auto a = ops::known_ints(ctx, 1, "input axes");
    if (!a) return a.status();
    axes = *a;
  } else {
    auto a = ctx.attr_ints("axes", std::vector<int64_t>{});
    if (!a) return a.status();
    axes = *a;
  }
  std::vector<bool> reduce(x.size(), false);
  ReduceDesc d;
  d.keepdims = *keep != 0;
  if (axes.empty()) {
    if (*noop) {
      d.noop = true;
      ctx.set_desc(d);
      return ctx.set_output(0, ctx.in_dtype(0), x);
    }
    std::fill(reduce.begin(), reduce.end(), true);
  }
  for (int64_t a : axes) {
    auto n = ctx.normalize_axis(a, rank, "axes");
    if (!n) return n.status();
    reduce[static_cast<size_t>(*n)] = true;
  }
  for (size_t i = 0; i < x.size(); ++i)
    if (reduce[i]) d.axes.push_back(static_cast<int64_t>(i));
  ctx.set_desc(d);
  Shape y;
  for (size_t i = 0; i < x.size(); ++i) {
    if (!reduce[i])
      y.push_back(x[i]);
    else if (*keep)
      y.push_back(1);
  }
  return ctx.set_output(0, ctx.in_dtype(0), y);
}

}  // namespace

Status infer_ReduceMean(InferContext& ctx) { return infer_reduce(ctx); }
// Swin V2's cosine attention normalises q and k: F.normalize exports as ReduceL2.
Status infer_ReduceL2(InferContext& ctx) {
  ROOFLENS_RETURN_IF_ERROR(ctx.require_io(1, 2));
  ROOFLENS_RETURN_IF_ERROR(ctx.require_float(0, "input data"));
  return infer_reduce(ctx);
}
// A square and an add per input element, a square root per output element.
OpCost cost_ReduceL2(const CostContext& ctx) {
  OpCost c = ctx.default_traffic();
  c.flops = 2 * ctx.in_numel(0) + ctx.out_numel(0);
  return c;
}

// One add per input element plus one divide per output element.
OpCost cost_ReduceMean(const CostContext& ctx) {
  OpCost c = ctx.default_traffic();
  c.flops = ctx.in_numel(0) + ctx.out_numel(0);
  return c;
}

Status infer_Softmax(InferContext& ctx) {
  ROOFLENS_RETURN_IF_ERROR(ctx.require_io(1, 1));
  ROOFLENS_RETURN_IF_ERROR(ctx.require_float(0, "input X"));
  auto axis = ctx.attr_int("axis", ctx.graph().opset >= 13 ? -1 : 1);
  if (!axis) return axis.status();
  auto n = ctx.normalize_axis(*axis, ctx.in_rank(0), "axis");
  if (!n) return n.status();
  ctx.set_desc(AxisDesc{*n, {}, false});
  return ctx.set_output(0, ctx.in_dtype(0), ctx.in_shape(0));
}

// Per element: max, subtract, exp, sum, divide = 5 FLOPs.
OpCost cost_Softmax(const CostContext& ctx) { return ops::pointwise_cost(ctx, 5); }

}  // namespace rooflens
