// ONNX file -> IR graph with static shapes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "rooflens/ir/graph.h"

namespace rooflens {

// A user's shape for a graph input: `3x299x299` (all but the batch dim of the first
// input) or `NAME:1x3x299x299` (the whole shape of input NAME).
struct InputShapeOverride {
  std::string name;  // empty: the first graph input
  Shape shape;
};
Expected<InputShapeOverride> parse_input_shape(const std::string& spec);

struct ImportOptions {
  std::optional<int64_t> batch;  // overrides dim 0 of every graph input; default: symbolic -> 1
  std::vector<InputShapeOverride> input_shapes;
};

// Reads an ONNX model (opsets 7..18) into a Graph. Initializer data is not needed:
// stripped or missing external data is fine. Node shapes are not inferred here; run
// infer_shapes() next. Errors name the file's part (node, initializer, input) and field.
Expected<Graph> import_onnx_file(const std::string& path, const ImportOptions& options);
Expected<Graph> import_onnx_bytes(const std::string& bytes, const std::string& model_dir, const ImportOptions& options);

}  // namespace rooflens
