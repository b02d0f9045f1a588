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

}  // namespace
}  // namespace rooflens
