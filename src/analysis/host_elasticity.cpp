// The host's elasticities (see host_elasticity.h).
#include "rooflens/analysis/host_elasticity.h"

#include <cmath>

#include "rooflens/exec/timing.h"
#include "rooflens/util/least_squares.h"

namespace rooflens {
namespace {

using Logs = std::array<double, kElasticReadings>;

// log(a / b), 0 where either is not positive.
double log_ratio(double a, double b) { return a > 0 && b > 0 ? std::log(a / b) : 0.0; }

double dot(const std::vector<double>& b, const Logs& x) {
  double s = 0;
  for (size_t i = 0; i < kElasticReadings; ++i) s += b[i] * x[i];
  return s;
}

// One model's runs as deviations from its means: log throughput and the readings' log ratios.
struct Deviations {
  std::vector<double> y;
  std::vector<Logs> x;
};
Deviations deviations_of(const RunsWithReadings& m, const microbench::HostReference& baseline) {
  Deviations d;
  const size_t n = m.throughput.size();
  if (n < 2 || m.readings.size() != n) return d;
  double my = 0;
  Logs mx{};
  for (size_t k = 0; k < n; ++k) {
    if (!(m.throughput[k] > 0)) return {};
    d.y.push_back(std::log(m.throughput[k]));
    d.x.push_back(reading_log_ratios(m.readings[k], baseline));
    my += d.y.back() / static_cast<double>(n);
    for (size_t i = 0; i < kElasticReadings; ++i) mx[i] += d.x.back()[i] / static_cast<double>(n);
  }
  for (size_t k = 0; k < n; ++k) {
    d.y[k] -= my;
    for (size_t i = 0; i < kElasticReadings; ++i) d.x[k][i] -= mx[i];
  }
  return d;
}

}  // namespace

const std::array<std::string, kElasticReadings>& elastic_reading_names() {
  static const std::array<std::string, kElasticReadings> names = {"kernels", "fma", "gemm", "dispatch"};
  return names;
}

std::array<double, kElasticReadings> reading_log_ratios(const microbench::HostReference& now,
                                                        const microbench::HostReference& baseline) {
  return {log_ratio(baseline.kernels_s, now.kernels_s), log_ratio(now.fma_flops, baseline.fma_flops),
          log_ratio(now.gemm_flops, baseline.gemm_flops), log_ratio(baseline.dispatch_s, now.dispatch_s)};
}

std::optional<HostElasticity> fit_host_elasticity(const std::vector<RunsWithReadings>& models,
                                                  const microbench::HostReference& baseline,
                                                  std::optional<size_t> leave_out) {
  std::vector<Deviations> devs;
  NormalEquations ne(kElasticReadings);
  HostElasticity e;
  for (size_t i = 0; i < models.size(); ++i) {
    if (leave_out == i) continue;
    Deviations d = deviations_of(models[i], baseline);
    if (d.y.empty()) continue;
    for (size_t k = 0; k < d.y.size(); ++k) ne.add({d.x[k].begin(), d.x[k].end()}, d.y[k]);
    e.deviations += d.y.size() - 1;
    ++e.models;
    devs.push_back(std::move(d));
  }
  if (e.deviations < kMinElasticDeviations) return std::nullopt;
  // A reading no run varied (read on another thread count, or not at all) is held at 0.
  for (size_t i = 0; i < kElasticReadings; ++i) ne.add_ridge(i, 1e-9 * static_cast<double>(ne.rows()));
  auto b = ne.solve();
  if (!b) return std::nullopt;
  double raw = 0, fitted = 0;
  for (const Deviations& d : devs)
    for (size_t k = 0; k < d.y.size(); ++k) {
      raw += d.y[k] * d.y[k];
      const double r = d.y[k] - dot(*b, d.x[k]);
      fitted += r * r;
    }
  const double dof = static_cast<double>(e.deviations);
  e.sd_raw = std::sqrt(raw / dof);
  e.sd_fitted = std::sqrt(fitted / dof);
  for (size_t i = 0; i < kElasticReadings; ++i) e.exponent[i] = (*b)[i];
  return e;
}

std::array<double, kElasticReadings> median_log_ratios(const std::vector<RunsWithReadings>& models,
                                                       const microbench::HostReference& baseline) {
  std::array<std::vector<double>, kElasticReadings> per;
  for (const RunsWithReadings& m : models)
    for (const auto& r : m.readings) {
      const Logs x = reading_log_ratios(r, baseline);
      for (size_t i = 0; i < kElasticReadings; ++i) per[i].push_back(x[i]);
    }
  Logs out{};
  for (size_t i = 0; i < kElasticReadings; ++i)
    if (!per[i].empty()) out[i] = quantile(per[i], 0.5);
  return out;
}

double elastic_drift(const microbench::HostReference& now, const microbench::HostReference& baseline,
                     const HostElasticity& e) {
  const Logs x = reading_log_ratios(now, baseline);
  double s = 0;
  for (size_t i = 0; i < kElasticReadings; ++i) s += e.exponent[i] * (x[i] - e.center[i]);
  return e.level * std::exp(s);
}

}  // namespace rooflens
