// Repeat statistics and the interference classifier of the probe. Pure functions of the
// samples, so they are tested on synthetic data.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace rooflens::microbench {

// Spread above which a figure is called noisy: (best - median) / best.
inline constexpr double kSpreadLimit = 0.10;
// Thread scaling below this fraction of linear (per distinct core) is called interference.
inline constexpr double kScalingLimit = 0.80;
// Threads on their CPUs less than this fraction of the wall time (time slicing) is interference.
inline constexpr double kOnCpuLimit = 0.90;
// One thread below this fraction of the theoretical peak is reported (not counted as interference).
inline constexpr double kOneThreadEfficiencyLimit = 0.80;

// Summary of repeated measurements. For rates higher is better (best = max); for times lower
// is better (best = min). spread = |best - median| / best, so 0.18 = the median is 18% off
// the best repeat.
struct SampleStats {
  std::vector<double> samples;  // in measurement order
  double median = 0, best = 0, worst = 0, spread = 0;
  bool higher_is_better = true;
};
SampleStats summarize(std::vector<double> samples, bool higher_is_better = true);
// {median, best, worst, spread, samples}: how the probes' JSON writes a figure.
nlohmann::ordered_json sample_stats_json(const SampleStats& s);

// "fp32 avx512, 2 thread(s): spread 18% across 5 repeats (median 150.2, best 183.1 GFLOP/s)"
// when s.spread > limit; nothing otherwise. Figures are printed divided by `scale`.
std::optional<std::string> spread_warning(const std::string& what, const SampleStats& s, const std::string& unit = "",
                                          double scale = 1, double limit = kSpreadLimit);

// Warns when `threads` threads spread over `cores` distinct cores reach less than
// limit x cores times the one-thread rate (pass medians): "fp32 avx512: 2 threads on 2 cores
// reach 1.31x one thread, expected >= 1.60x". Nothing when cores <= 1 or a rate is not positive.
std::optional<std::string> scaling_warning(const std::string& what, double rate_one, double rate_n, int threads,
                                           int cores, double limit = kScalingLimit);

// Fraction of CPU time stolen by the hypervisor between two /proc/stat "cpu" lines
// (steal / total over the interval); nullopt when either line lacks the steal field.
std::optional<double> steal_fraction(const std::string& proc_stat_before, const std::string& proc_stat_after);

}  // namespace rooflens::microbench
