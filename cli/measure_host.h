// The host's state around `measure` and `validate` runs: contention (exec/host_state.h), the
// host-state reference (microbench/host_reference.h), the drift from a baseline and the
// normalised throughput (analysis/validation.h), rendered for the two commands' outputs.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "rooflens/analysis/validation.h"
#include "rooflens/device/device.h"
#include "rooflens/exec/measure.h"
#include "rooflens/perf/model.h"

namespace rooflens::cli {

// One per command: the samplers and the baseline every measurement is normalised to.
struct HostContext {
  std::unique_ptr<HostSampler> sampler;
  std::unique_ptr<microbench::HostReferenceProbe> reference;  // null: --no-host-reference
  double max_move = 0.10;
  bool adapt_threads = false;  // MeasureOptions::adapt_threads (measure: on unless --fixed-threads)
  HostRates baseline;
  std::string baseline_source;  // "kernel table (...)" or "first reading of this run (...)"
};

HostContext make_host_context(bool reference, double max_move, int threads, const DeviceSpec& dev);
// Points the measure options at the context's sampler and reference.
void attach_host(MeasureOptions& mo, const HostContext& ctx);

// A measurement set against the baseline.
struct HostFigures {
  bool has_reference = false;
  double compute_share = 0.5;        // of the prediction's layer time
  double drift = 1;                  // host speed now / at the baseline (analysis::host_drift)
  double normalized_throughput = 0;  // measured / drift: images/s at the baseline's host state
  double predicted_at_state = 0;     // predicted x drift: the kernel table scaled to the host now
};
// The first measurement of a command without a kernel-table baseline sets the baseline.
HostFigures host_figures(const Measurement& m, const Prediction& p, HostContext& ctx);

nlohmann::json host_json(const Measurement& m, const HostFigures& f, const HostContext& ctx);
std::string host_text(const Measurement& m, const HostFigures& f, const HostContext& ctx);

}  // namespace rooflens::cli
