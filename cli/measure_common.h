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

namespace rooflens::cli {

int default_threads(int t);

struct Compared {
  Measurement m;
  Prediction p;
  double peak = 0;
  std::string peak_label;
  std::string inputs;  // the graph inputs as run: "x 1x3x224x224"
  HostFigures host;    // the host's state against the command's baseline
};

// The host-state options `measure` and `validate` share.
void add_host_options(CLI::App* cmd, bool* no_reference, double* max_move);

// Loads `path` at `batch`, measures it on a fresh backend of `choice` and predicts it on
// `dev`. warmup_seconds < 0: the backend's default (1 s on a GPU, which clocks up from idle).
Expected<Compared> measure_and_predict(const std::string& path, const std::vector<InputShapeOverride>& shapes,
                                       const BackendChoice& choice, int64_t batch, const ExecOptions& exec,
                                       double max_seconds, const DeviceSpec& dev, double warmup_seconds,
                                       HostContext* host = nullptr);

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
