// AVX-512 bandwidth kernels (read, write, non-temporal write, triad; see simd_kernels.h).
// Compiled with -mavx512f; called only when the CPU has AVX-512. No standard-library header.
#include "rooflens/microbench/simd_kernels.h"

#if defined(__x86_64__)
#include <immintrin.h>

// Through memory: GCC 12's _mm512_reduce_add_ps trips -Wuninitialized in its own header.
static inline float rooflens_hsum512(__m512 v) {
  alignas(64) float t[16];
  _mm512_store_ps(t, v);
  float s = 0;
  for (int i = 0; i < 16; ++i) s += t[i];
  return s;
}

#define RL_VEC __m512
#define RL_W 16
#define RL_SFX avx512
#define RL_LOAD(p) _mm512_load_ps(p)
#define RL_STORE(p, v) _mm512_store_ps(p, v)
#define RL_STREAM(p, v) _mm512_stream_ps(p, v)
#define RL_SET1(x) _mm512_set1_ps(x)
#define RL_ADD(a, b) _mm512_add_ps(a, b)
#define RL_MULADD(s, c, b) _mm512_fmadd_ps(s, c, b)
#define RL_HSUM(v) rooflens_hsum512(v)
#include "bandwidth_impl.inc"

#else

namespace rooflens::microbench {
float read_sum_avx512(const float*, size_t, int) { return 0; }
void write_avx512(float*, size_t, float, int) {}
void write_nt_avx512(float*, size_t, float, int) {}
void triad_avx512(float*, const float*, const float*, float, size_t, int) {}
}  // namespace rooflens::microbench

#endif
