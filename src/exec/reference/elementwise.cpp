// Reference binary pointwise ops with numpy broadcasting: Add, Sub, Mul, Div, Pow.
// fp32 tensors compute in double; int64 tensors in int64 (wrapping on overflow, Div
// truncating toward zero and refusing division by zero).
#include <cmath>
#include <cstdint>
#include <string>

#include "kernels.h"
#include "rooflens/ops/shape_math.h"

namespace rooflens::ref {
namespace {

enum class BinOp { kAdd, kSub, kMul, kDiv, kPow };

double apply(BinOp op, double a, double b) {
  switch (op) {
    case BinOp::kAdd: return a + b;
    case BinOp::kSub: return a - b;
    case BinOp::kMul: return a * b;
    case BinOp::kDiv: return a / b;
    case BinOp::kPow: return std::pow(a, b);
  }
  return 0;
}

Status binary(KernelContext& ctx, BinOp op) {
  const Tensor& a = ctx.in(0);
  const Tensor& b = ctx.in(1);
  Tensor& y = ctx.alloc_out(0);
  const int64_t n = y.numel();
  const bool same_a = a.shape == y.shape, same_b = b.shape == y.shape;
  auto ia = [&](int64_t i) { return same_a ? i : ops::broadcast_source_index(y.shape, a.shape, i); };
  auto ib = [&](int64_t i) { return same_b ? i : ops::broadcast_source_index(y.shape, b.shape, i); };
  if (!is_int(y)) {
    for (int64_t i = 0; i < n; ++i)
      y.data[static_cast<size_t>(i)] = static_cast<float>(apply(op, elem(a, ia(i)), elem(b, ib(i))));
    return Status::ok();
  }
  if (!is_int(a) || (op != BinOp::kPow && !is_int(b)))
    return ctx.invalid("inputs", "integer output from a floating-point operand");
  for (int64_t i = 0; i < n; ++i) {
    const int64_t x = a.ints[static_cast<size_t>(ia(i))];
    const auto ux = static_cast<uint64_t>(x);
    int64_t v = 0;
    if (op == BinOp::kPow) {
      const double p = std::pow(static_cast<double>(x), elem(b, ib(i)));
      if (!(std::fabs(p) < 9.2e18))
        return ctx.invalid("input Y", "integer power overflows int64 at element " + std::to_string(i));
      v = static_cast<int64_t>(p);
    } else {
      const int64_t z = b.ints[static_cast<size_t>(ib(i))];
      const auto uz = static_cast<uint64_t>(z);
      switch (op) {
        case BinOp::kAdd: v = static_cast<int64_t>(ux + uz); break;
        case BinOp::kSub: v = static_cast<int64_t>(ux - uz); break;
        case BinOp::kMul: v = static_cast<int64_t>(ux * uz); break;
        case BinOp::kDiv:
          if (z == 0) return ctx.invalid("input B", "integer division by zero at element " + std::to_string(i));
          v = (x == INT64_MIN && z == -1) ? x : x / z;
          break;
        case BinOp::kPow: break;
      }
    }
    y.ints[static_cast<size_t>(i)] = v;
  }
  return Status::ok();
}

}  // namespace

Status run_Add(KernelContext& ctx) { return binary(ctx, BinOp::kAdd); }
Status run_Sub(KernelContext& ctx) { return binary(ctx, BinOp::kSub); }
Status run_Mul(KernelContext& ctx) { return binary(ctx, BinOp::kMul); }
Status run_Div(KernelContext& ctx) { return binary(ctx, BinOp::kDiv); }
Status run_Pow(KernelContext& ctx) { return binary(ctx, BinOp::kPow); }

}  // namespace rooflens::ref
