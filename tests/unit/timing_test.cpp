// The timing harness's stopping rules (src/exec/timing.cpp).
#include <gtest/gtest.h>

#include <chrono>

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
  o.max_seconds = 1;
  auto spin = [] {
    const auto t0 = std::chrono::steady_clock::now();
    while (std::chrono::steady_clock::now() - t0 < std::chrono::microseconds(200)) {
    }
    return Status::ok();
  };
  auto r = time_runs(spin, o);
  ASSERT_TRUE(r) << r.status().message();
  double total = 0;
  for (double s : r->samples) total += s;
  EXPECT_GE(total, 0.02);
  EXPECT_GT(r->samples.size(), 50u);  // 20 ms of 0.2 ms runs; without min_seconds, 5 settle
}

}  // namespace
}  // namespace rooflens
