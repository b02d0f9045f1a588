// SSE2 bandwidth kernels (read, write, non-temporal write, triad; see simd_kernels.h), the
// x86-64 baseline used when the CPU has no AVX2. Built with the default flags.
#include "rooflens/microbench/simd_kernels.h"

#if defined(__x86_64__)
#include <immintrin.h>

static inline float rooflens_hsum128(__m128 s) {
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_shuffle_ps(s, s, 0x55));
  return _mm_cvtss_f32(s);
}

#define RL_VEC __m128
#define RL_W 4
#define RL_SFX sse2
#define RL_LOAD(p) _mm_load_ps(p)
#define RL_STORE(p, v) _mm_store_ps(p, v)
#define RL_STREAM(p, v) _mm_stream_ps(p, v)
#define RL_SET1(x) _mm_set1_ps(x)
#define RL_ADD(a, b) _mm_add_ps(a, b)
#define RL_MULADD(s, c, b) _mm_add_ps(b, _mm_mul_ps(s, c))
#define RL_HSUM(v) rooflens_hsum128(v)
#include "bandwidth_impl.inc"

#else

namespace rooflens::microbench {
float read_sum_sse2(const float*, size_t, int) { return 0; }
void write_sse2(float*, size_t, float, int) {}
void write_nt_sse2(float*, size_t, float, int) {}
void triad_sse2(float*, const float*, const float*, float, size_t, int) {}
}  // namespace rooflens::microbench

#endif
