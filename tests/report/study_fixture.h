// A hand-built zoo study with known numbers for the report tests: a V100-like FP16 device,
// ten models (one with a name full of HTML/CSV metacharacters, one without accuracy), two
// FoldedCNN what-ifs, per-layer points. Frontiers come from compute_frontiers (the study's
// own code), so the figures draw what a real run would.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

#include "rooflens/analysis/study.h"
#include "rooflens/analysis/study_run.h"

namespace rooflens::test {

inline constexpr const char* kTrickyName = "evil<net> & \"co\", x";

struct ModelSpec {
  std::string name;
  double acc1;  // < 0: unknown
  double throughput;
  double gflops;  // per image
  double ai;
  double params_m;
};

inline StudyModel make_study_model(const ModelSpec& sp, double peak, double peak_measured, double cmr) {
  StudyModel m;
  m.name = sp.name;
  if (sp.acc1 >= 0) {
    m.acc1 = sp.acc1;
    m.acc5 = std::min(99.0, sp.acc1 + 16);
    m.accuracy_source = "models/zoo.json";
  }
  m.batch = 256;
  m.max_batch = 256;
  m.throughput = sp.throughput;
  m.flops_per_image = sp.gflops * 1e9;
  m.macs_per_image = m.flops_per_image / 2;
  m.params = static_cast<int64_t>(sp.params_m * 1e6);
  m.utilization = m.throughput * m.flops_per_image / peak;
  m.utilization_measured = m.throughput * m.flops_per_image / peak_measured;
  m.ai = sp.ai;
  m.ai_above_cmr = sp.ai > cmr;
  m.time_by_bound = {{"compute", sp.ai > cmr ? 0.7 : 0.35}, {"memory", sp.ai > cmr ? 0.3 : 0.65}};
  // 24 layers spread around the model's AI (factor 1/8 .. 8), time shares summing to 1.
  double total = 0;
  for (int k = 0; k < 24; ++k) {
    LayerPoint L;
    L.ai = sp.ai * std::pow(2.0, (k % 7) - 3.0 + 0.1 * k / 24.0);
    L.flops = m.flops_per_image * m.batch / 24;
    L.time_share = 1.0 + (k % 5);
    total += L.time_share;
    m.layers.push_back(L);
  }
  for (auto& L : m.layers) L.time_share /= total;
  return m;
}

inline Study make_test_study() {
  Study s;
  s.device_id = "v100-sxm2-16gb";
  s.device_name = "NVIDIA V100 SXM2 16GB";
  s.dtype = "fp16";
  s.batch_spec = "max";
  s.source = StudySource::kPredicted;
  s.source_detail = "performance model v1, device database data/devices/v100.json";
  s.peak_datasheet = 125e12;
  s.peak_measured = 100e12;
  s.bandwidth = 900e9;
  s.cmr = s.peak_datasheet / s.bandwidth;
  s.cmr_measured = *s.peak_measured / s.bandwidth;
  const ModelSpec specs[] = {
      {"resnet50", 80.4, 2600, 8.2, 95, 25.6},       {"tresnet_m", 80.8, 2900, 11.6, 160, 31.4},
      {"mobilenetv2_100", 72.9, 9000, 0.6, 25, 3.5}, {"efficientnet_b0", 77.7, 5200, 0.8, 30, 5.3},
      {"vgg16", 71.6, 1100, 31.0, 180, 138.4},       {"resnet18", 69.7, 9500, 3.6, 120, 11.7},
      {kTrickyName, 75.0, 4000, 2.0, 60, 8.0},       {"custom_net", -1, 15000, 1.0, 70, 4.2},
      {"densenet121", 75.6, 2300, 5.7, 50, 8.0},     {"regnety_016", 77.9, 4200, 3.2, 85, 11.2},
  };
  for (const auto& sp : specs) s.models.push_back(make_study_model(sp, s.peak_datasheet, *s.peak_measured, s.cmr));
  auto fold = [&](const std::string& name, double speedup, double flops_ratio, double ai_after) {
    for (const auto& m : s.models)
      if (m.name == name) {
        FoldResult r;
        r.model = name;
        r.factor = 4;
        r.throughput_before = m.throughput;
        r.throughput_after = m.throughput * speedup;
        r.flops_per_image_before = m.flops_per_image;
        r.flops_per_image_after = m.flops_per_image * flops_ratio;
        r.utilization_before = m.utilization;
        r.utilization_after = r.throughput_after * r.flops_per_image_after / s.peak_datasheet;
        r.ai_before = m.ai;
        r.ai_after = ai_after;
        r.batch_after = 256;
        s.folds.push_back(r);
      }
  };
  fold("resnet18", 1.5, 1.04, 180);         // crosses the CMR, moves the frontier
  fold("mobilenetv2_100", 1.45, 1.08, 48);  // stays below it
  s.notes.push_back("test fixture: numbers are made up but consistent (utilization = throughput x FLOPs / peak)");
  (void)compute_frontiers(s);
  return s;
}

// A zoo-sized study (`n` models, deterministic pseudo-random numbers with the paper's broad
// shape: utilization rising with accuracy), every model below the CMR folded: for looking at
// how the figures cope with clutter.
inline Study make_large_test_study(int n) {
  Study s = make_test_study();
  s.models.clear();
  s.folds.clear();
  uint64_t state = 12345;
  auto rnd = [&]() {  // uniform in [0, 1)
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<double>(state >> 11) / 9007199254740992.0;
  };
  const char* families[] = {"resnet",   "efficientnet_b", "regnetx_",  "mobilenetv3_", "tresnet_",
                            "densenet", "vit_small_",     "convnext_", "mixnet_",      "dla"};
  for (int i = 0; i < n; ++i) {
    const double q = rnd();
    ModelSpec sp;
    sp.name = std::string(families[i % 10]) + std::to_string(10 + i);
    sp.acc1 = i % 17 == 5 ? -1 : 62 + 22 * q + 3 * rnd();
    sp.throughput = 300 * std::pow(10, 1.8 * rnd());
    const double util = std::clamp(0.03 + 0.5 * q * rnd() + 0.05 * rnd(), 0.01, 0.75);
    sp.gflops = util * s.peak_datasheet / sp.throughput / 1e9;
    sp.ai = 15 * std::pow(10, 1.3 * (0.3 * q + 0.7 * rnd()));
    sp.params_m = 2 + 80 * rnd();
    s.models.push_back(make_study_model(sp, s.peak_datasheet, *s.peak_measured, s.cmr));
  }
  for (const auto& m : s.models) {
    if (m.ai_above_cmr) continue;
    FoldResult r;
    r.model = m.name;
    r.factor = 4;
    r.throughput_before = m.throughput;
    r.throughput_after = m.throughput * (1.1 + 0.5 * rnd());
    r.flops_per_image_before = m.flops_per_image;
    r.flops_per_image_after = m.flops_per_image * 1.05;
    r.utilization_before = m.utilization;
    r.utilization_after = r.throughput_after * r.flops_per_image_after / s.peak_datasheet;
    r.ai_before = m.ai;
    r.ai_after = m.ai * 1.9;
    r.batch_after = 256;
    s.folds.push_back(r);
  }
  (void)compute_frontiers(s);
  return s;
}

}  // namespace rooflens::test
