// Reference data movement: Concat, Split, Slice (negative steps and bounds, clamped as in
// shape inference), Pad (constant / reflect / edge / wrap, negative pads crop, optional
// axes), Transpose, Gather (negative indices), Expand. Work on fp32 and int64 tensors.
#include <algorithm>
#include <string>

#include "../../ops/op_util.h"
#include "kernels.h"

namespace rooflens::ref {

Status run_Concat(KernelContext& ctx) {
  auto axis_attr = ctx.attr_int("axis");
  if (!axis_attr) return axis_attr.status();
  Tensor& y = ctx.alloc_out(0);
  auto axis = ctx.normalize_axis(*axis_attr, static_cast<int64_t>(y.shape.size()), "axis");
  if (!axis) return axis.status();
  const auto a = static_cast<size_t>(*axis);
  const int64_t outer = ops::prod(y.shape, 0, a), inner = ops::prod(y.shape, a + 1);
  const int64_t out_row = y.shape[a] * inner;
  int64_t at = 0;  // offset of the current input's block inside an output row
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    const Tensor& x = ctx.in(i);
    const int64_t row = x.shape[a] * inner;
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t j = 0; j < row; ++j) copy_elem(x, o * row + j, &y, o * out_row + at + j);
    at += row;
  }
  return Status::ok();
}

// Sizes from the `split` input, the `split` attribute, or equal parts (the last smaller).
Status run_Split(KernelContext& ctx) {
  const Tensor& x = ctx.in(0);
  auto axis_attr = ctx.attr_int("axis", 0);
  if (!axis_attr) return axis_attr.status();
  auto axis = ctx.normalize_axis(*axis_attr, static_cast<int64_t>(x.shape.size()), "axis");
  if (!axis) return axis.status();
  const auto a = static_cast<size_t>(*axis);
  const auto n_out = static_cast<int64_t>(ctx.num_outputs());
  std::vector<int64_t> sizes;
  if (ctx.has_input(1)) {
    sizes = int_contents(ctx.in(1));
  } else if (ctx.has_attr("split")) {
    auto s = ctx.attr_ints("split");
    if (!s) return s.status();
    sizes = *s;
  } else {
    const int64_t part = (x.shape[a] + n_out - 1) / n_out;
    for (int64_t i = 0; i < n_out; ++i) sizes.push_back(std::min(part, x.shape[a] - i * part));
  }
  if (static_cast<int64_t>(sizes.size()) != n_out)
    return ctx.invalid(
        "split", std::to_string(sizes.size()) + " sizes for " + std::to_string(n_out) + " outputs");
  const int64_t outer = ops::prod(x.shape, 0, a), inner = ops::prod(x.shape, a + 1);
  const int64_t in_row = x.shape[a] * inner;
  int64_t at = 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    const int64_t row = sizes[i] * inner;
    if (ctx.has_out(i)) {
      Tensor& y = ctx.alloc_out(i);
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t j = 0; j < row; ++j) copy_elem(x, o * in_row + at + j, &y, o * row + j);
    }
    at += row;
  }
  return Status::ok();
}

