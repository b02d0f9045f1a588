// Engine profiles (perf/engine.h): the bundled files round-trip, the rules change what they
// say, bad input is refused, and the doctor with rooflens-cuda on the H200 reproduces the two
// gains measured there (conv1 padding 1.21x at batch 256, graph capture 2.81x at batch 64),
// each computed by hand from two predictions and checked against the doctor's remedy.
#include <gtest/gtest.h>

#include <algorithm>

#include "rooflens/analysis/doctor.h"
#include "rooflens/perf/engine.h"
#include "rooflens/perf/model.h"
#include "rooflens/session/model_session.h"
#include "test_util.h"

namespace rooflens {
namespace {

const std::string kRoot = ROOFLENS_SOURCE_DIR;

EngineProfile engine(const std::string& id) {
  auto db = load_engine_dir(kRoot + "/data/engines");
  EXPECT_TRUE(db) << db.status().message();
  auto e = find_engine(id, *db);
  EXPECT_TRUE(e) << e.status().message();
  return e ? *e : EngineProfile{};
}

DeviceSpec device(const std::string& id) {
  auto db = load_device_dir(kRoot + "/data/devices");
  EXPECT_TRUE(db) << db.status().message();
  auto d = resolve_device(id, *db);
  EXPECT_TRUE(d) << d.status().message();
  return *d;
}

double throughput(const LoadedModel& m, const DeviceSpec& d, const PerfOptions& po) {
  auto p = predict(m.graph, m.analysis, d, po);
  EXPECT_TRUE(p) << p.status().message();
  return p ? p->throughput : 0;
}

const Remedy* find_remedy(const DoctorReport& r, const std::string& key, const std::string& name_part) {
  for (const Finding& f : r.findings)
    if (f.key == key)
      for (const Remedy& m : f.remedies)
        if (m.name.find(name_part) != std::string::npos && !m.other_device) return &m;
  return nullptr;
}

}  // namespace

TEST(EngineProfiles, BundledFilesRoundTrip) {
  auto db = load_engine_dir(kRoot + "/data/engines");
  ASSERT_TRUE(db) << db.status().message();
  std::vector<std::string> ids;
  for (const auto& e : *db) {
    ids.push_back(e.id);
    auto back = parse_engine_json(engine_json(e).dump(), "round-trip");
    ASSERT_TRUE(back) << back.status().message();
    EXPECT_EQ(engine_json(*back), engine_json(e)) << e.id;
    for (const char* rule : {"fusion", "captured", "gemm_efficiency", "kernel_gap_s", "host_library_call_s"})
      EXPECT_TRUE(e.sources.count(rule)) << e.id << " has no source for " << rule;
  }
  EXPECT_EQ(ids, (std::vector<std::string>{"pytorch-compile", "pytorch-eager", "pytorch-graph", "rooflens-cuda",
                                           "tensorrt"}));
}

TEST(EngineProfiles, RefusesUnknownEnginesAndOtherDeviceKinds) {
  auto db = load_engine_dir(kRoot + "/data/engines");
  ASSERT_TRUE(db);
  auto none = find_engine("nosuch", *db);
  ASSERT_FALSE(none);
  EXPECT_EQ(none.status().code(), StatusCode::kInvalidInput);
  EXPECT_NE(none.status().message().find("tensorrt"), std::string::npos);
  const Status s = check_engine_applies(engine("pytorch-compile"), device("epyc-milan-2c"));
  EXPECT_EQ(s.code(), StatusCode::kInvalidInput);
  EXPECT_TRUE(check_engine_applies(engine("pytorch-compile"), device("h200")));
  EXPECT_FALSE(parse_engine_json(R"({"schema":"rooflens.engine/1","id":"x","rules":{"fusion":"some"}})", "f"));
  EXPECT_FALSE(parse_engine_json(R"({"schema":"rooflens.engine/1","id":"x","constants":{"gemm_efficiency":2}})", "f"));
}

TEST(EngineProfiles, EagerRunsNormalisationAsItsOwnKernelAndPaysHostTime) {
  const DeviceSpec h200 = device("h200");
  auto m = ModelSession::from_file(kRoot + "/models/resnet18.onnx").model(1, DType::kF16);
  ASSERT_TRUE(m) << m.status().message();
  PerfOptions trt, eager;
  eager.engine = engine("pytorch-eager");
  auto a = predict(m->graph, m->analysis, h200, trt);
  auto b = predict(m->graph, m->analysis, h200, eager);
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a->engine, "tensorrt");
  EXPECT_EQ(b->engine, "pytorch-eager");
  EXPECT_GT(b->layers.size(), a->layers.size());  // BatchNorm and ReLU layers of their own
  EXPECT_GT(b->host_s, 0);
  EXPECT_GE(b->time_s, b->host_s);  // the device cannot finish before the host has issued
  PerfOptions graph = eager;
  graph.engine.captured = true;
  auto c = predict(m->graph, m->analysis, h200, graph);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->host_s, 0);
  EXPECT_LT(c->time_s, b->time_s);
}

