// Data movement: Concat, Split, Slice, Pad, Transpose, Gather, Expand.
// Each copies what it reads to what it writes; integer contents are folded for shape math.
#include "op_util.h"

#include <algorithm>

namespace rooflens {
namespace {

// Known contents of every input concatenated along `a` (all ints or all reals).
template <typename T>
std::optional<std::vector<T>> concat_contents(const InferContext& ctx, const Shape& y, size_t a,
                                              const std::optional<std::vector<T>>& (InferContext::*get)(size_t) const) {
  const int64_t outer = ops::prod(y, 0, a), inner = ops::prod(y, a + 1);
  std::vector<T> out;
  out.reserve(static_cast<size_t>(ops::prod(y)));
  for (size_t i = 0; i < ctx.num_inputs(); ++i)
    if (!(ctx.*get)(i) || static_cast<int64_t>((ctx.*get)(i)->size()) != ops::prod(ctx.in_shape(i)))
      return std::nullopt;
  for (int64_t o = 0; o < outer; ++o)
    for (size_t i = 0; i < ctx.num_inputs(); ++i) {
      const int64_t chunk = ctx.in_shape(i)[a] * inner;
      const auto& v = *(ctx.*get)(i);
      out.insert(out.end(), v.begin() + o * chunk, v.begin() + (o + 1) * chunk);
    }
  return out;
}

void fold_concat(InferContext& ctx, const Shape& y, size_t a) {
  if (ops::prod(y) > ops::kMaxFoldElements) return;
  if (auto v = concat_contents<int64_t>(ctx, y, a, &InferContext::in_ints))
    ctx.set_output_ints(0, std::move(*v));
  else if (auto r = concat_contents<double>(ctx, y, a, &InferContext::in_reals))
    ctx.set_output_reals(0, std::move(*r));
}

}  // namespace

Status infer_Concat(InferContext& ctx) {
  ROOFLENS_RETURN_IF_ERROR(ctx.require_io(1, 1 << 20));
  auto axis_attr = ctx.attr_int("axis");
  if (!axis_attr) return axis_attr.status();
  const Shape& first = ctx.in_shape(0);
  auto axis = ctx.normalize_axis(*axis_attr, static_cast<int64_t>(first.size()), "axis");
  if (!axis) return axis.status();
  const auto a = static_cast<size_t>(*axis);
  ctx.set_desc(AxisDesc{*axis, {}, false});
  Shape y = first;
  y[a] = 0;
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    if (!ctx.has_input(i)) return ctx.invalid("inputs", "input " + std::to_string(i) + " is empty");
    const Shape& s = ctx.in_shape(i);
    if (s.size() != first.size())
      return ctx.invalid("inputs", "input " + std::to_string(i) + " has rank " + std::to_string(s.size()) +
                                       ", input 0 has " + std::to_string(first.size()));
    for (size_t d = 0; d < s.size(); ++d)
      if (d != a && s[d] != first[d])
        return ctx.invalid("inputs", "input " + std::to_string(i) + " shape " + shape_str(s) + " differs from " +
                                         shape_str(first) + " outside the concat axis " + std::to_string(a));
    if (__builtin_add_overflow(y[a], s[a], &y[a])) return ctx.invalid("inputs", "concatenated size overflows 64 bits");
  }
  ROOFLENS_RETURN_IF_ERROR(ctx.set_output(0, ctx.in_dtype(0), y));
  fold_concat(ctx, y, a);
  return Status::ok();
}
OpCost cost_Concat(const CostContext& ctx) { return ctx.default_traffic(); }

