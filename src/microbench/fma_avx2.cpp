// AVX2 + FMA compute-peak kernel (see simd_kernels.h): FP32 FMA on 12 independent ymm
// accumulators (12 of the 16 ymm registers; the other two hold the operands). Compiled with
// -mavx2 -mfma; called only when the CPU has them. Includes no standard-library header.
#include "rooflens/microbench/simd_kernels.h"

#if defined(__x86_64__)
#include <immintrin.h>

#define ROOFLENS_FOR12(OP) OP(0) OP(1) OP(2) OP(3) OP(4) OP(5) OP(6) OP(7) OP(8) OP(9) OP(10) OP(11)
static_assert(rooflens::microbench::kAccumulatorsAvx2 == 12, "ROOFLENS_FOR12 lists 12 accumulators");

namespace rooflens::microbench {

void fma_f32_avx2(uint64_t iters, float* acc, float a, float b) {
  const __m256 va = _mm256_set1_ps(a), vb = _mm256_set1_ps(b);
#define LOAD(i) __m256 x##i = _mm256_loadu_ps(acc + 8 * (i));
#define STEP(i) x##i = _mm256_fmadd_ps(x##i, va, vb);
#define STORE(i) _mm256_storeu_ps(acc + 8 * (i), x##i);
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
void fma_f32_avx2(uint64_t, float*, float, float) {}
}  // namespace rooflens::microbench

#endif
