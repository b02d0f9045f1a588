// Reference binary pointwise ops with numpy broadcasting: Add, Sub, Mul, Div, Pow, Mod, the
// comparisons Equal/Less/Greater and And/Or (bool outputs held as int64 0/1), and Where.
// fp32 tensors compute in double; int64 tensors in int64 (wrapping on overflow, Div
// truncating toward zero and refusing division by zero).
#include <cmath>
#include <cstdint>
#include <string>

#include "kernels.h"
#include "rooflens/ops/shape_math.h"

namespace rooflens::ref {
namespace {

enum class BinOp { kAdd, kSub, kMul, kDiv, kPow, kMod };

double apply(BinOp op, double a, double b) {
  switch (op) {
    case BinOp::kAdd: return a + b;
    case BinOp::kSub: return a - b;
    case BinOp::kMul: return a * b;
    case BinOp::kDiv: return a / b;
    case BinOp::kPow: return std::pow(a, b);
    case BinOp::kMod: return std::fmod(a, b);
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
        case BinOp::kMod:
          if (z == 0) return ctx.invalid("input B", "integer modulo by zero at element " + std::to_string(i));
          v = (x == INT64_MIN && z == -1) ? 0 : x % z;
          if (!ctx.desc<ModDesc>().fmod && v != 0 && ((v < 0) != (z < 0))) v += z;
          break;
        case BinOp::kPow: break;
      }
    }
    y.ints[static_cast<size_t>(i)] = v;
  }
  return Status::ok();
}

enum class CmpOp { kEqual, kLess, kGreater, kAnd, kOr };

Status compare(KernelContext& ctx, CmpOp op) {
  const Tensor& a = ctx.in(0);
  const Tensor& b = ctx.in(1);
  Tensor& y = ctx.alloc_out(0);
  for (int64_t i = 0; i < y.numel(); ++i) {
    const double x = elem(a, ops::broadcast_source_index(y.shape, a.shape, i));
    const double z = elem(b, ops::broadcast_source_index(y.shape, b.shape, i));
    bool r = false;
    switch (op) {
      case CmpOp::kEqual: r = x == z; break;
      case CmpOp::kLess: r = x < z; break;
      case CmpOp::kGreater: r = x > z; break;
      case CmpOp::kAnd: r = x != 0 && z != 0; break;
      case CmpOp::kOr: r = x != 0 || z != 0; break;
    }
    y.ints[static_cast<size_t>(i)] = r ? 1 : 0;
  }
  return Status::ok();
}

}  // namespace

Status run_Mod(KernelContext& ctx) { return binary(ctx, BinOp::kMod); }
Status run_Equal(KernelContext& ctx) { return compare(ctx, CmpOp::kEqual); }
Status run_Less(KernelContext& ctx) { return compare(ctx, CmpOp::kLess); }
Status run_Greater(KernelContext& ctx) { return compare(ctx, CmpOp::kGreater); }
Status run_And(KernelContext& ctx) { return compare(ctx, CmpOp::kAnd); }
Status run_Or(KernelContext& ctx) { return compare(ctx, CmpOp::kOr); }

Status run_Where(KernelContext& ctx) {
  const Tensor& c = ctx.in(0);
  const Tensor& x = ctx.in(1);
  const Tensor& z = ctx.in(2);
  Tensor& y = ctx.alloc_out(0);
  for (int64_t i = 0; i < y.numel(); ++i) {
    const bool take_x = elem(c, ops::broadcast_source_index(y.shape, c.shape, i)) != 0;
    const Tensor& src = take_x ? x : z;
    copy_elem(src, ops::broadcast_source_index(y.shape, src.shape, i), &y, i);
  }
  return Status::ok();
}

Status run_Add(KernelContext& ctx) { return binary(ctx, BinOp::kAdd); }
Status run_Sub(KernelContext& ctx) { return binary(ctx, BinOp::kSub); }
Status run_Mul(KernelContext& ctx) { return binary(ctx, BinOp::kMul); }
Status run_Div(KernelContext& ctx) { return binary(ctx, BinOp::kDiv); }
Status run_Pow(KernelContext& ctx) { return binary(ctx, BinOp::kPow); }

}  // namespace rooflens::ref
