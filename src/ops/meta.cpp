// Ops that produce shapes and constants: Shape, Constant, ConstantOfShape.
// They are folded away at analysis time and do no work at inference.
#include "op_util.h"

#include <algorithm>

namespace rooflens {

Status infer_Shape(InferContext& ctx) {
  ROOFLENS_RETURN_IF_ERROR(ctx.require_io(1, 1));
  const Shape& x = ctx.in_shape(0);
  const auto rank = static_cast<int64_t>(x.size());
  auto start = ctx.attr_int("start", 0);
  auto end = ctx.attr_int("end", rank);
  if (!start) return start.status();
  if (!end) return end.status();
  auto clampi = [rank](int64_t v) { return std::clamp(v < 0 ? v + rank : v, int64_t{0}, rank); };
  const int64_t s = clampi(*start), e = clampi(*end);
  ctx.set_desc(ShapeDesc{s, std::max(s, e)});
  std::vector<int64_t> dims(x.begin() + s, x.begin() + std::max(s, e));
  ROOFLENS_RETURN_IF_ERROR(ctx.set_output(0, DType::kI64, {static_cast<int64_t>(dims.size())}));
  ctx.set_output_ints(0, std::move(dims));
  return Status::ok();
}

Status infer_Constant(InferContext& ctx) {
  ROOFLENS_RETURN_IF_ERROR(ctx.require_io(0, 0));
  if (const TensorConst* t = ctx.attr_tensor("value")) {
    ROOFLENS_RETURN_IF_ERROR(ctx.set_output(0, t->dtype, t->shape));
    auto n = checked_numel(t->shape).value_or(-1);
    if (dtype_is_integer(t->dtype) && static_cast<int64_t>(t->ints.size()) == n) ctx.set_output_ints(0, t->ints);
    if (dtype_is_float(t->dtype) && static_cast<int64_t>(t->reals.size()) == n) ctx.set_output_reals(0, t->reals);
    return Status::ok();
  }
  if (ctx.has_attr("value_int")) {
    auto v = ctx.attr_int("value_int");
    if (!v) return v.status();
    ROOFLENS_RETURN_IF_ERROR(ctx.set_output(0, DType::kI64, {}));
    ctx.set_output_ints(0, {*v});
    return Status::ok();
  }
  if (ctx.has_attr("value_ints")) {
    auto v = ctx.attr_ints("value_ints");
    if (!v) return v.status();
    ROOFLENS_RETURN_IF_ERROR(ctx.set_output(0, DType::kI64, {static_cast<int64_t>(v->size())}));
    ctx.set_output_ints(0, *v);
    return Status::ok();
  }
  if (ctx.has_attr("value_float")) {
    auto v = ctx.attr_float("value_float");
    if (!v) return v.status();
    ROOFLENS_RETURN_IF_ERROR(ctx.set_output(0, DType::kF32, {}));
    ctx.set_output_reals(0, {*v});
    return Status::ok();
  }
  if (ctx.has_attr("value_floats")) {
    auto v = ctx.attr_floats("value_floats");
    if (!v) return v.status();
    ROOFLENS_RETURN_IF_ERROR(ctx.set_output(0, DType::kF32, {static_cast<int64_t>(v->size())}));
    ctx.set_output_reals(0, *v);
    return Status::ok();
  }
  return ctx.unsupported("value", "Constant needs one of value, value_int(s), value_float(s)");
}

Status infer_ConstantOfShape(InferContext& ctx) {
  ROOFLENS_RETURN_IF_ERROR(ctx.require_io(1, 1));
  auto shape = ops::known_ints(ctx, 0, "input shape");
  if (!shape) return shape.status();
  DType dt = DType::kF32;
  double fill = 0;
  if (const TensorConst* t = ctx.attr_tensor("value")) {
    dt = t->dtype;
    if (!t->ints.empty()) fill = static_cast<double>(t->ints[0]);
    if (!t->reals.empty()) fill = t->reals[0];
  }
  ROOFLENS_RETURN_IF_ERROR(ctx.set_output(0, dt, *shape));
  auto n = checked_numel(*shape).value_or(ops::kMaxFoldElements + 1);
  if (n <= ops::kMaxFoldElements) {
    if (dtype_is_integer(dt))
      ctx.set_output_ints(0, std::vector<int64_t>(static_cast<size_t>(n), static_cast<int64_t>(fill)));
    else
      ctx.set_output_reals(0, std::vector<double>(static_cast<size_t>(n), fill));
  }
  return Status::ok();
}

OpCost cost_Shape(const CostContext& ctx) { return ctx.no_traffic(); }
OpCost cost_Constant(const CostContext& ctx) { return ctx.no_traffic(); }
OpCost cost_ConstantOfShape(const CostContext& ctx) { return ctx.no_traffic(); }

}  // namespace rooflens
