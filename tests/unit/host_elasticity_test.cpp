// The host's elasticities (analysis/host_elasticity.h), the normal equations under them
// (util/least_squares.h) and the zoo validation's normalisation by them: synthetic runs from a
// fixed seed, so nothing here depends on the machine's speed or load.
#include "rooflens/analysis/host_elasticity.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "rooflens/session/zoo_validation.h"
#include "rooflens/util/least_squares.h"

namespace rooflens {
namespace {

using microbench::HostReference;

HostReference baseline() {
  HostReference b;
  b.kernels_s = 1e-3;
  b.fma_flops = 180e9;
  b.gemm_flops = 20e9;
  b.dispatch_s = 1.5e-6;
  return b;
}

// A reading whose four speed ratios against the baseline are exp(x).
HostReference reading(const std::array<double, kElasticReadings>& x) {
  HostReference b = baseline(), r = b;
  r.kernels_s = b.kernels_s / std::exp(x[0]);
  r.fma_flops = b.fma_flops * std::exp(x[1]);
  r.gemm_flops = b.gemm_flops * std::exp(x[2]);
  r.dispatch_s = b.dispatch_s / std::exp(x[3]);
  return r;
}

constexpr std::array<double, kElasticReadings> kTrue = {0.2, 0.35, 0.15, 0.1};

// `models` models of `runs` runs each whose throughput follows the readings by kTrue exactly.
std::vector<RunsWithReadings> synthetic(int models, int runs, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> move(0, 0.08);
  std::vector<RunsWithReadings> out;
  for (int m = 0; m < models; ++m) {
    RunsWithReadings r;
    const double speed = 10.0 * (m + 1);
    for (int k = 0; k < runs; ++k) {
      std::array<double, kElasticReadings> x{};
      double s = 0;
      for (size_t i = 0; i < kElasticReadings; ++i) s += kTrue[i] * (x[i] = move(rng));
      r.throughput.push_back(speed * std::exp(s));
      r.readings.push_back(reading(x));
    }
    out.push_back(std::move(r));
  }
  return out;
}

TEST(NormalEquations, SolvesAWeightedFitAndRefusesASingularOne) {
  NormalEquations ne(2);
  for (double x : {0.0, 1.0, 2.0, 3.0}) ne.add({1.0, x}, 1.0 + 2.0 * x, x + 1);
  auto b = ne.solve();
  ASSERT_TRUE(b);
  EXPECT_NEAR((*b)[0], 1.0, 1e-12);
  EXPECT_NEAR((*b)[1], 2.0, 1e-12);
  NormalEquations singular(2);
  singular.add({1.0, 0.0}, 3.0);
  EXPECT_FALSE(singular.solve());
  singular.add_ridge(1, 1e-9);
  ASSERT_TRUE(singular.solve());
  EXPECT_NEAR((*singular.solve())[1], 0.0, 1e-12);
}

TEST(HostElasticity, RecoversTheExponentsTheRunsFollow) {
  auto e = fit_host_elasticity(synthetic(30, 3, 7), baseline());
  ASSERT_TRUE(e);
  for (size_t i = 0; i < kElasticReadings; ++i) EXPECT_NEAR(e->exponent[i], kTrue[i], 1e-6) << i;
  EXPECT_EQ(e->models, 30u);
  EXPECT_EQ(e->deviations, 60u);
  EXPECT_GT(e->sd_raw, 0.01);
  EXPECT_LT(e->sd_fitted, 1e-6);
}

TEST(HostElasticity, OneRoundFitsNothing) {
  EXPECT_FALSE(fit_host_elasticity(synthetic(79, 1, 7), baseline()));
  EXPECT_FALSE(fit_host_elasticity(synthetic(9, 3, 7), baseline()));  // 18 deviations, fewer than 20
}

TEST(HostElasticity, AReadingNeverTakenGetsNoWeight) {
  auto models = synthetic(30, 3, 11);
  for (auto& m : models)
    for (auto& r : m.readings) r.dispatch_s = 0;  // read on another thread count
  auto e = fit_host_elasticity(models, baseline());
  ASSERT_TRUE(e);
  EXPECT_EQ(e->exponent[3], 0.0);
  EXPECT_NEAR(e->exponent[1], kTrue[1], 0.1);
}

TEST(HostElasticity, DriftIsTheWeightedProductOfTheRatios) {
  HostElasticity e;
  e.exponent = {0.5, 0.0, 1.0, 0.0};
  HostReference now = baseline();
  now.kernels_s /= 1.21;  // convolutions 1.21x as fast
  now.gemm_flops *= 0.9;
  EXPECT_NEAR(elastic_drift(now, baseline(), e), 1.1 * 0.9, 1e-12);
  EXPECT_EQ(reading_log_ratios(HostReference{}, baseline())[0], 0.0);
}

TEST(HostElasticity, DriftIsTakenAboutTheSessionsCenterAndLevel) {
  HostElasticity e;
  e.exponent = {1.0, 0.0, 0.0, 0.0};
  e.center = {std::log(1.1), 0.0, 0.0, 0.0};
  e.level = 1.25;
  HostReference now = baseline();
  now.kernels_s /= 1.21;  // 1.1x the session's median reading
  EXPECT_NEAR(elastic_drift(now, baseline(), e), 1.25 * 1.1, 1e-12);
  const auto med = median_log_ratios({RunsWithReadings{{1, 1, 1}, {now, baseline(), now}}}, baseline());
  EXPECT_NEAR(med[0], std::log(1.21), 1e-12);
  EXPECT_EQ(med[1], 0.0);
}

// The zoo validation's pass: each model's normalised runs by the fit on the other models, about
// the session's median readings, times the session's level (the median of the runs' own drift).
TEST(NormalizeByElasticity, EachModelIsNormalisedByTheFitOnTheOthers) {
  const auto models = synthetic(30, 3, 5);
  ZooValidation v;
  for (size_t m = 0; m < models.size(); ++m) {
    ModelRuns& mr = v.runs["model" + std::to_string(m)];
    mr.predicted = 1;
    for (size_t k = 0; k < 3; ++k) {
      HostFigures f;
      f.has_reference = true;
      f.drift = 1.2;  // what host_drift read for every run
      f.now = models[m].readings[k];
      mr.raw.push_back(models[m].throughput[k]);
      mr.normalized.push_back(models[m].throughput[k]);  // as if host_drift were 1
      mr.host.push_back(f);
    }
  }
  normalize_by_elasticity(baseline(), &v);
  ASSERT_TRUE(v.elasticity);
  EXPECT_NEAR(v.elasticity->level, 1.2, 1e-12);
  // Every run lands on its model's speed at the session's median state, over the level.
  double at_median = 0;
  for (size_t i = 0; i < kElasticReadings; ++i) at_median += kTrue[i] * v.elasticity->center[i];
  for (size_t m = 0; m < models.size(); ++m) {
    const ModelRuns& mr = v.runs.at("model" + std::to_string(m));
    const double expected = 10.0 * (m + 1) * std::exp(at_median) / 1.2;
    for (size_t k = 0; k < 3; ++k) {
      EXPECT_NEAR(mr.normalized[k], expected, 1e-6 * expected) << m << " " << k;
      EXPECT_NEAR(mr.host[k].drift, mr.raw[k] / mr.normalized[k], 1e-12);
    }
  }
  // The JSON says what was applied: exponents, the session's median readings and level.
  const std::string json = zoo_validation_json(ZooValidationRequest{}, {"cpu", "fp32", "eager", "", 1}, v);
  for (const char* key : {"\"host_elasticity\"", "\"exponents\"", "\"median_log_ratios\"", "\"level\""})
    EXPECT_NE(json.find(key), std::string::npos) << key;
}

TEST(NormalizeByElasticity, ASingleRoundKeepsEachRunsOwnDrift) {
  ZooValidation v;
  ModelRuns& mr = v.runs["one"];
  HostFigures f;
  f.has_reference = true;
  f.drift = 1.25;
  f.now = baseline();
  mr.raw = {10};
  mr.normalized = {8};
  mr.host = {f};
  normalize_by_elasticity(baseline(), &v);
  EXPECT_FALSE(v.elasticity);
  EXPECT_EQ(v.runs.at("one").normalized[0], 8.0);
  EXPECT_EQ(v.runs.at("one").host[0].drift, 1.25);
}

}  // namespace
}  // namespace rooflens
