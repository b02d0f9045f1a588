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

}  // namespace rooflens
