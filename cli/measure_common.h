// What `measure` and `validate` share (measure_cmd.cpp): one model measured and predicted,
// the device checks, and the measurement's JSON (schema rooflens.measure/1).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "backend_choice.h"
#include "commands.h"
#include "loading.h"
#include "measure_host.h"
#include "rooflens/device/device.h"
#include "rooflens/exec/measure.h"
#include "rooflens/perf/model.h"
#include "rooflens/session/zoo_validation.h"

namespace rooflens::cli {

int default_threads(int t);

// One model measured and predicted (session/zoo_validation.h).
using Compared = MeasuredAndPredicted;

// The host-state options `measure` and `validate` share.
// The host-state flags of measure and validate; `state_wait` holds the command's default.
void add_host_options(CLI::App* cmd, bool* no_reference, double* max_move, bool* no_paired, double* state_wait);

Expected<DeviceSpec> load_dev(const std::string& spec, const std::string& dir);

// Utilization and predictions are against the device's peaks: they must be the machine's
// that runs the backend.
Status device_runs_backend(const DeviceSpec& dev, const std::string& given, const std::string& backend,
                           const std::string& gpu_name);

// What one `measure` run found, for its renderings.
struct MeasureOutcome {
  const Compared& c;
  const DeviceSpec& dev;
  const Expected<int64_t>& max_batch;
  std::string gpu_name;
  std::optional<double> verify_err;
  std::vector<double> errs;
  const HostContext* host = nullptr;
  std::string device_mismatch;  // microbench::cpu_device_mismatch, on a CPU backend
};
// The measurement with every layer (measured and predicted time, implementation) as JSON
// text; `a` gives the dtype and whether it was a CUDA graph.
std::string measure_json(const MeasureArgs& a, const MeasureOutcome& o);

}  // namespace rooflens::cli
