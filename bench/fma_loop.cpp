// bench/fma_loop: a plain, hand-written FP32 FMA loop, separate from the probe (it shares no
// code with src/microbench), to check that `rooflens probe cpu` reports what the best simple
// loop reaches. For each ISA the CPU has (AVX-512, AVX2+FMA; checked with
// __builtin_cpu_supports) and several accumulator counts, it runs the loop on 1..N pinned
// threads for a fixed time per repeat and prints median and best GFLOP/s, then the best
// variant per ISA and thread count.
//
// Usage: rooflens_fma_loop [--threads N] [--seconds S] [--repeats R] [--json]
#include <immintrin.h>
#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

// acc_j = acc_j * a + b on A independent accumulators; returns a value depending on all.
template <int A>
__attribute__((target("avx512f"), noinline)) float loop_avx512(uint64_t iters) {
  __m512 acc[A];
  for (int j = 0; j < A; ++j) acc[j] = _mm512_set1_ps(0.01f * j);
  const __m512 a = _mm512_set1_ps(0.999f), b = _mm512_set1_ps(0.001f);
  for (uint64_t i = 0; i < iters; ++i) {
#pragma GCC unroll 32
    for (int j = 0; j < A; ++j) acc[j] = _mm512_fmadd_ps(acc[j], a, b);
  }
  __m512 s = acc[0];
  for (int j = 1; j < A; ++j) s = _mm512_add_ps(s, acc[j]);
  alignas(64) float out[16];
  _mm512_store_ps(out, s);
  return out[0] + out[15];
}

template <int A>
__attribute__((target("avx2,fma"), noinline)) float loop_avx2(uint64_t iters) {
  __m256 acc[A];
  for (int j = 0; j < A; ++j) acc[j] = _mm256_set1_ps(0.01f * j);
  const __m256 a = _mm256_set1_ps(0.999f), b = _mm256_set1_ps(0.001f);
  for (uint64_t i = 0; i < iters; ++i) {
#pragma GCC unroll 32
    for (int j = 0; j < A; ++j) acc[j] = _mm256_fmadd_ps(acc[j], a, b);
  }
  __m256 s = acc[0];
  for (int j = 1; j < A; ++j) s = _mm256_add_ps(s, acc[j]);
  float out[8];
  _mm256_storeu_ps(out, s);
  return out[0] + out[7];
}

struct Variant {
  const char* isa;
  int accumulators;
  int lanes;
  float (*fn)(uint64_t);
};

std::vector<int> allowed_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;
  if (sched_getaffinity(0, sizeof(set), &set) == 0)
    for (int c = 0; c < CPU_SETSIZE; ++c)
      if (CPU_ISSET(c, &set)) cpus.push_back(c);
  return cpus;
}

