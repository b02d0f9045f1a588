// Reference unary pointwise ops: Relu, LeakyRelu, Clip, Sigmoid, HardSigmoid, HardSwish,
// Tanh, Erf, Gelu (exact and tanh), Sqrt, Neg, and Cast. Values are computed in double and
// stored as fp32; Clip, Neg and Cast also take int64 tensors.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <string>

#include "kernels.h"

namespace rooflens::ref {
namespace {

template <typename F>
Status unary_float(KernelContext& ctx, F f) {
  ROOFLENS_RETURN_IF_ERROR(require_float_tensor(ctx, 0, "input X"));
  const Tensor& x = ctx.in(0);
  Tensor& y = ctx.alloc_out(0);
  for (size_t i = 0; i < x.data.size(); ++i) y.data[i] = static_cast<float>(f(static_cast<double>(x.data[i])));
  return Status::ok();
}

double sigmoid(double v) { return 1.0 / (1.0 + std::exp(-v)); }

// A scalar bound of Clip: input i when present (opset >= 11), else the descriptor's bound
// (the attribute before opset 11, or infinite).
Expected<double> clip_bound(const KernelContext& ctx, size_t i, const char* name, double def) {
  if (ctx.has_input(i)) {
    const Tensor& t = ctx.in(i);
    if (t.numel() != 1) return ctx.invalid(name, "must be a scalar");
    return elem(t, 0);
  }
  return def;
}

// Converts v to the integer type `t` the way a C cast to that type would, truncating
// toward zero (out-of-range floats saturate to int64 first, NaN becomes 0).
int64_t to_int_type(double v, DType t) {
  if (std::isnan(v)) return 0;
  int64_t i = 0;
  if (v >= 9.2233720368547758e18)
    i = std::numeric_limits<int64_t>::max();
  else if (v <= -9.2233720368547758e18)
    i = std::numeric_limits<int64_t>::min();
  else
    i = static_cast<int64_t>(v);
  switch (t) {
    case DType::kBool: return v != 0 ? 1 : 0;
    case DType::kI8: return static_cast<int8_t>(i);
    case DType::kU8: return static_cast<uint8_t>(i);
    case DType::kI16: return static_cast<int16_t>(i);
    case DType::kI32: return static_cast<int32_t>(i);
    default: return i;
  }
}

int64_t narrow_int(int64_t i, DType t) {
  switch (t) {
    case DType::kBool: return i != 0 ? 1 : 0;
    case DType::kI8: return static_cast<int8_t>(i);
    case DType::kU8: return static_cast<uint8_t>(i);
    case DType::kI16: return static_cast<int16_t>(i);
    case DType::kI32: return static_cast<int32_t>(i);
    default: return i;
  }
}

}  // namespace

Status run_Relu(KernelContext& ctx) {
  return unary_float(ctx, [](double v) { return v > 0 ? v : 0.0; });
}

Status run_LeakyRelu(KernelContext& ctx) {
  const double a = ctx.desc<ActivationDesc>().alpha;
  return unary_float(ctx, [a](double v) { return v >= 0 ? v : a * v; });
}

// y = min(max(x, min), max); with min > max every element becomes max (as ONNX specifies).
Status run_Clip(KernelContext& ctx) {
  const bool ints = is_int(ctx.in(0));
  const auto& d = ctx.desc<ActivationDesc>();
  auto lo = clip_bound(ctx, 1, "min", d.clip_min);
  auto hi = clip_bound(ctx, 2, "max", d.clip_max);
  if (!lo) return lo.status();
  if (!hi) return hi.status();
  const Tensor& x = ctx.in(0);
  Tensor& y = ctx.alloc_out(0);
  if (ints) {
    for (size_t i = 0; i < x.ints.size(); ++i) {
      const double v = std::min(std::max(static_cast<double>(x.ints[i]), *lo), *hi);
      y.ints[i] = static_cast<int64_t>(v);
    }
    return Status::ok();
  }
  for (size_t i = 0; i < x.data.size(); ++i)
    y.data[i] = static_cast<float>(std::min(std::max(static_cast<double>(x.data[i]), *lo), *hi));
  return Status::ok();
}

Status run_Sigmoid(KernelContext& ctx) { return unary_float(ctx, sigmoid); }

// y = max(0, min(1, alpha * x + beta))
Status run_HardSigmoid(KernelContext& ctx) {
  const auto& d = ctx.desc<ActivationDesc>();
  const double a = d.alpha, b = d.beta;
  return unary_float(ctx, [a, b](double v) { return std::max(0.0, std::min(1.0, a * v + b)); });
}

// y = x * max(0, min(1, x / 6 + 1/2))
Status run_HardSwish(KernelContext& ctx) {
  return unary_float(ctx, [](double v) { return v * std::max(0.0, std::min(1.0, v / 6.0 + 0.5)); });
}

Status run_Tanh(KernelContext& ctx) {
  return unary_float(ctx, [](double v) { return std::tanh(v); });
}

Status run_Erf(KernelContext& ctx) {
  return unary_float(ctx, [](double v) { return std::erf(v); });
}

// none: 0.5 x (1 + erf(x / sqrt 2)); tanh: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
Status run_Gelu(KernelContext& ctx) {
  if (ctx.desc<ActivationDesc>().gelu_tanh) {
    const double c = std::sqrt(2.0 / std::numbers::pi);
    return unary_float(ctx, [c](double v) { return 0.5 * v * (1.0 + std::tanh(c * (v + 0.044715 * v * v * v))); });
  }
  return unary_float(ctx, [](double v) { return 0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0))); });
}

Status run_Exp(KernelContext& ctx) {
  return unary_float(ctx, [](double v) { return std::exp(v); });
}

Status run_Not(KernelContext& ctx) {
  const Tensor& x = ctx.in(0);
  Tensor& y = ctx.alloc_out(0);
  for (int64_t i = 0; i < y.numel(); ++i) y.ints[static_cast<size_t>(i)] = elem(x, i) == 0 ? 1 : 0;
  return Status::ok();
}

Status run_Sqrt(KernelContext& ctx) {
  return unary_float(ctx, [](double v) { return std::sqrt(v); });
}

Status run_Neg(KernelContext& ctx) {
  const Tensor& x = ctx.in(0);
  if (!is_int(x)) return unary_float(ctx, [](double v) { return -v; });
  Tensor& y = ctx.alloc_out(0);
  for (size_t i = 0; i < x.ints.size(); ++i)
    y.ints[i] = static_cast<int64_t>(0ULL - static_cast<uint64_t>(x.ints[i]));  // wraps like two's complement
  return Status::ok();
}

// Integer targets (int8..int64, uint8, bool) are held in int64 with the target's range
// (C-style wrap for narrowing); floating targets are held in fp32 (the reference computes
// in fp32, so a cast to fp16/bf16/fp8 does not round).
Status run_Cast(KernelContext& ctx) {
  const DType t = ctx.desc<ActivationDesc>().cast_to;
  const Tensor& x = ctx.in(0);
  Tensor& y = ctx.alloc_out(0);
  const int64_t n = x.numel();
  for (int64_t i = 0; i < n; ++i) {
    const auto k = static_cast<size_t>(i);
    if (is_int(y))
      y.ints[k] = is_int(x) ? narrow_int(x.ints[k], t) : to_int_type(x.data[k], t);
    else
      y.data[k] = is_int(x) ? static_cast<float>(x.ints[k]) : x.data[k];
  }
  return Status::ok();
}

}  // namespace rooflens::ref
