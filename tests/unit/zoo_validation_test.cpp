// The library's zoo validation (session/zoo_validation.h): the fit on measured layers, the
// requests it refuses, and two bundled models measured in alternating rounds on the reference
// backend (small and deterministic enough for a busy machine: only counts and structure are
// checked, never a time).
#include "rooflens/session/zoo_validation.h"

#include <gtest/gtest.h>

#include "rooflens/device/device.h"

namespace rooflens {
namespace {

MeasuredAndPredicted one_layer(const std::string& cls, double t_compute, double t_memory, double t_launch,
                               double measured_s) {
  MeasuredAndPredicted c;
  LayerPrediction l;
  l.name = "conv";
  l.kernel_class = cls;
  l.t_compute = t_compute;
  l.t_memory = t_memory;
  l.t_launch = t_launch;
  l.bound = t_compute >= t_memory ? Bound::kCompute : Bound::kMemory;
  c.p.layers.push_back(l);
  c.m.layers.push_back({"conv", "Conv", "", measured_s});
  return c;
}

TEST(FitEfficiencies, TheMedianOverModelsOfRoofTimeOverMeasuredWork) {
  // gemm: roof 1 ms over (measured - launch) of 2, 4 and 10 ms: 0.5, 0.25, 0.1 -> median 0.25.
  // memory: 1 ms over 2 ms: 0.5. "other" compute classes are left out.
  std::vector<MeasuredAndPredicted> ms = {one_layer("gemm", 1e-3, 0, 1e-3, 3e-3), one_layer("gemm", 1e-3, 0, 0, 4e-3),
                                          one_layer("gemm", 1e-3, 0, 0, 10e-3),
                                          one_layer("depthwise", 0, 1e-3, 0, 2e-3),
                                          one_layer("other", 1e-3, 0, 0, 2e-3)};
  const auto e = fit_efficiencies(ms);
  ASSERT_EQ(e.size(), 2u);
  EXPECT_NEAR(e.at("gemm"), 0.25, 1e-12);
  EXPECT_NEAR(e.at("memory"), 0.5, 1e-12);
}

TEST(FitEfficiencies, ALayerFasterThanItsLaunchOrUnmeasuredIsLeftOut) {
  std::vector<MeasuredAndPredicted> ms = {one_layer("gemm", 1e-3, 0, 2e-3, 1e-3), one_layer("gemm", 1e-3, 0, 0, 0)};
  EXPECT_TRUE(fit_efficiencies(ms).empty());
}

ZooValidationRequest reference_request(std::vector<std::string> models) {
  ZooValidationRequest r;
  r.models = std::move(models);
  r.models_dir = std::string(ROOFLENS_SOURCE_DIR) + "/models";
  r.modes.push_back({"cpu", [] { return Expected<std::unique_ptr<Backend>>(make_onednn_backend()); }, false});
  r.dev = resolve_device("custom:fp16=2e11,fp32=1e11,bw=2e10,mem=8e9,name=test-cpu", {}).value();
  r.exec.threads = 1;
  r.max_seconds = 0.01;
  r.host_reference = false;
  return r;
}

// One run's host figures with the dispatch reading `dispatch_s`.
HostFigures run_at_dispatch(double dispatch_s) {
  HostFigures f;
  f.has_reference = true;
  f.now.dispatch_s = dispatch_s;
  return f;
}

TEST(ModelRuns, NoneInStateOnlyWhenEveryReadRunIsInTheOtherDispatchState) {
  ModelRuns mr;
  EXPECT_FALSE(mr.none_in_state(1e-6));  // no readings: nothing to say it is outside
  mr.host = {run_at_dispatch(2.2e-6)};
  EXPECT_TRUE(mr.none_in_state(1e-6));  // its one run read the slower state: --state-repeat measures it again
  mr.host.push_back(run_at_dispatch(1.05e-6));
  EXPECT_FALSE(mr.none_in_state(1e-6));  // one run in the table's state is enough
  EXPECT_EQ(mr.other_state(1e-6), 1);
}

TEST(ValidateZoo, RefusesModelsOutsideTheZooNamingThemAll) {
  auto v = validate_zoo(reference_request({"squeezenet1_1", "nosuch", "nor_this"}));
  ASSERT_FALSE(v);
  EXPECT_EQ(v.status().code(), StatusCode::kInvalidInput);
  EXPECT_NE(v.status().message().find("nosuch, nor_this"), std::string::npos) << v.status().message();
}

TEST(ValidateZoo, RefusesNoModelsAndNoModes) {
  EXPECT_FALSE(validate_zoo(reference_request({})));
  ZooValidationRequest r = reference_request({"squeezenet1_1"});
  r.modes.clear();
  EXPECT_FALSE(validate_zoo(r));
}

TEST(ValidateZoo, AlternatingRoundsGiveEachModelItsRunsAndTheProgressSaysTheOrder) {
  if (!make_onednn_backend()) GTEST_SKIP() << "built without oneDNN: nothing to measure on";
  ZooValidationRequest r = reference_request({"squeezenet1_1", "squeezenet1_0"});
  r.repeat = 2;
  std::vector<std::string> lines;
  r.progress = [&](const std::string& s) { lines.push_back(s); };
  auto v = validate_zoo(r);
  ASSERT_TRUE(v) << v.status().message();
  ASSERT_EQ(v->pts.size(), 2u);
  EXPECT_EQ(v->pts[0].name, "squeezenet1_1");
  for (const auto& [name, runs] : v->runs) EXPECT_EQ(runs.raw.size(), 2u) << name;
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[2].rfind("squeezenet1_0 (1/2, round 2/2)", 0), 0u) << lines[2];  // round 2 reversed
  EXPECT_EQ(v->summary.n, 2u);
  EXPECT_EQ(v->normalized.n, 0u);  // no host reference
  const std::string json = zoo_validation_json(r, {"cpu", "fp32", "eager", "", 1}, *v);
  EXPECT_NE(json.find("\"schema\": \"rooflens.validate/1\""), std::string::npos);
}

}  // namespace
}  // namespace rooflens
