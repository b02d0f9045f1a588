// Gemm (Y = alpha * A' B' + beta * C) and MatMul (numpy matmul with broadcast batch dims).
#include "op_util.h"

namespace rooflens {

Status infer_Gemm(InferContext& ctx) {
  ROOFLENS_RETURN_IF_ERROR(ctx.require_io(2, 3));
  ROOFLENS_RETURN_IF_ERROR(ctx.require_rank(0, 2, "input A"));
  ROOFLENS_RETURN_IF_ERROR(ctx.require_rank(1, 2, "input B"));
  auto ta = ctx.attr_int("transA", 0);
  auto tb = ctx.attr_int("transB", 0);
  auto alpha = ctx.attr_float("alpha", 1.0);
  auto beta = ctx.attr_float("beta", 1.0);
  if (!ta) return ta.status();
  if (!tb) return tb.status();
  if (!alpha) return alpha.status();
  if (!beta) return beta.status();
  const Shape& a = ctx.in_shape(0);
  const Shape& b = ctx.in_shape(1);
  const int64_t m = *ta ? a[1] : a[0], k = *ta ? a[0] : a[1];
  const int64_t kb = *tb ? b[1] : b[0], n = *tb ? b[0] : b[1];
  if (k != kb)
    return ctx.invalid("input B", "inner dimensions differ: A" + shape_str(a) + (*ta ? "^T" : "") + " x B" +
                                      shape_str(b) + (*tb ? "^T" : "") + " (" + std::to_string(k) + " vs " +
                                      std::to_string(kb) + ")");
  if (ctx.has_input(2) && !ops::broadcast_shapes({m, n}, ctx.in_shape(2)))
    return ctx.invalid("input C", "shape " + shape_str(ctx.in_shape(2)) + " does not broadcast to [" +
                                      std::to_string(m) + ", " + std::to_string(n) + "]");
  ROOFLENS_RETURN_IF_ERROR(ctx.set_output(0, ctx.in_dtype(0), {m, n}));
  int64_t macs = 0;
  if (__builtin_mul_overflow(m * n, k, &macs) || macs > kMaxNodeMacs)
    return ctx.invalid("input B", "the MAC count M*N*K exceeds 2^52");
  ctx.set_desc(GemmDesc{*ta != 0, *tb != 0, *alpha, *beta});
  return Status::ok();
}

// MACs = M * N * K; FLOPs = 2 MACs + M*N for the bias add (alpha/beta scaling not counted).
OpCost cost_Gemm(const CostContext& ctx) {
  OpCost c = ctx.default_traffic();
  const Shape& y = ctx.out_shape(0);
  const Shape& a = ctx.in_shape(0);
  const auto* d = std::get_if<GemmDesc>(&ctx.node().desc);
  const int64_t k = d && d->trans_a ? a[0] : a[1];
  c.macs = y[0] * y[1] * k;
  c.flops = 2 * c.macs + (ctx.has_input(2) ? y[0] * y[1] : 0);
  return c;
}

Status infer_MatMul(InferContext& ctx) {
  ROOFLENS_RETURN_IF_ERROR(ctx.require_io(2, 2));
  Shape a = ctx.in_shape(0), b = ctx.in_shape(1);
  if (a.empty() || b.empty()) return ctx.invalid("inputs", "MatMul needs inputs of rank >= 1");
  const bool a_vec = a.size() == 1, b_vec = b.size() == 1;
  if (a_vec) a.insert(a.begin(), 1);
  if (b_vec) b.push_back(1);
  if (a.back() != b[b.size() - 2])
    return ctx.invalid("input B",
                       "inner dimensions differ: " + shape_str(ctx.in_shape(0)) + " x " + shape_str(ctx.in_shape(1)));
  Shape ba(a.begin(), a.end() - 2), bb(b.begin(), b.end() - 2);
  auto batch = ops::broadcast_shapes(ba, bb);
  if (!batch)
    return ctx.invalid("inputs", "batch dimensions do not broadcast: " + shape_str(ctx.in_shape(0)) + " x " +
                                     shape_str(ctx.in_shape(1)));
  Shape y = *batch;
  if (!a_vec) y.push_back(a[a.size() - 2]);
  if (!b_vec) y.push_back(b.back());
  ROOFLENS_RETURN_IF_ERROR(ctx.set_output(0, ctx.in_dtype(0), y));
  int64_t macs = 0;
  if (__builtin_mul_overflow(*checked_numel(y), a.back(), &macs) || macs > kMaxNodeMacs)
    return ctx.invalid("input B", "the MAC count exceeds 2^52");
  ctx.set_desc(GemmDesc{});
  return Status::ok();
}

// MACs = (output elements) * K, K the shared inner dimension.
OpCost cost_MatMul(const CostContext& ctx) {
  OpCost c = ctx.default_traffic();
  const int64_t k = ctx.in_shape(0).back();
  c.macs = ctx.out_numel(0) * k;
  c.flops = 2 * c.macs;
  return c;
}

}  // namespace rooflens