Status infer_Split(InferContext& ctx) {
  ROOFLENS_RETURN_IF_ERROR(ctx.require_io(1, 2, 1, 1 << 20));
  const Shape& x = ctx.in_shape(0);
  auto axis_attr = ctx.attr_int("axis", 0);
  if (!axis_attr) return axis_attr.status();
  auto axis = ctx.normalize_axis(*axis_attr, static_cast<int64_t>(x.size()), "axis");
  if (!axis) return axis.status();
  const auto a = static_cast<size_t>(*axis);
  const auto n_out = static_cast<int64_t>(ctx.num_outputs());
  std::vector<int64_t> sizes;
  if (ctx.has_input(1)) {
    auto s = ops::known_ints(ctx, 1, "input split");
    if (!s) return s.status();
    sizes = *s;
  } else if (ctx.has_attr("split")) {
    auto s = ctx.attr_ints("split");
    if (!s) return s.status();
    sizes = *s;
  } else {
    // Equal parts; the last may be smaller (opset 18 num_outputs semantics).
    const int64_t part = (x[a] + n_out - 1) / n_out;
    for (int64_t i = 0; i < n_out; ++i) sizes.push_back(std::min(part, x[a] - i * part));
  }
  if (static_cast<int64_t>(sizes.size()) != n_out)
    return ctx.invalid("split", std::to_string(sizes.size()) + " sizes for " + std::to_string(n_out) + " outputs");
  int64_t total = 0;
  for (int64_t s : sizes) {
    if (s < 0) return ctx.invalid("split", "negative size");
    if (__builtin_add_overflow(total, s, &total)) return ctx.invalid("split", "sizes sum overflows 64 bits");
  }
  if (total != x[a])
    return ctx.invalid("split", "sizes sum to " + std::to_string(total) + ", axis " + std::to_string(a) + " has " +
                                    std::to_string(x[a]));
  ctx.set_desc(AxisDesc{*axis, sizes, ctx.has_input(1) || ctx.has_attr("split")});
  for (size_t i = 0; i < sizes.size(); ++i) {
    Shape y = x;
    y[a] = sizes[i];
    ROOFLENS_RETURN_IF_ERROR(ctx.set_output(i, ctx.in_dtype(0), y));
  }
  return Status::ok();
}
OpCost cost_Split(const CostContext& ctx) { return ctx.default_traffic(); }

