// The doctor (analysis/doctor.h) on hand-built graphs: expected diagnoses, and every remedy's
// gain reproduced by predicting the changed model or setting by hand.
#include <gtest/gtest.h>

#include <algorithm>

#include "rooflens/analysis/doctor.h"
#include "rooflens/ir/graph_builder.h"
#include "rooflens/passes/folded_cnn.h"
#include "rooflens/passes/pad_channels.h"
#include "rooflens/perf/model.h"
#include "rooflens/report/doctor_report.h"
#include "test_util.h"

namespace rooflens {
namespace {

LoadedModel load(Graph g) {
  ModelAnalysis m = test::analyze(g, DType::kF16);
  return {std::move(g), std::move(m)};
}

DeviceSpec v100() {
  auto db = load_device_dir(std::string(ROOFLENS_SOURCE_DIR) + "/data/devices");
  EXPECT_TRUE(db) << db.status().message();
  auto d = resolve_device("v100", *db);
  EXPECT_TRUE(d) << d.status().message();
  return *d;
}

// The article's example: a 1x1 convolution from 10 to 5 channels on a 7x7 input.
Graph tiny_pointwise(int64_t batch) {
  GraphBuilder b("tiny");
  ValueId x = b.input("x", {batch, 10, 7, 7});
  b.output(b.conv("pw", x, 10, 5, 1));
  return b.finish();
}

// A stem with 3 input channels (no tensor cores), then 3x3 convs of `width`.
Graph cnn(int64_t batch, int64_t width, int blocks) {
  GraphBuilder b("cnn");
  ValueId x = b.input("x", {batch, 3, 64, 64});
  x = b.add1("Relu", "stem_relu", {b.conv("stem", x, 3, width, 3)});
  for (int i = 0; i < blocks; ++i)
    x = b.add1("Relu", "relu" + std::to_string(i), {b.conv("conv" + std::to_string(i), x, width, width, 3)});
  x = b.add1("GlobalAveragePool", "gap", {x});
  x = b.add1("Flatten", "flat", {x});
  ValueId w = b.weight("fc.weight", {10, width});
  b.output(b.add1("Gemm", "fc", {x, w}, {{"transB", int64_t{1}}}));
  return b.finish();
}

DoctorOptions options(const DeviceSpec& d, std::optional<int64_t> batch) {
  DoctorOptions o;
  o.whatif.device = d;
  o.whatif.dtype = "fp16";
  o.whatif.perf.dtype = "fp16";
  o.whatif.batch = batch;
  o.whatif.fold_factors = {2, 4};
  o.whatif.fold = [](const LoadedModel& l, int f) -> Expected<LoadedModel> {
    FoldedCnnOptions fo;
    fo.factor = f;
    auto g = folded_cnn(l.graph, fo);
    if (!g) return g.status();
    return load(std::move(*g));
  };
  o.whatif.pad_multiple = 8;
  o.whatif.pad = [](const LoadedModel& l) -> Expected<LoadedModel> {
    auto g = pad_channels(l.graph, 8);
    if (!g) return g.status();
    return load(std::move(*g));
  };
  return o;
}

const Finding& finding(const DoctorReport& r, const std::string& key) {
  auto it = std::find_if(r.findings.begin(), r.findings.end(), [&](const Finding& f) { return f.key == key; });
  EXPECT_NE(it, r.findings.end()) << key;
  return *it;
}

const Remedy* remedy(const Finding& f, const std::string& name) {
  for (const Remedy& m : f.remedies)
    if (m.name == name) return &m;
  return nullptr;
}

double predicted_throughput(const LoadedModel& l, const DeviceSpec& d) {
  PerfOptions po;
  po.dtype = "fp16";
  auto p = predict(l.graph, l.analysis, d, po);
  EXPECT_TRUE(p) << p.status().message();
  return p ? p->throughput : 0;
}

}  // namespace

TEST(Doctor, ArticlesPointwiseLayerIsStarvedAndBatchHelps) {
  const DeviceSpec d = v100();
  TypedLoader ld = [](int64_t b, DType) -> Expected<LoadedModel> { return load(tiny_pointwise(b)); };
  DoctorOptions o = options(d, 1);
  o.whatif.fold_factors = {};
  auto r = run_doctor("tiny", ld, o);
  ASSERT_TRUE(r) << r.status().message();
  const Finding& f = finding(*r, "starvation");
  EXPECT_EQ(f.verdict, Verdict::kApplies);
  ASSERT_FALSE(f.layers.empty());
  EXPECT_EQ(f.layers[0].name, "pw");
  const Remedy* b64 = remedy(f, "batch 64");
  ASSERT_NE(b64, nullptr);
  EXPECT_GT(b64->speedup, 1);
  // By hand: the same model predicted at batch 64.
  EXPECT_NEAR(b64->throughput_after, predicted_throughput(load(tiny_pointwise(64)), d), 1e-9 * b64->throughput_after);
  // At batch 1 the layer is shorter than a launch: launch overhead applies, and graph
  // capture's gain is the prediction with the launch overhead removed.
  const Finding& l = finding(*r, "launch");
  EXPECT_EQ(l.verdict, Verdict::kApplies);
  const Remedy* gc = remedy(l, "graph capture (CUDA graphs)");
  ASSERT_NE(gc, nullptr);
  DeviceSpec captured = d;
  captured.launch_overhead_s = 0;
  EXPECT_NEAR(gc->throughput_after, predicted_throughput(load(tiny_pointwise(1)), captured),
              1e-9 * gc->throughput_after);
  EXPECT_GT(gc->speedup, 1);
}

TEST(Doctor, ThreeChannelStemIsNamedAndPaddingIsPredictedOnThePaddedGraph) {
  const DeviceSpec d = v100();
  TypedLoader ld = [](int64_t b, DType) -> Expected<LoadedModel> { return load(cnn(b, 64, 4)); };
  auto r = run_doctor("cnn", ld, options(d, 64));
  ASSERT_TRUE(r) << r.status().message();
  const Finding& f = finding(*r, "tensor-cores");
  ASSERT_FALSE(f.layers.empty());
  EXPECT_EQ(f.layers[0].name, "stem");
  EXPECT_NE(f.layers[0].detail.find("multiples of 8"), std::string::npos) << f.layers[0].detail;
  const Remedy* pad = remedy(f, "pad channels to 8");
  ASSERT_NE(pad, nullptr);
  ASSERT_TRUE(pad->ok) << pad->note;
  const LoadedModel base = load(cnn(64, 64, 4));  // shapes inferred, as the doctor's loader gives
  auto padded = pad_channels(base.graph, 8);
  ASSERT_TRUE(padded);
  EXPECT_NEAR(pad->throughput_after, predicted_throughput(load(std::move(*padded)), d), 1e-9 * pad->throughput_after);
  // Fold gains are predictions on the folded graph, f images per folded input.
  const Finding& m = finding(*r, "memory-bound");
  for (const Remedy& x : m.remedies) {
    if (x.name != "fold f=2") continue;
    FoldedCnnOptions fo;
    fo.factor = 2;
    auto g = folded_cnn(load(cnn(64, 64, 4)).graph, fo);
    ASSERT_TRUE(g);
    EXPECT_NEAR(x.throughput_after, 2 * predicted_throughput(load(std::move(*g)), d), 1e-9 * x.throughput_after);
  }
}

TEST(Doctor, LowCmrDeviceAtMaxBatchPutsMemoryFirst) {
  auto d = resolve_device("custom:fp16=100e12,bw=0.2e12,mem=16e9,sms=80", {});
  ASSERT_TRUE(d) << d.status().message();
  TypedLoader ld = [](int64_t b, DType) -> Expected<LoadedModel> { return load(cnn(b, 64, 4)); };
  DoctorOptions o = options(*d, std::nullopt);
  auto r = run_doctor("cnn", ld, o);
  ASSERT_TRUE(r) << r.status().message();
  ASSERT_FALSE(r->findings.empty());
  EXPECT_EQ(r->findings.front().key, "memory-bound");
  EXPECT_EQ(r->findings.front().verdict, Verdict::kApplies);
  EXPECT_GT(r->findings.front().time_share, 0.5);
}

TEST(Doctor, ItemsThatNeedMeasurementsSayWhichOne) {
  const DeviceSpec d = v100();
  TypedLoader ld = [](int64_t b, DType) -> Expected<LoadedModel> { return load(cnn(b, 64, 2)); };
  auto r = run_doctor("cnn", ld, options(d, 8));
  ASSERT_TRUE(r);
  for (const char* key : {"unoptimized", "thermal", "input", "overlap"}) {
    const Finding& f = finding(*r, key);
    EXPECT_EQ(f.verdict, Verdict::kCannotTell) << key;
    EXPECT_FALSE(f.measurement_needed.empty()) << key;
  }
  // With a host link, copies and input are judged, and the overlap gain is computed.
  DoctorOptions o = options(d, 8);
  o.host_link_bytes_per_s = 15.75e9;
  o.host_link_name = "PCIe 3.0 x16";
  auto r2 = run_doctor("cnn", ld, o);
  ASSERT_TRUE(r2);
  const Finding& ov = finding(*r2, "overlap");
  EXPECT_NE(ov.verdict, Verdict::kCannotTell);
  ASSERT_EQ(ov.remedies.size(), 1u);
  EXPECT_GE(ov.remedies[0].speedup, 1);
}

}  // namespace rooflens

