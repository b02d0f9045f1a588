// Binary pointwise ops with numpy broadcasting: Add, Sub, Mul, Div, Pow.
// Known int/real contents are folded (exporters compute shapes with these).
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

enum class BinOp { kAdd, kSub, kMul, kDiv, kPow };

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
                            }
                            return std::nullopt;
                          });
    if (r) ctx.set_output_reals(0, std::move(*r));
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

}  // namespace rooflens