// Slice: starts/ends/axes/steps as inputs (opset >= 10) or attributes (< 10); must be known.
Status infer_Slice(InferContext& ctx) {
  ROOFLENS_RETURN_IF_ERROR(ctx.require_io(1, 5));
  const Shape& x = ctx.in_shape(0);
  const auto rank = static_cast<int64_t>(x.size());
  std::vector<int64_t> starts, ends, axes, steps;
  if (ctx.num_inputs() >= 3) {
    auto s = ops::known_ints(ctx, 1, "input starts");
    if (!s) return s.status();
    auto e = ops::known_ints(ctx, 2, "input ends");
    if (!e) return e.status();
    starts = *s;
    ends = *e;
    if (ctx.has_input(3)) {
      auto a = ops::known_ints(ctx, 3, "input axes");
      if (!a) return a.status();
      axes = *a;
    }
    if (ctx.has_input(4)) {
      auto st = ops::known_ints(ctx, 4, "input steps");
      if (!st) return st.status();
      steps = *st;
    }
  } else {
    auto s = ctx.attr_ints("starts");
    if (!s) return s.status();
    auto e = ctx.attr_ints("ends");
    if (!e) return e.status();
    auto a = ctx.attr_ints("axes", std::vector<int64_t>{});
    if (!a) return a.status();
    starts = *s;
    ends = *e;
    axes = *a;
  }
  if (axes.empty())
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size())
    return ctx.invalid("starts", "starts, ends, axes and steps must have equal lengths");
  Shape y = x;
  std::vector<int64_t> first(x.size(), 0), step(x.size(), 1);
  for (size_t i = 0; i < starts.size(); ++i) {
    auto a = ctx.normalize_axis(axes[i], rank, "axes");
    if (!a) return a.status();
    const int64_t dim = x[static_cast<size_t>(*a)];
    int64_t st = steps[i];
    if (st == 0) return ctx.invalid("steps", "step must not be 0");
    int64_t b, e;
    if (st > 0) {
      b = starts[i] < 0 ? std::max<int64_t>(0, starts[i] + dim) : std::min(starts[i], dim);
      e = ends[i] < 0 ? std::max<int64_t>(0, ends[i] + dim) : std::min(ends[i], dim);
      y[static_cast<size_t>(*a)] = e > b ? (e - b - 1) / st + 1 : 0;
    } else {
      b = starts[i] < 0 ? std::max<int64_t>(-1, starts[i] + dim) : std::min(starts[i], dim - 1);
      e = ends[i] < 0 ? std::max<int64_t>(-1, ends[i] + dim) : std::min(ends[i], dim - 1);
      y[static_cast<size_t>(*a)] = b > e ? 1 - (b - e - 1) / st : 0;
    }
    first[static_cast<size_t>(*a)] = b;
    step[static_cast<size_t>(*a)] = st;
  }
  std::vector<int64_t> norm_axes;
  for (int64_t ax : axes) norm_axes.push_back(ax < 0 ? ax + rank : ax);  // checked above
  ctx.set_desc(SliceDesc{first, step, y, starts, ends, norm_axes, steps});
  ROOFLENS_RETURN_IF_ERROR(ctx.set_output(0, ctx.in_dtype(0), y));
  if ((ctx.in_ints(0) || ctx.in_reals(0)) && ops::prod(y) <= ops::kMaxFoldElements) {
    std::vector<int64_t> src(static_cast<size_t>(ops::prod(y)));
    std::vector<int64_t> coord(y.size(), 0), in_stride(x.size(), 1);
    for (size_t i = x.size(); i-- > 1;) in_stride[i - 1] = in_stride[i] * x[i];
    for (auto& at : src) {
      int64_t off = 0;
      for (size_t i = 0; i < y.size(); ++i) off += (first[i] + coord[i] * step[i]) * in_stride[i];
      at = off;
      for (size_t i = y.size(); i-- > 0;) {
        if (++coord[i] < y[i]) break;
        coord[i] = 0;
      }
    }
    ops::fold_gather(ctx, 0, src);
  }
  return Status::ok();
}
// A slice reads only the elements it keeps.
OpCost cost_Slice(const CostContext& ctx) {
  OpCost c;
  c.bytes_out = ctx.bytes_of(ctx.output(0));
  c.bytes_in = (ctx.input(0).ints || ctx.input(0).reals) ? 0 : c.bytes_out;
  return c;
}

