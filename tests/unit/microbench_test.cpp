// Tests of the CPU probe (src/microbench): ISA detection, the kernels' arithmetic and the
// bytes they touch, the thread team, the statistics and interference classifier on
// synthetic samples, and the device file the probe writes. No test asserts on timing.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <vector>

#include <unistd.h>

#include "rooflens/device/device.h"
#include "rooflens/microbench/host_cpu.h"
#include "rooflens/microbench/kernels.h"
#include "rooflens/microbench/probe.h"
#include "rooflens/microbench/stats.h"
#include "rooflens/microbench/thread_team.h"

namespace rooflens::microbench {
namespace {

// ---------------------------------------------------------------------------------------
// ISA detection and host description

TEST(MicrobenchIsa, AgreesWithCompilerRuntimeDetection) {
  const IsaFeatures f = detect_isa();
  __builtin_cpu_init();
  EXPECT_EQ(f.avx2, __builtin_cpu_supports("avx2") != 0);
  EXPECT_EQ(f.fma, __builtin_cpu_supports("fma") != 0);
  EXPECT_EQ(f.avx512f, __builtin_cpu_supports("avx512f") != 0);
  EXPECT_EQ(f.avx512bw, __builtin_cpu_supports("avx512bw") != 0);
  EXPECT_EQ(f.avx512vl, __builtin_cpu_supports("avx512vl") != 0);
  EXPECT_EQ(f.avx512_bf16, __builtin_cpu_supports("avx512bf16") != 0);
  EXPECT_EQ(f.avx512_vnni, __builtin_cpu_supports("avx512vnni") != 0);
  EXPECT_EQ(f.avx_vnni, __builtin_cpu_supports("avxvnni") != 0);
}

TEST(MicrobenchIsa, ConsistentWithProcCpuinfoAndItself) {
  const IsaFeatures f = detect_isa();
  // Extensions imply their base.
  if (f.avx512bw || f.avx512vl || f.avx512_bf16 || f.avx512_vnni) {
    EXPECT_TRUE(f.avx512f);
  }
  if (f.avx512f) {
    EXPECT_TRUE(f.avx2);
  }
  // Every detected extension is one the kernel lists (it may hide more, never add).
  std::ifstream in("/proc/cpuinfo");
  if (!in) GTEST_SKIP() << "no /proc/cpuinfo";
  std::stringstream ss;
  ss << in.rdbuf();
  const CpuinfoText ci = parse_cpuinfo(ss.str());
  ASSERT_FALSE(ci.flags.empty());
  auto has = [&](const std::string& flag) {
    return std::find(ci.flags.begin(), ci.flags.end(), flag) != ci.flags.end();
  };
  for (const std::string& n : f.names()) EXPECT_TRUE(has(n)) << n << " detected but not in /proc/cpuinfo flags";
  EXPECT_EQ(f.names().size(), static_cast<size_t>(f.avx2 + f.fma + f.avx512f + f.avx512bw + f.avx512vl + f.avx512_bf16 +
                                                  f.avx512_vnni + f.avx_vnni));
}

TEST(MicrobenchHost, DescribesThisMachine) {
  auto h = detect_host_cpu();
  ASSERT_TRUE(h.has_value()) << h.status().message();
  EXPECT_GE(h->threads, 1);
  EXPECT_GE(h->cores, 1);
  EXPECT_LE(h->cores, h->threads);
  ASSERT_EQ(static_cast<int>(h->cpu_order.size()), h->threads);
  std::vector<int> sorted = h->cpu_order;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_TRUE(std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end()) << "a CPU listed twice";
  EXPECT_GT(h->mem_total_bytes, 0);
  // Theoretical model: one path per ISA the CPU has, widest first.
  const auto paths = simd_paths(*h);
  if (h->isa.has_avx2_fma()) {
    ASSERT_FALSE(paths.empty());
    EXPECT_EQ(paths.back().isa, "avx2");
    if (h->isa.has_avx512()) {
      EXPECT_EQ(paths.front().isa, "avx512");
    }
    for (const auto& p : paths) {
      EXPECT_GT(p.fp32_flop_per_cycle(), 0);
      EXPECT_FALSE(p.assumption.empty());
    }
  } else {
    EXPECT_TRUE(paths.empty());
  }
}

TEST(MicrobenchHost, ParsesCpuinfoAndOrdersCoresBeforeSiblings) {
  // Two cores with two SMT threads each, siblings numbered 0/1 and 2/3.
  const std::string text =
      "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Test CPU\ncpu MHz\t\t: 2900.000\n"
      "physical id\t: 0\ncore id\t\t: 0\nflags\t\t: fpu avx2 fma\n\n"
      "processor\t: 1\nphysical id\t: 0\ncore id\t\t: 0\n\n"
      "processor\t: 2\nphysical id\t: 0\ncore id\t\t: 1\n\n"
      "processor\t: 3\nphysical id\t: 0\ncore id\t\t: 1\n";
  const CpuinfoText ci = parse_cpuinfo(text);
  EXPECT_EQ(ci.model_name, "Test CPU");
  EXPECT_EQ(ci.vendor, "GenuineIntel");
  EXPECT_DOUBLE_EQ(ci.mhz, 2900.0);
  ASSERT_EQ(ci.cpus.size(), 4u);
  EXPECT_EQ(ci.flags, (std::vector<std::string>{"fpu", "avx2", "fma"}));
  int cores = 0;
  EXPECT_EQ(pinning_order(ci.cpus, {0, 1, 2, 3}, &cores), (std::vector<int>{0, 2, 1, 3}));
  EXPECT_EQ(cores, 2);
  // Affinity restricted to one sibling pair: one core.
  EXPECT_EQ(pinning_order(ci.cpus, {2, 3}, &cores), (std::vector<int>{2, 3}));
  EXPECT_EQ(cores, 1);
  // No topology: every allowed CPU counts as a core, in affinity order.
  EXPECT_EQ(pinning_order({}, {5, 7}, &cores), (std::vector<int>{5, 7}));
  EXPECT_EQ(cores, 2);
}

TEST(MicrobenchHost, ParsesSysfsCacheSizes) {
  EXPECT_DOUBLE_EQ(parse_cache_size("48K"), 48.0 * 1024);
  EXPECT_DOUBLE_EQ(parse_cache_size("1024K"), 1024.0 * 1024);
  EXPECT_DOUBLE_EQ(parse_cache_size("32M"), 32.0 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(parse_cache_size("512"), 512.0);
  EXPECT_DOUBLE_EQ(parse_cache_size(""), 0);
  EXPECT_DOUBLE_EQ(parse_cache_size("big"), 0);
  EXPECT_DOUBLE_EQ(parse_cache_size("12Q"), 0);
}

// ---------------------------------------------------------------------------------------
// Compute kernels compute what they claim (bit-exact against scalar references)

template <int Lanes, int kAcc>
void check_fma_f32(void (*kernel)(uint64_t, float*, float, float)) {
  std::vector<float> acc(kAcc * Lanes), ref(kAcc * Lanes);
  for (size_t i = 0; i < acc.size(); ++i) acc[i] = ref[i] = 0.25f * static_cast<float>(i) - 3.0f;
  const float a = 0.999f, b = 0.001f;
  const uint64_t iters = 37;
  kernel(iters, acc.data(), a, b);
  for (float& x : ref)
    for (uint64_t it = 0; it < iters; ++it) x = std::fmaf(x, a, b);  // one rounding, like vfmadd
  for (size_t i = 0; i < acc.size(); ++i) EXPECT_EQ(acc[i], ref[i]) << "lane " << i;
}

TEST(MicrobenchKernels, Fp32FmaAvx2MatchesScalarFma) {
  if (!detect_isa().has_avx2_fma()) GTEST_SKIP() << "no AVX2+FMA on this CPU";
  check_fma_f32<8, kAccumulatorsAvx2>(&fma_f32_avx2);
}

TEST(MicrobenchKernels, Fp32FmaAvx512MatchesScalarFma) {
  if (!detect_isa().has_avx512()) GTEST_SKIP() << "no AVX-512 on this CPU";
  check_fma_f32<16, kAccumulatorsAvx512>(&fma_f32_avx512);
}

TEST(MicrobenchKernels, Bf16DotProductAvx512) {
  const IsaFeatures f = detect_isa();
  if (!f.has_avx512() || !f.avx512_bf16) GTEST_SKIP() << "no AVX512_BF16 on this CPU";
  std::vector<float> acc(kAccumulatorsAvx512 * 16);
  for (size_t i = 0; i < acc.size(); ++i) acc[i] = static_cast<float>(i);
  // a = (lo 1.0, hi 0.5), b = (2^-4, 2^-4): each instruction adds 1.5 / 16 = 0.09375 (exact).
  const uint32_t a = 0x3F003F80u, b = 0x3D803D80u;
  dot_bf16_avx512(10, acc.data(), a, b);
  for (size_t i = 0; i < acc.size(); ++i) EXPECT_EQ(acc[i], static_cast<float>(i) + 10 * 0.09375f) << "lane " << i;
}

int32_t dot_u8s8(uint32_t a, uint32_t b) {
  int32_t s = 0;
  for (int k = 0; k < 4; ++k)
    s += static_cast<int32_t>((a >> (8 * k)) & 0xff) * static_cast<int8_t>((b >> (8 * k)) & 0xff);
  return s;
}

template <int Lanes, int kAcc>
void check_dot_u8s8(void (*kernel)(uint64_t, int32_t*, uint32_t, uint32_t)) {
  // a bytes (lo..hi) 200, 3, 2, 1 (unsigned: 200 must not read as -56); b bytes -1, 2, -3, 4.
  const uint32_t a = 0x010203C8u, b = 0x04FD02FFu;
  ASSERT_EQ(dot_u8s8(a, b), -200 + 6 - 6 + 4);
  std::vector<int32_t> acc(kAcc * Lanes);
  for (size_t i = 0; i < acc.size(); ++i) acc[i] = static_cast<int32_t>(i) * 1000;
  kernel(25, acc.data(), a, b);
  for (size_t i = 0; i < acc.size(); ++i) EXPECT_EQ(acc[i], static_cast<int32_t>(i) * 1000 + 25 * dot_u8s8(a, b));
}

TEST(MicrobenchKernels, Int8DotProductAvx512Vnni) {
  const IsaFeatures f = detect_isa();
  if (!f.has_avx512() || !f.avx512_vnni) GTEST_SKIP() << "no AVX512_VNNI on this CPU";
  check_dot_u8s8<16, kAccumulatorsAvx512>(&dot_u8s8_avx512);
}

TEST(MicrobenchKernels, Int8DotProductAvxVnni) {
  const IsaFeatures f = detect_isa();
  if (!f.has_avx2_fma() || !f.avx_vnni) GTEST_SKIP() << "no AVX-VNNI on this CPU";
  check_dot_u8s8<8, kAccumulatorsAvx2>(&dot_u8s8_avxvnni);
}

TEST(MicrobenchKernels, CatalogueListsOnlyWhatTheCpuHasAndCountsWork) {
  const IsaFeatures f = detect_isa();
  const auto kernels = compute_kernels(f);
  EXPECT_EQ(kernels.empty(), !f.has_avx2_fma());
  for (const auto& k : kernels) {
    if (k.isa == "avx512") {
      EXPECT_TRUE(f.has_avx512()) << k.instruction;
    }
    if (k.dtype == "bf16") {
      EXPECT_TRUE(f.avx512_bf16);
    }
    if (k.dtype == "int8") {
      EXPECT_TRUE(f.avx512_vnni || f.avx_vnni);
    }
    EXPECT_EQ(k.accumulators, k.isa == "avx512" ? kAccumulatorsAvx512 : kAccumulatorsAvx2);
    EXPECT_DOUBLE_EQ(k.ops(10), 10.0 * k.accumulators * k.lanes * k.ops_per_lane);
    // The wrapped operands keep accumulators finite and make them change.
    alignas(64) int32_t acc[kMaxAccumulators * 16] = {};
    k.run(1000, acc);
    if (k.dtype == "int8") {
      EXPECT_NE(acc[0], 0) << k.instruction;
    } else {
      float v = 0;
      std::memcpy(&v, &acc[0], sizeof v);
      EXPECT_TRUE(std::isfinite(v) && v != 0) << k.instruction << " gave " << v;
    }
  }
}

// ---------------------------------------------------------------------------------------
// Bandwidth kernels touch exactly the bytes they count

struct Guarded {
  static constexpr size_t kGuard = 64;  // floats on each side
  explicit Guarded(size_t n) : n(n) {
    mem = static_cast<float*>(std::aligned_alloc(64, (n + 2 * kGuard) * sizeof(float)));
    for (size_t i = 0; i < n + 2 * kGuard; ++i) mem[i] = kSentinel;
  }
  ~Guarded() { std::free(mem); }
  float* data() { return mem + kGuard; }
  bool guards_intact() const {
    for (size_t i = 0; i < kGuard; ++i)
      if (mem[i] != kSentinel || mem[kGuard + n + i] != kSentinel) return false;
    return true;
  }
  static constexpr float kSentinel = -12345.0f;
  size_t n;
  float* mem;
};

std::vector<BandwidthKernels> available_bandwidth_kernels() {
  const IsaFeatures f = detect_isa();
  std::vector<BandwidthKernels> out = {{"sse2", &read_sum_sse2, &write_sse2, &write_nt_sse2, &triad_sse2}};
  if (f.has_avx2_fma()) out.push_back({"avx2", &read_sum_avx2, &write_avx2, &write_nt_avx2, &triad_avx2});
  if (f.has_avx512()) out.push_back({"avx512", &read_sum_avx512, &write_avx512, &write_nt_avx512, &triad_avx512});
  EXPECT_EQ(bandwidth_kernels(f).isa, out.back().isa);
  return out;
}

// 9 blocks of 16 floats: exercises the unrolled main loops and the one-vector tails.
constexpr size_t kN = 9 * kBandwidthBlockFloats;

TEST(MicrobenchBandwidth, ReadSumsEveryElementOfTheRangeOnly) {
  for (const auto& k : available_bandwidth_kernels()) {
    Guarded g(kN);
    for (size_t i = 0; i < kN; ++i) g.data()[i] = static_cast<float>(i % 7);
    double expect = 0;
    for (size_t i = 0; i < kN; ++i) expect += static_cast<double>(i % 7);
    EXPECT_EQ(k.read(g.data(), kN, 3), static_cast<float>(3 * expect)) << k.isa;  // a sentinel read would show
  }
}

TEST(MicrobenchBandwidth, WritesStoreEveryElementAndNothingElse) {
  for (const auto& k : available_bandwidth_kernels()) {
    for (auto write : {k.write, k.write_nt}) {
      Guarded g(kN);
      write(g.data(), kN, 5.0f, 3);  // passes write 5, 6, 7
      for (size_t i = 0; i < kN; ++i) ASSERT_EQ(g.data()[i], 7.0f) << k.isa << " element " << i;
      EXPECT_TRUE(g.guards_intact()) << k.isa;
    }
  }
}

TEST(MicrobenchBandwidth, TriadComputesStreamTriadInPlace) {
  for (const auto& k : available_bandwidth_kernels()) {
    Guarded a(kN), b(kN), c(kN);
    for (size_t i = 0; i < kN; ++i) {
      b.data()[i] = static_cast<float>(i);
      c.data()[i] = 2.0f;
    }
    k.triad(a.data(), b.data(), c.data(), 0.5f, kN, 2);
    for (size_t i = 0; i < kN; ++i) {
      ASSERT_EQ(a.data()[i], static_cast<float>(i) + 1.0f) << k.isa << " element " << i;
      ASSERT_EQ(b.data()[i], static_cast<float>(i));
      ASSERT_EQ(c.data()[i], 2.0f);
    }
    EXPECT_TRUE(a.guards_intact() && b.guards_intact() && c.guards_intact()) << k.isa;
  }
}

TEST(MicrobenchBandwidth, BytesFollowStreamCounting) {
  EXPECT_DOUBLE_EQ(bandwidth_bytes(BandwidthKind::kRead, 1024, 3), 1024.0 * 4 * 3);
  EXPECT_DOUBLE_EQ(bandwidth_bytes(BandwidthKind::kWrite, 1024, 1), 1024.0 * 4);
  EXPECT_DOUBLE_EQ(bandwidth_bytes(BandwidthKind::kWriteNontemporal, 1024, 1), 1024.0 * 4);
  EXPECT_DOUBLE_EQ(bandwidth_bytes(BandwidthKind::kTriad, 1024, 2), 3 * 1024.0 * 4 * 2);
  EXPECT_EQ(bandwidth_arrays(BandwidthKind::kTriad), 3);
  EXPECT_STREQ(bandwidth_kind_name(BandwidthKind::kWriteNontemporal), "write_nt");
}

TEST(MicrobenchBandwidth, CacheLevelsAndKnee) {
  const double K = 1024, M = 1024 * 1024;
  EXPECT_EQ(cache_level(16 * K, 1, 48 * K, 1 * M, 32 * M), "L1");
  EXPECT_EQ(cache_level(64 * K, 1, 48 * K, 1 * M, 32 * M), "L2");
  EXPECT_EQ(cache_level(64 * K, 2, 48 * K, 1 * M, 32 * M), "L1");  // 32 KiB per core
  EXPECT_EQ(cache_level(16 * M, 2, 48 * K, 1 * M, 32 * M), "L3");
  EXPECT_EQ(cache_level(64 * M, 2, 48 * K, 1 * M, 32 * M), "DRAM");
  EXPECT_EQ(cache_level(64 * M, 2, 48 * K, 1 * M, 0), "DRAM");
  // Read sweep: caches up to 16 MiB, then DRAM at about 17 GB/s.
  const std::vector<std::pair<double, double>> sweep = {
      {16 * K, 300e9}, {1 * M, 90e9}, {16 * M, 55e9}, {64 * M, 18e9}, {256 * M, 17e9}};
  EXPECT_DOUBLE_EQ(cache_knee(sweep), 16 * M);
  EXPECT_DOUBLE_EQ(cache_knee({{16 * K, 300e9}, {1 * M, 100e9}}), 16 * K);
  EXPECT_DOUBLE_EQ(cache_knee({{16 * K, 300e9}, {1 * M, 290e9}}), 0);  // never entered DRAM
  EXPECT_DOUBLE_EQ(cache_knee({{16 * K, 20e9}, {1 * M, 19e9}}), 0);    // never left DRAM level
  EXPECT_DOUBLE_EQ(cache_knee({{16 * K, 20e9}}), 0);
}

TEST(MicrobenchBandwidth, SweepReachesPastTheReportedCache) {
  const double M = 1024 * 1024, G = 1024 * M;
  EXPECT_DOUBLE_EQ(sweep_max_working_set(0, false, 32 * M, 64 * G), 256 * M);     // small L3: the default
  EXPECT_DOUBLE_EQ(sweep_max_working_set(0, false, 0, 0), 256 * M);               // none reported
  EXPECT_DOUBLE_EQ(sweep_max_working_set(0, false, 480 * M, 24 * G), 1 * G);      // twice 480 MiB, rounded up
  EXPECT_DOUBLE_EQ(sweep_max_working_set(0, false, 480 * M, 4 * G), 512 * M);     // an eighth of the memory
  EXPECT_DOUBLE_EQ(sweep_max_working_set(0, false, 1536 * M, 1024 * G), 2 * G);   // at most 2 GiB
  EXPECT_DOUBLE_EQ(sweep_max_working_set(0, true, 480 * M, 24 * G), 256 * M);     // --quick
  EXPECT_DOUBLE_EQ(sweep_max_working_set(4 * M, false, 480 * M, 24 * G), 4 * M);  // asked
}

// ---------------------------------------------------------------------------------------
// Thread team

TEST(MicrobenchThreadTeam, EveryMemberRunsEveryRegionOnce) {
  auto h = detect_host_cpu();
  ASSERT_TRUE(h.has_value());
  const int n = std::min(h->threads, 4);
  std::vector<int> cpus(h->cpu_order.begin(), h->cpu_order.begin() + n);
  auto team = ThreadTeam::create(cpus);
  ASSERT_TRUE(team.has_value()) << team.status().message();
  ASSERT_EQ((*team)->size(), n);
  struct alignas(64) Count {
    int v = 0;
  };
  std::vector<Count> counts(n);
  auto region = [&](int m) { ++counts[m].v; };
  for (int i = 0; i < 2000; ++i) (*team)->run(region);
  for (int m = 0; m < n; ++m) EXPECT_EQ(counts[m].v, 2000) << "member " << m;
  // Results written by workers are visible after run() returns.
  std::vector<int> out(n, -1);
  auto write = [&](int m) { out[m] = m * 10; };
  (*team)->run(write);
  for (int m = 0; m < n; ++m) EXPECT_EQ(out[m], m * 10);
}

// ---------------------------------------------------------------------------------------
// Statistics and the interference classifier (synthetic samples)

TEST(MicrobenchStats, MedianBestSpread) {
  const SampleStats s = summarize({80, 100, 82, 79, 95});
  EXPECT_DOUBLE_EQ(s.median, 82);
  EXPECT_DOUBLE_EQ(s.best, 100);
  EXPECT_DOUBLE_EQ(s.worst, 79);
  EXPECT_NEAR(s.spread, 0.18, 1e-12);
  EXPECT_EQ(s.samples, (std::vector<double>{80, 100, 82, 79, 95}));  // measurement order kept
  const SampleStats even = summarize({4, 1, 3, 2});
  EXPECT_DOUBLE_EQ(even.median, 2.5);
  const SampleStats times = summarize({2e-6, 1e-6, 4e-6}, /*higher_is_better=*/false);
  EXPECT_DOUBLE_EQ(times.best, 1e-6);
  EXPECT_DOUBLE_EQ(times.worst, 4e-6);
  EXPECT_DOUBLE_EQ(times.spread, 1.0);
  EXPECT_DOUBLE_EQ(summarize({}).median, 0);
}

TEST(MicrobenchStats, SpreadWarningOnlyWhenNoisy) {
  auto w = spread_warning("fp32 avx2, 1 thread(s)", summarize({80, 100, 82, 79, 95}), "GFLOP/s", 1);
  ASSERT_TRUE(w.has_value());
  EXPECT_NE(w->find("spread 18%"), std::string::npos) << *w;
  EXPECT_NE(w->find("median 82.0, best 100.0 GFLOP/s"), std::string::npos) << *w;
  EXPECT_FALSE(spread_warning("quiet", summarize({95, 94, 96, 95})).has_value());
  EXPECT_FALSE(spread_warning("one sample", summarize({50})).has_value());
}

TEST(MicrobenchStats, ScalingWarning) {
  // Idle Zen 3 figures: 95 -> 185 GFLOP/s on two cores is 1.95x: fine.
  EXPECT_FALSE(scaling_warning("fp32", 95e9, 185e9, 2, 2).has_value());
  // The shared-machine figures: 75 -> 90 is 1.2x.
  auto w = scaling_warning("fp32 avx2", 75e9, 90e9, 2, 2);
  ASSERT_TRUE(w.has_value());
  EXPECT_NE(w->find("1.20x"), std::string::npos) << *w;
  EXPECT_NE(w->find("1.60x"), std::string::npos) << *w;
  // SMT: 2 threads on 1 core expect nothing.
  EXPECT_FALSE(scaling_warning("fp32", 95e9, 96e9, 2, 1).has_value());
  EXPECT_FALSE(scaling_warning("fp32", 0, 96e9, 2, 2).has_value());
}

TEST(MicrobenchStats, StealFractionFromProcStat) {
  const std::string before = "cpu  100 0 50 800 0 0 0 50 0 0\ncpu0 1 2 3\n";
  const std::string after = "cpu  200 0 100 1600 0 0 0 100 0 0\n";
  auto f = steal_fraction(before, after);
  ASSERT_TRUE(f.has_value());
  EXPECT_NEAR(*f, 50.0 / 1000.0, 1e-12);
  EXPECT_FALSE(steal_fraction("cpu  1 2 3\n", after).has_value());
  EXPECT_FALSE(steal_fraction(after, after).has_value());
}

ComputeMeasurement measurement(const std::string& isa, int threads, std::vector<double> gflops, double theoretical) {
  ComputeMeasurement m;
  m.dtype = "fp32";
  m.isa = isa;
  m.instruction = "vfmadd231ps ymm";
  m.threads = threads;
  m.cores = threads;
  for (double& g : gflops) g *= 1e9;
  m.flops = summarize(gflops);
  m.theoretical = theoretical * 1e9;
  return m;
}

TEST(MicrobenchInterference, QuietMachineGivesNoWarnings) {
  ProbeResult r;
  r.thread_counts = {1, 2};
  r.runnable_at_start = 1;
  r.steal_fraction = 0.0;
  r.compute = {measurement("avx2", 1, {94, 95, 96, 95, 93}, 98), measurement("avx2", 2, {185, 184, 186, 183}, 196)};
  classify_interference(r);
  EXPECT_FALSE(r.interference);
  EXPECT_TRUE(r.warnings.empty()) << r.warnings.front();
}

TEST(MicrobenchInterference, SharedMachineIsCalledShared) {
  ProbeResult r;
  r.thread_counts = {1, 2};
  r.runnable_at_start = 1;
  // One thread steady at 75; two threads between 80 and 100 (the busy-host figures).
  r.compute = {measurement("avx2", 1, {75, 76, 74}, 98), measurement("avx2", 2, {80, 100, 85, 82, 90}, 196)};
  classify_interference(r);
  EXPECT_TRUE(r.interference);
  auto has = [&](const std::string& s) {
    return std::any_of(r.warnings.begin(), r.warnings.end(),
                       [&](const auto& w) { return w.find(s) != std::string::npos; });
  };
  EXPECT_TRUE(has("noisy: fp32 avx2, 2 thread(s): spread 15%"));
  EXPECT_TRUE(has("poor thread scaling: fp32 avx2"));
  EXPECT_TRUE(has("the machine appears shared"));
  EXPECT_TRUE(has("1 thread: best 76.0 G/s is 78% of the theoretical"));
}

TEST(MicrobenchInterference, StealCountsOtherTasksAreANote) {
  ProbeResult r;
  r.thread_counts = {1};
  r.steal_fraction = 0.07;
  r.runnable_at_start = 3;
  classify_interference(r);
  EXPECT_TRUE(r.interference);
  ASSERT_EQ(r.warnings.size(), 3u);
  EXPECT_NE(r.warnings[0].find("stole 7.0%"), std::string::npos) << r.warnings[0];
  EXPECT_NE(r.warnings[1].find("note: 2 other task(s)"), std::string::npos) << r.warnings[1];
  EXPECT_NE(r.warnings[2].find("appears shared"), std::string::npos) << r.warnings[2];
  // Other runnable tasks alone, with steady figures, are not called interference.
  ProbeResult q;
  q.thread_counts = {1};
  q.runnable_at_start = 3;
  classify_interference(q);
  EXPECT_FALSE(q.interference);
  EXPECT_EQ(q.warnings.size(), 1u);
}

TEST(MicrobenchInterference, TimeSlicingAndNoisyMemoryAreNamed) {
  ProbeResult r;
  r.thread_counts = {1, 2};
  ComputeMeasurement one = measurement("avx512", 1, {220, 221, 222}, 224);
  ComputeMeasurement two = measurement("avx512", 2, {436, 438, 440}, 448);
  one.on_cpu = summarize({1.0, 1.0, 0.99});
  two.on_cpu = summarize({0.5, 0.49, 0.5});  // steady rate, but the threads ran half the time
  r.compute = {one, two};
  classify_interference(r);
  EXPECT_TRUE(r.interference);
  ASSERT_FALSE(r.warnings.empty());
  EXPECT_NE(r.warnings[0].find("time slicing"), std::string::npos) << r.warnings[0];
  EXPECT_NE(r.warnings[0].find(": fp32 avx512 2T 50%;"), std::string::npos) << r.warnings[0];

  ProbeResult m;
  m.thread_counts = {1};
  BandwidthMeasurement triad;
  triad.kind = BandwidthKind::kTriad;
  triad.threads = 1;
  triad.working_set_bytes = 256.0 * 1024 * 1024;
  triad.bytes_per_s = summarize({28e9, 34e9, 27e9, 29e9, 30e9});
  m.bandwidth = {triad};
  classify_interference(m);
  EXPECT_TRUE(m.interference);
  ASSERT_EQ(m.warnings.size(), 2u);
  EXPECT_NE(m.warnings[0].find("noisy: triad 256 MiB, 1 thread(s): spread 15%"), std::string::npos) << m.warnings[0];
  EXPECT_NE(m.warnings[1].find("memory bandwidth varies"), std::string::npos) << m.warnings[1];

  // A steady sweep whose threads ran half the time.
  ProbeResult b;
  b.thread_counts = {1};
  triad.bytes_per_s = summarize({20e9, 20.5e9, 20.2e9});
  triad.on_cpu = summarize({0.5, 0.55, 0.52});
  b.bandwidth = {triad};
  classify_interference(b);
  EXPECT_TRUE(b.interference);
  ASSERT_EQ(b.warnings.size(), 2u);
  EXPECT_NE(b.warnings[0].find("in 1 of 1 measurements"), std::string::npos) << b.warnings[0];
  EXPECT_NE(b.warnings[0].find("lowest 52%"), std::string::npos) << b.warnings[0];
  EXPECT_NE(b.warnings[1].find("appears shared"), std::string::npos) << b.warnings[1];
}

TEST(MicrobenchInterference, MeasuredAboveTheoreticalIsNotInterference) {
  ProbeResult r;
  r.thread_counts = {1};
  r.compute = {measurement("avx2", 1, {120, 121, 120}, 98)};
  classify_interference(r);
  EXPECT_FALSE(r.interference);
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_NE(r.warnings[0].find("above the theoretical"), std::string::npos);
}

// ---------------------------------------------------------------------------------------
// The probe end to end (tiny durations; figures are not checked, only their plumbing)

ProbeOptions tiny_options() {
  ProbeOptions o;
  o.max_threads = 0;
  o.repeats = 2;
  o.compute_seconds = 0.002;
  o.bandwidth_seconds = 0.001;
  o.dispatch_seconds = 0.001;
  o.min_working_set = 16 * 1024;
  o.max_working_set = 1024 * 1024;
  o.working_set_step = 8;
  return o;
}

TEST(MicrobenchProbe, WritesADeviceFileThatLoads) {
  ProbeOptions o = tiny_options();
  auto h = detect_host_cpu();
  ASSERT_TRUE(h.has_value());
  o.max_threads = std::min(h->threads, 2);
  auto r = run_cpu_probe(o);
  if (!detect_isa().has_avx2_fma()) {
    ASSERT_FALSE(r.has_value());
    EXPECT_EQ(r.status().code(), StatusCode::kUnsupported);
    GTEST_SKIP() << r.status().message();
  }
  ASSERT_TRUE(r.has_value()) << r.status().message();
  EXPECT_EQ(r->thread_counts.back(), o.max_threads);
  EXPECT_EQ(r->repeats, 2);
  EXPECT_GT(r->clock_hz, 0);
  for (const auto& m : r->compute) EXPECT_EQ(m.flops.samples.size(), 2u);
  ASSERT_FALSE(r->bandwidth.empty());
  for (const auto& m : r->bandwidth) EXPECT_FALSE(m.level.empty());

  // rooflens.probe/1
  const auto pj = probe_json(*r);
  EXPECT_EQ(pj["schema"], "rooflens.probe/1");
  EXPECT_GT(pj["peak_flops"]["fp32"].get<double>(), 0);
  EXPECT_GT(pj["theoretical_peak_flops"]["fp32"].get<double>(), 0);
  EXPECT_GT(pj["bandwidth"]["triad"].get<double>(), 0);
  EXPECT_TRUE(pj["warnings"].is_array());

  // rooflens.device/1, through the same parser `--device file.json` uses.
  auto dj = probe_device_json(*r, "probe-test");
  ASSERT_TRUE(dj.has_value()) << dj.status().message();
  const auto path =
      std::filesystem::temp_directory_path() / ("rooflens_probe_test_" + std::to_string(::getpid()) + ".json");
  {
    std::ofstream f(path);
    f << dj->dump(2);
  }
  auto d = load_device_file(path.string());
  std::filesystem::remove(path);
  ASSERT_TRUE(d.has_value()) << d.status().message();
  auto spec = probe_device_spec(*r, "probe-test");
  ASSERT_TRUE(spec.has_value()) << spec.status().message();
  spec->file = path.string();
  EXPECT_TRUE(*d == *spec);  // the device the probe filled, through the device-file writer
  EXPECT_EQ(d->id, "probe-test");
  EXPECT_EQ(d->kind, "cpu");
  ASSERT_TRUE(d->cpu.has_value());
  EXPECT_EQ(d->cpu->threads, o.max_threads);
  EXPECT_EQ(d->cpu->isa, h->isa.names());
  const int n = max_threads(*r);
  for (const auto& dt : measured_dtypes(*r)) {
    auto measured = d->best_measured_peak(dt);
    ASSERT_TRUE(measured.has_value()) << dt;
    EXPECT_DOUBLE_EQ(measured->flops, best_compute(*r, dt, n)->flops.best) << dt;
    EXPECT_EQ(measured->unit, ComputeUnit::kSimd);
    EXPECT_NE(measured->source.find("rooflens probe cpu"), std::string::npos);
    auto theo = d->best_peak(dt);
    ASSERT_TRUE(theo.has_value()) << dt;
    EXPECT_DOUBLE_EQ(theo->flops, theoretical_peak(*r, dt, n));
    EXPECT_EQ(theo->accumulator, dt == "int8" ? "int32" : "fp32");
  }
  EXPECT_DOUBLE_EQ(d->mem_bandwidth, largest_working_set(*r, BandwidthKind::kTriad, n)->bytes_per_s.best);
  EXPECT_DOUBLE_EQ(d->mem_bytes, h->mem_total_bytes);
  if (n > 1) {
    EXPECT_DOUBLE_EQ(d->launch_overhead_s, r->dispatch.back().seconds.median);
  }
  for (const char* k : {"peaks", "measured_peaks", "memory", "clock_hz", "l2_bytes", "launch_overhead_s", "cpu"})
    EXPECT_TRUE(d->sources.count(k)) << k;
}

TEST(MicrobenchProbe, Avx2OnlyModeMeasuresWhatAvx2CodeGets) {
  if (!detect_isa().has_avx2_fma()) GTEST_SKIP() << "no AVX2+FMA on this CPU";
  ProbeOptions o = tiny_options();
  o.max_threads = 1;
  o.isa = "avx2";
  o.run_bandwidth = false;
  o.run_dispatch = false;
  auto r = run_cpu_probe(o);
  ASSERT_TRUE(r.has_value()) << r.status().message();
  ASSERT_EQ(r->paths.size(), 1u);
  EXPECT_EQ(r->paths[0].isa, "avx2");
  EXPECT_FALSE(r->cpu.isa.avx512f);
  ASSERT_FALSE(r->compute.empty());
  for (const auto& m : r->compute) EXPECT_EQ(m.isa, "avx2") << m.instruction;
  // No bandwidth measured: no device file.
  EXPECT_FALSE(probe_device_json(*r, "x").has_value());
}

TEST(MicrobenchProbe, RejectsBadOptions) {
  ProbeOptions o = tiny_options();
  o.max_threads = 100000;
  auto r = run_cpu_probe(o);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidInput);
  EXPECT_NE(r.status().message().find("--threads 100000"), std::string::npos);
  o.max_threads = 1;
  o.isa = "sse9";
  r = run_cpu_probe(o);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidInput);
  if (!detect_isa().has_avx512()) {
    o.isa = "avx512";
    r = run_cpu_probe(o);
    ASSERT_FALSE(r.has_value());
    EXPECT_EQ(r.status().code(), StatusCode::kUnsupported);
  }
  ProbeResult empty;
  auto d = probe_device_json(empty, "x");
  ASSERT_FALSE(d.has_value());
  EXPECT_EQ(d.status().code(), StatusCode::kInvalidInput);
}

}  // namespace
}  // namespace rooflens::microbench
