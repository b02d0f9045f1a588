// Raw ISA-specific kernels of the probe, one translation unit per instruction set
// (fma_avx2.cpp, fma_avx512.cpp, fma_avxvnni.cpp, bandwidth_*.cpp), each compiled with that
// ISA's flags. This header includes nothing from the standard library on purpose: an inline
// library function instantiated in an AVX-512 translation unit could be picked by the linker
// for generic code and crash a CPU without AVX-512. Callers choose a kernel from the run-time
// IsaFeatures (kernels.h) and never call one the CPU lacks.
//
// Contracts shared by all kernels:
// - Compute kernels run `iters` iterations of one vector instruction on each of N independent
//   accumulators, N = kAccumulatorsAvx512 (zmm kernels) or kAccumulatorsAvx2 (ymm kernels):
//   enough to cover latency x 2 pipes (FP32 FMA latency 4-5 on Zen 3/4/5 and Skylake-X and
//   later; vdpbf16ps about 6 on Zen 5, where 12 zmm accumulators reach only 90%). `acc` holds
//   N x lanes 32-bit values, read on entry and written on exit.
// - Bandwidth kernels take 64-byte aligned arrays of n floats, n a multiple of
//   kBandwidthBlockFloats, and sweep them `passes` times.
#pragma once

#include <stddef.h>
#include <stdint.h>

namespace rooflens::microbench {

inline constexpr int kAccumulatorsAvx512 = 16;  // of the 32 zmm registers
inline constexpr int kAccumulatorsAvx2 = 12;    // of the 16 ymm registers (2 hold the operands)
inline constexpr int kMaxAccumulators = 16;
inline constexpr size_t kBandwidthBlockFloats = 16;  // 64 B: one zmm, one cache line

// acc = acc * a + b (vfmadd, single rounding), per lane.
void fma_f32_avx2(uint64_t iters, float* acc, float a, float b);    // 8 lanes (ymm)
void fma_f32_avx512(uint64_t iters, float* acc, float a, float b);  // 16 lanes (zmm)
// acc += a.lo * b.lo + a.hi * b.hi per fp32 lane (vdpbf16ps zmm); a_pair/b_pair hold two
// bf16 values (lo in bits 0-15) broadcast to every lane.
void dot_bf16_avx512(uint64_t iters, float* acc, uint32_t a_pair, uint32_t b_pair);
// acc += sum_k a.u8[k] * b.s8[k] (k = 0..3) per int32 lane (vpdpbusd): a unsigned, b signed bytes.
void dot_u8s8_avx512(uint64_t iters, int32_t* acc, uint32_t a_u8x4, uint32_t b_s8x4);   // zmm, 16 lanes
void dot_u8s8_avxvnni(uint64_t iters, int32_t* acc, uint32_t a_u8x4, uint32_t b_s8x4);  // ymm VEX, 8 lanes

// Returns the sum of p[0..n) accumulated over `passes` sweeps (keeps the loads alive).
float read_sum_avx512(const float* p, size_t n, int passes);
float read_sum_avx2(const float* p, size_t n, int passes);
float read_sum_sse2(const float* p, size_t n, int passes);
// p[i] = value + pass for every pass (the last pass leaves value + passes - 1).
void write_avx512(float* p, size_t n, float value, int passes);
void write_avx2(float* p, size_t n, float value, int passes);
void write_sse2(float* p, size_t n, float value, int passes);
// Same with non-temporal (streaming) stores, which bypass the caches; ends with sfence.
void write_nt_avx512(float* p, size_t n, float value, int passes);
void write_nt_avx2(float* p, size_t n, float value, int passes);
void write_nt_sse2(float* p, size_t n, float value, int passes);
// a[i] = b[i] + s * c[i] (STREAM triad), `passes` times.
void triad_avx512(float* a, const float* b, const float* c, float s, size_t n, int passes);
void triad_avx2(float* a, const float* b, const float* c, float s, size_t n, int passes);
void triad_sse2(float* a, const float* b, const float* c, float s, size_t n, int passes);

// Cycles-per-second estimate: `iters` x 64 dependent register adds (1 cycle each on every
// x86-64 core since the Pentium 4). Returns a value that depends on the input so the chain
// cannot be removed.
uint64_t dependent_add_chain(uint64_t iters);
inline constexpr int kAddsPerChainIter = 64;

}  // namespace rooflens::microbench
