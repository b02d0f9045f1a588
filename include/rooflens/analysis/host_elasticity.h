// How a zoo's runs follow the host-state reference on the host at hand: the exponents
// ("elasticities") of the reference's speed ratios against the baseline that best explain how
// each model's repeated runs moved, fitted on the runs themselves. One ratio alone (the batch-1
// convolutions) carried 0.56-0.78 of a model's movement on the Zen 3 guest and its noise
// besides, so dividing by it left the within-model spread almost where it was; four readings
// weighted by their fitted exponents took the sd of one batch-1 run's log runs from 14.8% to
// 7.8% (79 models, three rounds). Fitted on small movements,
// the exponents do not carry the session's level against the baseline (one run read the
// convolutions 14.5% faster than the probe and the GEMM 9% slower, and the exponents alone left
// its predictions 11% slow), so a run's drift is the session's level (the median of its runs'
// own drift, host_drift) times the exponents' account of how the run's readings differ from the
// session's median ones (docs/performance.md, "Issue 30, twenty-eighth pass").
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "rooflens/microbench/host_reference.h"

namespace rooflens {

// The readings an elasticity is fitted on, in this order: the batch-1 reference convolutions
// (kernels_s), the FMA loop (fma_flops), the fixed GEMM (gemm_flops), the dispatch (dispatch_s).
constexpr size_t kElasticReadings = 4;
const std::array<std::string, kElasticReadings>& elastic_reading_names();

// log(speed now / speed at the baseline) of each reading (times inverted); 0 where either
// side did not read it.
std::array<double, kElasticReadings> reading_log_ratios(const microbench::HostReference& now,
                                                        const microbench::HostReference& baseline);

// One model's runs (throughput) and the host reading each was taken beside.
struct RunsWithReadings {
  std::vector<double> throughput;
  std::vector<microbench::HostReference> readings;
};

struct HostElasticity {
  std::array<double, kElasticReadings> exponent{};
  size_t deviations = 0;  // runs less models, over the models with two runs or more
  size_t models = 0;
  double sd_raw = 0, sd_fitted = 0;  // within-model sd of log throughput before and after
  // Where a session's runs are centred (set by its caller; the fit leaves 0 and 1): the median
  // over its runs of each reading's log ratio, and of their own drift (host_drift).
  std::array<double, kElasticReadings> center{};
  double level = 1;
};

// Fewer within-model deviations than this (a single round) fit nothing.
constexpr size_t kMinElasticDeviations = 20;

// Least squares of each model's log throughput less its mean on the readings' log ratios less
// theirs (a reading that never varies gets 0); `leave_out`, an index into models, is not
// fitted on. nullopt below kMinElasticDeviations. Pure.
std::optional<HostElasticity> fit_host_elasticity(const std::vector<RunsWithReadings>& models,
                                                  const microbench::HostReference& baseline,
                                                  std::optional<size_t> leave_out = std::nullopt);

// Per reading, the median log ratio over every run of `models` (0 without runs).
std::array<double, kElasticReadings> median_log_ratios(const std::vector<RunsWithReadings>& models,
                                                       const microbench::HostReference& baseline);

// How much faster (> 1) the host ran than at the baseline: level * exp(sum exponent_i *
// (log ratio_i - center_i)).
double elastic_drift(const microbench::HostReference& now, const microbench::HostReference& baseline,
                     const HostElasticity& e);

}  // namespace rooflens
