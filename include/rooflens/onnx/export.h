// IR graph -> ONNX file, for transforms whose output a user runs elsewhere (fold, pad).
#pragma once

#include <cstdint>
#include <string>

#include "rooflens/ir/graph.h"

namespace rooflens {

enum class ExportWeights {
  kStripped,  // float initializers keep dims and dtype; their data is marked EXTERNAL in
              // kStrippedLocation, a file that does not exist (as the bundled zoo)
  kRandom,    // float initializers get deterministic random data (BN scale/var in
              // [0.5, 1.5), everything else in [-0.1, 0.1)), stored in the file
};

inline constexpr const char* kStrippedLocation = "stripped-weights.bin";

struct ExportOptions {
  ExportWeights weights = ExportWeights::kStripped;
  uint64_t seed = 0;  // for kRandom
  std::string producer = "rooflens";
};

// Writes a ModelProto: the graph's opset (and opset 1 for any other node domain), its nodes
// with their op types, domains and attributes, its runtime inputs and outputs with their
// static shapes, and the initializers nodes read. Small constants whose contents the IR
// knows (shapes, axes, per-channel constants) are written with their data in both modes.
// The file is written to a temporary name and renamed, so a failure leaves no partial file.
Status export_onnx_file(const Graph& g, const std::string& path, const ExportOptions& options);

// The serialized ModelProto (what export_onnx_file writes).
Expected<std::string> export_onnx_bytes(const Graph& g, const ExportOptions& options);

}  // namespace rooflens
