// Ops that change only the view of a tensor: Flatten, Reshape, Squeeze, Unsqueeze,
// Identity, Dropout (inference). They move no bytes; known contents pass through.
#include "op_util.h"

#include <algorithm>

namespace rooflens {
namespace {

void pass_contents(InferContext& ctx) {
  if (ctx.in_ints(0)) ctx.set_output_ints(0, *ctx.in_ints(0));
  if (ctx.in_reals(0)) ctx.set_output_reals(0, *ctx.in_reals(0));
}

// Axes from the attribute (before opset 13) or the second input (from 13).
Expected<std::optional<std::vector<int64_t>>> read_axes(InferContext& ctx) {
  if (ctx.has_input(1)) {
    auto a = ops::known_ints(ctx, 1, "input axes");
    if (!a) return a.status();
    return std::optional<std::vector<int64_t>>(*a);
  }
  if (ctx.has_attr("axes")) {
    auto a = ctx.attr_ints("axes");
    if (!a) return a.status();
    return std::optional<std::vector<int64_t>>(*a);
  }
  return std::optional<std::vector<int64_t>>();
}

}  // namespace

Status infer_Flatten(InferContext& ctx) {
  ROOFLENS_RETURN_IF_ERROR(ctx.require_io(1, 1));
  const Shape& x = ctx.in_shape(0);
  auto axis = ctx.attr_int("axis", 1);
  if (!axis) return axis.status();
  const auto rank = static_cast<int64_t>(x.size());
  if (*axis < -rank || *axis > rank)
    return ctx.invalid("axis", "axis " + std::to_string(*axis) + " is out of range for rank " + std::to_string(rank));
  const int64_t a = *axis < 0 ? *axis + rank : *axis;
  ctx.set_desc(AxisDesc{a, {}, false});
  auto outer = checked_numel(Shape(x.begin(), x.begin() + a));
  auto inner = checked_numel(Shape(x.begin() + a, x.end()));
  if (!outer || !inner) return ctx.invalid("input", "element count overflows 64 bits");
  ROOFLENS_RETURN_IF_ERROR(ctx.set_output(0, ctx.in_dtype(0), {*outer, *inner}));
  pass_contents(ctx);
  return Status::ok();
}

Status infer_Reshape(InferContext& ctx) {
  ROOFLENS_RETURN_IF_ERROR(ctx.require_io(2, 2));
  const Shape& x = ctx.in_shape(0);
  auto target = ops::known_ints(ctx, 1, "input shape");
  if (!target) return target.status();
  auto allow_zero = ctx.attr_int("allowzero", 0);
  if (!allow_zero) return allow_zero.status();
  ctx.set_desc(ReshapeDesc{*allow_zero != 0});
  Shape y(target->size());
  int infer_at = -1;
  int64_t known = 1;
  for (size_t i = 0; i < target->size(); ++i) {
    int64_t d = (*target)[i];
    if (d == 0 && !*allow_zero) {
      if (i >= x.size())
        return ctx.invalid("input shape", "0 at position " + std::to_string(i) +
                                              " copies a dimension the input (rank " + std::to_string(x.size()) +
                                              ") does not have");
      d = x[i];
    }
    if (d == -1) {
      if (infer_at >= 0) return ctx.invalid("input shape", "more than one -1 in " + shape_str(*target));
      infer_at = static_cast<int>(i);
      continue;
    }
    if (d < 0) return ctx.invalid("input shape", "negative dimension in " + shape_str(*target));
    y[i] = d;
    if (__builtin_mul_overflow(known, d, &known)) return ctx.invalid("input shape", "element count overflows 64 bits");
  }
  auto total = checked_numel(x);
  if (!total) return ctx.invalid("input data", "element count overflows 64 bits");
  if (infer_at >= 0) {
    if (known == 0 || *total % known != 0)
      return ctx.invalid("input shape", "cannot reshape " + shape_str(x) + " to " + shape_str(*target));
    y[static_cast<size_t>(infer_at)] = *total / known;
  } else if (known != *total) {
    return ctx.invalid("input shape", "cannot reshape " + shape_str(x) + " (" + std::to_string(*total) +
                                          " elements) to " + shape_str(y) + " (" + std::to_string(known) + ")");
  }
  ROOFLENS_RETURN_IF_ERROR(ctx.set_output(0, ctx.in_dtype(0), y));
  pass_contents(ctx);
  return Status::ok();
}

Status infer_Squeeze(InferContext& ctx) {
  ROOFLENS_RETURN_IF_ERROR(ctx.require_io(1, 2));
  const Shape& x = ctx.in_shape(0);
  auto axes = read_axes(ctx);
  if (!axes) return axes.status();
  const auto rank = static_cast<int64_t>(x.size());
  std::vector<bool> drop(x.size(), false);
  if (!axes->has_value()) {
    for (size_t i = 0; i < x.size(); ++i) drop[i] = x[i] == 1;
  } else {
    for (int64_t a : **axes) {
      auto n = ctx.normalize_axis(a, rank, "axes");
      if (!n) return n.status();
      if (x[static_cast<size_t>(*n)] != 1)
        return ctx.invalid("axes", "cannot squeeze axis " + std::to_string(a) + " of size " +
                                       std::to_string(x[static_cast<size_t>(*n)]) + " (shape " + shape_str(x) + ")");
      drop[static_cast<size_t>(*n)] = true;
    }
  }
  Shape y;
  for (size_t i = 0; i < x.size(); ++i)
    if (!drop[i]) y.push_back(x[i]);
  ROOFLENS_RETURN_IF_ERROR(ctx.set_output(0, ctx.in_dtype(0), y));
  pass_contents(ctx);
  return Status::ok();
}

Status infer_Unsqueeze(InferContext& ctx) {
  ROOFLENS_RETURN_IF_ERROR(ctx.require_io(1, 2));
  const Shape& x = ctx.in_shape(0);
  auto axes = read_axes(ctx);
  if (!axes) return axes.status();
  if (!axes->has_value()) return ctx.invalid("axes", "required (attribute or input)");
  const auto out_rank = static_cast<int64_t>(x.size() + (*axes)->size());
  std::vector<bool> ins(static_cast<size_t>(out_rank), false);
  for (int64_t a : **axes) {
    auto n = ctx.normalize_axis(a, out_rank, "axes");
    if (!n) return n.status();
    if (ins[static_cast<size_t>(*n)]) return ctx.invalid("axes", "repeats axis " + std::to_string(a));
    ins[static_cast<size_t>(*n)] = true;
  }
  Shape y;
  size_t j = 0;
  for (size_t i = 0; i < ins.size(); ++i) y.push_back(ins[i] ? 1 : x[j++]);
  ROOFLENS_RETURN_IF_ERROR(ctx.set_output(0, ctx.in_dtype(0), y));
  pass_contents(ctx);
  return Status::ok();
}

Status infer_Identity(InferContext& ctx) {
  ROOFLENS_RETURN_IF_ERROR(ctx.require_io(1, 1));
  ROOFLENS_RETURN_IF_ERROR(ctx.set_output(0, ctx.in_dtype(0), ctx.in_shape(0)));
  pass_contents(ctx);
  return Status::ok();
}

// Inference Dropout is the identity; the optional mask output is all true. So is a
// training-mode Dropout whose ratio is known to be 0 (torch exports Swin's
// F.dropout(attn, p=0.0, training=...) this way).
Status infer_Dropout(InferContext& ctx) {
  ROOFLENS_RETURN_IF_ERROR(ctx.require_io(1, 3, 1, 2));
  const bool zero_ratio =
      ctx.has_input(1) && ctx.in_reals(1) && ctx.in_reals(1)->size() == 1 && (*ctx.in_reals(1))[0] == 0.0;
  if (!zero_ratio && ctx.has_input(2) && ctx.in_ints(2) && !ctx.in_ints(2)->empty() && (*ctx.in_ints(2))[0] != 0)
    return ctx.unsupported("input training_mode", "training-mode Dropout is not an inference op");
  ROOFLENS_RETURN_IF_ERROR(ctx.set_output(0, ctx.in_dtype(0), ctx.in_shape(0)));
  ROOFLENS_RETURN_IF_ERROR(ctx.set_output(1, DType::kBool, ctx.in_shape(0)));
  pass_contents(ctx);
  return Status::ok();
}

OpCost cost_Flatten(const CostContext& ctx) { return ctx.no_traffic(); }
OpCost cost_Reshape(const CostContext& ctx) { return ctx.no_traffic(); }
OpCost cost_Squeeze(const CostContext& ctx) { return ctx.no_traffic(); }
OpCost cost_Unsqueeze(const CostContext& ctx) { return ctx.no_traffic(); }
OpCost cost_Identity(const CostContext& ctx) { return ctx.no_traffic(); }
OpCost cost_Dropout(const CostContext& ctx) { return ctx.no_traffic(); }

}  // namespace rooflens