// The two H200 measurements of issue 26 (docs/generated/gpu/h200-2026-11-30/measure-run4.txt):
// ResNet-50 fp16 with conv1 padded to 8 channels, batch 256, graph: 33,248 / 27,476 img/s =
// 1.21x; graph capture at batch 64: 33,040 / 11,776 img/s = 2.81x.
TEST(EngineProfiles, DoctorWithRooflensCudaOnH200MatchesTheMeasuredGains) {
  const DeviceSpec h200 = device("h200");
  const ModelSession session = ModelSession::from_file(kRoot + "/models/resnet50.onnx");
  PerfOptions po;
  po.engine = engine("rooflens-cuda");

  // Padding by hand: the padded model against the model, both captured (measured as graphs).
  auto m256 = session.model(256, DType::kF16);
  ASSERT_TRUE(m256) << m256.status().message();
  auto padded = pad_model_channels(*m256, 8);
  ASSERT_TRUE(padded) << padded.status().message();
  PerfOptions graph = po;
  graph.engine.captured = true;
  const double pad_gain = throughput(*padded, h200, graph) / throughput(*m256, h200, graph);
  EXPECT_NEAR(pad_gain / 1.21, 1.0, 0.15) << "conv1 padding gain " << pad_gain;

  // Graph capture by hand: captured against issued from the host.
  auto m64 = session.model(64, DType::kF16);
  ASSERT_TRUE(m64) << m64.status().message();
  const double capture_gain = throughput(*m64, h200, graph) / throughput(*m64, h200, po);
  EXPECT_NEAR(capture_gain / 2.81, 1.0, 0.15) << "graph capture gain " << capture_gain;

  // The doctor's remedies are the same predictions.
  DoctorOptions o;
  o.whatif.device = h200;
  o.whatif.dtype = "fp16";
  o.whatif.perf = graph;
  o.whatif.perf.dtype = "fp16";
  o.whatif.fold_factors = {};
  o.whatif.batches = {};
  o.whatif.dtypes = {"fp16"};
  o.whatif.pad_multiple = 8;
  o.whatif.pad = [](const LoadedModel& l) { return pad_model_channels(l, 8); };
  o.whatif.batch = 256;
  auto r256 = run_doctor("resnet50", session.typed_loader(), o);
  ASSERT_TRUE(r256) << r256.status().message();
  const Remedy* pad = find_remedy(*r256, "tensor-cores", "pad");
  ASSERT_NE(pad, nullptr);
  EXPECT_NEAR(pad->speedup, pad_gain, 1e-9);

  o.whatif.perf = po;
  o.whatif.perf.dtype = "fp16";
  o.whatif.batch = 64;
  auto r64 = run_doctor("resnet50", session.typed_loader(), o);
  ASSERT_TRUE(r64) << r64.status().message();
  const Remedy* capture = find_remedy(*r64, "launch", "graph capture");
  ASSERT_NE(capture, nullptr);
  // The doctor also drops the device file's launch floor (4 us), below every layer here.
  EXPECT_NEAR(capture->speedup / capture_gain, 1.0, 0.01);
}

}  // namespace rooflens
