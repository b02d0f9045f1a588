// Reference meta ops: Shape (start/end), Constant (value, value_int(s), value_float(s)) and
// ConstantOfShape (value). They are folded at analysis time; running them here lets the
// reference check the folding. A Constant whose float data was stripped from the file gets
// generated contents, like a stored weight (see exec/weights.h).
#include <algorithm>

#include "kernels.h"
#include "rooflens/exec/weights.h"

namespace rooflens::ref {

Status run_Shape(KernelContext& ctx) {
  const Shape& x = ctx.in(0).shape;
  const auto& d = ctx.desc<ShapeDesc>();
  Tensor& y = ctx.alloc_out(0);
  y.ints.assign(x.begin() + d.start, x.begin() + d.end);
  return Status::ok();
}

Status run_Constant(KernelContext& ctx) {
  Tensor& y = ctx.alloc_out(0);
  const int64_t n = y.numel();
  if (const TensorConst* t = ctx.attr_tensor("value")) {
    if (is_int(y)) {
      if (static_cast<int64_t>(t->ints.size()) == n) {
        y.ints = t->ints;
        return Status::ok();
      }
      if (n > 0) return ctx.unsupported("value", "integer tensor has no data (stripped from the file)");
      return Status::ok();
    }
    if (static_cast<int64_t>(t->reals.size()) == n) {
      for (size_t i = 0; i < t->reals.size(); ++i) y.data[i] = static_cast<float>(t->reals[i]);
      return Status::ok();
    }
    auto gen = stored_tensor(ctx.graph(), ctx.node().outputs[0], ctx.seed());
    if (!gen) return gen.status();
    y = std::move(*gen);
    return Status::ok();
  }
  // value_int(s) / value_float(s): shape inference recorded the contents.
  const Value& out = ctx.out_value(0);
  if (out.ints) {
    y.ints = *out.ints;
  } else if (out.reals) {
    y.data.assign(out.reals->begin(), out.reals->end());
  } else {
    return ctx.unsupported("value", "Constant needs one of value, value_int(s), value_float(s)");
  }
  return Status::ok();
}

// Output shape is the input's contents; every element is `value` (default fp32 0).
Status run_ConstantOfShape(KernelContext& ctx) {
  double fill = 0;
  if (const TensorConst* t = ctx.attr_tensor("value")) {
    if (!t->ints.empty()) fill = static_cast<double>(t->ints[0]);
    if (!t->reals.empty()) fill = t->reals[0];
  }
  Tensor& y = ctx.alloc_out(0);
  if (y.shape != int_contents(ctx.in(0)))
    return ctx.invalid("input shape", "contents differ from the inferred output shape " + shape_str(y.shape));
  if (is_int(y))
    y.ints.assign(y.ints.size(), static_cast<int64_t>(fill));
  else
    y.data.assign(y.data.size(), static_cast<float>(fill));
  return Status::ok();
}

}  // namespace rooflens::ref
