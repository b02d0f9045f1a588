// Index generation and scatter: Range (start, limit, delta scalars, known at analysis time)
// and ScatterND (data with slices replaced at the given indices). Exporters use both to compute
// masks from shapes (Swin's shifted-window attention mask); known contents are folded.
#include "op_util.h"

#include <algorithm>
#include <cmath>
#include <type_traits>

namespace rooflens {

Status infer_Range(InferContext& ctx) {
  ROOFLENS_RETURN_IF_ERROR(ctx.require_io(3, 3));
  for (size_t i = 0; i < 3; ++i)
    if (!ctx.in_shape(i).empty() && ops::prod(ctx.in_shape(i)) != 1)
      return ctx.invalid("input " + std::to_string(i), "must be a scalar, got " + shape_str(ctx.in_shape(i)));
  const DType dt = ctx.in_dtype(0);
  if (dtype_is_integer(dt)) {
    std::vector<int64_t> v[3];
    for (size_t i = 0; i < 3; ++i) {
      auto k = ops::known_ints(ctx, i, i == 0 ? "input start" : i == 1 ? "input limit" : "input delta");
      if (!k) return k.status();
      if (k->size() != 1) return ctx.invalid("inputs", "scalar contents expected");
      v[i] = *k;
    }
    const int64_t start = v[0][0], limit = v[1][0], delta = v[2][0];
    if (delta == 0) return ctx.invalid("input delta", "must not be 0");
    const int64_t n = std::max<int64_t>(0, (limit - start + delta + (delta > 0 ? -1 : 1)) / delta);
    ROOFLENS_RETURN_IF_ERROR(ctx.set_output(0, dt, {n}));
    if (n <= ops::kMaxFoldElements) {
      std::vector<int64_t> out(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) out[static_cast<size_t>(i)] = start + i * delta;
      ctx.set_output_ints(0, std::move(out));
    }
    return Status::ok();
  }
  double v[3];
  for (size_t i = 0; i < 3; ++i) {
    const auto& r = ctx.in_reals(i);
    if (!r || r->size() != 1)
      return ctx.unsupported("input " + std::to_string(i),
                             "must be known at analysis time; rooflens needs static shapes");
    v[i] = (*r)[0];
  }
  if (v[2] == 0) return ctx.invalid("input delta", "must not be 0");
  const auto n = static_cast<int64_t>(std::max(0.0, std::ceil((v[1] - v[0]) / v[2])));
  ROOFLENS_RETURN_IF_ERROR(ctx.set_output(0, dt, {n}));
  if (n <= ops::kMaxFoldElements) {
    std::vector<double> out(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) out[static_cast<size_t>(i)] = v[0] + static_cast<double>(i) * v[2];
    ctx.set_output_reals(0, std::move(out));
  }
  return Status::ok();
}
// Writes its output; reads nothing at run time (inputs are scalars known at analysis time).
OpCost cost_Range(const CostContext& ctx) { return ctx.default_traffic(); }

namespace {

// The flat offsets in `data` each update element lands on; nullopt if an index is out of range.
std::optional<std::vector<int64_t>> scatter_targets(const Shape& data, const Shape& idx_shape,
                                                    const std::vector<int64_t>& idx) {
  const size_t k = static_cast<size_t>(idx_shape.back());
  const int64_t tuples = ops::prod(idx_shape, 0, idx_shape.size() - 1);
  const int64_t slice = ops::prod(data, k);
  std::vector<int64_t> stride(data.size(), 1);
  for (size_t i = data.size(); i-- > 1;) stride[i - 1] = stride[i] * data[i];
  std::vector<int64_t> out;
  out.reserve(static_cast<size_t>(tuples * slice));
  for (int64_t t = 0; t < tuples; ++t) {
    int64_t base = 0;
    for (size_t j = 0; j < k; ++j) {
      int64_t x = idx[static_cast<size_t>(t) * k + j];
      if (x < 0) x += data[j];
      if (x < 0 || x >= data[j]) return std::nullopt;
      base += x * stride[j];
    }
    for (int64_t s = 0; s < slice; ++s) out.push_back(base + s);
  }
  return out;
}

template <typename T>
void fold_scatter(InferContext& ctx, const std::vector<int64_t>& targets, const std::vector<T>& data,
                  const std::vector<T>& upd) {
  if (upd.size() != targets.size()) return;
  std::vector<T> out = data;
  for (size_t i = 0; i < targets.size(); ++i) out[static_cast<size_t>(targets[i])] = upd[i];
  if constexpr (std::is_same_v<T, int64_t>)
    ctx.set_output_ints(0, std::move(out));
  else
    ctx.set_output_reals(0, std::move(out));
}

}  // namespace

// ScatterND(data, indices[..., k], updates[..., data.shape[k:]]): output = data with the
// addressed slices replaced (reduction 'none' only).
Status infer_ScatterND(InferContext& ctx) {
  ROOFLENS_RETURN_IF_ERROR(ctx.require_io(3, 3));
  auto red = ctx.attr_string("reduction", std::string("none"));
  if (!red) return red.status();
  if (*red != "none") return ctx.unsupported("reduction", "only 'none' is supported, got '" + *red + "'");
  const Shape& data = ctx.in_shape(0);
  const Shape& idx = ctx.in_shape(1);
  const Shape& upd = ctx.in_shape(2);
  if (!dtype_is_integer(ctx.in_dtype(1))) return ctx.invalid("input indices", "must be an integer tensor");
  if (idx.empty() || idx.back() < 1 || idx.back() > static_cast<int64_t>(data.size()))
    return ctx.invalid("input indices",
                       "last dim of " + shape_str(idx) + " must be in 1.." + std::to_string(data.size()));
  Shape want(idx.begin(), idx.end() - 1);
  want.insert(want.end(), data.begin() + idx.back(), data.end());
  if (upd != want) return ctx.invalid("input updates", "shape " + shape_str(upd) + " should be " + shape_str(want));
  ROOFLENS_RETURN_IF_ERROR(ctx.set_output(0, ctx.in_dtype(0), data));
  const auto& iv = ctx.in_ints(1);
  if (!iv || ops::prod(data) > ops::kMaxFoldElements) return Status::ok();
  auto targets = scatter_targets(data, idx, *iv);
  if (!targets) return ctx.invalid("input indices", "an index is out of range for data " + shape_str(data));
  if (ctx.in_ints(0) && ctx.in_ints(2)) fold_scatter(ctx, *targets, *ctx.in_ints(0), *ctx.in_ints(2));
  if (ctx.in_reals(0) && ctx.in_reals(2)) fold_scatter(ctx, *targets, *ctx.in_reals(0), *ctx.in_reals(2));
  return Status::ok();
}
// Copies data to the output and writes the updates: reads data, indices and updates.
OpCost cost_ScatterND(const CostContext& ctx) { return ctx.default_traffic(); }

}  // namespace rooflens