namespace rooflens {
namespace {

Remedy made_remedy(const std::string& name, double speedup, bool ok = true) {
  Remedy r;
  r.name = name;
  r.ok = ok;
  r.throughput_before = 100;
  r.throughput_after = 100 * speedup;
  r.speedup = speedup;
  return r;
}

Finding made_finding(int item, const std::string& key, Verdict v, std::vector<Remedy> remedies) {
  Finding f;
  f.item = item;
  f.key = key;
  f.verdict = v;
  f.remedies = std::move(remedies);
  return f;
}

TEST(DoctorZoo, BestRemedyIsTheLargestGainOfAnApplyingFinding) {
  DoctorReport r;
  r.findings.push_back(made_finding(9, "launch", Verdict::kApplies, {made_remedy("graph capture", 1.3)}));
  // Larger, but its finding does not apply, or the remedy could not be computed: ignored.
  r.findings.push_back(made_finding(1, "memory-bound", Verdict::kDoesNotApply, {made_remedy("fold", 3.0)}));
  r.findings.push_back(made_finding(5, "tensor-cores", Verdict::kApplies,
                                    {made_remedy("pad channels to 8", 2.5, false), made_remedy("run in fp8", 1.8)}));
  auto b = best_remedy(r);
  ASSERT_TRUE(b);
  EXPECT_EQ(b->item, 5);
  EXPECT_EQ(b->remedy.name, "run in fp8");
  DoctorReport none;
  none.findings.push_back(made_finding(2, "starvation", Verdict::kApplies, {made_remedy("batch 2", 0.9)}));
  EXPECT_FALSE(best_remedy(none));
}

TEST(DoctorZoo, RowsAreRankedByTimeSavedWithFailuresLast) {
  auto report_with = [](double speedup) {
    DoctorReport r;
    r.baseline.throughput = 100;
    r.findings.push_back(made_finding(9, "launch", Verdict::kApplies, {made_remedy("graph capture", speedup)}));
    return r;
  };
  std::vector<report::DoctorZooRow> rows = {{"small", report_with(1.1), ""},
                                            {"broken", std::nullopt, "cannot import"},
                                            {"big", report_with(4.0), ""}};
  auto j = report::doctor_zoo_json(rows, "v100", "fp16", "max");
  ASSERT_EQ(j["models"].size(), 3u);
  EXPECT_EQ(j["models"][0]["model"], "big");
  EXPECT_EQ(j["models"][1]["model"], "small");
  EXPECT_EQ(j["models"][2]["model"], "broken");
  EXPECT_NEAR(j["models"][0]["best"]["time_saved"].get<double>(), 0.75, 1e-12);
  const std::string text = report::doctor_zoo_text(rows, "v100, fp16, batch max");
  EXPECT_LT(text.find("big"), text.find("small"));
  EXPECT_NE(text.find("not diagnosed: cannot import"), std::string::npos);
}

}  // namespace
}  // namespace rooflens

