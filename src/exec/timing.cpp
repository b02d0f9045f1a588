// Timing harness (see timing.h).
#include "rooflens/exec/timing.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <limits>

namespace rooflens {

double quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const double pos = q * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<size_t>(pos);
  const size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (pos - static_cast<double>(lo));
}

TimingOptions model_timing(bool gpu, double max_seconds, double warmup_seconds) {
  TimingOptions o;
  o.max_seconds = max_seconds;
  if (warmup_seconds >= 0)
    o.min_warmup_seconds = warmup_seconds;
  else
    o.min_warmup_seconds = gpu ? 1.0 : std::min(0.25, max_seconds / 8);
  o.min_repeats_past_cap = 3;
  if (!gpu) {
    o.min_seconds = std::min(1.0, max_seconds / 4);
    o.max_repeats = std::numeric_limits<int>::max();
  }
  return o;
}

Expected<TimingResult> time_runs(const std::function<Status()>& run_once, const TimingOptions& o,
                                 const std::function<void(int)>& after_each) {
  const auto w0 = std::chrono::steady_clock::now();
  auto warm = [&w0] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count(); };
  for (int i = 0; i < o.warmup || warm() < o.min_warmup_seconds; ++i) {
    ROOFLENS_RETURN_IF_ERROR(run_once());
    // One run that outlasted the cap (and the least warm-up time: a GPU's clock-up) warms up.
    if (i == 0 && o.min_repeats_past_cap > 0 && warm() >= std::max(o.max_seconds, o.min_warmup_seconds)) break;
  }
  TimingResult r;
  double total = 0;
  for (int i = 0; i < o.max_repeats; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    ROOFLENS_RETURN_IF_ERROR(run_once());
    const double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    r.samples.push_back(dt);
    if (after_each) after_each(i);
    total += dt;
    const int n = static_cast<int>(r.samples.size());
    if (o.min_repeats_past_cap > 0 && n >= o.min_repeats_past_cap && total >= kPastCapMultiple * o.max_seconds) break;
    if (n >= o.min_repeats) {
      const double med = quantile(r.samples, 0.5);
      const double iqr = quantile(r.samples, 0.75) - quantile(r.samples, 0.25);
      if (med > 0 && iqr / med < o.settle_rel_iqr && total >= o.min_seconds) break;
      if (total >= o.max_seconds) break;
    }
  }
  r.median = quantile(r.samples, 0.5);
  r.q1 = quantile(r.samples, 0.25);
  r.q3 = quantile(r.samples, 0.75);
  r.min = *std::min_element(r.samples.begin(), r.samples.end());
  r.max = *std::max_element(r.samples.begin(), r.samples.end());
  if (r.rel_iqr() > o.noisy_rel_iqr) {
    r.noisy = true;
    char buf[200];
    std::snprintf(buf, sizeof buf,
                  "noisy: interquartile range is %.0f%% of the median over %zu runs; the machine appears shared",
                  100 * r.rel_iqr(), r.samples.size());
    r.warning = buf;
  }
  return r;
}

}  // namespace rooflens