Status infer_Pad(InferContext& ctx) {
  ROOFLENS_RETURN_IF_ERROR(ctx.require_io(1, 4));
  const Shape& x = ctx.in_shape(0);
  std::vector<int64_t> pads;
  if (ctx.has_input(1)) {
    auto p = ops::known_ints(ctx, 1, "input pads");
    if (!p) return p.status();
    pads = *p;
  } else {
    auto p = ctx.attr_ints("pads");
    if (!p) return p.status();
    pads = *p;
  }
  auto mode = ctx.attr_string("mode", std::string("constant"));
  if (!mode) return mode.status();
  if (*mode != "constant" && *mode != "reflect" && *mode != "edge" && *mode != "wrap")
    return ctx.invalid("mode", "unknown mode '" + *mode + "'");
  const auto rank = static_cast<int64_t>(x.size());
  std::vector<int64_t> axes;
  if (ctx.has_input(3)) {
    auto a = ops::known_ints(ctx, 3, "input axes");
    if (!a) return a.status();
    for (int64_t v : *a) {
      auto n = ctx.normalize_axis(v, rank, "axes");
      if (!n) return n.status();
      axes.push_back(*n);
    }
  } else {
    for (int64_t i = 0; i < rank; ++i) axes.push_back(i);
  }
  if (pads.size() != 2 * axes.size())
    return ctx.invalid("pads",
                       "has " + std::to_string(pads.size()) + " values, expected " + std::to_string(2 * axes.size()));
  Shape y = x;
  for (size_t i = 0; i < axes.size(); ++i) {
    auto& d = y[static_cast<size_t>(axes[i])];
    if (__builtin_add_overflow(d, pads[i], &d) || __builtin_add_overflow(d, pads[i + axes.size()], &d))
      return ctx.invalid("pads", "padding axis " + std::to_string(axes[i]) + " overflows 64 bits");
    if (d < 0) return ctx.invalid("pads", "padding makes axis " + std::to_string(axes[i]) + " negative");
  }
  PadDesc d;
  d.pads.assign(2 * x.size(), 0);
  for (size_t i = 0; i < axes.size(); ++i) {
    d.pads[static_cast<size_t>(axes[i])] = pads[i];
    d.pads[static_cast<size_t>(axes[i]) + x.size()] = pads[i + axes.size()];
  }
  d.mode = *mode == "reflect" ? PadMode::kReflect
           : *mode == "edge"  ? PadMode::kEdge
           : *mode == "wrap"  ? PadMode::kWrap
                              : PadMode::kConstant;
  if (ctx.has_input(2)) {  // the value input, when known at analysis time
    if (const auto& r = ctx.in_reals(2); r && !r->empty())
      d.value = (*r)[0];
    else if (const auto& v = ctx.in_ints(2); v && !v->empty())
      d.value = static_cast<double>((*v)[0]);
  } else {
    auto v = ctx.attr_float("value", 0.0);
    if (!v) return v.status();
    d.value = *v;
  }
  ctx.set_desc(std::move(d));
  return ctx.set_output(0, ctx.in_dtype(0), y);
}
// A pad that adds nothing (every pad 0, as torchvision's DenseNet exports before its
// transition pooling) is elided by inference engines, rooflens's executor included.
OpCost cost_Pad(const CostContext& ctx) {
  if (ctx.input(0).shape && ctx.output(0).shape && ctx.in_shape(0) == ctx.out_shape(0)) return ctx.no_traffic();
  OpCost c;
  c.bytes_in = ctx.bytes_of(ctx.input(0));
  c.bytes_out = ctx.bytes_of(ctx.output(0));
  return c;
}

Status infer_Transpose(InferContext& ctx) {
  ROOFLENS_RETURN_IF_ERROR(ctx.require_io(1, 1));
  const Shape& x = ctx.in_shape(0);
  std::vector<int64_t> def(x.size());
  for (size_t i = 0; i < x.size(); ++i) def[i] = static_cast<int64_t>(x.size() - 1 - i);
  auto perm = ctx.attr_ints("perm", def);
  if (!perm) return perm.status();
  if (perm->size() != x.size())
    return ctx.invalid("perm", "has " + std::to_string(perm->size()) + " entries for rank " + std::to_string(x.size()));
  std::vector<bool> seen(x.size(), false);
  Shape y(x.size());
  for (size_t i = 0; i < perm->size(); ++i) {
    int64_t p = (*perm)[i];
    if (p < 0 || p >= static_cast<int64_t>(x.size()) || seen[static_cast<size_t>(p)])
      return ctx.invalid("perm", "is not a permutation of 0.." + std::to_string(x.size() - 1));
    seen[static_cast<size_t>(p)] = true;
    y[i] = x[static_cast<size_t>(p)];
  }
  ctx.set_desc(TransposeDesc{*perm});
  ROOFLENS_RETURN_IF_ERROR(ctx.set_output(0, ctx.in_dtype(0), y));
  if ((ctx.in_ints(0) || ctx.in_reals(0)) && ops::prod(x) <= ops::kMaxFoldElements)
    ops::fold_gather(ctx, 0, ops::transpose_map(x, *perm));
  return Status::ok();
}
OpCost cost_Transpose(const CostContext& ctx) { return ctx.default_traffic(); }

