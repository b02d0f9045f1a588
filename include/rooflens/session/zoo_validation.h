// The performance model held to measurements of bundled models on the backend at hand: each
// model measured (in alternating rounds, each run beside the host-state reference) and
// predicted, per model and per layer class, raw and normalised by the host's drift; the
// kernel efficiencies optionally fitted on every other model first. What `rooflens validate`
// and the Python module's validate() run; the CLI and the binding only map their arguments.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "rooflens/analysis/host_elasticity.h"
#include "rooflens/analysis/host_figures.h"
#include "rooflens/analysis/validation.h"
#include "rooflens/device/device.h"
#include "rooflens/exec/backend.h"
#include "rooflens/exec/measure.h"
#include "rooflens/onnx/import.h"
#include "rooflens/perf/model.h"
#include "rooflens/util/status.h"

namespace rooflens {

// validate's wait, before each run, for the kernel table's dispatch state (ZooValidationRequest::
// state_wait): longer than the slower state usually lasts on the shared VMs measured so far
// (tens of seconds; docs/performance.md, "Issue 30, thirty-third pass").
inline constexpr double kDefaultValidateStateWait = 60;

// One model measured on a backend and predicted on a device.
struct MeasuredAndPredicted {
  Measurement m;
  Prediction p;
  double peak = 0;         // FLOP/s: the device's measured peak at the dtype, else its datasheet's
  std::string peak_label;  // "measured" or "datasheet" ("" without a peak)
  std::string inputs;      // the graph inputs as run: "x 1x3x224x224"
  HostFigures host;        // against the host context's baseline; has_reference false without one
};

// Loads the ONNX file `path` at `batch` and `dtype`, measures it on a backend from `make`
// (timing: exec/timing.h's model_timing; warmup_seconds < 0 the backend's default) and
// predicts it on `dev` at that dtype. With `host`, the runs are taken beside its host-state
// reference and set against its baseline (analysis/host_figures.h). Errors name the file.
Expected<MeasuredAndPredicted> measure_and_predict(const std::string& path,
                                                   const std::vector<InputShapeOverride>& shapes,
                                                   const BackendFactory& make, bool gpu, DType dtype, int64_t batch,
                                                   const ExecOptions& exec, double max_seconds, double warmup_seconds,
                                                   const DeviceSpec& dev, HostContext* host);

// One way of running every model: the first mode's measurement is the one compared; the
// others' throughput is reported beside it (the CUDA backend's eager and graph modes).
struct ValidationMode {
  std::string label;  // "cpu", "eager", "graph": names the mode in the per-layer files
  BackendFactory make;
  bool gpu = false;  // a GPU backend: no host-state reference, GPU timing defaults
};

struct ZooValidationRequest {
  std::vector<std::string> models;  // bundled model names (session/zoo.h), measured in this order
  std::string models_dir;           // holding zoo.json
  std::vector<ValidationMode> modes;
  DeviceSpec dev;  // the predictions' device
  DType dtype = DType::kF32;
  int64_t batch = 1;
  ExecOptions exec;
  double max_seconds = 3, warmup_seconds = -1;
  int repeat = 1;      // rounds over the models, every other one in reverse order
  int max_repeat = 0;  // more rounds, up to this many in all, for models whose median is not settled
  // Then more rounds, up to this many in all, for the models with no run in the faster
  // dispatch state (ModelRuns::none_in_state): what a model measured once (--repeat 1) needs
  // when its run fell in the slower state, without the rounds every such model gets from
  // max_repeat (one run has no settled median). 0: off.
  int state_repeat = 0;
  double settle = 0.05;        // analysis::median_settled's tolerance
  bool keep_going = false;     // a model that fails is listed in failures and left out of later rounds
  bool host_reference = true;  // the host-state reference around each run (CPU backends)
  double reference_max_move = kDefaultReferenceMaxMove;
  bool paired_reference = true;  // MeasureOptions::paired_reference
  // Before each run, wait up to this many seconds for the host to read the kernel table's
  // dispatch state (HostContext::state_wait_s; no wait without a table): a run in the other
  // state is not in the normalised median, and one that waits replaces it. 0: no wait.
  double state_wait = kDefaultValidateStateWait;
  // Fit the kernel efficiencies (gemm, depthwise, memory) on the models at even positions and
  // validate on the odd ones only (ZooValidation::fitted, train).
  bool fit_half = false;
  std::function<void(const std::string&)> progress;  // one line per model run; may be empty
  // Each measurement as it is made (mode index into `modes`); an error stops the run.
  std::function<Status(const std::string& model, size_t mode, const MeasuredAndPredicted&)> on_measurement;
};

// One model's repeated measurements: raw, and normalised by the host state.
struct ModelRuns {
  double predicted = 0;
  std::vector<double> raw, normalized;
  std::vector<HostFigures> host;  // per run with a host reference: its reading and drift
  int contended = 0, flagged = 0;
  // The normalised runs read in the dispatch state `level` (ZooValidation::dispatch_level),
  // or all of them when none is: the runs a normalised median is taken over.
  std::vector<double> kept_normalized(double level) const;
  int other_state(double level) const;  // runs read in the other dispatch state
  // Every run with a host reading read the other dispatch state (false without readings).
  bool none_in_state(double level) const;
};

struct ZooValidation {
  std::vector<ValidationPoint> pts;         // measured: the median of each model's raw runs
  std::vector<ValidationPoint> pts_normed;  // measured: the median of its normalised runs
  ValidationSummary summary, normalized;    // of pts and pts_normed (normalized.n 0 without a reference)
  std::map<std::string, ModelRuns> runs;
  std::string host_baseline;  // where the baseline came from
  HostRates host_baseline_rates;
  std::map<std::string, double> second_mode_throughput;       // the second mode's figure per model
  std::vector<LayerClassTimes> class_times;                   // the first round's, per model and class
  std::vector<LayerClassSummary> classes;                     // over models
  std::vector<std::pair<std::string, std::string>> failures;  // model, error
  std::vector<std::string> train;                             // fit_half: the models fitted on
  std::map<std::string, double> fitted;                       // fit_half: efficiency per kernel class
  // The faster dispatch state: the least dispatch read by the baseline or any run (0: none
  // read). Normalised medians are taken over the runs read in it.
  double dispatch_level = 0;
  double baseline_dispatch = 0;  // the baseline's (the kernel table's) dispatch
  double state_waited_s = 0;     // waited for the table's dispatch state, over every run
  int state_waits_ran_out = 0;   // runs whose wait ran out with the host in the other state
  // The host's elasticities fitted on every model's runs, with the session's level and median
  // readings (shown); each model's normalised runs are divided by the drift of the fit on the
  // other models' runs (normalize_by_elasticity). Unset where no fit can be made (a single
  // round): each run's host_drift stands then.
  std::optional<HostElasticity> elasticity;
};

// What a validation's JSON (schema rooflens.validate/1) says about how it was run, beside
// the request: the names the caller gave the backend, dtype and modes, the GPU, the threads.
struct ZooValidationLabels {
  std::string backend, dtype, modes, gpu;
  int threads = 1;
};

// Runs the rounds. Invalid input (no models, a model not in the zoo, no modes) names what;
// a model that fails stops the run unless keep_going.
Expected<ZooValidation> validate_zoo(const ZooValidationRequest& r);

// Each model's normalised runs (and their host figures' drift) recomputed: the session's level
// (the median of every run's host_drift) times the host's elasticities, fitted on every other
// model's runs (analysis/host_elasticity.h), applied to how the run's readings differ from the
// session's median ones; so no model's normalisation is fitted on its own runs.
// v->elasticity is the fit on all of them. Nothing changes where no fit can be made (a single
// round). validate_zoo calls it after its rounds.
void normalize_by_elasticity(const HostRates& baseline, ZooValidation* v);

// The efficiencies a fit finds from measurements: per kernel class, the median over models of
// predicted roof time / measured time less the dispatch cost, summed over the layers each roof
// binds (one model measured while the machine was busy cannot drag it). Pure.
std::map<std::string, double> fit_efficiencies(const std::vector<MeasuredAndPredicted>& measured);

// The validation as JSON text (schema rooflens.validate/1): the summary raw and normalised,
// every model's runs and host readings, the layer classes, failures and fit.
std::string zoo_validation_json(const ZooValidationRequest& r, const ZooValidationLabels& labels,
                                const ZooValidation& v);

}  // namespace rooflens
