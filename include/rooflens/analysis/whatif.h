// What-if table: one model under transforms and settings (fold, channel padding, dtype,
// batch, other devices), each row predicted again on the transformed graph or setting,
// beside the baseline. Graph transforms come in as functions (see study_run.h).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "rooflens/analysis/study_run.h"

namespace rooflens {

// Loads the model at a batch (graph inputs) and analysis dtype.
using TypedLoader = std::function<Expected<LoadedModel>(int64_t batch, DType dtype)>;
// A width transform of a loaded model (e.g. pad channels to a multiple), analysed again.
using ModelTransform = std::function<Expected<LoadedModel>(const LoadedModel&)>;

struct WhatIfRow {
  std::string group;    // baseline, fold, pad, dtype, batch, device
  std::string variant;  // "fold f=4", "pad to 8", "int8", "batch 64", "a100-sxm4-80gb"
  std::string device_id, dtype;
  int64_t batch = 0;       // images per batch
  double throughput = 0;   // images/s (predicted)
  double speedup = 0;      // throughput / baseline throughput
  double utilization = 0;  // over the row's device datasheet peak for its dtype
  double ai = 0, cmr = 0;  // aggregate AI; the row device's CMR for its dtype
  double flops_per_image = 0;
  std::string note;  // why a row could not be computed, or what it assumed
  bool ok = true;
};

struct WhatIfOptions {
  DeviceSpec device;
  std::string dtype = "fp16";
  std::optional<int64_t> batch;  // nullopt: the largest batch that fits
  PerfOptions perf;
  std::vector<int> fold_factors{2, 3, 4};
  std::vector<std::string> dtypes{"fp32", "fp16", "int8"};
  std::vector<int64_t> batches{1, 8, 64};  // and max
  std::vector<DeviceSpec> other_devices;
  ModelFolder fold;
  ModelFolder fold_aligned;  // the same with widths rounded up to pad_multiple (nullptr: no rows)
  ModelTransform pad;        // pad channels to the device's tensor-core multiple (nullptr: no row)
  int pad_multiple = 8;
};

// Rows that cannot be computed (a dtype the device lacks, a model fold cannot transform)
// carry ok = false and a note; a failing baseline is an error.
Expected<std::vector<WhatIfRow>> run_whatif(const TypedLoader& load, const WhatIfOptions& o);

}  // namespace rooflens
