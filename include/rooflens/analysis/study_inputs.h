// Users' files the study reads: measured throughput per model (rooflens' own columns or
// timm's benchmark CSV as it is) and accuracy per model.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "rooflens/util/status.h"

namespace rooflens {

struct MeasuredRow {
  std::string model;
  int64_t batch = 0;
  double throughput = 0;  // images/s
  int line = 0;           // 1-based line in the file
};

// Columns `model,batch,throughput` (any order, more columns allowed), or timm's
// benchmark.py CSV `model,infer_samples_per_sec,infer_batch_size`. Errors name the file,
// the line and the field: a missing column, a non-numeric or non-positive value, a model
// listed twice.
Expected<std::vector<MeasuredRow>> parse_measurements_csv(const std::string& text, const std::string& file);

struct AccuracyRow {
  std::string model;
  std::optional<double> acc1, acc5;  // percent
  int line = 0;
};

// Columns `model,acc1[,acc5]` (also `top1`/`top5` as timm's results CSVs name them).
// Accuracies must lie in [0, 100].
Expected<std::vector<AccuracyRow>> parse_accuracy_csv(const std::string& text, const std::string& file);

}  // namespace rooflens
