// Prediction-vs-measurement statistics (see validation.h).
#include "rooflens/analysis/validation.h"

#include <algorithm>
#include <cmath>
#include <map>
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
  if (now.kernels_s > 0 && baseline.kernels_s > 0) return baseline.kernels_s / now.kernels_s;
  const double f = std::clamp(compute_share, 0.0, 1.0);
  const double rc = compute_ratio(now, baseline), rm = now.stream_bytes / baseline.stream_bytes;
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

namespace {

// The largest k >= 1 with P(Binomial(n, 1/2) < k) <= 1/16: [x(k), x(n+1-k)] covers the median
// with probability >= 87.5% (the whole range of 4 runs); 0 where no such k exists (n < 4).
size_t median_interval_rank(size_t n) {
  double below = 0, term = std::pow(0.5, static_cast<double>(n));  // P(B = 0)
  size_t k = 0;
  for (size_t j = 0; j < n; ++j) {
    below += term;  // P(B <= j)
    if (below > 0.0625 + 1e-12) break;
    k = j + 1;
    term *= static_cast<double>(n - j) / static_cast<double>(j + 1);
  }
  return k;
}

}  // namespace

bool median_settled(const std::vector<double>& xs, double tolerance) {
  const size_t k = median_interval_rank(xs.size());
  if (k == 0) return false;
  std::vector<double> v = xs;
  std::sort(v.begin(), v.end());
  const double m = spread(v).median;
  if (m <= 0) return false;
  return v[k - 1] >= m * (1 - tolerance) && v[v.size() - k] <= m * (1 + tolerance);
}

std::string layer_class(const LayerPrediction& l) {
  if (l.bound == Bound::kNone) return "";
  if (l.t_compute < l.t_memory) return "memory";
  return l.kernel_class == "other" ? "" : l.kernel_class;
}

std::vector<LayerClassTimes> layer_class_times(const Prediction& p,
                                               const std::vector<std::pair<std::string, double>>& measured_layers) {
  std::map<std::string, double> measured(measured_layers.begin(), measured_layers.end());
  std::map<std::string, LayerClassTimes> by;
  for (const LayerPrediction& l : p.layers) {
    const std::string cls = layer_class(l);
    const auto it = measured.find(l.name);
    if (cls.empty() || it == measured.end() || !(it->second > 0)) continue;
    LayerClassTimes& t = by[cls];
    t.model = p.model;
    t.cls = cls;
    ++t.layers;
    t.predicted_s += l.time_s;
    t.measured_s += it->second;
  }
  std::vector<LayerClassTimes> out;
  for (auto& [cls, t] : by) out.push_back(std::move(t));
  return out;
}

std::vector<LayerClassSummary> summarize_layer_classes(const std::vector<LayerClassTimes>& times) {
  std::map<std::string, LayerClassSummary> by;
  std::map<std::string, std::vector<double>> ratios;
  for (const LayerClassTimes& t : times) {
    LayerClassSummary& s = by[t.cls];
    s.cls = t.cls;
    ++s.models;
    s.layers += t.layers;
    s.predicted_s += t.predicted_s;
    s.measured_s += t.measured_s;
    if (t.predicted_s > 0) ratios[t.cls].push_back(t.measured_s / t.predicted_s);
  }
  std::vector<LayerClassSummary> out;
  for (auto& [cls, s] : by) {
    auto& r = ratios[cls];
    if (!r.empty()) {
      std::sort(r.begin(), r.end());
      const size_t k = r.size();
      s.median_ratio = k % 2 ? r[k / 2] : (r[k / 2 - 1] + r[k / 2]) / 2;
    }
    out.push_back(s);
  }
  return out;
}

}  // namespace rooflens
