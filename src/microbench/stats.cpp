// Repeat statistics and interference classification (see stats.h).
#include "rooflens/microbench/stats.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <sstream>

namespace rooflens::microbench {

nlohmann::ordered_json sample_stats_json(const SampleStats& s) {
  return {{"median", s.median}, {"best", s.best}, {"worst", s.worst}, {"spread", s.spread}, {"samples", s.samples}};
}

SampleStats summarize(std::vector<double> samples, bool higher_is_better) {
  SampleStats s;
  s.samples = samples;
  s.higher_is_better = higher_is_better;
  if (samples.empty()) return s;
  std::sort(samples.begin(), samples.end());
  const size_t n = samples.size();
  s.median = n % 2 ? samples[n / 2] : 0.5 * (samples[n / 2 - 1] + samples[n / 2]);
  s.best = higher_is_better ? samples.back() : samples.front();
  s.worst = higher_is_better ? samples.front() : samples.back();
  s.spread = s.best > 0 ? std::fabs(s.best - s.median) / s.best : 0;
  return s;
}

std::optional<std::string> spread_warning(const std::string& what, const SampleStats& s, const std::string& unit,
                                          double scale, double limit) {
  if (s.samples.size() < 2 || !(s.spread > limit) || !(scale > 0)) return std::nullopt;
  return fmt::format("{}: spread {:.0f}% across {} repeats (median {:.1f}, best {:.1f}{}{})", what, 100 * s.spread,
                     s.samples.size(), s.median / scale, s.best / scale, unit.empty() ? "" : " ", unit);
}

std::optional<std::string> scaling_warning(const std::string& what, double rate_one, double rate_n, int threads,
                                           int cores, double limit) {
  if (cores <= 1 || !(rate_one > 0) || !(rate_n > 0)) return std::nullopt;
  const double scale = rate_n / rate_one;
  if (scale >= limit * cores) return std::nullopt;
  return fmt::format("{}: {} threads on {} cores reach {:.2f}x one thread, expected >= {:.2f}x", what, threads, cores,
                     scale, limit * cores);
}

namespace {
// user nice system idle iowait irq softirq steal ...; false when there is no steal field.
bool parse_cpu_line(const std::string& text, double* total, double* steal) {
  std::stringstream ss(text);
  std::string line;
  while (std::getline(ss, line)) {
    if (line.rfind("cpu ", 0) != 0) continue;
    std::stringstream ls(line.substr(4));
    std::vector<double> v;
    double x = 0;
    while (ls >> x) v.push_back(x);
    if (v.size() < 8) return false;
    *total = 0;
    for (size_t i = 0; i < 8; ++i) *total += v[i];  // guest time is already in user
    *steal = v[7];
    return true;
  }
  return false;
}
}  // namespace

std::optional<double> steal_fraction(const std::string& before, const std::string& after) {
  double t0 = 0, s0 = 0, t1 = 0, s1 = 0;
  if (!parse_cpu_line(before, &t0, &s0) || !parse_cpu_line(after, &t1, &s1)) return std::nullopt;
  if (!(t1 > t0)) return std::nullopt;
  return std::max(0.0, (s1 - s0) / (t1 - t0));
}

}  // namespace rooflens::microbench
