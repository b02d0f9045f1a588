// The GPU probe's matrix peaks: square cublasGemmEx per dtype and size, timed with events,
// with a few elements of C checked against a host dot product (see gpu_probe_internal.h).
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <fmt/format.h>

#include <cmath>
#include <cstring>

#include "gpu_kernels.h"
#include "gpu_probe_internal.h"

namespace rooflens::microbench::gpu {
namespace {

constexpr uint32_t kSeedA = 1, kSeedB = 2;

struct GemmKind {
  const char* dtype;
  const char* unit;
  cudaDataType_t data_type;  // A, B and C
  cublasComputeType_t compute;
  const char* compute_name;
  FillType fill;
  size_t elem_bytes;
  double in_eps;   // relative error per product: rounding of the inputs inside cuBLAS (tf32) and accumulation
  double out_eps;  // relative rounding of C's type
};

constexpr GemmKind kKinds[] = {
    {"fp32", "cuda", CUDA_R_32F, CUBLAS_COMPUTE_32F_PEDANTIC, "CUBLAS_COMPUTE_32F_PEDANTIC", FillType::kF32, 4, 2e-5,
     1.2e-7},
    {"tf32", "tensor", CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32, "CUBLAS_COMPUTE_32F_FAST_TF32", FillType::kF32, 4,
     1e-3, 1.2e-7},
    {"fp16", "tensor", CUDA_R_16F, CUBLAS_COMPUTE_32F, "CUBLAS_COMPUTE_32F", FillType::kF16, 2, 2e-4, 9.8e-4},
    {"bf16", "tensor", CUDA_R_16BF, CUBLAS_COMPUTE_32F, "CUBLAS_COMPUTE_32F", FillType::kBF16, 2, 2e-4, 7.9e-3},
};

// Element (i, j) of C read back as float.
Expected<float> read_c(const void* c, int64_t m, int64_t i, int64_t j, const GemmKind& kind) {
  const size_t off = static_cast<size_t>(i + j * m) * kind.elem_bytes;
  unsigned char raw[4] = {0, 0, 0, 0};
  const cudaError_t e =
      cudaMemcpy(raw, static_cast<const unsigned char*>(c) + off, kind.elem_bytes, cudaMemcpyDeviceToHost);
  if (e != cudaSuccess) return cuda_status(e, "cudaMemcpy (read back C)");
  if (kind.fill == FillType::kF32) {
    float v;
    std::memcpy(&v, raw, 4);
    return v;
  }
  if (kind.fill == FillType::kF16) {
    __half h;
    std::memcpy(&h, raw, 2);
    return __half2float(h);
  }
  __nv_bfloat16 b;
  std::memcpy(&b, raw, 2);
  return __bfloat162float(b);
}

// Checks 8 elements of C = A x B (column major, m = n = k) against double-precision dot
// products of the same rounded operands. Sets m.verified and m.max_abs_error.
Status verify(const void* c, int64_t n, const GemmKind& kind, GemmMeasurement& m) {
  const int64_t picks[][2] = {{0, 0},         {n - 1, n - 1}, {0, n - 1}, {n - 1, 0},
                              {n / 2, n / 3}, {n / 3, n / 2}, {7, n - 5}, {n - 9, 11}};
  m.verified = true;
  m.max_abs_error = 0;
  for (const auto& ij : picks) {
    const int64_t i = ij[0], j = ij[1];
    double ref = 0, abs_sum = 0;
    for (int64_t p = 0; p < n; ++p) {
      const double a = rounded_uniform(static_cast<uint64_t>(i + p * n), kSeedA, kind.fill);
      const double b = rounded_uniform(static_cast<uint64_t>(p + j * n), kSeedB, kind.fill);
      ref += a * b;
      abs_sum += std::fabs(a * b);
    }
    auto got = read_c(c, n, i, j, kind);
    if (!got) return got.status();
    const double err = std::fabs(static_cast<double>(*got) - ref);
    // Rounding of C's type, plus input rounding and accumulation error, which grow like
    // sqrt(k) x the mean product magnitude for random signs; about 20x the expected error.
    const double tol =
        4 * kind.out_eps * std::fabs(ref) + 16 * kind.in_eps * std::sqrt(static_cast<double>(n)) * (abs_sum / n) + 1e-4;
    if (!std::isfinite(*got) || err > tol) m.verified = false;
    if (std::isfinite(*got))
      m.max_abs_error = std::max(m.max_abs_error, err);
    else
      m.max_abs_error = INFINITY;
  }
  return Status::ok();
}

}  // namespace

Status measure_gemms(const Plan& plan, cudaStream_t s, const std::vector<int64_t>& sizes,
                     std::vector<GemmMeasurement>* out, std::vector<std::string>* warnings) {
  int64_t largest = 0;
  for (int64_t n : sizes) largest = std::max(largest, n);
  if (largest <= 0) return Status::ok();
  const size_t bytes = static_cast<size_t>(largest * largest) * 4;  // fp32 is the widest operand type
  DeviceBuffer a, b, c, workspace;
  ROOFLENS_RETURN_IF_ERROR(a.allocate(bytes).with_context("GEMM operand A"));
  ROOFLENS_RETURN_IF_ERROR(b.allocate(bytes).with_context("GEMM operand B"));
  ROOFLENS_RETURN_IF_ERROR(c.allocate(bytes).with_context("GEMM result C"));
  constexpr size_t kWorkspace = size_t{64} << 20;  // >= the 32 MiB NVIDIA recommends for Hopper
  ROOFLENS_RETURN_IF_ERROR(workspace.allocate(kWorkspace).with_context("cuBLAS workspace"));
  CublasHandle h;
  ROOFLENS_RETURN_IF_ERROR(h.create());
  RL_CUBLAS(cublasSetStream(h.get(), s));
  RL_CUBLAS(cublasSetWorkspace(h.get(), workspace.get(), kWorkspace));
  RL_CUBLAS(cublasSetPointerMode(h.get(), CUBLAS_POINTER_MODE_HOST));

  for (int64_t n : sizes) {
    for (const GemmKind& kind : kKinds) {
      if (plan.progress)
        plan.progress(fmt::format("probe gpu: cuBLAS GEMM {} {}x{}x{} ({})", kind.dtype, n, n, n, kind.compute_name));
      const size_t count = static_cast<size_t>(n * n);
      ROOFLENS_RETURN_IF_ERROR(fill_uniform(a.get(), count, kind.fill, kSeedA, s));
      ROOFLENS_RETURN_IF_ERROR(fill_uniform(b.get(), count, kind.fill, kSeedB, s));
      RL_CUDA(cudaMemsetAsync(c.get(), 0, count * kind.elem_bytes, s));
      const float alpha = 1.0f, beta = 0.0f;
      const int ni = static_cast<int>(n);
      auto gemm = [&]() -> Status {
        RL_CUBLAS(cublasGemmEx(h.get(), CUBLAS_OP_N, CUBLAS_OP_N, ni, ni, ni, &alpha, a.get(), kind.data_type, ni,
                               b.get(), kind.data_type, ni, &beta, c.get(), kind.data_type, ni, kind.compute,
                               CUBLAS_GEMM_DEFAULT));
        return Status::ok();
      };
      // The first call selects the algorithm; its result is checked before anything is timed. A
      // combination this cuBLAS or device refuses is skipped with a warning, not fatal.
      const cublasStatus_t first =
          cublasGemmEx(h.get(), CUBLAS_OP_N, CUBLAS_OP_N, ni, ni, ni, &alpha, a.get(), kind.data_type, ni, b.get(),
                       kind.data_type, ni, &beta, c.get(), kind.data_type, ni, kind.compute, CUBLAS_GEMM_DEFAULT);
      if (first == CUBLAS_STATUS_NOT_SUPPORTED || first == CUBLAS_STATUS_INVALID_VALUE ||
          first == CUBLAS_STATUS_ARCH_MISMATCH) {
        warnings->push_back(fmt::format("GEMM {} n={}: cublasGemmEx refused {} ({}): not measured", kind.dtype, n,
                                        kind.compute_name, cublasGetStatusString(first)));
        continue;
      }
      if (first != CUBLAS_STATUS_SUCCESS) return cublas_status(first, "cublasGemmEx (first call)");
      RL_CUDA(cudaGetLastError());
      RL_CUDA(cudaStreamSynchronize(s));
      GemmMeasurement m;
      m.dtype = kind.dtype;
      m.unit = kind.unit;
      m.accumulator = "fp32";
      m.compute_type = kind.compute_name;
      m.m = m.n = m.k = n;
      ROOFLENS_RETURN_IF_ERROR(verify(c.get(), n, kind, m));
      auto runs = time_runs(s, plan.warmups, plan.repeats, plan.target_repeat_s, 50, gemm);
      if (!runs) return runs.status().with_context(fmt::format("GEMM {} n={}", kind.dtype, n));
      std::vector<double> rates;
      const double flop = 2.0 * static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n);
      for (double t : runs->seconds_per_run) rates.push_back(flop / t);
      m.gemms_per_repeat = runs->per_repeat;
      m.flops = summarize(rates, true);
      out->push_back(std::move(m));
    }
  }
  RL_CUDA(cudaStreamSynchronize(s));
  return Status::ok();
}

}  // namespace rooflens::microbench::gpu
