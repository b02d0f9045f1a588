// Shared op helpers (see op_util.h).
#include "op_util.h"

#include <algorithm>

namespace rooflens::ops {

std::optional<Shape> broadcast_shapes(const Shape& a, const Shape& b) {
  size_t r = std::max(a.size(), b.size());
  Shape out(r);
  for (size_t i = 0; i < r; ++i) {
    int64_t da = i < r - a.size() ? 1 : a[i - (r - a.size())];
    int64_t db = i < r - b.size() ? 1 : b[i - (r - b.size())];
    if (da == db || db == 1)
      out[i] = da;
    else if (da == 1)
      out[i] = db;
    else
      return std::nullopt;
  }
  return out;
}

int64_t broadcast_source_index(const Shape& out, const Shape& in, int64_t flat_out) {
  int64_t idx = 0, stride = 1;
  size_t off = out.size() - in.size();
  for (size_t i = out.size(); i-- > 0;) {
    int64_t coord = flat_out % out[i];
    flat_out /= out[i];
    if (i >= off) {
      int64_t d = in[i - off];
      if (d != 1) idx += coord * stride;
      stride *= d;
    }
  }
  return idx;
}

int64_t pad_source_index(PadMode mode, int64_t j, int64_t k) {
  if (j >= 0 && j < k) return j;
  if (mode == PadMode::kEdge) return std::clamp<int64_t>(j, 0, k - 1);
  if (mode == PadMode::kWrap) return ((j % k) + k) % k;
  const int64_t period = 2 * (k - 1);  // reflect
  if (period == 0) return 0;
  j = ((j % period) + period) % period;
  return j >= k ? period - j : j;
}

int64_t prod(const Shape& s, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t i = begin; i < std::min(end, s.size()); ++i) p *= s[i];
  return p;
}

Status window_geometry(const InferContext& ctx, const Shape& spatial_in,
                       const std::vector<int64_t>& kernel_from_weights, WindowDesc* p, Shape* spatial_out) {
  const size_t r = spatial_in.size();
  const auto n = static_cast<int64_t>(r);
  if (kernel_from_weights.empty()) {
    auto k = ctx.attr_ints("kernel_shape");
    if (!k) return k.status();
    p->kernel = *k;
  } else {
    auto k = ctx.attr_ints("kernel_shape", kernel_from_weights);
    if (!k) return k.status();
    if (*k != kernel_from_weights)
      return ctx.invalid("kernel_shape", "kernel_shape " + shape_str(*k) + " disagrees with the weight tensor's " +
                                             shape_str(kernel_from_weights));
    p->kernel = *k;
  }
  if (p->kernel.size() != r)
    return ctx.invalid("kernel_shape",
                       "has " + std::to_string(p->kernel.size()) + " dims for " + std::to_string(r) + " spatial dims");
  auto s = ctx.attr_ints("strides", std::vector<int64_t>(r, 1));
  auto d = ctx.attr_ints("dilations", std::vector<int64_t>(r, 1));
  auto pads = ctx.attr_ints("pads", std::vector<int64_t>(2 * r, 0));
  auto auto_pad = ctx.attr_string("auto_pad", std::string("NOTSET"));
  auto ceil = ctx.attr_int("ceil_mode", 0);
  for (const Status* st : {&s.status(), &d.status(), &pads.status(), &auto_pad.status(), &ceil.status()})
    if (!st->is_ok()) return *st;
  p->strides = *s;
  p->dilations = *d;
  p->pads = *pads;
  p->ceil_mode = *ceil != 0;
  if (p->strides.size() != r) return ctx.invalid("strides", "needs " + std::to_string(r) + " values");
  if (p->dilations.size() != r) return ctx.invalid("dilations", "needs " + std::to_string(r) + " values");
  if (p->pads.size() != 2 * r) return ctx.invalid("pads", "needs " + std::to_string(2 * r) + " values");
  for (size_t i = 0; i < r; ++i) {
    if (p->kernel[i] <= 0) return ctx.invalid("kernel_shape", "must be positive, got " + std::to_string(p->kernel[i]));
    if (p->strides[i] <= 0) return ctx.invalid("strides", "must be positive, got " + std::to_string(p->strides[i]));
    if (p->dilations[i] <= 0)
      return ctx.invalid("dilations", "must be positive, got " + std::to_string(p->dilations[i]));
    for (size_t j : {i, i + r})
      if (p->pads[j] < 0)
        return ctx.invalid("pads", "must not be negative, got " + std::to_string(p->pads[j]) + " at index " +
                                       std::to_string(j));
  }
  if (*auto_pad == "SAME_UPPER")
    p->auto_pad = AutoPad::kSameUpper;
  else if (*auto_pad == "SAME_LOWER")
    p->auto_pad = AutoPad::kSameLower;
  else if (*auto_pad == "VALID")
    p->auto_pad = AutoPad::kValid;
  else if (*auto_pad == "NOTSET")
    p->auto_pad = AutoPad::kNotSet;
  spatial_out->assign(r, 0);
  for (size_t i = 0; i < r; ++i) {
    int64_t eff_k = 0;
    if (__builtin_mul_overflow(p->dilations[i], p->kernel[i] - 1, &eff_k) || __builtin_add_overflow(eff_k, 1, &eff_k))
      return ctx.invalid("dilations", "dilated window (dilation " + std::to_string(p->dilations[i]) + ", kernel " +
                                          std::to_string(p->kernel[i]) + ") overflows 64 bits");
    int64_t in = spatial_in[i];
    if (*auto_pad == "SAME_UPPER" || *auto_pad == "SAME_LOWER") {
      int64_t out = in / p->strides[i] + (in % p->strides[i] != 0);
      int64_t total = std::max<int64_t>(0, eff_k - (in - (out - 1) * p->strides[i]));
      int64_t small = total / 2, big = total - small;
      p->pads[i] = *auto_pad == "SAME_UPPER" ? small : big;
      p->pads[i + r] = *auto_pad == "SAME_UPPER" ? big : small;
      (*spatial_out)[i] = out;
      continue;
    }
    if (*auto_pad == "VALID") {
      p->pads[i] = p->pads[i + r] = 0;
    } else if (*auto_pad != "NOTSET") {
      return ctx.invalid("auto_pad", "unknown value '" + *auto_pad + "'");
    }
    int64_t padded = 0;
    if (__builtin_add_overflow(in, p->pads[i], &padded) || __builtin_add_overflow(padded, p->pads[i + r], &padded))
      return ctx.invalid("pads", "padded input (" + std::to_string(in) + " + " + std::to_string(p->pads[i]) + " + " +
                                     std::to_string(p->pads[i + r]) + ") overflows 64 bits on spatial axis " +
                                     std::to_string(i));
    int64_t span = padded - eff_k;
    if (span < 0)
      return ctx.invalid("kernel_shape", "window of " + std::to_string(eff_k) +
                                             " (with dilation) exceeds padded input " + std::to_string(padded) +
                                             " on spatial axis " + std::to_string(i));
    int64_t out = p->ceil_mode ? span / p->strides[i] + (span % p->strides[i] != 0) + 1 : span / p->strides[i] + 1;
    // ceil_mode: the last window must start inside the input or left padding.
    const int64_t lead = in + p->pads[i];
    if (p->ceil_mode && out - 1 >= lead / p->strides[i] + (lead % p->strides[i] != 0)) --out;
    (*spatial_out)[i] = out;
  }
  (void)n;
  return Status::ok();
}

