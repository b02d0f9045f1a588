// A model session: one model imported once (from an ONNX file, ONNX bytes or a graph built in
// memory), then analysed on demand at any batch and dtype, rebatching the imported graph
// (passes/batch.h) instead of parsing the file again. Every command that loads a model goes
// through it; a binding calls it the same way. Also the transforms of a loaded model that
// analyse the result again (fold, channel padding).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "rooflens/analysis/study_run.h"
#include "rooflens/analysis/whatif.h"
#include "rooflens/cost/cost.h"
#include "rooflens/onnx/import.h"

namespace rooflens {

class ModelSession {
 public:
  // Nothing is read until the first model() or analysis() call, which imports the model at
  // that call's batch and infers its shapes; an import that fails fails every later call
  // alike. Copies share the import (a copy is a handle, cheap to capture in a loader).
  static ModelSession from_file(const std::string& path, std::vector<InputShapeOverride> input_shapes = {});
  // An ONNX model held in memory, named `name`; external data is looked up in `model_dir`.
  static ModelSession from_bytes(std::string bytes, const std::string& name, const std::string& model_dir = "",
                                 std::vector<InputShapeOverride> input_shapes = {});
  // A graph built in memory (a NAS network, a transformed model); shapes are inferred here.
  static ModelSession from_graph(Graph graph, const std::string& name);

  // The display name: the file's stem, or the name given.
  const std::string& name() const;

  // The model at `batch` graph inputs (nullopt: the batch it was imported at, the file's, a
  // symbolic one read as 1, on the first call), analysed fused at `dtype`. Unsupported when
  // an op is unknown: whatever uses a loaded model needs every op costed. Errors name the
  // file (or the name). Safe to call from several threads.
  Expected<LoadedModel> model(std::optional<int64_t> batch, DType dtype) const;

  // The cost analysis alone, under `options` (fused or not, dtype); unknown ops are listed
  // in the result, not refused: what `rooflens analyze` reports.
  Expected<ModelAnalysis> analysis(std::optional<int64_t> batch, const AnalyzeOptions& options) const;

  // model(batch, dtype) as the study's and the what-if's loaders take it.
  ModelLoader loader(DType dtype) const;
  TypedLoader typed_loader() const;

 private:
  struct State;
  explicit ModelSession(std::shared_ptr<State> state);
  std::shared_ptr<State> state_;
};

// One model file at one batch, without keeping the import: ModelSession::from_file(path,
// input_shapes).model(batch, dtype).
Expected<LoadedModel> load_model(const std::string& path, const std::vector<InputShapeOverride>& input_shapes,
                                 DType dtype, std::optional<int64_t> batch);

// An already built graph (shapes inferred here) analysed the way model() does, as `model`.
Expected<LoadedModel> analyse_loaded_graph(Graph g, const std::string& model, DType dtype);

// The FoldedCNN view of a loaded model at `factor` (passes/folded_cnn.h; widths rounded up to
// `align` when not 0), analysed at its dtype.
Expected<LoadedModel> fold_model(const LoadedModel& m, int factor, int align = 0);

// The model with channels padded to a multiple of `multiple` (passes/pad_channels.h),
// analysed at its dtype.
Expected<LoadedModel> pad_model_channels(const LoadedModel& m, int multiple);

}  // namespace rooflens
