// AVX2 bandwidth kernels (read, write, non-temporal write, triad; see simd_kernels.h).
// Compiled with -mavx2 -mfma; called only when the CPU has them. No standard-library header.
#include "rooflens/microbench/simd_kernels.h"

#if defined(__x86_64__)
#include <immintrin.h>

static inline float rooflens_hsum256(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_shuffle_ps(s, s, 0x55));
  return _mm_cvtss_f32(s);
}

#define RL_VEC __m256
#define RL_W 8
#define RL_SFX avx2
#define RL_LOAD(p) _mm256_load_ps(p)
#define RL_STORE(p, v) _mm256_store_ps(p, v)
#define RL_STREAM(p, v) _mm256_stream_ps(p, v)
#define RL_SET1(x) _mm256_set1_ps(x)
#define RL_ADD(a, b) _mm256_add_ps(a, b)
#define RL_MULADD(s, c, b) _mm256_fmadd_ps(s, c, b)
#define RL_HSUM(v) rooflens_hsum256(v)
#include "bandwidth_impl.inc"

#else

namespace rooflens::microbench {
float read_sum_avx2(const float*, size_t, int) { return 0; }
void write_avx2(float*, size_t, float, int) {}
void write_nt_avx2(float*, size_t, float, int) {}
void triad_avx2(float*, const float*, const float*, float, size_t, int) {}
}  // namespace rooflens::microbench

#endif
