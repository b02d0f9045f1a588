// The kernel probe (calibration/kernel_probe.h): every sampled case keeps its probed layer in
// its class, the heavy draws and stems are what they say, and the probe runs end to end on this
// machine's oneDNN for two cheap classes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "kernel_table_support.h"
#include "rooflens/calibration/kernel_probe.h"
#include "rooflens/device/device.h"
#include "rooflens/exec/dispatch_probe.h"
#include "rooflens/ir/graph_builder.h"
#include "rooflens/perf/kernel_predict.h"
#include "rooflens/perf/model.h"

namespace rooflens {
namespace {

TEST(KernelProbeCases, EveryCaseKeepsItsProbedLayerInItsClass) {
  for (const auto& [cls, feats] : kernel_class_features()) {
    if (cls == "reorder") continue;
    auto cases = kernel_cases(cls, 6, 3);
    ASSERT_EQ(cases.size(), 6u) << cls;
    for (auto& kc : cases) {
      auto inferred = infer_shapes(kc.graph);
      ASSERT_TRUE(inferred) << cls << ": " << inferred.status().message();
      const ModelAnalysis m = analyze_graph(kc.graph, *inferred, AnalyzeOptions{});
      bool found = false;
      for (const auto& L : m.layers)
        if (L.name == kc.layer) {
          found = true;
          auto k = classify_layer(kc.graph, L, 16);
          ASSERT_TRUE(k) << cls;
          EXPECT_EQ(k->cls, kc.cls) << L.op;  // the conv draws' stems are stems
          EXPECT_TRUE(kc.cls == cls || (cls == "conv" && kc.cls == "stem")) << kc.cls;
          EXPECT_EQ(k->x.size(), kernel_class_features().at(kc.cls).size());
        }
      EXPECT_TRUE(found) << cls << ": probed layer fused away";
    }
  }
}

// The descriptor of a case's probed layer.
std::string probed_desc(KernelCase kc) {
  auto inferred = infer_shapes(kc.graph);
  if (!inferred) return {};
  const ModelAnalysis m = analyze_graph(kc.graph, *inferred, AnalyzeOptions{});
  for (const auto& L : m.layers)
    if (L.name == kc.layer) return L.desc;
  return {};
}

// The heavy draws: dense 3x3 convolutions (1x1 for the pointwise class) of 3-30 GFLOP at
// batch 8 or 16, each probed layer in its class; none for the other classes; the same draws
// for the same seed.
TEST(KernelProbeCases, HeavyDrawsAreDenseConvolutionsOfThreeToThirtyGflop) {
  EXPECT_TRUE(heavy_kernel_cases("gemm", 4, 1).empty());
  for (const std::string cls : {"conv", "pointwise"}) {
    auto cases = heavy_kernel_cases(cls, 6, 1);
    ASSERT_EQ(cases.size(), 6u) << cls;
    auto again = heavy_kernel_cases(cls, 6, 1);
    for (size_t i = 0; i < cases.size(); ++i) {
      auto& kc = cases[i];
      EXPECT_EQ(kc.cls, cls);
      auto inferred = infer_shapes(kc.graph);
      ASSERT_TRUE(inferred) << inferred.status().message();
      const ModelAnalysis m = analyze_graph(kc.graph, *inferred, AnalyzeOptions{});
      const LayerReport* probed = nullptr;
      for (const auto& L : m.layers)
        if (L.name == kc.layer) probed = &L;
      ASSERT_NE(probed, nullptr) << cls << ": probed layer fused away";
      EXPECT_GE(probed->cost.flops, 3e9) << probed->desc;
      EXPECT_LE(probed->cost.flops, 3.1e10) << probed->desc;  // with the fused activation
      EXPECT_GE(probed->in_shapes.at(0).at(0), 8) << probed->desc;
      auto k = classify_layer(kc.graph, *probed, 16);
      ASSERT_TRUE(k);
      EXPECT_EQ(k->cls, cls) << probed->desc;
      auto inferred_again = infer_shapes(again[i].graph);
      ASSERT_TRUE(inferred_again);
      EXPECT_EQ(analyze_graph(again[i].graph, *inferred_again, AnalyzeOptions{}).layers.size(), m.layers.size());
      EXPECT_EQ(probed_desc(again[i]), probed->desc);
    }
  }
}

// The features of a case's probed layer.
std::vector<double> probed_features(KernelCase kc) {
  auto inferred = infer_shapes(kc.graph);
  if (!inferred) return {};
  const ModelAnalysis m = analyze_graph(kc.graph, *inferred, AnalyzeOptions{});
  for (const auto& L : m.layers)
    if (L.name == kc.layer) return classify_layer(kc.graph, L, 16)->x;
  return {};
}

// The conv cases of a full probe are the 50 shapes that the probe of 2026-12-05 01:31 drew
// (its samples are in docs/generated), the stems among them now of the stem class; the stem
// class has 3 input channels and a stride; a third or so of the token and pixel GEMMs end in
// a GELU, drawn beside the same shapes.
TEST(KernelProbeCases, ConvDrawsStayStemsAreTheirOwnAndSomeGemmsEndInAGelu) {
  std::ifstream f(std::string(ROOFLENS_SOURCE_DIR) + "/docs/generated/validate-cpu-2026-12-05/kernel-samples-3.json");
  ASSERT_TRUE(f) << "the committed probe samples";
  const auto before = nlohmann::json::parse(f);
  const auto& conv_before = before["classes"]["conv"]["samples"];
  const auto now = kernel_cases("conv", 50, 1);
  ASSERT_EQ(now.size(), conv_before.size());
  for (size_t i = 0; i < now.size(); ++i) {
    const auto& was = conv_before[i]["x"];
    const bool stem = conv_before[i]["desc"].get<std::string>().find("ic3ih") != std::string::npos;
    EXPECT_EQ(now[i].cls, stem ? "stem" : "conv") << i;
    if (stem) continue;
    const auto x = probed_features(now[i]);
    ASSERT_EQ(was.size(), 7u);
    for (size_t j = 0; j < 7; ++j) EXPECT_NEAR(x.at(j), was[j].get<double>(), 1e-9) << i << " " << j;
  }
  int silu = 0;
  for (const auto& kc : kernel_cases("stem", 16, 1)) {
    const auto x = probed_features(kc);
    ASSERT_EQ(x.size(), 4u);
    silu += x[3] == 1.0;
  }
  EXPECT_GT(silu, 3);
  EXPECT_LT(silu, 13);
  int gelus = 0;
  const auto gemms = kernel_cases("gemm", 32, 1);
  const auto& gemm_before = before["classes"]["gemm"]["samples"];
  for (const auto& was : gemm_before) {  // the same shapes (the file keeps those it fitted)
    bool drawn = false;
    for (const auto& kc : gemms) {
      const auto x = probed_features(kc);
      drawn |= std::abs(x.at(0) - was["x"][0].get<double>()) < 1e-9 &&
               std::abs(x.at(1) - was["x"][1].get<double>()) < 1e-9 &&
               std::abs(x.at(2) - was["x"][2].get<double>()) < 1e-9;
    }
    EXPECT_TRUE(drawn) << was["desc"];
  }
  for (const auto& kc : gemms) gelus += probed_features(kc).at(3) == 1.0;
  EXPECT_GT(gelus, 4);
  EXPECT_LT(gelus, 20);
}

}  // namespace
}  // namespace rooflens

