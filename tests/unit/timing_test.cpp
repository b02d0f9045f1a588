// The timing harness's stopping rules (src/exec/timing.cpp).
#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <limits>
#include <thread>

#include "rooflens/exec/timing.h"

namespace rooflens {
namespace {

// With min_seconds the settle rule waits until that much time has been measured, and
// min_warmup_seconds keeps warming up for that long before measuring.
TEST(TimeRuns, KeepsMeasuringUntilTheMinimumTime) {
  TimingOptions o;
  o.warmup = 0;
  o.min_repeats = 5;
  o.max_repeats = 100000;
  o.min_seconds = 0.02;
  o.min_warmup_seconds = 0.01;
  o.max_seconds = 60;  // a cap far above the rule, so load cannot make it stop first
  int calls = 0;
  auto spin = [&calls] {
    ++calls;
    const auto t0 = std::chrono::steady_clock::now();
    while (std::chrono::steady_clock::now() - t0 < std::chrono::microseconds(200)) {
    }
    return Status::ok();
  };
  auto r = time_runs(spin, o);
  ASSERT_TRUE(r) << r.status().message();
  // The rules themselves, which hold however loaded the machine is (a count of samples in a
  // wall-clock window would not): at least min_seconds measured, at least min_repeats
  // samples, and warm-up calls made although warmup = 0, because min_warmup_seconds > 0.
  double total = 0;
  for (double s : r->samples) total += s;
  EXPECT_GE(total, o.min_seconds);
  EXPECT_GE(r->samples.size(), static_cast<size_t>(o.min_repeats));
  EXPECT_GT(calls, static_cast<int>(r->samples.size()));
}

// A run of `ms` milliseconds that counts its calls: load only lengthens it.
std::function<Status()> counted_sleep(int ms, int* calls) {
  return [ms, calls] {
    ++*calls;
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
    return Status::ok();
  };
}

// A run that alone outlasts the cap: one warm-up and min_repeats_past_cap timed runs, not the
// two warm-ups and five repeats a short model gets. Load only lengthens each 20 ms run, so a
// busy machine cannot make it look short.
TEST(TimeRuns, ALongRunIsWarmedUpOnceAndTimedThreeTimes) {
  TimingOptions o = model_timing(false, 0.001);
  ASSERT_EQ(o.min_repeats_past_cap, 3);
  int calls = 0;
  auto r = time_runs(counted_sleep(20, &calls), o);
  ASSERT_TRUE(r) << r.status().message();
  EXPECT_EQ(r->samples.size(), 3u);
  EXPECT_EQ(calls, 4);
}

// A GPU warms up for its least warm-up time however long one run is (it clocks up from idle):
// a 1 ms run over a 0.5 ms cap is not the only warm-up when 0.2 s are asked (it would take a
// 200x slowdown of a 1 ms sleep for this to read otherwise).
TEST(TimeRuns, ALongRunStillWarmsUpForTheLeastWarmupTime) {
  TimingOptions o = model_timing(true, 0.0005, 0.2);
  int calls = 0;
  auto r = time_runs(counted_sleep(1, &calls), o);
  ASSERT_TRUE(r) << r.status().message();
  EXPECT_GE(calls - static_cast<int>(r->samples.size()), 2);
}

// Off (the default for probes), the long run still gets every warm-up and min_repeats.
TEST(TimeRuns, WithoutThePastCapFloorMinRepeatsHold) {
  TimingOptions o;
  o.max_seconds = 0.001;
  int calls = 0;
  auto r = time_runs(counted_sleep(5, &calls), o);
  ASSERT_TRUE(r) << r.status().message();
  EXPECT_EQ(r->samples.size(), static_cast<size_t>(o.min_repeats));
  EXPECT_EQ(calls, o.warmup + o.min_repeats);
}

// A model measured on a CPU is bounded by time, not by a count of runs: a 1 ms model stopped
// at 200 runs was timed over 0.2 s, whatever --max-seconds said.
TEST(ModelTiming, CpuRunsAreBoundedByTimeAlone) {
  const TimingOptions cpu = model_timing(false, 3.0);
  EXPECT_EQ(cpu.max_seconds, 3.0);
  EXPECT_EQ(cpu.min_seconds, 0.75);
  EXPECT_EQ(cpu.max_repeats, std::numeric_limits<int>::max());
  EXPECT_EQ(cpu.min_warmup_seconds, 0.25);
  EXPECT_EQ(model_timing(false, 10.0).min_seconds, 1.0);
  EXPECT_EQ(model_timing(false, 0.8).min_warmup_seconds, 0.1);
}

TEST(ModelTiming, GpuWarmsUpForASecondAndAnExplicitWarmupWins) {
  const TimingOptions gpu = model_timing(true, 3.0);
  EXPECT_EQ(gpu.min_warmup_seconds, 1.0);
  EXPECT_EQ(gpu.min_seconds, 0.0);
  EXPECT_EQ(gpu.max_repeats, TimingOptions{}.max_repeats);
  EXPECT_EQ(model_timing(true, 3.0, 0.0).min_warmup_seconds, 0.0);
  EXPECT_EQ(model_timing(false, 3.0, 2.0).min_warmup_seconds, 2.0);
}

}  // namespace
}  // namespace rooflens
