// Loading a model file at a batch and dtype: import, infer shapes, analyse (fused).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "rooflens/cost/analysis.h"
#include "rooflens/onnx/import.h"

namespace rooflens::cli {

struct Loaded {
  Graph graph;
  ModelAnalysis analysis;
};

// Unknown ops are an error here: every consumer after `analyze` needs every op costed.
Expected<Loaded> load_model(const std::string& path, const std::vector<InputShapeOverride>& shapes,
                            DType dtype, std::optional<int64_t> batch);

}  // namespace rooflens::cli