namespace rooflens {
namespace {

// The probe end to end on this machine's oneDNN, two cheap classes in two interleaved rounds:
// it runs, keeps one sample per shape (the median of its rounds), fits finite coefficients,
// and its table survives a device file.
TEST(KernelProbe, QuickEltwiseAndMoveClassesOnOneDnn) {
  auto backend = make_onednn_backend();
  if (!backend) GTEST_SKIP() << "built without oneDNN";
  KernelProbeOptions o;
  o.threads = 1;
  o.quick = true;
  o.dispatch_s = 2e-6;
  o.classes = {"eltwise", "move"};
  o.rounds = 2;
  o.flush_bytes = 32.0 * (1 << 20);
  auto r = probe_kernels(*backend, o, "oneDNN", "test host");
  ASSERT_TRUE(r) << r.status().message();
  ASSERT_EQ(r->table.classes.size(), 3u);          // reorder (always), eltwise and move
  EXPECT_EQ(r->samples.at("eltwise").size(), 9u);  // --quick's shapes, once each
  EXPECT_EQ(r->samples.at("move.cold").size(), 9u);
  for (const auto& [cls, f] : r->table.classes) {
    EXPECT_GE(f.samples, 9) << cls;
    for (double c : f.coef) EXPECT_TRUE(std::isfinite(c)) << cls;
  }
  // Larger tensors take longer: the log-bytes exponent is positive.
  EXPECT_GT(r->table.classes.at("reorder").coef[1], 0);
  // The lanes oneDNN's kernels use here are recorded (every x86 CPU oneDNN runs on has SSE4.1).
  EXPECT_EQ(r->table.simd_lanes, onednn_fp32_lanes());
#if defined(__x86_64__)
  EXPECT_GE(r->table.simd_lanes, 4);
#endif
  auto d = parse_device_json(device_text(kernel_table_json(r->table)), "probed.json");
  ASSERT_TRUE(d) << d.status().message();
  EXPECT_EQ(d->kernel_table->simd_lanes, r->table.simd_lanes);
  // Every timed shape, as written for --kernel-samples: per class its features and samples,
  // each with its problem, features and warm and cold seconds.
  const auto js = nlohmann::json::parse(kernel_samples_json(*r));
  EXPECT_EQ(js["schema"], "rooflens.kernel_samples/1");
  EXPECT_EQ(js["simd_lanes"], r->table.simd_lanes);
  ASSERT_EQ(js["classes"].size(), 3u);  // no "move.cold" of its own
  const auto& move = js["classes"]["move"];
  EXPECT_EQ(move["features"], nlohmann::json(kernel_class_features().at("move")));
  ASSERT_EQ(move["samples"].size(), 9u);
  for (const auto& s : move["samples"]) {
    EXPECT_FALSE(s["desc"].get<std::string>().empty());
    EXPECT_EQ(s["x"].size(), 2u);
    EXPECT_GT(s["warm_s"].get<double>(), 0);
    EXPECT_GT(s["cold_s"].get<double>(), 0);
  }
  EXPECT_EQ(js["classes"]["reorder"]["samples"].size(), r->samples.at("reorder").size());
}

}  // namespace
}  // namespace rooflens