void pin(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

// One repeat: `threads` pinned threads each run fn(iters) after a common start; wall seconds.
double run_once(const Variant& v, uint64_t iters, const std::vector<int>& cpus, int threads) {
  std::atomic<int> ready{0};
  std::atomic<bool> go{false};
  std::vector<std::thread> pool;
  std::vector<float> sink(threads);
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      pin(cpus[t]);
      ready.fetch_add(1);
      while (!go.load(std::memory_order_acquire)) _mm_pause();
      sink[t] = v.fn(iters);
    });
  while (ready.load() < threads) _mm_pause();
  const auto t0 = Clock::now();
  go.store(true, std::memory_order_release);
  for (auto& th : pool) th.join();
  const double s = std::chrono::duration<double>(Clock::now() - t0).count();
  volatile float keep = sink[0];
  (void)keep;
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> cpus = allowed_cpus();
  int max_threads = static_cast<int>(cpus.size());
  double seconds = 0.2;
  int repeats = 7;
  bool json = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--threads" && i + 1 < argc)
      max_threads = std::atoi(argv[++i]);
    else if (a == "--seconds" && i + 1 < argc)
      seconds = std::atof(argv[++i]);
    else if (a == "--repeats" && i + 1 < argc)
      repeats = std::atoi(argv[++i]);
    else if (a == "--json")
      json = true;
    else {
      std::fprintf(stderr, "usage: %s [--threads N] [--seconds S] [--repeats R] [--json]\n", argv[0]);
      return 2;
    }
  }
  if (max_threads < 1 || max_threads > static_cast<int>(cpus.size()) || repeats < 1 || !(seconds > 0)) {
    std::fprintf(stderr, "fma_loop: bad arguments (threads 1..%zu, repeats >= 1, seconds > 0)\n", cpus.size());
    return 2;
  }
  __builtin_cpu_init();
  std::vector<Variant> variants;
  if (__builtin_cpu_supports("avx512f")) {
    variants.push_back({"avx512", 8, 16, &loop_avx512<8>});
    variants.push_back({"avx512", 12, 16, &loop_avx512<12>});
    variants.push_back({"avx512", 16, 16, &loop_avx512<16>});
    variants.push_back({"avx512", 24, 16, &loop_avx512<24>});
  }
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    variants.push_back({"avx2", 8, 8, &loop_avx2<8>});
    variants.push_back({"avx2", 10, 8, &loop_avx2<10>});
    variants.push_back({"avx2", 12, 8, &loop_avx2<12>});
  }
  if (variants.empty()) {
    std::fprintf(stderr, "fma_loop: this CPU has neither AVX-512 nor AVX2+FMA\n");
    return 2;
  }
  std::vector<int> counts;
  for (int t = 1; t < max_threads; t *= 2) counts.push_back(t);
  counts.push_back(max_threads);

  struct Row {
    const Variant* v;
    int threads;
    double median, best;
  };
  std::vector<Row> rows;
  for (const Variant& v : variants) {
    // Calibrate on one thread to `seconds` per repeat.
    uint64_t iters = 1 << 12;
    for (;;) {
      const double t = run_once(v, iters, cpus, 1);
      if (t > 0.02) {
        iters = static_cast<uint64_t>(iters * seconds / t) + 1;
        break;
      }
      iters *= 2;
    }
    for (int threads : counts) {
      run_once(v, iters / 8, cpus, threads);  // warm-up
      std::vector<double> g;
      for (int r = 0; r < repeats; ++r) {
        const double t = run_once(v, iters, cpus, threads);
        g.push_back(threads * static_cast<double>(iters) * v.accumulators * v.lanes * 2 / t / 1e9);
      }
      std::sort(g.begin(), g.end());
      const double median = g.size() % 2 ? g[g.size() / 2] : 0.5 * (g[g.size() / 2 - 1] + g[g.size() / 2]);
      rows.push_back({&v, threads, median, g.back()});
      if (!json)
        std::printf("%-7s %2d acc  %2d thread(s)  median %7.1f  best %7.1f GFLOP/s\n", v.isa, v.accumulators, threads,
                    median, g.back());
    }
  }
  // Best variant per (isa, threads) by best rate.
  if (json)
    std::printf("{\"schema\": \"rooflens.fma_loop/1\", \"seconds\": %g, \"repeats\": %d, \"best\": [", seconds,
                repeats);
  else
    std::printf("\nbest hand-written loop per ISA and thread count (by best):\n");
  bool first = true;
  for (const char* isa : {"avx512", "avx2"})
    for (int threads : counts) {
      const Row* b = nullptr;
      for (const Row& r : rows)
        if (std::strcmp(r.v->isa, isa) == 0 && r.threads == threads && (!b || r.best > b->best)) b = &r;
      if (!b) continue;
      if (json)
        std::printf(
            "%s{\"isa\": \"%s\", \"accumulators\": %d, \"threads\": %d, \"median_flops\": %.6g, "
            "\"best_flops\": %.6g}",
            first ? "" : ", ", isa, b->v->accumulators, threads, b->median * 1e9, b->best * 1e9);
      else
        std::printf("%-7s %2d thread(s): %2d accumulators, median %7.1f, best %7.1f GFLOP/s\n", isa, threads,
                    b->v->accumulators, b->median, b->best);
      first = false;
    }
  if (json) std::printf("]}\n");
  return 0;
}