namespace rooflens {
namespace {

// The cnn above, analysed at the dtype the doctor asks for.
TypedLoader typed_cnn_loader() {
  return [](int64_t b, DType t) -> Expected<LoadedModel> {
    Graph g = cnn(b, 64, 4);
    ModelAnalysis m = test::analyze(g, t);
    return LoadedModel{std::move(g), std::move(m)};
  };
}

DeviceSpec device_named(const std::string& id) {
  auto db = load_device_dir(std::string(ROOFLENS_SOURCE_DIR) + "/data/devices");
  EXPECT_TRUE(db) << db.status().message();
  auto d = resolve_device(id, *db);
  EXPECT_TRUE(d) << d.status().message();
  return *d;
}

TEST(Doctor, DtypeRemediesEqualPredictAtThatDtypeByHand) {
  const DeviceSpec d = device_named("h100-sxm");
  DoctorOptions o = options(d, 64);
  o.whatif.dtypes = {"fp32", "fp16", "int8", "fp8"};
  auto r = run_doctor("cnn", typed_cnn_loader(), o);
  ASSERT_TRUE(r) << r.status().message();
  int checked = 0;
  for (const Finding& f : r->findings)
    for (const Remedy& m : f.remedies) {
      if (m.name.rfind("run in ", 0) != 0 || !m.ok) continue;
      const std::string dt = m.name.substr(7);
      auto t = parse_dtype(dt);
      ASSERT_TRUE(t) << dt;
      auto l = typed_cnn_loader()(64, *t);
      ASSERT_TRUE(l);
      PerfOptions po;
      po.dtype = dt;
      auto p = predict(l->graph, l->analysis, d, po);
      ASSERT_TRUE(p) << p.status().message();
      EXPECT_NEAR(m.throughput_after, p->throughput, 1e-9 * p->throughput) << f.key << ": " << m.name;
      ++checked;
    }
  EXPECT_GT(checked, 0) << "no dtype remedy was offered";
}

TEST(Doctor, HostLinkRemediesEqualTheLinkCapByHand) {
  const DeviceSpec d = v100();
  DoctorOptions o = options(d, 64);
  o.host_link_bytes_per_s = 0.5e9;  // a slow link: the input item applies
  o.host_link_name = "test link";
  auto r = run_doctor("cnn", typed_cnn_loader(), o);
  ASSERT_TRUE(r) << r.status().message();
  const Finding& f = finding(*r, "input");
  EXPECT_EQ(f.verdict, Verdict::kApplies);
  // By hand: one 3 x 64 x 64 image in the graph input's dtype over the link, against the
  // prediction.
  auto l = typed_cnn_loader()(64, DType::kF16);
  ASSERT_TRUE(l);
  const DType in = l->graph.value(l->graph.inputs[0]).dtype;
  const double bytes_per_image =
      3.0 * 64 * 64 * static_cast<double>(dtype_bytes(in == DType::kUnknown ? DType::kF32 : in));
  const double cap = 0.5e9 / bytes_per_image;
  const double predicted = r->baseline.throughput;
  const Remedy* faster = remedy(f, "a host link twice as fast (next PCIe generation)");
  ASSERT_NE(faster, nullptr);
  EXPECT_NEAR(faster->throughput_before, std::min(predicted, cap), 1e-9 * cap);
  EXPECT_NEAR(faster->throughput_after, std::min(predicted, 2 * cap), 1e-9 * cap);
  const Remedy* u8 = remedy(f, "send uint8 images, convert on the device");
  ASSERT_NE(u8, nullptr);
  EXPECT_NEAR(u8->throughput_after, std::min(predicted, 0.5e9 / (3.0 * 64 * 64)), 1e-9 * cap);
}

TEST(Doctor, AnotherDeviceIsPredictedOnThatDeviceByHandAndNotRankedAsAModelRemedy) {
  const DeviceSpec d = v100();
  const DeviceSpec h = device_named("h100-sxm");
  DoctorOptions o = options(d, 64);
  o.whatif.other_devices = {h};
  auto r = run_doctor("cnn", typed_cnn_loader(), o);
  ASSERT_TRUE(r) << r.status().message();
  const Finding& m = finding(*r, "memory-bound");
  const Remedy* other = remedy(m, "another device: " + h.id);
  ASSERT_NE(other, nullptr);
  EXPECT_TRUE(other->other_device);
  auto l = typed_cnn_loader()(64, DType::kF16);
  ASSERT_TRUE(l);
  EXPECT_NEAR(other->throughput_after, predicted_throughput(*l, h), 1e-9 * other->throughput_after);
  // The largest gain on the device given never is "buy another device".
  auto best = best_remedy(*r);
  if (best) {
    EXPECT_FALSE(best->remedy.other_device);
  }
}

TEST(Doctor, ThermalItemComparesTheMeasuredClockWithTheDeviceFile) {
  const DeviceSpec cpu = device_named("epyc-milan-2c");
  ASSERT_GT(cpu.clock_boost_hz, 0);
  auto run = [&](std::optional<double> clock) {
    DoctorOptions o = options(cpu, 8);
    o.whatif.dtype = "fp32";
    o.whatif.perf.dtype = "fp32";
    o.whatif.pad = nullptr;
    o.whatif.fold_factors = {};
    o.clock_measured_hz = clock;
    auto r = run_doctor("cnn", typed_cnn_loader(), o);
    EXPECT_TRUE(r) << r.status().message();
    return r ? finding(*r, "thermal").verdict : Verdict::kCannotTell;
  };
  EXPECT_EQ(run(std::nullopt), Verdict::kCannotTell);
  EXPECT_EQ(run(0.6 * cpu.clock_boost_hz), Verdict::kApplies);
  EXPECT_EQ(run(0.98 * cpu.clock_boost_hz), Verdict::kDoesNotApply);
}

TEST(Doctor, OverlapAndDecodeRemediesEqualTheirRatesByHand) {
  const DeviceSpec d = v100();
  DoctorOptions o = options(d, 64);
  o.host_link_bytes_per_s = 16e9;
  o.host_link_name = "test link";
  o.jpeg_images_per_s_per_core = 50;  // slow decoding: 2 cores cannot keep up
  o.host_cores = 2;
  auto r = run_doctor("cnn", typed_cnn_loader(), o);
  ASSERT_TRUE(r) << r.status().message();
  auto l = typed_cnn_loader()(64, DType::kF16);
  ASSERT_TRUE(l);
  const DType in = l->graph.value(l->graph.inputs[0]).dtype;
  const double batch_bytes =
      64 * 3.0 * 64 * 64 * static_cast<double>(dtype_bytes(in == DType::kUnknown ? DType::kF32 : in));
  // By hand: a batch's copy over the link, and its predicted compute, serial against overlapped.
  const double copy = batch_bytes / 16e9, compute = r->baseline.time_s;
  const Remedy* ov = remedy(finding(*r, "overlap"), "overlap copies with compute (pinned memory, a second stream)");
  ASSERT_NE(ov, nullptr);
  EXPECT_NEAR(ov->throughput_before, 64 / (copy + compute), 1e-9 * ov->throughput_before);
  EXPECT_NEAR(ov->throughput_after, 64 / std::max(copy, compute), 1e-9 * ov->throughput_after);
  // Decoding: 50 img/s per core on 2 cores caps the pipeline; enough cores lift the cap to
  // the link's (or the prediction, whichever is lower).
  const Finding& f = finding(*r, "input");
  EXPECT_EQ(f.verdict, Verdict::kApplies);
  const Remedy* dec = nullptr;
  for (const Remedy& m : f.remedies)
    if (m.name.rfind("decode on ", 0) == 0) dec = &m;
  ASSERT_NE(dec, nullptr);
  const double link_cap = 16e9 / (batch_bytes / 64);
  EXPECT_NEAR(dec->throughput_before, std::min(r->baseline.throughput, 100.0), 1e-9 * 100);
  EXPECT_NEAR(dec->throughput_after, std::min(r->baseline.throughput, link_cap), 1e-9 * link_cap);
}

TEST(Doctor, UnoptimizedCodeRemedyIsTheMeasuredTimeLessTheExcessByHand) {
  const DeviceSpec cpu = device_named("epyc-milan-2c");
  DoctorOptions o = options(cpu, 8);
  o.whatif.dtype = "fp32";
  o.whatif.perf.dtype = "fp32";
  o.whatif.pad = nullptr;
  o.whatif.fold_factors = {};
  // Measured times: the stem 3x its predicted bound, every other layer at 1.5x.
  auto base = run_doctor("cnn", typed_cnn_loader(), o);
  ASSERT_TRUE(base) << base.status().message();
  std::vector<MeasuredLayer> measured;
  double total = 0, excess = 0;
  for (const auto& l : base->baseline.layers) {
    const double factor = l.name == "stem" ? 3.0 : 1.5;
    measured.push_back({l.name, factor * l.time_s, "jit:test"});
    total += factor * l.time_s;
    if (factor > 2) excess += (factor - 1) * l.time_s;
  }
  o.measured = measured;
  auto r = run_doctor("cnn", typed_cnn_loader(), o);
  ASSERT_TRUE(r) << r.status().message();
  const Finding& f = finding(*r, "unoptimized");
  ASSERT_EQ(f.layers_total, 1);
  EXPECT_EQ(f.layers[0].name, "stem");
  EXPECT_NE(f.layers[0].detail.find("jit:test"), std::string::npos) << f.layers[0].detail;
  ASSERT_EQ(f.remedies.size(), 1u);
  EXPECT_NEAR(f.remedies[0].throughput_before, 8 / total, 1e-9 * (8 / total));
  EXPECT_NEAR(f.remedies[0].throughput_after, 8 / (total - excess), 1e-9 * (8 / total));
}

}  // namespace
}  // namespace rooflens
