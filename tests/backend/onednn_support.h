// Shared by the oneDNN backend's tests (tests/backend/onednn*_test.cpp): a graph run on oneDNN
// and on the reference backend with the same random inputs, and the largest relative error.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "rooflens/cost/cost.h"
#include "rooflens/exec/backend.h"
#include "rooflens/exec/measure.h"
#include "rooflens/ir/graph_builder.h"
#include "rooflens/passes/infer_shapes.h"

namespace rooflens {

inline uint64_t fresh_seed() { return std::random_device{}(); }

// The fused analysis of `g`, shapes inferred first; nullopt (and a test failure) when
// inference fails.
inline std::optional<ModelAnalysis> analysis_of(Graph& g) {
  auto inferred = infer_shapes(g);
  EXPECT_TRUE(inferred) << inferred.status().message();
  if (!inferred) return std::nullopt;
  return analyze_graph(g, *inferred, {});
}

// The largest relative error of `g` on oneDNN against the reference backend; -1 (and `why`)
// when built without oneDNN, 1e30 on a failure (already reported). `layers`: oneDNN's timings.
inline double max_error(Graph& g, std::string* why = nullptr, bool tune = true,
                        std::vector<LayerTiming>* layers = nullptr,
                        ActivationLayout layout = ActivationLayout::kChannelsLast,
                        const std::string& tactic_cache = "") {
  auto analysed = analysis_of(g);
  if (!analysed) return 1e30;
  const ModelAnalysis& m = *analysed;
  auto dnnl = make_onednn_backend();
  if (!dnnl) {
    if (why) *why = "built without oneDNN";
    return -1;
  }
  auto ref = make_reference_backend();
  ExecOptions eo;
  eo.threads = 2;
  eo.tune = tune;
  eo.layout = layout;
  eo.tactic_cache = tactic_cache;
  Status s = dnnl->prepare(g, m, eo);
  EXPECT_TRUE(s) << s.message();
  Status r = ref->prepare(g, m, eo);
  EXPECT_TRUE(r) << r.message();
  if (!s || !r) return 1e30;
  auto errs = relative_errors(g, *dnnl, *ref, fresh_seed());
  EXPECT_TRUE(errs) << errs.status().message();
  if (!errs) return 1e30;
  double worst = 0;
  for (double e : *errs) worst = std::max(worst, e);
  if (layers) *layers = dnnl->layer_timings();
  return worst;
}

// Each layer's implementation by the layer's name.
inline std::map<std::string, std::string> impls_by_layer(const std::vector<LayerTiming>& layers) {
  std::map<std::string, std::string> impl;
  for (const LayerTiming& l : layers) impl[l.name] = l.impl;
  return impl;
}

#define EXPECT_MATCHES_REFERENCE(g) \
  do {                              \
    std::string why;                \
    double e = max_error(g, &why);  \
    if (e < 0) GTEST_SKIP() << why; \
    EXPECT_LT(e, 1e-4);             \
  } while (0)

// The same, and no layer ran on one of oneDNN's reference (ref:) kernels.
#define EXPECT_MATCHES_REFERENCE_WITHOUT_REF_KERNELS(g)                                                                \
  do {                                                                                                                 \
    std::vector<LayerTiming> layers;                                                                                   \
    std::string why;                                                                                                   \
    const double e = max_error(g, &why, true, &layers);                                                                \
    if (e < 0) GTEST_SKIP() << why;                                                                                    \
    EXPECT_LT(e, 1e-4);                                                                                                \
    ASSERT_FALSE(layers.empty());                                                                                      \
    for (const LayerTiming& L : layers) EXPECT_EQ(L.impl.find("ref:"), std::string::npos) << L.name << ": " << L.impl; \
  } while (0)

}  // namespace rooflens
