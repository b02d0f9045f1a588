// Internal to the GPU probe: the probe's own kernels (operand fill, vector copy, empty
// kernel) behind host wrappers that check the launch, plus the repeat timer every figure
// uses. Included only by .cu files (hash_uniform is __host__ __device__).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "cuda_check.h"

namespace rooflens::microbench::gpu {

// Element i of a buffer filled with `seed`: uniform in [-1, 1) on a 2^-23 grid, from a
// splitmix64 hash, bit-identical on host and device (so the host can recompute operands).
__host__ __device__ inline float hash_uniform(uint64_t i, uint32_t seed) {
  uint64_t x = i * 0x9E3779B97F4A7C15ull + (static_cast<uint64_t>(seed) + 1) * 0xD1B54A32D192ED03ull;
  x ^= x >> 30;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 27;
  x *= 0x94D049BB133111EBull;
  x ^= x >> 31;
  return static_cast<float>((x >> 40) & 0xFFFFFFull) * (2.0f / 16777216.0f) - 1.0f;
}

enum class FillType { kF32, kF16, kBF16 };

// Fills `count` elements of `p` (device memory of FillType) with hash_uniform(i, seed)
// rounded to the type (round to nearest). Checks the launch.
Status fill_uniform(void* p, size_t count, FillType type, uint32_t seed, cudaStream_t s);
// hash_uniform(i, seed) rounded to `type` as the device does, back in float (host side).
float rounded_uniform(uint64_t i, uint32_t seed, FillType type);

// dst[i] = src[i] for `bytes` bytes (a multiple of 16; both 16-byte aligned) with 16-byte
// vector loads and stores, grid-stride over `blocks` x 256 threads. Checks the launch.
Status copy_vec16(const void* src, void* dst, size_t bytes, int blocks, cudaStream_t s);

// One launch of a kernel that does nothing (1 block, 32 threads). Checks the launch.
Status launch_empty(cudaStream_t s);

// Runs body() (which enqueues work on `s`) `warmups` times, estimates its duration from the
// last warm-up, then times `repeats` repeats of `per_repeat` back-to-back runs each, where
// per_repeat = clamp(ceil(target_s / estimate), 1, max_per_repeat) so that short operations are
// timed over a few milliseconds. Seconds per run of body(), one sample per repeat.
struct TimedRuns {
  std::vector<double> seconds_per_run;
  int per_repeat = 1;
};
inline Expected<TimedRuns> time_runs(cudaStream_t s, int warmups, int repeats, double target_s, int max_per_repeat,
                                     const std::function<Status()>& body) {
  EventPair ev;
  ROOFLENS_RETURN_IF_ERROR(ev.create());
  auto run = [&](int times) -> Expected<double> {
    if (Status st = ev.start(s); !st) return st;
    for (int t = 0; t < times; ++t)
      if (Status st = body(); !st) return st;
    if (Status st = ev.stop(s); !st) return st;
    return ev.elapsed();
  };
  double estimate = 0;
  for (int w = 0; w < std::max(warmups, 1); ++w) {
    auto t = run(1);
    if (!t) return t.status();
    estimate = *t;
  }
  TimedRuns out;
  out.per_repeat = estimate > 0 ? static_cast<int>(std::min<double>(max_per_repeat, std::ceil(target_s / estimate)))
                                : max_per_repeat;
  out.per_repeat = std::max(out.per_repeat, 1);
  for (int r = 0; r < repeats; ++r) {
    auto t = run(out.per_repeat);
    if (!t) return t.status();
    if (!(*t > 0)) return Status::internal("cudaEventElapsedTime gave a non-positive time for a timed repeat");
    out.seconds_per_run.push_back(*t / out.per_repeat);
  }
  return out;
}

}  // namespace rooflens::microbench::gpu
