// Reference pooling: MaxPool (with its optional Indices output), AveragePool
// (count_include_pad both ways), GlobalAveragePool and GlobalMaxPool. Windowed pools honour
// the window shape inference resolved (kernel, strides, dilations, pads with auto_pad and
// ceil_mode applied).
#include <limits>

#include "kernels.h"
#include "rooflens/ops/shape_math.h"

namespace rooflens::ref {
namespace {

// Column-major index of spatial coordinates (MaxPool storage_order = 1).
int64_t col_major(const std::vector<int64_t>& coords, const Shape& dims) {
  int64_t idx = 0, stride = 1;
  for (size_t d = 0; d < dims.size(); ++d) {
    idx += coords[d] * stride;
    stride *= dims[d];
  }
  return idx;
}

Status window_pool(KernelContext& ctx, bool is_max) {
  ROOFLENS_RETURN_IF_ERROR(require_float_tensor(ctx, 0, "input X"));
  const Tensor& x = ctx.in(0);
  const auto& d = ctx.desc<WindowDesc>();
  const bool cip = d.count_include_pad, col = d.storage_order == 1;
  Tensor& y = ctx.alloc_out(0);
  const Window win = make_window(ctx, x.shape, y.shape);
  Tensor* indices = is_max && ctx.has_out(1) ? &ctx.alloc_out(1) : nullptr;
  const int64_t planes = x.shape[0] * x.shape[1];
  const int64_t in_sp = ops::prod(x.shape, 2), out_sp = ops::prod(y.shape, 2);
  std::vector<Window::Tap> taps;
  int64_t in_padded = 0;
  for (int64_t o = 0; o < out_sp; ++o) {
    win.taps(o, &taps, &in_padded);
    for (int64_t p = 0; p < planes; ++p) {
      const float* xp = x.data.data() + p * in_sp;
      const auto at = static_cast<size_t>(p * out_sp + o);
      if (is_max) {
        // Padding never wins; a window lying wholly in padding yields -inf.
        float best = -std::numeric_limits<float>::infinity();
        const Window::Tap* arg = nullptr;
        for (const Window::Tap& t : taps)
          if (arg == nullptr || xp[t.offset] > best) {
            best = xp[t.offset];
            arg = &t;
          }
        y.data[at] = best;
        if (indices && arg) indices->ints[at] = p * in_sp + (col ? col_major(arg->coords, win.in) : arg->offset);
        continue;
      }
      double sum = 0;
      for (const Window::Tap& t : taps) sum += xp[t.offset];
      // count_include_pad=1 divides by the window's positions inside the padded input (the
      // ceil_mode overhang past the end padding is not counted, as in PyTorch and ONNX
      // Runtime); 0 divides by the positions inside the input. An empty window gives 0.
      const int64_t count = cip ? in_padded : static_cast<int64_t>(taps.size());
      y.data[at] = count > 0 ? static_cast<float>(sum / static_cast<double>(count)) : 0.0f;
    }
  }
  return Status::ok();
}

Status global_pool(KernelContext& ctx, bool is_max) {
  ROOFLENS_RETURN_IF_ERROR(require_float_tensor(ctx, 0, "input X"));
  const Tensor& x = ctx.in(0);
  Tensor& y = ctx.alloc_out(0);
  const int64_t planes = x.shape[0] * x.shape[1], in_sp = ops::prod(x.shape, 2);
  for (int64_t p = 0; p < planes; ++p) {
    const float* xp = x.data.data() + p * in_sp;
    if (is_max) {
      float best = -std::numeric_limits<float>::infinity();
      for (int64_t i = 0; i < in_sp; ++i) best = i == 0 || xp[i] > best ? xp[i] : best;
      y.data[static_cast<size_t>(p)] = best;
    } else {
      double sum = 0;
      for (int64_t i = 0; i < in_sp; ++i) sum += xp[i];
      y.data[static_cast<size_t>(p)] = in_sp > 0 ? static_cast<float>(sum / static_cast<double>(in_sp)) : 0.0f;
    }
  }
  return Status::ok();
}

}  // namespace

Status run_MaxPool(KernelContext& ctx) { return window_pool(ctx, true); }
Status run_AveragePool(KernelContext& ctx) { return window_pool(ctx, false); }
Status run_GlobalAveragePool(KernelContext& ctx) { return global_pool(ctx, false); }
Status run_GlobalMaxPool(KernelContext& ctx) { return global_pool(ctx, true); }

}  // namespace rooflens::ref
