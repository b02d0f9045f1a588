// The contention detector (exec/host_state.h), the host-state drift and spreads
// (analysis/validation.h) and the reference GEMM (microbench/host_reference.h).
//
// The verdict is tested on injected samples; the one test on real threads makes its own
// contention (a busy sibling pinned to the measuring thread's CPU), which a busy CI machine
// can only deepen, and asserts nothing about quiet runs of the real machine.
#include <gtest/gtest.h>
#include <pthread.h>
#include <sched.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <thread>
#include <utility>
#include <vector>

#include "rooflens/analysis/host_figures.h"
#include "rooflens/analysis/validation.h"
#include "rooflens/exec/dispatch_probe.h"
#include "rooflens/exec/host_state.h"
#include "rooflens/exec/measure.h"
#include "rooflens/microbench/host_cpu.h"
#include "rooflens/microbench/host_reference.h"
#include "rooflens/microbench/kernels.h"

namespace rooflens {
namespace {

HostSample at(double wall, double cpu, double delay, double steal, int running = 1) {
  HostSample s;
  s.wall_s = wall;
  s.cpu_s = cpu;
  s.run_delay_s = delay;
  s.steal_s = steal;
  s.procs_running = running;
  s.cpus = 2;
  s.has_run_delay = s.has_steal = true;
  return s;
}

TEST(HostState, ParsesProcTexts) {
  EXPECT_DOUBLE_EQ(parse_schedstat_wait("123456789 2500000000 42\n"), 2.5);
  EXPECT_LT(parse_schedstat_wait("garbage"), 0);
  double steal = 0;
  int running = 0;
  const std::string stat =
      "cpu  1684657 63952 211831 4532828 6521 0 1093 13800 0 0\ncpu0 1 2 3 4 5 6 7 8 0 0\n"
      "intr 1 2\nprocs_running 5\nprocs_blocked 0\n";
  ASSERT_TRUE(parse_proc_stat(stat, 100, &steal, &running));
  EXPECT_DOUBLE_EQ(steal, 138.0);
  EXPECT_EQ(running, 5);
  EXPECT_FALSE(parse_proc_stat("intr 1\n", 100, &steal, &running));
}

TEST(HostState, QuietIntervalIsNotContended) {
  // Two threads busy for 1 s of wall: 2 s of CPU, 5 ms of run-queue wait, no steal.
  const auto r = assess_contention(at(10, 1, 0.100, 7), at(11, 3, 0.105, 7), 2);
  EXPECT_FALSE(r.contended) << r.summary;
  EXPECT_NEAR(r.cpu_share, 1.0, 1e-9);
  EXPECT_NEAR(r.wait_share, 0.0025, 1e-9);
  EXPECT_NE(r.summary.find("quiet"), std::string::npos);
}

TEST(HostState, WaitingForACpuIsContended) {
  // The same interval with a busy neighbour: each thread waited 0.4 s of the second.
  const auto r = assess_contention(at(10, 1, 0.1, 7), at(11, 2.2, 0.9, 7), 2);
  EXPECT_TRUE(r.contended);
  EXPECT_NEAR(r.wait_share, 0.4, 1e-9);
  EXPECT_NE(r.summary.find("waited for a CPU 40%"), std::string::npos) << r.summary;
}

TEST(HostState, StealIsContended) {
  const auto r = assess_contention(at(10, 1, 0, 7), at(11, 3, 0, 7.3), 2);  // 0.3 s of 2 CPU-s stolen
  EXPECT_TRUE(r.contended);
  EXPECT_NEAR(r.steal_share, 0.15, 1e-9);
  EXPECT_NE(r.summary.find("stole"), std::string::npos) << r.summary;
}

TEST(HostState, MissingCountersAreNotEvidence) {
  HostSample a = at(10, 1, 0, 0), b = at(11, 2, 5, 5);
  a.has_run_delay = a.has_steal = false;
  const auto r = assess_contention(a, b, 1);
  EXPECT_FALSE(r.contended) << r.summary;
}

// A sibling thread spinning on the measuring thread's own CPU: the kernel shares that CPU
// between the two, so the measuring thread waits about half the time whatever else runs.
TEST(HostState, BusySiblingOnTheSameCpuIsReported) {
  cpu_set_t mine;
  ASSERT_EQ(pthread_getaffinity_np(pthread_self(), sizeof mine, &mine), 0);
  int cpu = -1;
  for (int c = 0; c < CPU_SETSIZE && cpu < 0; ++c)
    if (CPU_ISSET(c, &mine)) cpu = c;
  ASSERT_GE(cpu, 0);
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  if (pthread_setaffinity_np(pthread_self(), sizeof one, &one) != 0) GTEST_SKIP() << "cannot pin threads here";
  auto sampler = make_proc_host_sampler();
  if (!sampler->sample().has_run_delay) {
    pthread_setaffinity_np(pthread_self(), sizeof mine, &mine);
    GTEST_SKIP() << "this kernel has no /proc/self/task/*/schedstat";
  }
  std::atomic<bool> stop{false};
  std::thread sibling([&] {
    pthread_setaffinity_np(pthread_self(), sizeof one, &one);
    volatile unsigned x = 0;
    while (!stop.load(std::memory_order_relaxed)) x = x + 1;
  });
  const HostSample before = sampler->sample();
  const auto t0 = std::chrono::steady_clock::now();
  volatile unsigned y = 0;
  while (std::chrono::steady_clock::now() - t0 < std::chrono::milliseconds(400)) y = y + 1;
  const HostSample after = sampler->sample();
  stop = true;
  sibling.join();
  pthread_setaffinity_np(pthread_self(), sizeof mine, &mine);
  // Both threads' waits count (they are this process's): about 0.5 s of 0.4 s x 1 thread.
  const auto r = assess_contention(before, after, 1);
  EXPECT_TRUE(r.contended) << r.summary;
  EXPECT_GT(r.wait_share, 0.2) << r.summary;
}

TEST(HostDrift, DividesOutTheHostsState) {
  const HostRates base{100e9, 40e9};
  EXPECT_DOUBLE_EQ(host_drift({100e9, 40e9}, base, 0.7), 1.0);
  EXPECT_DOUBLE_EQ(host_drift({50e9, 20e9}, base, 0.3), 0.5);         // both halved: half as fast
  EXPECT_DOUBLE_EQ(host_drift({50e9, 40e9}, base, 1.0), 0.5);         // compute-bound: the GEMM's ratio
  EXPECT_DOUBLE_EQ(host_drift({50e9, 40e9}, base, 0.0), 1.0);         // memory-bound: the triad's
  EXPECT_NEAR(host_drift({50e9, 40e9}, base, 0.5), 1 / 1.5, 1e-12);   // time 0.5 x 2 + 0.5 x 1
  EXPECT_DOUBLE_EQ(host_drift({50e9, 40e9}, HostRates{}, 0.5), 1.0);  // no baseline: no drift
}

TEST(HostDrift, TheClockStandsForTheGemmWhenBothSidesHaveOne) {
  const HostRates base{100e9, 40e9, 4.0e9};
  // The GEMM halved but the clock rose by a quarter: compute runs 1.25x faster.
  EXPECT_DOUBLE_EQ(compute_ratio({50e9, 40e9, 5.0e9}, base), 1.25);
  EXPECT_DOUBLE_EQ(host_drift({50e9, 40e9, 5.0e9}, base, 1.0), 1.25);
  EXPECT_DOUBLE_EQ(host_drift({50e9, 20e9, 5.0e9}, base, 0.0), 0.5);  // memory-bound: still the triad's
  // A side without a clock (an older kernel table, a failed reading): the GEMM's ratio.
  EXPECT_DOUBLE_EQ(compute_ratio({50e9, 40e9, 5.0e9}, HostRates{100e9, 40e9}), 0.5);
  EXPECT_DOUBLE_EQ(compute_ratio({50e9, 40e9, 0}, base), 0.5);
}

TEST(HostDrift, TheFmaLoopComesFirstWhenBothSidesHaveIt) {
  const HostRates base{100e9, 40e9, 4.0e9, 500e9};
  // A sibling hyperthread took a tenth of the issue slots: the clock did not move, the FMA did.
  EXPECT_DOUBLE_EQ(compute_ratio({100e9, 40e9, 4.0e9, 450e9}, base), 0.9);
  EXPECT_DOUBLE_EQ(compute_ratio({100e9, 40e9, 5.0e9, 0}, base), 1.25);  // no FMA now: the clock
}

// The reference's convolutions, where both readings have them, are the drift whatever the
// model's compute share: the FMA loop and the triad no longer enter.
TEST(HostDrift, TheReferenceKernelsComeFirstWhenBothSidesHaveThem) {
  HostRates base{100e9, 40e9, 4.0e9, 500e9, 0.8e-6};
  base.kernels_s = 1.5e-3;
  HostRates now{100e9, 40e9, 4.0e9, 550e9, 0.8e-6};  // the FMA loop 10% faster ...
  now.kernels_s = 1.6e-3;                            // ... the convolutions 1.5/1.6 as fast
  for (double share : {0.0, 0.4, 1.0}) EXPECT_DOUBLE_EQ(host_drift(now, base, share), 1.5 / 1.6) << share;
  now.kernels_s = 0;  // a reading without them: the FMA loop and the triad as before
  EXPECT_DOUBLE_EQ(host_drift(now, base, 1.0), 1.1);
  now.kernels_s = 1.6e-3;
  base.kernels_s = 0;  // a table probed before the reference had them
  EXPECT_DOUBLE_EQ(host_drift(now, base, 1.0), 1.1);
}

// The drift is the batch-1 convolutions' whether or not both readings have batch-8 ones: those
// are shown beside the other readings, not used.
TEST(HostDrift, TheBatchEightKernelsAreShownNotUsed) {
  HostRates base{100e9, 40e9, 4.0e9, 500e9, 0.8e-6};
  base.kernels_s = 1.5e-3;
  base.kernels8_s = 9.0e-3;
  HostRates now = base;
  now.kernels_s = 1.65e-3;  // the batch-1 convolutions read the host 10% slower ...
  now.kernels8_s = 9.2e-3;  // ... the batch-8 ones about 2%: the drift is the batch-1 ones'
  EXPECT_DOUBLE_EQ(host_drift(now, base, 0.5), 1.5 / 1.65);
  base.kernels8_s = 0;  // a table probed before the batch-8 reading
  EXPECT_DOUBLE_EQ(host_drift(now, base, 0.5), 1.5 / 1.65);
}

TEST(HostReference, TheFmaLoopReadsOnThisCpu) {
  if (microbench::compute_kernels(microbench::detect_isa()).empty()) GTEST_SKIP() << "no FMA kernel on this CPU";
  // A reading, whatever the load: positive and finite (how fast depends on the machine's state).
  const double f = microbench::reference_fma_flops(1);
  EXPECT_GT(f, 0);
  EXPECT_TRUE(std::isfinite(f));
}

TEST(HostDrift, ComputeShareAndSpread) {
  EXPECT_DOUBLE_EQ(compute_share({2, 1}, {1, 3}, {3, 1}), 0.75);
  const Spread s = spread({90, 100, 110, 105});
  EXPECT_DOUBLE_EQ(s.median, 102.5);
  EXPECT_NEAR(s.rel_range, 20 / 102.5, 1e-12);
  EXPECT_NEAR(s.max_dev, 1 - 90 / 102.5, 1e-12);
}

// The median's order-statistic interval: the whole range of 4-6 runs, the second smallest and
// second largest of 7-9; fewer than 4 runs never settle.
TEST(HostDrift, MedianSettledByItsOrderStatisticInterval) {
  EXPECT_FALSE(median_settled({100, 100, 100}, 0.05));
  EXPECT_TRUE(median_settled({97, 100, 101, 103}, 0.05));
  EXPECT_FALSE(median_settled({60, 100, 101, 103}, 0.05));  // one slow run in four
  // Eight runs: the extreme one on each side is outside the interval, the second is not.
  EXPECT_TRUE(median_settled({60, 98, 99, 100, 100, 101, 102, 140}, 0.05));
  EXPECT_FALSE(median_settled({60, 62, 99, 100, 100, 101, 102, 103}, 0.05));  // two slow of eight
  EXPECT_TRUE(median_settled({60, 62, 99, 100, 100, 101, 102, 103}, 0.5));
  EXPECT_FALSE(median_settled({0, 0, 0, 0}, 0.05));
}

// The dispatch has two levels on a shared VM (0.8-0.95 and 1.7-2.4 us on the Zen 5 host): a
// reading within 1.4x of the baseline is the same state, one twice as slow is not, and a
// reading without a dispatch (an older table, no oneDNN) takes no side.
TEST(HostDispatchState, TwoLevelsApartAreTwoStates) {
  HostRates base{100e9, 40e9, 4.0e9, 500e9, 0.85e-6};
  EXPECT_TRUE(microbench::same_dispatch_state({100e9, 40e9, 4.0e9, 500e9, 0.95e-6}, base));
  EXPECT_TRUE(microbench::same_dispatch_state({100e9, 40e9, 4.0e9, 500e9, 0.80e-6}, base));
  EXPECT_FALSE(microbench::same_dispatch_state({100e9, 40e9, 4.0e9, 500e9, 2.0e-6}, base));
  EXPECT_FALSE(microbench::same_dispatch_state(base, {100e9, 40e9, 4.0e9, 500e9, 2.0e-6}));
  EXPECT_TRUE(microbench::same_dispatch_state({100e9, 40e9, 4.0e9, 500e9, 0}, base));
  base.dispatch_s = 0;
  EXPECT_TRUE(microbench::same_dispatch_state({100e9, 40e9, 4.0e9, 500e9, 2.0e-6}, base));
}

// Repeats of one model: the median is taken over the runs read in the faster dispatch state;
// when no run is, over all of them.
TEST(HostDispatchState, RepeatsKeepTheRunsInTheFasterState) {
  auto fig = [](double dispatch) {
    HostFigures f;
    f.now.dispatch_s = dispatch;
    return f;
  };
  const std::vector<double> runs = {500, 350, 520, 360};
  const std::vector<HostFigures> mixed = {fig(0.85e-6), fig(2.0e-6), fig(0.9e-6), fig(1.9e-6)};
  EXPECT_EQ(runs_in_dispatch_state(runs, mixed, 0.8e-6), (std::vector<double>{500, 520}));
  EXPECT_EQ(runs_in_dispatch_state(runs, mixed, 1.8e-6), (std::vector<double>{350, 360}));
  EXPECT_EQ(runs_in_dispatch_state(runs, {fig(2.0e-6), fig(2.1e-6), fig(1.9e-6), fig(2.0e-6)}, 0.8e-6), runs);
  EXPECT_EQ(runs_in_dispatch_state(runs, mixed, 0), runs);  // no level: every run
  EXPECT_EQ(runs_in_dispatch_state(runs, {}, 0.8e-6), runs);
  EXPECT_FALSE(in_dispatch_state(fig(2.0e-6), 0.85e-6));
  EXPECT_TRUE(in_dispatch_state(fig(0), 0.85e-6));
}

// The state a probe's table describes: the faster one where at least half the shapes have a
// round in it; a stray fast reading (one of 873 on 2026-12-06) does not make the table claim a
// state its shapes were not timed in.
TEST(HostDispatchState, TheTablesStateIsTheOneMostShapesWereReadIn) {
  using V = std::vector<std::vector<double>>;
  // Half the shapes have a fast round: the fast state.
  EXPECT_DOUBLE_EQ(microbench::cases_dispatch_level(V{{0.85e-6, 2.0e-6}, {2.1e-6, 1.9e-6}}), 0.85e-6);
  EXPECT_DOUBLE_EQ(microbench::cases_dispatch_level(V{{0.9e-6, 0.85e-6}, {0.88e-6}, {2.0e-6}}), 0.85e-6);
  // One stray fast reading among slow shapes: the slow state, the median reading.
  EXPECT_DOUBLE_EQ(microbench::cases_dispatch_level(V{{0.7e-6, 1.3e-6}, {1.2e-6}, {1.3e-6}, {1.25e-6}}), 1.25e-6);
  // Readings of 0 are none, but their cases count: one case of three at the fastest level is
  // under half, and the median of the readings there are is that one; nothing read: 0.
  EXPECT_DOUBLE_EQ(microbench::cases_dispatch_level(V{{0.8e-6}, {0}, {0, 0}}), 0.8e-6);
  EXPECT_EQ(microbench::cases_dispatch_level(V{{0}, {}}), 0);
  EXPECT_EQ(microbench::cases_dispatch_level(V{}), 0);
}

// A measurement's dispatch is set against the baseline's only on the baseline's thread count:
// one thread forks no team, and its 0.16 us is no state of the two-thread team.
TEST(HostDispatchState, OnlyTheBaselinesThreadCountIsCompared) {
  HostContext ctx;
  ctx.baseline = {100e9, 40e9, 4.0e9, 500e9, 0.8e-6};
  ctx.baseline_threads = 2;
  Measurement m;
  m.throughput = 100;
  m.host = HostStateReading{};
  m.host->before = m.host->after = {100e9, 40e9, 4.0e9, 500e9, 2.0e-6};
  m.threads = 2;
  const Prediction p;
  HostFigures f = host_figures(m, p, ctx);
  EXPECT_FALSE(f.same_state);
  EXPECT_DOUBLE_EQ(f.now.dispatch_s, 2.0e-6);
  m.host->before = m.host->after = {100e9, 40e9, 4.0e9, 500e9, 0.16e-6};
  m.threads = 1;
  f = host_figures(m, p, ctx);
  EXPECT_TRUE(f.same_state);
  EXPECT_EQ(f.now.dispatch_s, 0.0);
}

// The reference's convolutions, like the dispatch, are set against the baseline's only on its
// thread count: on one thread they run slower for want of a team, not of the host.
// A context whose baseline read the reference's convolutions at 1 ms on two threads, and a
// measurement of 100 images/s on two threads whose readings before and after took `kernels_s`.
std::pair<HostContext, Measurement> kernels_baseline_and_reading(double kernels_s) {
  std::pair<HostContext, Measurement> out;
  auto& [ctx, m] = out;
  ctx.baseline = {100e9, 40e9, 4.0e9, 500e9, 0.8e-6};
  ctx.baseline.kernels_s = 1.0e-3;
  ctx.baseline_threads = 2;
  m.throughput = 100;
  m.host = HostStateReading{};
  m.host->before = m.host->after = {100e9, 40e9, 4.0e9, 500e9, 0.8e-6};
  m.host->before.kernels_s = m.host->after.kernels_s = kernels_s;
  m.threads = 2;
  return out;
}

TEST(HostDrift, TheReferenceKernelsAreComparedOnTheBaselinesThreadCountOnly) {
  auto [ctx, m] = kernels_baseline_and_reading(1.25e-3);
  const Prediction p;
  HostFigures f = host_figures(m, p, ctx);
  EXPECT_DOUBLE_EQ(f.drift, 0.8);
  EXPECT_DOUBLE_EQ(f.normalized_throughput, 125);
  m.host->before.kernels_s = m.host->after.kernels_s = 2.0e-3;
  m.threads = 1;
  f = host_figures(m, p, ctx);
  EXPECT_EQ(f.now.kernels_s, 0.0);
  EXPECT_DOUBLE_EQ(f.drift, 1.0);  // the FMA loop and the triad, both unchanged
}

// A reading through the executor carries its dispatch: positive on a build with oneDNN.
TEST(HostDispatchState, AReadingThroughTheExecutorHasItsDispatch) {
  if (!measure_onednn_dispatch(1)) GTEST_SKIP() << "built without oneDNN";
  microbench::HostReferenceProbe probe(1);
  const microbench::HostReference r = reference_reading(probe, 1);
  EXPECT_GT(r.dispatch_s, 0);
  EXPECT_TRUE(std::isfinite(r.dispatch_s));
  // The three convolutions: at least their arithmetic at a generous 10 TFLOP/s (0.16 GFLOP in
  // all takes 16 us there), and finite; how long depends on the machine and its load.
  EXPECT_GT(r.kernels_s, 16e-6);
  EXPECT_TRUE(std::isfinite(r.kernels_s));
  EXPECT_EQ(r.kernels8_s, 0.0);  // batch 1 reads no batch-8 convolutions
  const microbench::HostReference r8 = reference_reading(probe, 1, 8);
  EXPECT_GT(r8.kernels8_s, 8 * 16e-6);  // eight images' arithmetic at the same generous rate
  EXPECT_TRUE(std::isfinite(r8.kernels8_s));
}

TEST(HostReference, GemmIsAGemm) {
  const int n = 3;
  const float a[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9}, b[9] = {1, 0, 0, 0, 1, 0, 0, 0, 2};
  float c[9] = {};
  microbench::reference_gemm(a, b, c, n);
  const float want[9] = {1, 2, 6, 4, 5, 12, 7, 8, 18};
  for (int i = 0; i < 9; ++i) EXPECT_FLOAT_EQ(c[i], want[i]) << i;
}

// A reading holds all three figures, the clock among them.
TEST(HostReference, ReadingHoldsGemmTriadAndClock) {
  microbench::HostReferenceProbe probe(1);
  const microbench::HostReference r = probe.measure();
  EXPECT_GT(r.gemm_flops, 0);
  EXPECT_GT(r.stream_bytes, 0);
  // Only a machine so loaded that all three 5 ms chains ran 40x slow makes the estimator
  // refuse (it returns no figure then, and the reading keeps 0): a skip, not a failure.
  if (r.clock_hz == 0) GTEST_SKIP() << "the clock estimate was refused as implausible (an extremely loaded machine)";
  EXPECT_GE(r.clock_hz, 1e8);
  EXPECT_LE(r.clock_hz, 1e10);
}

using Cpus = std::vector<int>;

// OMP_PROC_BIND=true bound the caller to CPU 0 of 2: the worker goes to the other one.
TEST(HostReferenceTeam, CallerBoundToOneOfTwoCpusGivesTheWorkerTheOther) {
  EXPECT_EQ(microbench::reference_team_cpus(2, {0}, {0, 1}), (Cpus{-1, 1}));
  EXPECT_EQ(microbench::reference_team_cpus(2, {1}, {0, 1}), (Cpus{-1, 0}));
  // Outside the caller's mask first, then inside it but for the first, left to the caller.
  EXPECT_EQ(microbench::reference_team_cpus(4, {0, 1}, {0, 1, 2, 3}), (Cpus{-1, 2, 3, 1}));
  EXPECT_EQ(microbench::reference_team_cpus(3, {2, 5}, {2, 3, 5}), (Cpus{-1, 3, 5}));
}

TEST(HostReferenceTeam, CallerMaskWithEnoughCpusIsLeftAlone) {
  EXPECT_TRUE(microbench::reference_team_cpus(2, {0, 1}, {0, 1}).empty());
  EXPECT_TRUE(microbench::reference_team_cpus(2, {4, 5, 6}, {0, 1, 2, 3, 4, 5, 6, 7}).empty());  // a taskset
  EXPECT_TRUE(microbench::reference_team_cpus(1, {0}, {0, 1}).empty());                          // no workers
  EXPECT_TRUE(microbench::reference_team_cpus(2, {}, {0, 1}).empty());                           // mask unknown
}

TEST(HostReferenceTeam, TooFewUsableCpusIsLeftAlone) {
  EXPECT_TRUE(microbench::reference_team_cpus(2, {0}, {0}).empty());
  EXPECT_TRUE(microbench::reference_team_cpus(3, {0}, {0, 1}).empty());
  EXPECT_TRUE(microbench::reference_team_cpus(2, {0}, {}).empty());
}

TEST(HostReferenceTeam, ParsesKernelCpuLists) {
  EXPECT_EQ(microbench::parse_cpu_list("0-3,8,10-11\n"), (Cpus{0, 1, 2, 3, 8, 10, 11}));
  EXPECT_EQ(microbench::parse_cpu_list("0"), (Cpus{0}));
  EXPECT_EQ(microbench::parse_cpu_list("5-5,1,3-4,1"), (Cpus{1, 3, 4, 5}));  // sorted, no repeats
  for (const char* bad : {"", "\n", "a", "1,,2", "1,", ",1", "3-1", "-1", "1-", "1-2-3", " 1", "1 ", "0-99999"})
    EXPECT_TRUE(microbench::parse_cpu_list(bad).empty()) << "'" << bad << "'";
}

// Each run against the pass right after it: a run the host slowed, with its pass slowed
// alike, reads as the others; the block's reading is what the median run saw.
TEST(PairedReference, EachRunIsSetAgainstItsOwnPass) {
  auto r = paired_reference_reading({10e-3, 10e-3, 20e-3}, {1e-3, 1e-3, 2e-3});
  EXPECT_DOUBLE_EQ(r.first, 1e-3);
  EXPECT_EQ(r.second, 3);
  // Runs steady while the passes moved: the reading is the runs' median over their ratios' median.
  r = paired_reference_reading({4e-3, 4e-3, 4e-3, 4e-3}, {1e-3, 1e-3, 2e-3, 2e-3});
  EXPECT_DOUBLE_EQ(r.first, 4e-3 / 3.0);
  // Pairs without a positive time are left out; fewer than three pairs read nothing.
  r = paired_reference_reading({4e-3, 4e-3, 4e-3}, {1e-3, 0, 1e-3});
  EXPECT_EQ(r.first, 0.0);
  EXPECT_EQ(r.second, 0);
  EXPECT_EQ(paired_reference_reading({1e-3, 1e-3, 1e-3, 1e-3}, {1e-3}).second, 0);
}

// The drift uses the paired reading where the block has one, the mean of before and after
// where it does not.
TEST(PairedReference, TheDriftUsesThePairedReadingWhereThereIsOne) {
  auto [ctx, m] = kernels_baseline_and_reading(1.0e-3);
  const Prediction p;
  EXPECT_DOUBLE_EQ(host_figures(m, p, ctx).drift, 1.0);
  m.host->paired_kernels_s = 2.0e-3;
  const HostFigures f = host_figures(m, p, ctx);
  EXPECT_DOUBLE_EQ(f.drift, 0.5);
  EXPECT_DOUBLE_EQ(f.normalized_throughput, 200);
}

}  // namespace
}  // namespace rooflens