// starts/ends/axes/steps from inputs (opset >= 10) or attributes; bounds clamped per ONNX.
Status run_Slice(KernelContext& ctx) {
  const Tensor& x = ctx.in(0);
  const auto rank = static_cast<int64_t>(x.shape.size());
  std::vector<int64_t> starts, ends, axes, steps;
  if (ctx.num_inputs() >= 3) {
    starts = int_contents(ctx.in(1));
    ends = int_contents(ctx.in(2));
    if (ctx.has_input(3)) axes = int_contents(ctx.in(3));
    if (ctx.has_input(4)) steps = int_contents(ctx.in(4));
  } else {
    auto s = ctx.attr_ints("starts");
    auto e = ctx.attr_ints("ends");
    auto ax = ctx.attr_ints("axes", std::vector<int64_t>{});
    for (const Status* st : {&s.status(), &e.status(), &ax.status()})
      if (!st->is_ok()) return *st;
    starts = *s;
    ends = *e;
    axes = *ax;
  }
  if (axes.empty())
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size())
    return ctx.invalid("starts", "starts, ends, axes and steps must have equal lengths");
  std::vector<int64_t> first(x.shape.size(), 0), step(x.shape.size(), 1);
  for (size_t i = 0; i < starts.size(); ++i) {
    auto ax = ctx.normalize_axis(axes[i], rank, "axes");
    if (!ax) return ax.status();
    const int64_t dim = x.shape[static_cast<size_t>(*ax)], st = steps[i];
    if (st == 0) return ctx.invalid("steps", "step must not be 0");
    const int64_t s = starts[i];
    first[static_cast<size_t>(*ax)] =
        st > 0 ? (s < 0 ? std::max<int64_t>(0, s + dim) : std::min(s, dim))
               : (s < 0 ? std::max<int64_t>(-1, s + dim) : std::min(s, dim - 1));
    step[static_cast<size_t>(*ax)] = st;
  }
  Tensor& y = ctx.alloc_out(0);
  const std::vector<int64_t> xst = strides_of(x.shape);
  std::vector<int64_t> c;
  copy_mapped(x, &y, [&](int64_t i) {
    unravel(i, y.shape, &c);
    int64_t src = 0;
    for (size_t d = 0; d < c.size(); ++d) src += (first[d] + c[d] * step[d]) * xst[d];
    return src;
  });
  return Status::ok();
}

// Output coordinate o on an axis with pads (b, e) maps to an input coordinate: negative pads
// crop first, then the cropped extent is padded by the mode.
Status run_Pad(KernelContext& ctx) {
  const Tensor& x = ctx.in(0);
  const size_t r = x.shape.size();
  std::vector<int64_t> pads;
  if (ctx.has_input(1)) {
    pads = int_contents(ctx.in(1));
  } else {
    auto p = ctx.attr_ints("pads");
    if (!p) return p.status();
    pads = *p;
  }
  auto mode = ctx.attr_string("mode", std::string("constant"));
  if (!mode) return mode.status();
  double value = 0;
  if (ctx.has_input(2)) {
    if (ctx.in(2).numel() > 0) value = elem(ctx.in(2), 0);
  } else {
    auto v = ctx.attr_float("value", 0.0);
    if (!v) return v.status();
    value = *v;
  }
  std::vector<int64_t> axes;
  if (ctx.has_input(3)) {
    for (int64_t a : int_contents(ctx.in(3))) {
      auto n = ctx.normalize_axis(a, static_cast<int64_t>(r), "axes");
      if (!n) return n.status();
      axes.push_back(*n);
    }
  } else {
    for (size_t i = 0; i < r; ++i) axes.push_back(static_cast<int64_t>(i));
  }
  if (pads.size() != 2 * axes.size())
    return ctx.invalid("pads", "has " + std::to_string(pads.size()) + " values, expected " +
                                   std::to_string(2 * axes.size()));
  std::vector<int64_t> begin(r, 0), crop(r, 0), kept(r, 0);
  for (size_t i = 0; i < axes.size(); ++i) {
    const auto a = static_cast<size_t>(axes[i]);
    begin[a] = pads[i];
    crop[a] = std::max<int64_t>(0, -pads[i]);
    kept[a] = -std::max<int64_t>(0, -pads[i + axes.size()]);  // minus the end crop, for now
  }
  for (size_t d = 0; d < r; ++d) {
    kept[d] += x.shape[d] - crop[d];
    if (kept[d] <= 0 && *mode != "constant")
      return ctx.invalid(
          "pads", "mode '" + *mode + "' needs a non-empty input on axis " + std::to_string(d));
  }
  Tensor& y = ctx.alloc_out(0);
  const std::vector<int64_t> xst = strides_of(x.shape);
  std::vector<int64_t> c;
  const int64_t n = y.numel();
  for (int64_t i = 0; i < n; ++i) {
    unravel(i, y.shape, &c);
    int64_t src = 0;
    bool outside = false;
    for (size_t d = 0; d < r && !outside; ++d) {
      int64_t j = c[d] - std::max<int64_t>(0, begin[d]);
      const int64_t k = kept[d];
      if (j < 0 || j >= k) {
        if (*mode == "constant")
          outside = true;
        else if (*mode == "edge")
          j = std::clamp<int64_t>(j, 0, k - 1);
        else if (*mode == "wrap")
          j = ((j % k) + k) % k;
        else if (*mode == "reflect") {
          const int64_t period = 2 * (k - 1);
          j = period == 0 ? 0 : ((j % period) + period) % period;
          if (j >= k) j = period - j;
        } else {
          return ctx.invalid("mode", "unknown mode '" + *mode + "'");
        }
      }
      src += (j + crop[d]) * xst[d];
    }
    if (outside) {
      if (is_int(y))
        y.ints[static_cast<size_t>(i)] = static_cast<int64_t>(value);
      else
        y.data[static_cast<size_t>(i)] = static_cast<float>(value);
    } else {
      copy_elem(x, src, &y, i);
    }
  }
  return Status::ok();
}

