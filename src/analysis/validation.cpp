// Prediction-vs-measurement statistics (see validation.h).
#include "rooflens/analysis/validation.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace rooflens {

ValidationSummary summarize(const std::vector<ValidationPoint>& points) {
  ValidationSummary s;
  s.n = points.size();
  if (points.empty()) return s;
  std::vector<double> m, p, abs_err;
  for (const auto& pt : points) {
    m.push_back(pt.measured);
    p.push_back(pt.predicted);
    abs_err.push_back(std::abs(pt.error()));
  }
  s.spearman = spearman(m, p);
  std::sort(abs_err.begin(), abs_err.end());
  const size_t k = abs_err.size();
  s.median_abs_error = k % 2 ? abs_err[k / 2] : (abs_err[k / 2 - 1] + abs_err[k / 2]) / 2;
  s.within_10 = static_cast<double>(std::count_if(abs_err.begin(), abs_err.end(), [](double e) { return e <= 0.10; })) /
                static_cast<double>(k);
  s.within_25 = static_cast<double>(std::count_if(abs_err.begin(), abs_err.end(), [](double e) { return e <= 0.25; })) /
                static_cast<double>(k);
  return s;
}

double host_drift(const HostRates& now, const HostRates& baseline, double compute_share) {
  if (!now.known() || !baseline.known()) return 1.0;
  const double f = std::clamp(compute_share, 0.0, 1.0);
  const double rc = now.gemm_flops / baseline.gemm_flops, rm = now.stream_bytes / baseline.stream_bytes;
  return 1.0 / (f / rc + (1 - f) / rm);
}

double compute_share(const std::vector<double>& t_compute, const std::vector<double>& t_memory,
                     const std::vector<double>& time_s) {
  double total = 0, compute = 0;
  for (size_t i = 0; i < time_s.size() && i < t_compute.size() && i < t_memory.size(); ++i) {
    total += time_s[i];
    if (t_compute[i] >= t_memory[i]) compute += time_s[i];
  }
  return total > 0 ? compute / total : 0.5;
}

Spread spread(const std::vector<double>& xs) {
  Spread s;
  s.n = xs.size();
  if (xs.empty()) return s;
  std::vector<double> v = xs;
  std::sort(v.begin(), v.end());
  s.median = v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
  if (s.median <= 0) return s;
  s.rel_range = (v.back() - v.front()) / s.median;
  s.max_dev = std::max(std::abs(v.back() / s.median - 1), std::abs(v.front() / s.median - 1));
  return s;
}

}  // namespace rooflens
