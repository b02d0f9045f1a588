// Prediction-vs-measurement statistics (see validation.h).
#include "rooflens/analysis/validation.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace rooflens {
namespace {

std::vector<double> ranks(const std::vector<double>& v) {
  std::vector<size_t> idx(v.size());
  std::iota(idx.begin(), idx.end(), 0);
  std::sort(idx.begin(), idx.end(), [&](size_t a, size_t b) { return v[a] < v[b]; });
  std::vector<double> r(v.size());
  for (size_t i = 0; i < idx.size();) {
    size_t j = i;
    while (j + 1 < idx.size() && v[idx[j + 1]] == v[idx[i]]) ++j;
    const double avg = (static_cast<double>(i) + static_cast<double>(j)) / 2 + 1;
    for (size_t k = i; k <= j; ++k) r[idx[k]] = avg;
    i = j + 1;
  }
  return r;
}

}  // namespace

double spearman(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size() || a.size() < 2) return 0;
  auto ra = ranks(a), rb = ranks(b);
  const double n = static_cast<double>(a.size());
  const double ma = std::accumulate(ra.begin(), ra.end(), 0.0) / n, mb = std::accumulate(rb.begin(), rb.end(), 0.0) / n;
  double sab = 0, saa = 0, sbb = 0;
  for (size_t i = 0; i < ra.size(); ++i) {
    sab += (ra[i] - ma) * (rb[i] - mb);
    saa += (ra[i] - ma) * (ra[i] - ma);
    sbb += (rb[i] - mb) * (rb[i] - mb);
  }
  return saa > 0 && sbb > 0 ? sab / std::sqrt(saa * sbb) : 0;
}

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
  s.within_10 = static_cast<double>(std::count_if(abs_err.begin(), abs_err.end(), [](double e) { return e <= 0.10; })) / static_cast<double>(k);
  s.within_25 = static_cast<double>(std::count_if(abs_err.begin(), abs_err.end(), [](double e) { return e <= 0.25; })) / static_cast<double>(k);
  return s;
}

}  // namespace rooflens
