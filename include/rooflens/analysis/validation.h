// Agreement between predictions and measurements: rank correlation and error shares.
#pragma once

#include <string>
#include <vector>

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

}  // namespace rooflens
