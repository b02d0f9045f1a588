// Reference data movement: Concat, Split, Slice (negative steps and bounds, clamped as in
// shape inference), Pad (constant / reflect / edge / wrap, negative pads crop, optional
// axes), Transpose, Gather (negative indices), Expand. Work on fp32 and int64 tensors.
#include <algorithm>
#include <string>

#include "kernels.h"
#include "rooflens/ops/shape_math.h"

namespace rooflens::ref {

Status run_Concat(KernelContext& ctx) {
  Tensor& y = ctx.alloc_out(0);
  const auto a = static_cast<size_t>(ctx.desc<AxisDesc>().axis);
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

// Sizes as shape inference resolved them (the `split` input or attribute, or equal parts).
Status run_Split(KernelContext& ctx) {
  const Tensor& x = ctx.in(0);
  const auto& d = ctx.desc<AxisDesc>();
  const auto a = static_cast<size_t>(d.axis);
  const std::vector<int64_t>& sizes = d.split;
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

// First index and step per dim as shape inference resolved and clamped them (SliceDesc).
Status run_Slice(KernelContext& ctx) {
  const Tensor& x = ctx.in(0);
  const auto& d = ctx.desc<SliceDesc>();
  const std::vector<int64_t>& first = d.first;
  const std::vector<int64_t>& step = d.step;
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
  const auto& pd = ctx.desc<PadDesc>();
  const std::vector<int64_t>& pads = pd.pads;  // every dim: r begins then r ends
  const PadMode mode = pd.mode;
  double value = pd.value;
  if (ctx.has_input(2)) value = ctx.in(2).numel() > 0 ? elem(ctx.in(2), 0) : 0.0;
  std::vector<int64_t> begin(r, 0), crop(r, 0), kept(r, 0);
  for (size_t a = 0; a < r; ++a) {
    begin[a] = pads[a];
    crop[a] = std::max<int64_t>(0, -pads[a]);
    kept[a] = -std::max<int64_t>(0, -pads[a + r]);  // minus the end crop, for now
  }
  static const char* kModeNames[] = {"constant", "reflect", "edge", "wrap"};
  for (size_t d = 0; d < r; ++d) {
    kept[d] += x.shape[d] - crop[d];
    if (kept[d] <= 0 && mode != PadMode::kConstant)
      return ctx.invalid("pads", std::string("mode '") + kModeNames[static_cast<int>(mode)] +
                                     "' needs a non-empty input on axis " + std::to_string(d));
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
        if (mode == PadMode::kConstant)
          outside = true;
        else
          j = ops::pad_source_index(mode, j, k);
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
  const std::vector<int64_t>& perm = ctx.desc<TransposeDesc>().perm;
  Tensor& y = ctx.alloc_out(0);
  const std::vector<int64_t> xst = strides_of(x.shape);
  std::vector<int64_t> c;
  copy_mapped(x, &y, [&](int64_t i) {
    unravel(i, y.shape, &c);
    int64_t src = 0;
    for (size_t d = 0; d < c.size(); ++d) src += c[d] * xst[static_cast<size_t>(perm[d])];
    return src;
  });
  return Status::ok();
}

// out = data[:axis] + indices.shape + data[axis+1:]; negative indices count from the end.
Status run_Gather(KernelContext& ctx) {
  const Tensor& data = ctx.in(0);
  const std::vector<int64_t> idx = int_contents(ctx.in(1));
  const auto a = static_cast<size_t>(ctx.desc<AxisDesc>().axis);
  const int64_t dim = data.shape[a];
  std::vector<int64_t> norm(idx.size());
  for (size_t i = 0; i < idx.size(); ++i) {
    if (idx[i] < -dim || idx[i] >= dim)
      return ctx.invalid("input indices",
                         "index " + std::to_string(idx[i]) + " is out of range for axis size " + std::to_string(dim));
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
