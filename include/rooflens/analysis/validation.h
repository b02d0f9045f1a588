// Agreement between predictions and measurements: rank correlation and error shares, per
// model and per layer class.
#pragma once

#include <string>
#include <utility>
#include <vector>

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
