// AVX-VNNI compute-peak kernel (see simd_kernels.h): INT8 dot products (VEX vpdpbusd ymm) on
// 12 independent accumulators, for CPUs with AVX-VNNI (Alder Lake and later, Zen 5). Compiled
// with -mavx2 -mavxvnni; called only when the CPU has them. Includes no standard-library header.
#include "rooflens/microbench/simd_kernels.h"

#if defined(__x86_64__)
#include <immintrin.h>

#define ROOFLENS_FOR12(OP) OP(0) OP(1) OP(2) OP(3) OP(4) OP(5) OP(6) OP(7) OP(8) OP(9) OP(10) OP(11)
static_assert(rooflens::microbench::kAccumulatorsAvx2 == 12, "ROOFLENS_FOR12 lists 12 accumulators");

namespace rooflens::microbench {

void dot_u8s8_avxvnni(uint64_t iters, int32_t* acc, uint32_t a_u8x4, uint32_t b_s8x4) {
  const __m256i va = _mm256_set1_epi32(static_cast<int>(a_u8x4));
  const __m256i vb = _mm256_set1_epi32(static_cast<int>(b_s8x4));
#define LOAD(i) __m256i x##i = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(acc + 8 * (i)));
#define STEP(i) x##i = _mm256_dpbusd_avx_epi32(x##i, va, vb);
#define STORE(i) _mm256_storeu_si256(reinterpret_cast<__m256i*>(acc + 8 * (i)), x##i);
  ROOFLENS_FOR12(LOAD)
  for (uint64_t it = 0; it < iters; ++it) {
    ROOFLENS_FOR12(STEP)
  }
  ROOFLENS_FOR12(STORE)
#undef LOAD
#undef STEP
#undef STORE
}

}  // namespace rooflens::microbench

#else

namespace rooflens::microbench {
void dot_u8s8_avxvnni(uint64_t, int32_t*, uint32_t, uint32_t) {}
}  // namespace rooflens::microbench

#endif