// Gather: out = data[:axis] + indices.shape + data[axis+1:].
Status infer_Gather(InferContext& ctx) {
  ROOFLENS_RETURN_IF_ERROR(ctx.require_io(2, 2));
  const Shape& data = ctx.in_shape(0);
  const Shape& idx = ctx.in_shape(1);
  if (data.empty()) return ctx.invalid("input data", "must have rank >= 1");
  if (!dtype_is_integer(ctx.in_dtype(1))) return ctx.invalid("input indices", "must be an integer tensor");
  auto axis_attr = ctx.attr_int("axis", 0);
  if (!axis_attr) return axis_attr.status();
  auto axis = ctx.normalize_axis(*axis_attr, static_cast<int64_t>(data.size()), "axis");
  if (!axis) return axis.status();
  const auto a = static_cast<size_t>(*axis);
  ctx.set_desc(AxisDesc{*axis, {}, false});
  Shape y(data.begin(), data.begin() + static_cast<std::ptrdiff_t>(a));
  y.insert(y.end(), idx.begin(), idx.end());
  y.insert(y.end(), data.begin() + static_cast<std::ptrdiff_t>(a) + 1, data.end());
  if (const auto& iv = ctx.in_ints(1)) {
    for (int64_t i : *iv)
      if (i < -data[a] || i >= data[a])
        return ctx.invalid("input indices",
                           "index " + std::to_string(i) + " is out of range for axis size " + std::to_string(data[a]));
  }
  ROOFLENS_RETURN_IF_ERROR(ctx.set_output(0, ctx.in_dtype(0), y));
  if (data.size() == 1 && ctx.in_ints(0) && ctx.in_ints(1)) {
    const auto& d = *ctx.in_ints(0);
    std::vector<int64_t> out;
    for (int64_t i : *ctx.in_ints(1)) {
      int64_t j = i < 0 ? i + data[0] : i;
      if (j < 0 || j >= static_cast<int64_t>(d.size())) return Status::ok();
      out.push_back(d[static_cast<size_t>(j)]);
    }
    ctx.set_output_ints(0, std::move(out));
  }
  return Status::ok();
}
// Reads the gathered rows (output-sized) and the indices; writes the output.
OpCost cost_Gather(const CostContext& ctx) {
  OpCost c;
  c.bytes_out = ctx.bytes_of(ctx.output(0));
  const Value& data = ctx.input(0);
  const bool known = data.ints || data.reals;
  if (!known) {
    if (data.is_stored)
      c.bytes_weights = c.bytes_out;
    else
      c.bytes_in = c.bytes_out;
  }
  if (!ctx.input(1).ints) c.bytes_in += ctx.bytes_of(ctx.input(1));
  return c;
}

Status infer_Expand(InferContext& ctx) {
  ROOFLENS_RETURN_IF_ERROR(ctx.require_io(2, 2));
  auto shape = ops::known_ints(ctx, 1, "input shape");
  if (!shape) return shape.status();
  auto y = ops::broadcast_shapes(ctx.in_shape(0), *shape);
  if (!y)
    return ctx.invalid("input shape",
                       "input " + shape_str(ctx.in_shape(0)) + " does not broadcast to " + shape_str(*shape));
  ROOFLENS_RETURN_IF_ERROR(ctx.set_output(0, ctx.in_dtype(0), *y));
  if (ctx.in_ints(0) || ctx.in_reals(0)) {
    auto n = checked_numel(*y);
    if (n && *n <= ops::kMaxFoldElements) {
      std::vector<int64_t> src(static_cast<size_t>(*n));
      for (int64_t i = 0; i < *n; ++i)
        src[static_cast<size_t>(i)] = ops::broadcast_source_index(*y, ctx.in_shape(0), i);
      ops::fold_gather(ctx, 0, src);
    }
  }
  return Status::ok();
}
OpCost cost_Expand(const CostContext& ctx) { return ctx.default_traffic(); }

}  // namespace rooflens
