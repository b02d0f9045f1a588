// Reference Conv: N-d convolution with group, dilations, strides and pads (auto_pad resolved).
// X [N, C, D1..Dr], W [M, C/group, k1..kr], optional B [M] -> Y [N, M, O1..Or];
// sums accumulate in double.
#include "kernels.h"
#include "rooflens/ops/shape_math.h"

namespace rooflens::ref {

Window make_window(const KernelContext& ctx, const Shape& x, const Shape& y) {
  const auto& p = ctx.desc<WindowDesc>();
  Window w;
  w.in.assign(x.begin() + 2, x.end());
  w.out.assign(y.begin() + 2, y.end());
  w.kernel = p.kernel;
  w.strides = p.strides;
  w.dilations = p.dilations;
  w.pads = p.pads;
  return w;
}

Status run_Conv(KernelContext& ctx) {
  ROOFLENS_RETURN_IF_ERROR(require_float_tensor(ctx, 0, "input X"));
  ROOFLENS_RETURN_IF_ERROR(require_float_tensor(ctx, 1, "input W"));
  const Tensor& x = ctx.in(0);
  const Tensor& w = ctx.in(1);
  const Tensor* b = ctx.has_input(2) ? &ctx.in(2) : nullptr;
  if (b) ROOFLENS_RETURN_IF_ERROR(require_float_tensor(ctx, 2, "input B"));
  Tensor& y = ctx.alloc_out(0);
  const Window win = make_window(ctx, x.shape, y.shape);

  const int64_t n_batch = x.shape[0], c_in = x.shape[1], m_out = w.shape[0];
  const int64_t g = ctx.desc<WindowDesc>().groups;
  const int64_t c_per_group = c_in / g, m_per_group = m_out / g;
  const int64_t in_sp = ops::prod(x.shape, 2), out_sp = ops::prod(y.shape, 2);
  const int64_t k_sp = ops::prod(w.shape, 2);
  std::vector<Window::Tap> taps;
  int64_t unused = 0;
  for (int64_t o = 0; o < out_sp; ++o) {
    win.taps(o, &taps, &unused);
    for (int64_t n = 0; n < n_batch; ++n) {
      for (int64_t m = 0; m < m_out; ++m) {
        const int64_t grp = m / m_per_group;
        double acc = b ? static_cast<double>(b->data[static_cast<size_t>(m)]) : 0.0;
        for (int64_t c = 0; c < c_per_group; ++c) {
          const int64_t x_base = (n * c_in + grp * c_per_group + c) * in_sp;
          const int64_t w_base = (m * c_per_group + c) * k_sp;
          for (const Window::Tap& t : taps)
            acc += static_cast<double>(x.data[static_cast<size_t>(x_base + t.offset)]) *
                   static_cast<double>(w.data[static_cast<size_t>(w_base + t.k)]);
        }
        y.data[static_cast<size_t>((n * m_out + m) * out_sp + o)] = static_cast<float>(acc);
      }
    }
  }
  return Status::ok();
}

}  // namespace rooflens::ref