Expected<std::vector<int64_t>> known_ints(const InferContext& ctx, size_t i, std::string_view what) {
  if (!ctx.has_input(i)) return ctx.invalid(what, "required input is missing");
  const auto& v = ctx.in_ints(i);
  if (!v)
    return ctx.unsupported(what, "input '" + ctx.input(i).name +
                                     "' must be known at analysis time (a constant or a folded "
                                     "shape expression); rooflens needs static shapes");
  return *v;
}

void fold_gather(InferContext& ctx, size_t in, const std::vector<int64_t>& src) {
  auto pick = [&src](const auto& v, auto* out) {
    out->resize(src.size());
    for (size_t j = 0; j < src.size(); ++j) {
      if (src[j] < 0 || static_cast<size_t>(src[j]) >= v.size()) return false;
      (*out)[j] = v[static_cast<size_t>(src[j])];
    }
    return true;
  };
  if (static_cast<int64_t>(src.size()) > kMaxFoldElements) return;
  if (const auto& v = ctx.in_ints(in)) {
    std::vector<int64_t> out;
    if (pick(*v, &out)) ctx.set_output_ints(0, std::move(out));
  } else if (const auto& r = ctx.in_reals(in)) {
    std::vector<double> out;
    if (pick(*r, &out)) ctx.set_output_reals(0, std::move(out));
  }
}

std::vector<int64_t> transpose_map(const Shape& x, const std::vector<int64_t>& perm) {
  const size_t r = x.size();
  std::vector<int64_t> in_stride(r, 1);
  for (size_t i = r; i-- > 1;) in_stride[i - 1] = in_stride[i] * x[i];
  Shape y(r);
  for (size_t i = 0; i < r; ++i) y[i] = x[static_cast<size_t>(perm[i])];
  const int64_t n = prod(x);
  std::vector<int64_t> src(static_cast<size_t>(n));
  std::vector<int64_t> coord(r, 0);
  for (int64_t j = 0; j < n; ++j) {
    int64_t off = 0;
    for (size_t i = 0; i < r; ++i) off += coord[i] * in_stride[static_cast<size_t>(perm[i])];
    src[static_cast<size_t>(j)] = off;
    for (size_t i = r; i-- > 0;) {
      if (++coord[i] < y[i]) break;
      coord[i] = 0;
    }
  }
  return src;
}

OpCost pointwise_cost(const CostContext& ctx, int64_t flops_per_element) {
  OpCost c = ctx.default_traffic();
  c.flops = flops_per_element * ctx.out_numel(0);
  return c;
}

}  // namespace rooflens::ops
