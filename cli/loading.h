// Loading a model file at a batch and dtype: import, infer shapes, analyse (fused); the
// zoo manifest; the folded view of a loaded model.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "rooflens/analysis/study_run.h"
#include "rooflens/cost/analysis.h"
#include "rooflens/onnx/import.h"

namespace CLI {
class App;
}

namespace rooflens::cli {

// The model-loading flag every command that loads one model file shares (analyze, predict,
// measure, doctor, whatif): --input-shape, repeatable, parsed by parse_input_shapes below.
void add_input_shape_option(CLI::App* cmd, std::vector<std::string>* specs);

struct Loaded {
  Graph graph;
  ModelAnalysis analysis;
};

// Unknown ops are an error here: every consumer after `analyze` needs every op costed.
Expected<Loaded> load_model(const std::string& path, const std::vector<InputShapeOverride>& shapes,
                            DType dtype, std::optional<int64_t> batch);

// The same at `batch`, importing the file once into `cache` (empty on the first call) and
// rebatching the imported graph afterwards (passes/batch.h): what a batch search needs.
Expected<Loaded> load_model_rebatched(const std::string& path, DType dtype, int64_t batch,
                                      std::optional<Expected<Loaded>>& cache,
                                      const std::vector<InputShapeOverride>& shapes = {});

// Analyses an already shape-inferred graph the way load_model does.
Expected<Loaded> analyse_loaded_graph(Graph g, const std::string& model, DType dtype);

// The FoldedCNN view of a loaded model at `factor` (passes/fold.h), analysed at its dtype.
Expected<LoadedModel> fold_loaded(const LoadedModel& l, int factor, int align = 0);

// `--input-shape` values (see onnx/import.h), parsed; the first bad one is the error.
Expected<std::vector<InputShapeOverride>> parse_input_shapes(const std::vector<std::string>& specs);

// `--device` resolved against the database in `devices_dir_override` (or the bundled one),
// refused as unsupported when the device has no peak for `dtype`.
Expected<DeviceSpec> device_with_peak(const std::string& spec, const std::string& devices_dir_override,
                                      const std::string& dtype);

// models/zoo.json entries by model name (empty when the manifest is missing or unreadable).
std::map<std::string, nlohmann::json> zoo_index(const std::string& models_dir);

}  // namespace rooflens::cli
