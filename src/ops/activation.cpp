// Unary pointwise ops. Output shape = input shape. FLOPs per element are conventions
// written down in docs/cost-model.md (a transcendental counts as one FLOP).
#include "op_util.h"

#include <cmath>

namespace rooflens {
namespace {

Status unary_same(InferContext& ctx, size_t max_inputs = 1) {
  ROOFLENS_RETURN_IF_ERROR(ctx.require_io(1, max_inputs));
  return ctx.set_output(0, ctx.in_dtype(0), ctx.in_shape(0));
}

Status unary_float(InferContext& ctx, size_t max_inputs = 1) {
  ROOFLENS_RETURN_IF_ERROR(ctx.require_io(1, max_inputs));
  ROOFLENS_RETURN_IF_ERROR(ctx.require_float(0, "input X"));
  return ctx.set_output(0, ctx.in_dtype(0), ctx.in_shape(0));
}

// Folds a unary function over known real contents.
void fold_reals(InferContext& ctx, double (*f)(double)) {
  if (const auto& r = ctx.in_reals(0)) {
    std::vector<double> out(r->size());
    for (size_t i = 0; i < r->size(); ++i) out[i] = f((*r)[i]);
    ctx.set_output_reals(0, std::move(out));
  }
}

}  // namespace

Status infer_Relu(InferContext& ctx) { return unary_float(ctx); }
OpCost cost_Relu(const CostContext& ctx) { return ops::pointwise_cost(ctx, 1); }

Status infer_LeakyRelu(InferContext& ctx) {
  auto a = ctx.attr_float("alpha", 0.01);
  if (!a) return a.status();
  ActivationDesc d;
  d.alpha = *a;
  ctx.set_desc(d);
  return unary_float(ctx);
}
OpCost cost_LeakyRelu(const CostContext& ctx) { return ops::pointwise_cost(ctx, 2); }

// Clip: min/max as attributes (opset < 11) or optional inputs 1 and 2 (opset >= 11).
Status infer_Clip(InferContext& ctx) {
  ROOFLENS_RETURN_IF_ERROR(ctx.require_io(1, 3));
  for (size_t i = 1; i < 3; ++i)
    if (ctx.has_input(i) && !ctx.in_shape(i).empty() && ops::prod(ctx.in_shape(i)) != 1)
      return ctx.invalid(i == 1 ? "input min" : "input max",
                         "must be a scalar, got shape " + shape_str(ctx.in_shape(i)));
  ActivationDesc d;
  double* bound[] = {nullptr, &d.clip_min, &d.clip_max};
  for (size_t i = 1; i < 3; ++i) {
    const char* name = i == 1 ? "min" : "max";
    if (ctx.has_input(i)) {  // opset >= 11: the input, when known at analysis time
      if (const auto& r = ctx.in_reals(i); r && r->size() == 1)
        *bound[i] = (*r)[0];
      else if (const auto& v = ctx.in_ints(i); v && v->size() == 1)
        *bound[i] = static_cast<double>((*v)[0]);
      else
        d.clip_bounds_known = false;
    } else {
      auto a = ctx.attr_float(name, *bound[i]);
      if (!a) return a.status();
      *bound[i] = *a;
    }
  }
  ctx.set_desc(d);
  return ctx.set_output(0, ctx.in_dtype(0), ctx.in_shape(0));
}
OpCost cost_Clip(const CostContext& ctx) {
  OpCost c = ops::pointwise_cost(ctx, 2);
  c.bytes_weights = 0;  // scalar bounds live in registers
  return c;
}

Status infer_Sigmoid(InferContext& ctx) { return unary_float(ctx); }
OpCost cost_Sigmoid(const CostContext& ctx) { return ops::pointwise_cost(ctx, 4); }

Status infer_HardSigmoid(InferContext& ctx) {
  auto a = ctx.attr_float("alpha", 0.2);
  auto b = ctx.attr_float("beta", 0.5);
  if (!a) return a.status();
  if (!b) return b.status();
  ActivationDesc d;
  d.alpha = *a;
  d.beta = *b;
  ctx.set_desc(d);
  return unary_float(ctx);
}
OpCost cost_HardSigmoid(const CostContext& ctx) { return ops::pointwise_cost(ctx, 4); }

Status infer_HardSwish(InferContext& ctx) { return unary_float(ctx); }
OpCost cost_HardSwish(const CostContext& ctx) { return ops::pointwise_cost(ctx, 5); }

Status infer_Tanh(InferContext& ctx) { return unary_float(ctx); }
OpCost cost_Tanh(const CostContext& ctx) { return ops::pointwise_cost(ctx, 1); }

Status infer_Erf(InferContext& ctx) {
  ROOFLENS_RETURN_IF_ERROR(unary_float(ctx));
  fold_reals(ctx, [](double v) { return std::erf(v); });
  return Status::ok();
}
OpCost cost_Erf(const CostContext& ctx) { return ops::pointwise_cost(ctx, 1); }

Status infer_Gelu(InferContext& ctx) {
  auto approx = ctx.attr_string("approximate", std::string("none"));
  if (!approx) return approx.status();
  if (*approx != "none" && *approx != "tanh")
    return ctx.invalid("approximate", "must be 'none' or 'tanh', got '" + *approx + "'");
  ActivationDesc d;
  d.gelu_tanh = *approx == "tanh";
  ctx.set_desc(d);
  return unary_float(ctx);
}
// 0.5 * x * (1 + erf(x / sqrt2)): div, erf, add, mul, mul.
OpCost cost_Gelu(const CostContext& ctx) { return ops::pointwise_cost(ctx, 5); }

Status infer_Exp(InferContext& ctx) {
  ROOFLENS_RETURN_IF_ERROR(unary_float(ctx));
  fold_reals(ctx, [](double v) { return std::exp(v); });
  return Status::ok();
}
OpCost cost_Exp(const CostContext& ctx) { return ops::pointwise_cost(ctx, 1); }

// Not: logical negation of a bool tensor (contents 0/1 folded).
Status infer_Not(InferContext& ctx) {
  ROOFLENS_RETURN_IF_ERROR(ctx.require_io(1, 1));
  if (ctx.in_dtype(0) != DType::kBool) return ctx.invalid("input X", "must be bool");
  ROOFLENS_RETURN_IF_ERROR(ctx.set_output(0, DType::kBool, ctx.in_shape(0)));
  if (const auto& v = ctx.in_ints(0)) {
    std::vector<int64_t> out(v->size());
    for (size_t i = 0; i < v->size(); ++i) out[i] = (*v)[i] == 0 ? 1 : 0;
    ctx.set_output_ints(0, std::move(out));
  }
  return Status::ok();
}
OpCost cost_Not(const CostContext& ctx) { return ops::pointwise_cost(ctx, 1); }

Status infer_Sqrt(InferContext& ctx) {
  ROOFLENS_RETURN_IF_ERROR(unary_float(ctx));
  fold_reals(ctx, [](double v) { return std::sqrt(v); });
  return Status::ok();
}
OpCost cost_Sqrt(const CostContext& ctx) { return ops::pointwise_cost(ctx, 1); }

Status infer_Neg(InferContext& ctx) {
  ROOFLENS_RETURN_IF_ERROR(unary_same(ctx));
  fold_reals(ctx, [](double v) { return -v; });
  if (const auto& v = ctx.in_ints(0)) {
    std::vector<int64_t> out(v->size());
    for (size_t i = 0; i < v->size(); ++i) out[i] = -(*v)[i];
    ctx.set_output_ints(0, std::move(out));
  }
  return Status::ok();
}
OpCost cost_Neg(const CostContext& ctx) { return ops::pointwise_cost(ctx, 1); }

// Cast: element type change; carries known contents across int/float.
Status infer_Cast(InferContext& ctx) {
  ROOFLENS_RETURN_IF_ERROR(ctx.require_io(1, 1));
  auto to = ctx.attr_int("to");
  if (!to) return to.status();
  DType t = dtype_from_onnx_code(*to);
  if (t == DType::kUnknown)
    return ctx.unsupported("to", "element type code " + std::to_string(*to) + " is not supported");
  ActivationDesc d;
  d.cast_to = t;
  ctx.set_desc(d);
  ROOFLENS_RETURN_IF_ERROR(ctx.set_output(0, t, ctx.in_shape(0)));
  const auto& ints = ctx.in_ints(0);
  const auto& reals = ctx.in_reals(0);
  if (dtype_is_integer(t)) {
    if (ints)
      ctx.set_output_ints(0, *ints);
    else if (reals) {
      std::vector<int64_t> v;
      for (double d : *reals) v.push_back(static_cast<int64_t>(d));
      ctx.set_output_ints(0, std::move(v));
    }
  } else {
    if (reals)
      ctx.set_output_reals(0, *reals);
    else if (ints)
      ctx.set_output_reals(0, std::vector<double>(ints->begin(), ints->end()));
  }
  return Status::ok();
}
// A dtype conversion moves data but does no arithmetic.
OpCost cost_Cast(const CostContext& ctx) { return ops::pointwise_cost(ctx, 0); }

}  // namespace rooflens