Status run_Transpose(KernelContext& ctx) {
  const Tensor& x = ctx.in(0);
  std::vector<int64_t> def(x.shape.size());
  for (size_t i = 0; i < def.size(); ++i) def[i] = static_cast<int64_t>(def.size() - 1 - i);
  auto perm = ctx.attr_ints("perm", def);
  if (!perm) return perm.status();
  Tensor& y = ctx.alloc_out(0);
  const std::vector<int64_t> xst = strides_of(x.shape);
  std::vector<int64_t> c;
  copy_mapped(x, &y, [&](int64_t i) {
    unravel(i, y.shape, &c);
    int64_t src = 0;
    for (size_t d = 0; d < c.size(); ++d) src += c[d] * xst[static_cast<size_t>((*perm)[d])];
    return src;
  });
  return Status::ok();
}

// out = data[:axis] + indices.shape + data[axis+1:]; negative indices count from the end.
Status run_Gather(KernelContext& ctx) {
  const Tensor& data = ctx.in(0);
  const std::vector<int64_t> idx = int_contents(ctx.in(1));
  auto axis_attr = ctx.attr_int("axis", 0);
  if (!axis_attr) return axis_attr.status();
  auto axis = ctx.normalize_axis(*axis_attr, static_cast<int64_t>(data.shape.size()), "axis");
  if (!axis) return axis.status();
  const auto a = static_cast<size_t>(*axis);
  const int64_t dim = data.shape[a];
  std::vector<int64_t> norm(idx.size());
  for (size_t i = 0; i < idx.size(); ++i) {
    if (idx[i] < -dim || idx[i] >= dim)
      return ctx.invalid("input indices", "index " + std::to_string(idx[i]) +
                                              " is out of range for axis size " +
                                              std::to_string(dim));
    norm[i] = idx[i] < 0 ? idx[i] + dim : idx[i];
  }
  Tensor& y = ctx.alloc_out(0);
  const int64_t inner = ops::prod(data.shape, a + 1), n_idx = static_cast<int64_t>(idx.size());
  copy_mapped(data, &y, [&](int64_t i) {
    const int64_t in = i % inner, j = (i / inner) % n_idx, o = i / inner / n_idx;
    return (o * dim + norm[static_cast<size_t>(j)]) * inner + in;
  });
  return Status::ok();
}

Status run_Expand(KernelContext& ctx) {
  const Tensor& x = ctx.in(0);
  Tensor& y = ctx.alloc_out(0);
  copy_mapped(x, &y, [&](int64_t i) { return ops::broadcast_source_index(y.shape, x.shape, i); });
  return Status::ok();
}

}  // namespace rooflens::ref
