// Binary pointwise ops with numpy broadcasting: Add, Sub, Mul, Div, Pow, Mod, the comparisons
// Equal, Less, Greater (bool outputs), And, Or, and the ternary Where. Known int/real contents
// are folded (exporters compute shapes, and Swin its attention mask, with these).
#include "op_util.h"

#include <cmath>

namespace rooflens {
namespace {

template <typename T, typename F>
std::optional<std::vector<T>> fold(const Shape& out, const Shape& sa, const std::vector<T>& a, const Shape& sb,
                                   const std::vector<T>& b, F f) {
  auto n = checked_numel(out);
  if (!n || *n > ops::kMaxFoldElements) return std::nullopt;
  std::vector<T> r(static_cast<size_t>(*n));
  for (int64_t i = 0; i < *n; ++i) {
    auto ia = ops::broadcast_source_index(out, sa, i);
    auto ib = ops::broadcast_source_index(out, sb, i);
    auto ok_a = ia >= 0 && static_cast<size_t>(ia) < a.size();
    auto ok_b = ib >= 0 && static_cast<size_t>(ib) < b.size();
    if (!ok_a || !ok_b) return std::nullopt;
    auto v = f(a[static_cast<size_t>(ia)], b[static_cast<size_t>(ib)]);
    if (!v) return std::nullopt;
    r[static_cast<size_t>(i)] = *v;
  }
  return r;
}

enum class BinOp { kAdd, kSub, kMul, kDiv, kPow, kMod };

Status infer_binary(InferContext& ctx, BinOp op) {
  ROOFLENS_RETURN_IF_ERROR(ctx.require_io(2, 2));
  auto out = ops::broadcast_shapes(ctx.in_shape(0), ctx.in_shape(1));
  if (!out)
    return ctx.invalid("inputs", "shapes " + shape_str(ctx.in_shape(0)) + " and " + shape_str(ctx.in_shape(1)) +
                                     " do not broadcast");
  if (op != BinOp::kPow && ctx.in_dtype(0) != ctx.in_dtype(1) && ctx.in_dtype(0) != DType::kUnknown &&
      ctx.in_dtype(1) != DType::kUnknown)
    return ctx.invalid("inputs", "element types differ: " + std::string(dtype_name(ctx.in_dtype(0))) + " and " +
                                     std::string(dtype_name(ctx.in_dtype(1))));
  ROOFLENS_RETURN_IF_ERROR(ctx.set_output(0, ctx.in_dtype(0), *out));
  const Shape& sa = ctx.in_shape(0);
  const Shape& sb = ctx.in_shape(1);
  if (ctx.in_ints(0) && ctx.in_ints(1)) {
    auto r = fold<int64_t>(*out, sa, *ctx.in_ints(0), sb, *ctx.in_ints(1),
                           [op](int64_t a, int64_t b) -> std::optional<int64_t> {
                             int64_t v = 0;
                             switch (op) {
                               case BinOp::kAdd:
                                 if (__builtin_add_overflow(a, b, &v)) return std::nullopt;
                                 return v;
                               case BinOp::kSub:
                                 if (__builtin_sub_overflow(a, b, &v)) return std::nullopt;
                                 return v;
                               case BinOp::kMul:
                                 if (__builtin_mul_overflow(a, b, &v)) return std::nullopt;
                                 return v;
                               case BinOp::kDiv:
                                 if (b == 0 || (a == INT64_MIN && b == -1)) return std::nullopt;
                                 return a / b;
                               case BinOp::kPow: return std::nullopt;
                               case BinOp::kMod: {
                                 if (b == 0 || (a == INT64_MIN && b == -1)) return std::nullopt;
                                 int64_t m = a % b;  // integer Mod (fmod=0): the sign of the divisor
                                 if (m != 0 && ((m < 0) != (b < 0))) m += b;
                                 return m;
                               }
                             }
                             return std::nullopt;
                           });
    if (r) ctx.set_output_ints(0, std::move(*r));
  } else if (ctx.in_reals(0) && ctx.in_reals(1)) {
    auto r = fold<double>(*out, sa, *ctx.in_reals(0), sb, *ctx.in_reals(1),
                          [op](double a, double b) -> std::optional<double> {
                            switch (op) {
                              case BinOp::kAdd: return a + b;
                              case BinOp::kSub: return a - b;
                              case BinOp::kMul: return a * b;
                              case BinOp::kDiv: return a / b;
                              case BinOp::kPow: return std::pow(a, b);
                              case BinOp::kMod: return std::fmod(a, b);
                            }
                            return std::nullopt;
                          });
    if (r) ctx.set_output_reals(0, std::move(*r));
  }
  return Status::ok();
}

enum class CmpOp { kEqual, kLess, kGreater, kAnd, kOr };

bool compare(CmpOp op, double a, double b) {
  switch (op) {
    case CmpOp::kEqual: return a == b;
    case CmpOp::kLess: return a < b;
    case CmpOp::kGreater: return a > b;
    case CmpOp::kAnd: return a != 0 && b != 0;
    case CmpOp::kOr: return a != 0 || b != 0;
  }
  return false;
}

// Known contents of input i as doubles (ints converted), if any.
std::optional<std::vector<double>> as_reals(const InferContext& ctx, size_t i) {
  if (ctx.in_reals(i)) return *ctx.in_reals(i);
  if (ctx.in_ints(i)) return std::vector<double>(ctx.in_ints(i)->begin(), ctx.in_ints(i)->end());
  return std::nullopt;
}

// Comparisons and logic: broadcast, bool output (contents 0/1 as ints).
Status infer_compare(InferContext& ctx, CmpOp op) {
  ROOFLENS_RETURN_IF_ERROR(ctx.require_io(2, 2));
  auto out = ops::broadcast_shapes(ctx.in_shape(0), ctx.in_shape(1));
  if (!out)
    return ctx.invalid("inputs", "shapes " + shape_str(ctx.in_shape(0)) + " and " + shape_str(ctx.in_shape(1)) +
                                     " do not broadcast");
  if ((op == CmpOp::kAnd || op == CmpOp::kOr) && (ctx.in_dtype(0) != DType::kBool || ctx.in_dtype(1) != DType::kBool))
    return ctx.invalid("inputs", "And/Or need bool inputs");
  ROOFLENS_RETURN_IF_ERROR(ctx.set_output(0, DType::kBool, *out));
  auto a = as_reals(ctx, 0), b = as_reals(ctx, 1);
  if (a && b) {
    auto r = fold<double>(*out, ctx.in_shape(0), *a, ctx.in_shape(1), *b,
                          [op](double x, double y) -> std::optional<double> { return compare(op, x, y) ? 1 : 0; });
    if (r) ctx.set_output_ints(0, std::vector<int64_t>(r->begin(), r->end()));
  }
  return Status::ok();
}

}  // namespace

Status infer_Add(InferContext& ctx) { return infer_binary(ctx, BinOp::kAdd); }
Status infer_Sub(InferContext& ctx) { return infer_binary(ctx, BinOp::kSub); }
Status infer_Mul(InferContext& ctx) { return infer_binary(ctx, BinOp::kMul); }
Status infer_Div(InferContext& ctx) { return infer_binary(ctx, BinOp::kDiv); }
Status infer_Pow(InferContext& ctx) { return infer_binary(ctx, BinOp::kPow); }

// One FLOP per output element.
OpCost cost_Add(const CostContext& ctx) { return ops::pointwise_cost(ctx, 1); }
OpCost cost_Sub(const CostContext& ctx) { return ops::pointwise_cost(ctx, 1); }
OpCost cost_Mul(const CostContext& ctx) { return ops::pointwise_cost(ctx, 1); }
OpCost cost_Div(const CostContext& ctx) { return ops::pointwise_cost(ctx, 1); }
OpCost cost_Pow(const CostContext& ctx) { return ops::pointwise_cost(ctx, 1); }

Status infer_Mod(InferContext& ctx) {
  ROOFLENS_RETURN_IF_ERROR(ctx.require_io(2, 2));
  auto fmod = ctx.attr_int("fmod", 0);
  if (!fmod) return fmod.status();
  if (*fmod == 0 && dtype_is_float(ctx.in_dtype(0))) return ctx.invalid("fmod", "must be 1 for floating-point inputs");
  ctx.set_desc(ModDesc{*fmod != 0});
  return infer_binary(ctx, BinOp::kMod);
}
OpCost cost_Mod(const CostContext& ctx) { return ops::pointwise_cost(ctx, 1); }

Status infer_Equal(InferContext& ctx) { return infer_compare(ctx, CmpOp::kEqual); }
Status infer_Less(InferContext& ctx) { return infer_compare(ctx, CmpOp::kLess); }
Status infer_Greater(InferContext& ctx) { return infer_compare(ctx, CmpOp::kGreater); }
Status infer_And(InferContext& ctx) { return infer_compare(ctx, CmpOp::kAnd); }
Status infer_Or(InferContext& ctx) { return infer_compare(ctx, CmpOp::kOr); }
// One comparison per output element.
OpCost cost_Equal(const CostContext& ctx) { return ops::pointwise_cost(ctx, 1); }
OpCost cost_Less(const CostContext& ctx) { return ops::pointwise_cost(ctx, 1); }
OpCost cost_Greater(const CostContext& ctx) { return ops::pointwise_cost(ctx, 1); }
OpCost cost_And(const CostContext& ctx) { return ops::pointwise_cost(ctx, 1); }
OpCost cost_Or(const CostContext& ctx) { return ops::pointwise_cost(ctx, 1); }

// Where(cond, X, Y): three-way broadcast; the output takes X's element type.
Status infer_Where(InferContext& ctx) {
  ROOFLENS_RETURN_IF_ERROR(ctx.require_io(3, 3));
  if (ctx.in_dtype(0) != DType::kBool) return ctx.invalid("input condition", "must be bool");
  if (ctx.in_dtype(1) != ctx.in_dtype(2))
    return ctx.invalid("inputs", "X and Y element types differ: " + std::string(dtype_name(ctx.in_dtype(1))) + " and " +
                                     std::string(dtype_name(ctx.in_dtype(2))));
  auto xy = ops::broadcast_shapes(ctx.in_shape(1), ctx.in_shape(2));
  auto out = xy ? ops::broadcast_shapes(ctx.in_shape(0), *xy) : std::nullopt;
  if (!out)
    return ctx.invalid("inputs", "shapes " + shape_str(ctx.in_shape(0)) + ", " + shape_str(ctx.in_shape(1)) + " and " +
                                     shape_str(ctx.in_shape(2)) + " do not broadcast");
  ROOFLENS_RETURN_IF_ERROR(ctx.set_output(0, ctx.in_dtype(1), *out));
  auto n = checked_numel(*out);
  const auto& c = ctx.in_ints(0);
  if (!c || !n || *n > ops::kMaxFoldElements) return Status::ok();
  auto pick = [&](const auto& x, const auto& y, auto* r) {
    r->resize(static_cast<size_t>(*n));
    for (int64_t i = 0; i < *n; ++i) {
      auto ic = static_cast<size_t>(ops::broadcast_source_index(*out, ctx.in_shape(0), i));
      auto ix = static_cast<size_t>(ops::broadcast_source_index(*out, ctx.in_shape(1), i));
      auto iy = static_cast<size_t>(ops::broadcast_source_index(*out, ctx.in_shape(2), i));
      if (ic >= c->size() || ix >= x.size() || iy >= y.size()) return false;
      (*r)[static_cast<size_t>(i)] = (*c)[ic] ? x[ix] : y[iy];
    }
    return true;
  };
  if (ctx.in_ints(1) && ctx.in_ints(2)) {
    std::vector<int64_t> r;
    if (pick(*ctx.in_ints(1), *ctx.in_ints(2), &r)) ctx.set_output_ints(0, std::move(r));
  } else if (ctx.in_reals(1) && ctx.in_reals(2)) {
    std::vector<double> r;
    if (pick(*ctx.in_reals(1), *ctx.in_reals(2), &r)) ctx.set_output_reals(0, std::move(r));
  }
  return Status::ok();
}
// One select per output element.
OpCost cost_Where(const CostContext& ctx) { return ops::pointwise_cost(ctx, 1); }

}  // namespace rooflens
