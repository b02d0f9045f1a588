// Reference Gemm (Y = alpha * A' B' + beta * C, C broadcast to [M, N]) and MatMul (numpy
// matmul: 1-D operands promoted, batch dims broadcast). Sums accumulate in double.
#include "kernels.h"
#include "rooflens/ops/shape_math.h"

namespace rooflens::ref {
namespace {

// out[M, N] = a[M, K] x b[K, N] where a(i, k) and b(k, j) read through the given strides.
void matmul_2d(const float* a, int64_t a_si, int64_t a_sk, const float* b, int64_t b_sk, int64_t b_sj, int64_t m,
               int64_t k, int64_t n, std::vector<double>* out) {
  out->assign(static_cast<size_t>(m * n), 0.0);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t kk = 0; kk < k; ++kk) {
      const double av = a[i * a_si + kk * a_sk];
      double* row = out->data() + i * n;
      for (int64_t j = 0; j < n; ++j) row[j] += av * static_cast<double>(b[kk * b_sk + j * b_sj]);
    }
}

}  // namespace

Status run_Gemm(KernelContext& ctx) {
  for (size_t i = 0; i < 3; ++i)
    if (ctx.has_input(i)) ROOFLENS_RETURN_IF_ERROR(require_float_tensor(ctx, i, "inputs"));
  const auto& d = ctx.desc<GemmDesc>();
  const bool ta = d.trans_a, tb = d.trans_b;
  const double alpha = d.alpha, beta = d.beta;
  const Tensor& a = ctx.in(0);
  const Tensor& b = ctx.in(1);
  const int64_t m = ta ? a.shape[1] : a.shape[0], k = ta ? a.shape[0] : a.shape[1];
  const int64_t n = tb ? b.shape[0] : b.shape[1];
  // A is stored [M, K] (or [K, M] when transposed); B [K, N] (or [N, K]).
  const int64_t a_si = ta ? 1 : k, a_sk = ta ? m : 1;
  const int64_t b_sk = tb ? 1 : n, b_sj = tb ? k : 1;
  std::vector<double> acc;
  matmul_2d(a.data.data(), a_si, a_sk, b.data.data(), b_sk, b_sj, m, k, n, &acc);
  Tensor& y = ctx.alloc_out(0);
  const Shape ys = {m, n};
  for (int64_t i = 0; i < m * n; ++i) {
    double v = alpha * acc[static_cast<size_t>(i)];
    if (ctx.has_input(2)) {
      const Tensor& c = ctx.in(2);
      v += beta * static_cast<double>(c.data[static_cast<size_t>(ops::broadcast_source_index(ys, c.shape, i))]);
    }
    y.data[static_cast<size_t>(i)] = static_cast<float>(v);
  }
  return Status::ok();
}

Status run_MatMul(KernelContext& ctx) {
  ROOFLENS_RETURN_IF_ERROR(require_float_tensor(ctx, 0, "input A"));
  ROOFLENS_RETURN_IF_ERROR(require_float_tensor(ctx, 1, "input B"));
  const Tensor& at = ctx.in(0);
  const Tensor& bt = ctx.in(1);
  Shape a = at.shape, b = bt.shape;
  if (a.size() == 1) a.insert(a.begin(), 1);
  if (b.size() == 1) b.push_back(1);
  const int64_t m = a[a.size() - 2], k = a.back(), n = b.back();
  const Shape a_batch(a.begin(), a.end() - 2), b_batch(b.begin(), b.end() - 2);
  auto batch = ops::broadcast_shapes(a_batch, b_batch);
  if (!batch) return ctx.invalid("inputs", "batch dimensions do not broadcast");
  Tensor& y = ctx.alloc_out(0);
  const int64_t nb = ops::prod(*batch);
  std::vector<double> acc;
  for (int64_t bi = 0; bi < nb; ++bi) {
    const int64_t ia = ops::broadcast_source_index(*batch, a_batch, bi);
    const int64_t ib = ops::broadcast_source_index(*batch, b_batch, bi);
    matmul_2d(at.data.data() + ia * m * k, k, 1, bt.data.data() + ib * k * n, n, 1, m, k, n, &acc);
    for (int64_t i = 0; i < m * n; ++i)
      y.data[static_cast<size_t>(bi * m * n + i)] = static_cast<float>(acc[static_cast<size_t>(i)]);
  }
  return Status::ok();
}

}  // namespace rooflens::ref
