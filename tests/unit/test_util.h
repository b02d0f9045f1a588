// Helpers for tests: infer + analyze a built graph.
#pragma once

#include <gtest/gtest.h>

#include "rooflens/cost/cost.h"
#include "rooflens/ir/graph_builder.h"
#include "rooflens/passes/infer_shapes.h"

namespace rooflens::test {

inline ModelAnalysis analyze(Graph& g, DType dtype = DType::kF32, FusionMode mode = FusionMode::kEngine) {
  auto inferred = infer_shapes(g);
  EXPECT_TRUE(inferred.has_value()) << inferred.status().message();
  AnalyzeOptions o;
  o.cost.dtype = dtype;
  o.fusion = mode;
  return analyze_graph(g, *inferred, o);
}

inline Shape shape_of(const Graph& g, ValueId v) { return g.value(v).shape.value_or(Shape{-999}); }

// Infers and expects failure; returns the message.
inline std::string infer_error(Graph& g) {
  auto r = infer_shapes(g);
  EXPECT_FALSE(r.has_value());
  return r.has_value() ? std::string() : r.status().message();
}

}  // namespace rooflens::test
