// Reference reductions: ReduceMean (axes from the attribute or, from opset 18, the second
// input; keepdims; noop_with_empty_axes) and Softmax (one axis from opset 13; before 13 the
// input is coerced to 2-D at `axis` and each row of the flattened trailing dims is normalized).
#include <cmath>

#include "kernels.h"
#include "rooflens/ops/shape_math.h"

namespace rooflens::ref {

namespace {

// Mean (l2 = false) or L2 norm (l2 = true) over the descriptor's axes.
Status reduce(KernelContext& ctx, bool l2) {
  const Tensor& x = ctx.in(0);
  Tensor& y = ctx.alloc_out(0);
  std::vector<bool> reduce(x.shape.size(), false);
  for (int64_t a : ctx.desc<ReduceDesc>().axes) reduce[static_cast<size_t>(a)] = true;
  // The output index of an input element: reduced dims collapse to 0 (keepdims or not,
  // the output's row-major order is that of the kept dims).
  Shape kept(x.shape);
  for (size_t d = 0; d < kept.size(); ++d)
    if (reduce[d]) kept[d] = 1;
  const std::vector<int64_t> kst = strides_of(kept);
  std::vector<double> sums(static_cast<size_t>(y.numel()), 0.0);
  std::vector<int64_t> c;
  const int64_t n = x.numel();
  for (int64_t i = 0; i < n; ++i) {
    unravel(i, x.shape, &c);
    int64_t o = 0;
    for (size_t d = 0; d < c.size(); ++d)
      if (!reduce[d]) o += c[d] * kst[d];
    const double v = elem(x, i);
    sums[static_cast<size_t>(o)] += l2 ? v * v : v;
  }
  const int64_t count = y.numel() > 0 ? n / y.numel() : 0;
  for (size_t o = 0; o < sums.size(); ++o) {
    const double mean = l2 ? std::sqrt(sums[o]) : count > 0 ? sums[o] / static_cast<double>(count) : 0.0;
    if (is_int(y))
      y.ints[o] = static_cast<int64_t>(mean);
    else
      y.data[o] = static_cast<float>(mean);
  }
  return Status::ok();
}

}  // namespace

Status run_ReduceMean(KernelContext& ctx) { return reduce(ctx, false); }
Status run_ReduceL2(KernelContext& ctx) { return reduce(ctx, true); }

// exp(x - max) / sum, in double.
Status run_Softmax(KernelContext& ctx) {
  ROOFLENS_RETURN_IF_ERROR(require_float_tensor(ctx, 0, "input X"));
  const Tensor& x = ctx.in(0);
  const auto a = static_cast<size_t>(ctx.desc<AxisDesc>().axis);
  // Rows of `len` elements `stride` apart: outer x len x inner.
  int64_t outer = ops::prod(x.shape, 0, a), len = x.shape[a], inner = ops::prod(x.shape, a + 1);
  if (ctx.graph().opset < 13) {  // as shape inference decides the default axis
    len = ops::prod(x.shape, a);
    inner = 1;
  }
  Tensor& y = ctx.alloc_out(0);
  std::vector<double> e(static_cast<size_t>(len));
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t in = 0; in < inner; ++in) {
      const int64_t base = o * len * inner + in;
      double mx = -INFINITY;
      for (int64_t j = 0; j < len; ++j) mx = std::fmax(mx, x.data[static_cast<size_t>(base + j * inner)]);
      double sum = 0;
      for (int64_t j = 0; j < len; ++j) {
        e[static_cast<size_t>(j)] = std::exp(x.data[static_cast<size_t>(base + j * inner)] - mx);
        sum += e[static_cast<size_t>(j)];
      }
      for (int64_t j = 0; j < len; ++j)
        y.data[static_cast<size_t>(base + j * inner)] = static_cast<float>(e[static_cast<size_t>(j)] / sum);
    }
  return Status::ok();
}

}  // namespace rooflens::ref
