// Running the zoo study: each model loaded at the study batch (or the largest that fits),
// predicted, measured or taken from a user's measurements, then the Pareto frontiers and
// the FoldedCNN what-if. Loading, measuring and folding come in as functions so this
// module depends on neither the ONNX importer nor an execution backend.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "rooflens/analysis/study.h"
#include "rooflens/cost/cost.h"
#include "rooflens/device/device.h"
#include "rooflens/exec/backend.h"
#include "rooflens/perf/model.h"

namespace rooflens {

struct LoadedModel {
  Graph graph;
  ModelAnalysis analysis;  // fused, at the study dtype, batch = graph input dim 0
};

// Loads a model at `batch` graph inputs (images, unless the model is folded).
using ModelLoader = std::function<Expected<LoadedModel>(int64_t batch)>;

struct MeasuredThroughput {
  double inputs_per_s = 0;       // graph inputs per second (median)
  std::optional<double> q1, q3;  // slow and fast quartiles, inputs per second
};
using ModelMeasurer = std::function<Expected<MeasuredThroughput>(const LoadedModel&)>;

// The FoldedCNN transform of a loaded model (shapes inferred, analysed at the same dtype);
// the input's batch must be divisible by `factor`, the result has batch / factor inputs.
using ModelFolder = std::function<Expected<LoadedModel>(const LoadedModel&, int factor)>;

struct StudyEntry {
  std::string name;
  ModelLoader load;
  std::optional<double> acc1, acc5;
  std::string accuracy_source;
  // A user's measurement (source kMeasurements): throughput in images/s at this batch.
  std::optional<double> given_throughput;
  std::optional<int64_t> given_batch;
  bool fold = false;  // fold this model whatever its AI (a --fold list)
};

struct StudyOptions {
  DeviceSpec device;
  std::string dtype = "fp16";
  std::optional<int64_t> batch;  // nullopt: the largest batch that fits the device
  StudySource source = StudySource::kPredicted;
  std::string source_detail;
  PerfOptions perf;
  bool utilization_measured_peak = false;  // plots and frontiers use the measured-peak utilization
  int fold_factor = 4;
  bool fold_below_cmr = true;  // fold every model whose aggregate AI is below the CMR
  ModelFolder fold;            // required when anything is folded
  ModelMeasurer measure;       // required for kMeasured
  int jobs = 1;                // models analysed concurrently (kMeasured always runs one at a time)
  std::function<void(const std::string& model, size_t done, size_t total)> progress;
};

// A measured study (source kMeasured): each model measured on a fresh backend from `make`,
// timed as exec/timing.h's model_timing(gpu, max_seconds); `where` names what measured it
// for the report's source line ("this CPU through the oneDNN backend, 2 threads").
void measure_study_on(StudyOptions& o, BackendFactory make, bool gpu, const ExecOptions& exec, double max_seconds,
                      const std::string& where);

// The note a study measured on this CPU carries when its device is a database entry rather
// than this machine's probe: its peaks and CMR are the entry's.
void note_database_peaks(Study& s, const std::string& device_id);

// Errors name the model: a model that does not fit at batch 1, a fold batch the factor
// does not divide, a model the fold cannot transform, a failed measurement.
Expected<Study> run_study(const std::vector<StudyEntry>& entries, const StudyOptions& o);

// Fills Study::frontiers and the fold frontiers from the models' numbers (models without
// accuracy are on no accuracy frontier). Invalid input on NaN values.
Status compute_frontiers(Study& s);

// The utilization a study plots: over the measured peak when the study asks for it and the
// model has one, else over the datasheet peak.
double plotted_utilization(const Study& s, const StudyModel& m);

}  // namespace rooflens
