// AVX-512 compute-peak kernels (see simd_kernels.h): FP32 FMA, BF16 dot products
// (AVX512_BF16) and INT8 dot products (AVX512_VNNI) on 16 independent zmm accumulators.
// Compiled with -mavx512f -mavx512bw -mavx512vl -mavx512bf16 -mavx512vnni; called only when
// the CPU has them. Includes no standard-library header (see simd_kernels.h).
#include "rooflens/microbench/simd_kernels.h"

#if defined(__x86_64__)
#include <immintrin.h>

// Applies OP to the kAccumulatorsAvx512 = 16 accumulators x0..x15.
#define ROOFLENS_FOR16(OP) \
  OP(0) OP(1) OP(2) OP(3) OP(4) OP(5) OP(6) OP(7) OP(8) OP(9) OP(10) OP(11) OP(12) OP(13) OP(14) OP(15)
static_assert(rooflens::microbench::kAccumulatorsAvx512 == 16, "ROOFLENS_FOR16 lists 16 accumulators");

namespace rooflens::microbench {

void fma_f32_avx512(uint64_t iters, float* acc, float a, float b) {
  const __m512 va = _mm512_set1_ps(a), vb = _mm512_set1_ps(b);
#define LOAD(i) __m512 x##i = _mm512_loadu_ps(acc + 16 * (i));
#define STEP(i) x##i = _mm512_fmadd_ps(x##i, va, vb);
#define STORE(i) _mm512_storeu_ps(acc + 16 * (i), x##i);
  ROOFLENS_FOR16(LOAD)
  for (uint64_t it = 0; it < iters; ++it) {
    ROOFLENS_FOR16(STEP)
  }
  ROOFLENS_FOR16(STORE)
#undef LOAD
#undef STEP
#undef STORE
}

void dot_bf16_avx512(uint64_t iters, float* acc, uint32_t a_pair, uint32_t b_pair) {
  const __m512bh va = (__m512bh)_mm512_set1_epi32(static_cast<int>(a_pair));
  const __m512bh vb = (__m512bh)_mm512_set1_epi32(static_cast<int>(b_pair));
#define LOAD(i) __m512 x##i = _mm512_loadu_ps(acc + 16 * (i));
#define STEP(i) x##i = _mm512_dpbf16_ps(x##i, va, vb);
#define STORE(i) _mm512_storeu_ps(acc + 16 * (i), x##i);
  ROOFLENS_FOR16(LOAD)
  for (uint64_t it = 0; it < iters; ++it) {
    ROOFLENS_FOR16(STEP)
  }
  ROOFLENS_FOR16(STORE)
#undef LOAD
#undef STEP
#undef STORE
}

void dot_u8s8_avx512(uint64_t iters, int32_t* acc, uint32_t a_u8x4, uint32_t b_s8x4) {
  const __m512i va = _mm512_set1_epi32(static_cast<int>(a_u8x4));
  const __m512i vb = _mm512_set1_epi32(static_cast<int>(b_s8x4));
#define LOAD(i) __m512i x##i = _mm512_loadu_si512(acc + 16 * (i));
#define STEP(i) x##i = _mm512_dpbusd_epi32(x##i, va, vb);
#define STORE(i) _mm512_storeu_si512(acc + 16 * (i), x##i);
  ROOFLENS_FOR16(LOAD)
  for (uint64_t it = 0; it < iters; ++it) {
    ROOFLENS_FOR16(STEP)
  }
  ROOFLENS_FOR16(STORE)
#undef LOAD
#undef STEP
#undef STORE
}

}  // namespace rooflens::microbench

#else  // not x86-64: never called (compute_kernels() lists none)

namespace rooflens::microbench {
void fma_f32_avx512(uint64_t, float*, float, float) {}
void dot_bf16_avx512(uint64_t, float*, uint32_t, uint32_t) {}
void dot_u8s8_avx512(uint64_t, int32_t*, uint32_t, uint32_t) {}
}  // namespace rooflens::microbench

#endif
