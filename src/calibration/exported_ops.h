// Subgraphs as torch's ONNX export writes them, built the same way by the kernel probe's cases
// (kernel_cases.cpp) and the in-network level's generated networks (level_networks.cpp).
#pragma once

#include <string>

#include "rooflens/ir/graph_builder.h"

namespace rooflens::calibration {

// GELU: x * (erf(x / sqrt 2) + 1) * 0.5, its nodes and constants named `prefix` + ".div",
// ".sqrt2", ".erf", ".add1", ".one", ".mul", ".half_factor", ".half".
inline ValueId exported_gelu(GraphBuilder& b, const std::string& prefix, ValueId x) {
  ValueId e = b.add1("Erf", prefix + ".erf",
                     {b.add1("Div", prefix + ".div", {x, b.reals(prefix + ".sqrt2", {}, {1.4142135f})})});
  ValueId h =
      b.add1("Mul", prefix + ".mul", {x, b.add1("Add", prefix + ".add1", {e, b.reals(prefix + ".one", {}, {1.0f})})});
  return b.add1("Mul", prefix + ".half", {h, b.reals(prefix + ".half_factor", {}, {0.5f})});
}

}  // namespace rooflens::calibration
