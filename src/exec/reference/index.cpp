// Reference Range (start + i * delta) and ScatterND (data with the addressed slices replaced).
#include "kernels.h"

namespace rooflens::ref {

Status run_Range(KernelContext& ctx) {
  const double start = elem(ctx.in(0), 0), delta = elem(ctx.in(2), 0);
  Tensor& y = ctx.alloc_out(0);
  for (int64_t i = 0; i < y.numel(); ++i) {
    if (is_int(y))
      y.ints[static_cast<size_t>(i)] = ctx.in(0).ints.at(0) + i * ctx.in(2).ints.at(0);
    else
      y.data[static_cast<size_t>(i)] = static_cast<float>(start + static_cast<double>(i) * delta);
  }
  return Status::ok();
}

Status run_ScatterND(KernelContext& ctx) {
  const Tensor& data = ctx.in(0);
  const Tensor& idx = ctx.in(1);
  const Tensor& upd = ctx.in(2);
  Tensor& y = ctx.alloc_out(0);
  copy_mapped(data, &y, [](int64_t i) { return i; });
  const auto k = static_cast<size_t>(idx.shape.back());
  const int64_t slice = ops::prod(data.shape, k);
  const int64_t tuples = idx.numel() / static_cast<int64_t>(k);
  const std::vector<int64_t> st = strides_of(data.shape);
  const std::vector<int64_t> iv = int_contents(idx);
  for (int64_t t = 0; t < tuples; ++t) {
    int64_t base = 0;
    for (size_t j = 0; j < k; ++j) {
      int64_t x = iv[static_cast<size_t>(t) * k + j];
      if (x < 0) x += data.shape[j];
      if (x < 0 || x >= data.shape[j])
        return ctx.invalid("input indices", "index " + std::to_string(x) + " is out of range for dim " +
                                                std::to_string(j) + " of " + shape_str(data.shape));
      base += x * st[j];
    }
    for (int64_t s = 0; s < slice; ++s) copy_elem(upd, t * slice + s, &y, base + s);
  }
  return Status::ok();
}

}  // namespace rooflens::ref
