// The kernel catalogue (see kernels.h): picks the ISA-specific kernels this CPU can run and
// wraps them with fixed operands; the dependent-add chain that estimates the core clock.
#include "rooflens/microbench/kernels.h"

namespace rooflens::microbench {
namespace {

// Operands chosen so accumulators converge instead of overflowing: acc -> b / (1 - a).
constexpr float kFmaA = 0.999f, kFmaB = 0.001f;
// bf16 pairs (1.0, 0.5) x (2^-20, 2^-20): tiny increments, no overflow for any run length.
constexpr uint32_t kBf16A = 0x3F003F80u;  // hi 0.5 (0x3F00), lo 1.0 (0x3F80)
constexpr uint32_t kBf16B = 0x35803580u;  // 2^-20 in both halves
// u8 x s8: (1, 0, 0, 0) . (1, -1, 1, -1) = 1 per lane per instruction; int32 wraps after 2^31
// instructions per accumulator (about 10 minutes at 4 GHz), far beyond any repeat.
constexpr uint32_t kU8A = 0x00000001u;
constexpr uint32_t kS8B = 0xFF01FF01u;

void run_fma_f32_avx512(uint64_t iters, void* acc) { fma_f32_avx512(iters, static_cast<float*>(acc), kFmaA, kFmaB); }
void run_fma_f32_avx2(uint64_t iters, void* acc) { fma_f32_avx2(iters, static_cast<float*>(acc), kFmaA, kFmaB); }
void run_dot_bf16_avx512(uint64_t iters, void* acc) {
  dot_bf16_avx512(iters, static_cast<float*>(acc), kBf16A, kBf16B);
}
void run_dot_u8s8_avx512(uint64_t iters, void* acc) { dot_u8s8_avx512(iters, static_cast<int32_t*>(acc), kU8A, kS8B); }
void run_dot_u8s8_avxvnni(uint64_t iters, void* acc) {
  dot_u8s8_avxvnni(iters, static_cast<int32_t*>(acc), kU8A, kS8B);
}

}  // namespace

std::vector<ComputeKernel> compute_kernels(const IsaFeatures& isa) {
  std::vector<ComputeKernel> out;
#if defined(__x86_64__)
  constexpr int k512 = kAccumulatorsAvx512, k256 = kAccumulatorsAvx2;
  if (isa.has_avx512()) out.push_back({"fp32", "avx512", "vfmadd231ps zmm", 16, 2, k512, &run_fma_f32_avx512});
  if (isa.has_avx2_fma()) out.push_back({"fp32", "avx2", "vfmadd231ps ymm", 8, 2, k256, &run_fma_f32_avx2});
  if (isa.has_avx512() && isa.avx512_bf16)
    out.push_back({"bf16", "avx512", "vdpbf16ps zmm", 16, 4, k512, &run_dot_bf16_avx512});
  if (isa.has_avx512() && isa.avx512_vnni)
    out.push_back({"int8", "avx512", "vpdpbusd zmm (AVX512_VNNI)", 16, 8, k512, &run_dot_u8s8_avx512});
  if (isa.has_avx2_fma() && isa.avx_vnni)
    out.push_back({"int8", "avx2", "vpdpbusd ymm (AVX-VNNI)", 8, 8, k256, &run_dot_u8s8_avxvnni});
#else
  (void)isa;
#endif
  return out;
}

const char* bandwidth_kind_name(BandwidthKind k) {
  switch (k) {
    case BandwidthKind::kRead: return "read";
    case BandwidthKind::kWrite: return "write";
    case BandwidthKind::kWriteNontemporal: return "write_nt";
    case BandwidthKind::kTriad: return "triad";
  }
  return "?";
}

int bandwidth_arrays(BandwidthKind k) { return k == BandwidthKind::kTriad ? 3 : 1; }

double bandwidth_bytes(BandwidthKind k, size_t n, int passes) {
  return static_cast<double>(bandwidth_arrays(k)) * static_cast<double>(n) * sizeof(float) * passes;
}

BandwidthKernels bandwidth_kernels(const IsaFeatures& isa) {
  if (isa.has_avx512()) return {"avx512", &read_sum_avx512, &write_avx512, &write_nt_avx512, &triad_avx512};
  if (isa.has_avx2_fma()) return {"avx2", &read_sum_avx2, &write_avx2, &write_nt_avx2, &triad_avx2};
  return {"sse2", &read_sum_sse2, &write_sse2, &write_nt_sse2, &triad_sse2};
}

#define RL_ADD4    \
  "add %1, %0\n\t" \
  "add %1, %0\n\t" \
  "add %1, %0\n\t" \
  "add %1, %0\n\t"
#define RL_ADD16 RL_ADD4 RL_ADD4 RL_ADD4 RL_ADD4
#define RL_ADD64 RL_ADD16 RL_ADD16 RL_ADD16 RL_ADD16

uint64_t dependent_add_chain(uint64_t iters) {
  uint64_t x = iters;
  const uint64_t one = 1;
  for (uint64_t i = 0; i < iters; ++i) {
#if defined(__x86_64__)
    // Register-register adds: not eliminated at rename like add-immediate chains can be.
    __asm__ __volatile__(RL_ADD64 : "+r"(x) : "r"(one));
#else
    __asm__ __volatile__("" : "+r"(x));
    x += kAddsPerChainIter;
#endif
  }
  return x;
}

}  // namespace rooflens::microbench
