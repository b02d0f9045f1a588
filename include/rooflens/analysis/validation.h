// Agreement between predictions and measurements: rank correlation and error shares, per
// model and per layer class.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "rooflens/microbench/host_reference.h"
#include "rooflens/perf/model.h"

#include "rooflens/util/rank_correlation.h"  // spearman

namespace rooflens {

struct ValidationPoint {
  std::string name;
  double measured = 0, predicted = 0;  // same unit (e.g. images/s)
  double error() const { return measured > 0 ? predicted / measured - 1 : 0; }
};

struct ValidationSummary {
  double spearman = 0;                  // rank correlation of predicted vs measured
  double median_abs_error = 0;          // median of |predicted / measured - 1|
  double within_10 = 0, within_25 = 0;  // share of points within +-10% / +-25%
  size_t n = 0;
};

ValidationSummary summarize(const std::vector<ValidationPoint>& points);

// The host's state while a model ran, or when a baseline was taken: the host-state
// reference's reading (microbench/host_reference.h); compute_ratio is its compute side.
using HostRates = microbench::HostReference;
using microbench::compute_ratio;

// How much faster (> 1) or slower the host ran than at `baseline`: where both readings timed
// the reference's batch-1 convolutions (kernels_s), their ratio, base / now, whatever the model
// and its batch; otherwise, for a model that spends `compute_share` of its time compute-bound,
// the harmonic mix of the compute and memory ratios, 1 / (f / compute_ratio + (1 - f) /
// (stream / stream_base)). 1 when either is unknown. The batch-8 convolutions (kernels8_s) are
// read and shown, not used: dividing batch-8 runs by them repeated worse (75% and 67% of the
// zoo within +-5% between two runs, against 89% and 82% by the batch-1 ones, on the same
// readings; docs/performance.md, "Issue 30, twenty-fourth pass").
double host_drift(const HostRates& now, const HostRates& baseline, double compute_share);

// Share of a prediction's layer time that is compute-bound (t_compute >= t_memory).
double compute_share(const std::vector<double>& t_compute, const std::vector<double>& t_memory,
                     const std::vector<double>& time_s);

// Spread of one model's repeated measurements: (max - min) / median, and the largest
// |x / median - 1|.
struct Spread {
  double median = 0, rel_range = 0, max_dev = 0;
  size_t n = 0;
};
Spread spread(const std::vector<double>& xs);
// Whether the median of repeated measurements xs is settled: its distribution-free confidence
// interval of at least 87.5% (order statistics x(k) and x(n+1-k), k from Binomial(n, 1/2))
// lies within +-tolerance of the median. Fewer than 4 runs never settle (no such interval).
// validate --max-repeat adds rounds to the models whose median is not settled.
bool median_settled(const std::vector<double>& xs, double tolerance);
// The class a predicted layer is compared in: its kernel class (gemm, depthwise, ...) when
// its compute roof binds, "memory" when its memory roof does ("other" and unbound layers
// are left out: ""). The same split validate --fit fits efficiencies on.
std::string layer_class(const LayerPrediction& l);

// One model's layers of one class: predicted and measured seconds summed (layers matched
// by name; a layer measured at 0 s is left out).
struct LayerClassTimes {
  std::string model, cls;
  int layers = 0;
  double predicted_s = 0, measured_s = 0;
};
std::vector<LayerClassTimes> layer_class_times(const Prediction& p,
                                               const std::vector<std::pair<std::string, double>>& measured_layers);

// Over models, per class: the layers and seconds summed, and the median over models of
// measured / predicted (how far the model is from this backend in that class).
struct LayerClassSummary {
  std::string cls;
  int models = 0, layers = 0;
  double predicted_s = 0, measured_s = 0;
  double median_ratio = 0;  // measured / predicted
};
std::vector<LayerClassSummary> summarize_layer_classes(const std::vector<LayerClassTimes>& times);

}  // namespace rooflens
