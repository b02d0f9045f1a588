// The study driver over built models: numbers per model, frontiers, fold what-ifs, the
// user's measurement and accuracy files, and rebatching.
#include <gtest/gtest.h>

#include <cmath>

#include "rooflens/analysis/study_inputs.h"
#include "rooflens/analysis/study_run.h"
#include "rooflens/onnx/import.h"
#include "rooflens/passes/batch.h"
#include "rooflens/passes/folded_cnn.h"
#include "rooflens/perf/max_batch.h"
#include "rooflens/perf/model.h"
#include "rooflens/report/study_html.h"
#include "test_util.h"

namespace rooflens {
namespace {

// A plain CNN: conv stem, `blocks` 3x3 convs of `width` channels, global pool, classifier.
Graph cnn(int64_t batch, int64_t width, int blocks) {
  GraphBuilder b("cnn");
  ValueId x = b.input("x", {batch, 3, 32, 32});
  x = b.add1("Relu", "stem_relu", {b.conv("stem", x, 3, width, 3)});
  for (int i = 0; i < blocks; ++i)
    x = b.add1("Relu", "relu" + std::to_string(i), {b.conv("conv" + std::to_string(i), x, width, width, 3)});
  x = b.add1("GlobalAveragePool", "gap", {x});
  x = b.add1("Flatten", "flat", {x});
  ValueId w = b.weight("fc.weight", {10, width});
  b.output(b.add1("Gemm", "fc", {x, w}, {{"transB", int64_t{1}}}));
  return b.finish();
}

LoadedModel load(Graph g) {
  ModelAnalysis m = test::analyze(g, DType::kF16);
  return {std::move(g), std::move(m)};
}

StudyEntry entry(const std::string& name, int64_t width, int blocks, std::optional<double> acc1) {
  StudyEntry e;
  e.name = name;
  e.load = [=](int64_t batch) -> Expected<LoadedModel> { return load(cnn(batch, width, blocks)); };
  e.acc1 = acc1;
  return e;
}

DeviceSpec device() {
  auto d = resolve_device("custom:fp16=100e12,bw=1e12,mem=16e9,sms=80", {});
  EXPECT_TRUE(d.has_value()) << d.status().message();
  return *d;
}

StudyOptions options() {
  StudyOptions o;
  o.device = device();
  o.dtype = "fp16";
  o.perf.dtype = "fp16";
  o.batch = 64;
  o.fold = [](const LoadedModel& l, int f) -> Expected<LoadedModel> {
    FoldedCnnOptions fo;
    fo.factor = f;
    auto g = folded_cnn(l.graph, fo);
    if (!g) return g.status();
    return load(std::move(*g));
  };
  return o;
}

TEST(Study, PredictedNumbersAreConsistent) {
  StudyOptions o = options();
  o.fold_below_cmr = false;
  auto s =
      run_study({entry("small", 16, 2, 60.0), entry("wide", 128, 4, 75.0), entry("noacc", 64, 2, std::nullopt)}, o);
  ASSERT_TRUE(s.has_value()) << s.status().message();
  ASSERT_EQ(s->models.size(), 3u);
  EXPECT_EQ(s->schema, "rooflens.study/1");
  EXPECT_DOUBLE_EQ(s->cmr, 100.0);
  for (const auto& m : s->models) {
    EXPECT_EQ(m.batch, 64);
    EXPECT_GT(m.throughput, 0);
    EXPECT_NEAR(m.utilization, m.throughput * m.flops_per_image / 100e12, 1e-12);
    EXPECT_EQ(m.ai_above_cmr, m.ai > 100.0);
    double share = 0;
    for (const auto& [b, t] : m.time_by_bound) share += t;
    EXPECT_NEAR(share, 1.0, 1e-6) << m.name;
    EXPECT_FALSE(m.layers.empty());
    ASSERT_TRUE(m.max_batch.has_value());
    EXPECT_GT(*m.max_batch, 64);
  }
  // The model without accuracy sits on no accuracy frontier.
  for (size_t i : s->frontiers.acc_throughput) EXPECT_NE(s->models[i].name, "noacc");
  for (size_t i : s->frontiers.acc_utilization) EXPECT_NE(s->models[i].name, "noacc");
  EXPECT_TRUE(s->folds.empty());
}

TEST(Study, MaxBatchIsUsedWhenNoBatchIsGiven) {
  StudyOptions o = options();
  o.batch.reset();
  o.fold_below_cmr = false;
  auto s = run_study({entry("wide", 128, 4, 75.0)}, o);
  ASSERT_TRUE(s.has_value()) << s.status().message();
  EXPECT_EQ(s->batch_spec, "max");
  ASSERT_TRUE(s->models[0].max_batch.has_value());
  EXPECT_EQ(s->models[0].batch, *s->models[0].max_batch);
}

TEST(Study, FoldsModelsBelowTheCmrAndCountsImages) {
  StudyOptions o = options();
  auto s = run_study({entry("small", 16, 2, 60.0), entry("wide", 512, 2, 75.0)}, o);
  ASSERT_TRUE(s.has_value()) << s.status().message();
  // The 16-wide net's AI is far below 100 FLOP/B: it is folded; the 512-wide one is not.
  ASSERT_FALSE(s->models[0].ai_above_cmr);
  ASSERT_EQ(s->folds.size(), s->models[1].ai_above_cmr ? 1u : 2u);
  const FoldResult& r = s->folds[0];
  EXPECT_EQ(r.model, "small");
  EXPECT_EQ(r.factor, 4);
  EXPECT_EQ(r.batch_after, 64);
  EXPECT_GT(r.ai_after, r.ai_before);
  EXPECT_NEAR(r.utilization_after, r.throughput_after * r.flops_per_image_after / 100e12, 1e-12);
  EXPECT_FALSE(s->frontier_after_fold.empty());
}

// One self-attention over 64 tokens of width 32 (Q.K^T, Softmax, A.V): a transformer to the
// study, which counts its fused attention layers and marks it in Figure 1.
StudyEntry attention_entry(const std::string& name, std::optional<double> acc1) {
  StudyEntry e;
  e.name = name;
  e.load = [](int64_t batch) -> Expected<LoadedModel> {
    GraphBuilder b("attention");
    ValueId x = b.input("x", {batch, 64, 32});
    ValueId q = b.add1("MatMul", "q", {x, b.weight("wq", {32, 32})});
    ValueId kt = b.add1("Transpose", "kt", {b.add1("MatMul", "k", {x, b.weight("wk", {32, 32})})},
                        {{"perm", std::vector<int64_t>{0, 2, 1}}});
    ValueId v = b.add1("MatMul", "v", {x, b.weight("wv", {32, 32})});
    ValueId p = b.add1("Softmax", "softmax", {b.add1("MatMul", "scores", {q, kt})}, {{"axis", int64_t{-1}}});
    b.output(b.add1("MatMul", "attend", {p, v}));
    return load(b.finish());
  };
  e.acc1 = acc1;
  return e;
}

TEST(Study, CountsAttentionLayersAndMarksTransformers) {
  StudyOptions o = options();
  o.fold_below_cmr = false;
  auto s = run_study({entry("small", 16, 2, 60.0), entry("wide", 128, 4, 75.0), attention_entry("vit", 40.0)}, o);
  ASSERT_TRUE(s.has_value()) << s.status().message();
  EXPECT_EQ(s->models[0].attention_layers, 0);
  EXPECT_EQ(s->models[1].attention_layers, 0);
  EXPECT_EQ(s->models[2].attention_layers, 1);
  const std::string html = report::study_html(*s);
  EXPECT_NE(html.find("data-model=\"vit\" data-ai=\"below\" data-transformer=\"1\""), std::string::npos);
  EXPECT_EQ(html.find("data-model=\"wide\" data-ai=\"above\" data-transformer"), std::string::npos);
  // The least accurate model is dominated on the accuracy-utilization frontier at least.
  EXPECT_NE(html.find(">transformer (1)<"), std::string::npos);
}

TEST(Study, FoldFactorMustDivideTheBatch) {
  StudyOptions o = options();
  o.batch = 30;
  auto s = run_study({entry("small", 16, 2, 60.0)}, o);
  ASSERT_FALSE(s.has_value());
  EXPECT_NE(s.status().message().find("does not divide the batch 30"), std::string::npos) << s.status().message();
}

TEST(Study, MeasurementsGiveThroughputRooflensGivesUtilization) {
  StudyOptions o = options();
  o.source = StudySource::kMeasurements;
  o.fold_below_cmr = false;
  StudyEntry e = entry("small", 16, 2, 60.0);
  e.given_throughput = 12345.0;
  e.given_batch = 32;
  auto s = run_study({e}, o);
  ASSERT_TRUE(s.has_value()) << s.status().message();
  EXPECT_EQ(s->models[0].throughput, 12345.0);
  EXPECT_EQ(s->models[0].batch, 32);
  EXPECT_NEAR(s->models[0].utilization, 12345.0 * s->models[0].flops_per_image / 100e12, 1e-15);
}

// A measured baseline near the peak times a predicted fold speedup would pass the peak: the
// projection is cut to it and flagged; a baseline far below it is not.
TEST(Study, ProjectedFoldsStopAtThePeak) {
  StudyOptions o = options();
  o.source = StudySource::kMeasurements;
  StudyEntry e = entry("small", 16, 2, 60.0);
  e.fold = true;
  e.given_batch = 64;
  e.given_throughput = 1.0;
  auto probe = run_study({e}, o);
  ASSERT_TRUE(probe.has_value()) << probe.status().message();
  ASSERT_EQ(probe->folds.size(), 1u);
  const FoldResult& p = probe->folds[0];
  const double speedup = p.throughput_after / p.throughput_before;
  ASSERT_GT(speedup, 1.0) << "the fold must speed up";
  EXPECT_FALSE(p.capped_at_peak);

  // A baseline whose projection lands 1% above the 100 TFLOP/s peak.
  e.given_throughput = 1.01 * 100e12 / (speedup * p.flops_per_image_after);
  auto s = run_study({e}, o);
  ASSERT_TRUE(s.has_value()) << s.status().message();
  const FoldResult& r = s->folds[0];
  EXPECT_TRUE(r.capped_at_peak);
  EXPECT_NEAR(r.utilization_after, 1.0, 1e-9);
  bool noted = false;
  for (const auto& n : s->notes) noted = noted || n.find("cut to the peak") != std::string::npos;
  EXPECT_TRUE(noted);
}

TEST(Study, MeasuredSourceUsesTheMeasurer) {
  StudyOptions o = options();
  o.source = StudySource::kMeasured;
  o.fold_below_cmr = false;
  int calls = 0;
  o.measure = [&](const LoadedModel& l) -> Expected<MeasuredThroughput> {
    ++calls;
    EXPECT_EQ(l.analysis.batch, 64);
    return MeasuredThroughput{500.0, 480.0, 510.0};
  };
  auto s = run_study({entry("small", 16, 2, 60.0)}, o);
  ASSERT_TRUE(s.has_value()) << s.status().message();
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(s->models[0].throughput, 500.0);
  EXPECT_EQ(s->models[0].throughput_q1, 480.0);
}

TEST(Study, NaNThroughputIsRefused) {
  Study s;
  s.models.push_back({});
  s.models[0].name = "x";
  s.models[0].throughput = NAN;
  Status st = compute_frontiers(s);
  EXPECT_FALSE(st.is_ok());
}

TEST(StudyInputs, MeasurementsCsvBothDialects) {
  auto a = parse_measurements_csv("model,batch,throughput\nresnet50,256,1000.5\n\"vgg,16\",8,20\n", "m.csv");
  ASSERT_TRUE(a.has_value()) << a.status().message();
  ASSERT_EQ(a->size(), 2u);
  EXPECT_EQ((*a)[1].model, "vgg,16");
  EXPECT_EQ((*a)[0].batch, 256);
  auto timm = parse_measurements_csv(
      "model,infer_samples_per_sec,infer_step_time,infer_batch_size,infer_img_size\nresnet50,2700.1,94.2,256,224\n",
      "t.csv");
  ASSERT_TRUE(timm.has_value()) << timm.status().message();
  EXPECT_DOUBLE_EQ((*timm)[0].throughput, 2700.1);
  EXPECT_EQ((*timm)[0].batch, 256);
}

std::string csv_error(const std::string& text) {
  auto r = parse_measurements_csv(text, "m.csv");
  EXPECT_FALSE(r.has_value());
  return r.has_value() ? "" : r.status().message();
}

TEST(StudyInputs, MeasurementsCsvErrorsNameWhatAndWhere) {
  EXPECT_NE(csv_error("model,throughput\nresnet50,10\n").find("missing column 'batch'"), std::string::npos);
  EXPECT_NE(csv_error("model,batch,throughput\nresnet50,8,-3\n").find("m.csv:2 throughput"), std::string::npos);
  EXPECT_NE(csv_error("model,batch,throughput\na,8,3\na,8,4\n").find("m.csv:3: model 'a' is listed twice"),
            std::string::npos);
  EXPECT_NE(csv_error("model,batch,throughput\na,0,3\n").find("batch"), std::string::npos);
  EXPECT_NE(csv_error("model,batch,throughput\na,8\n").find("m.csv:2"), std::string::npos);
  EXPECT_NE(csv_error("").find("empty"), std::string::npos);
  EXPECT_NE(csv_error("model,batch,throughput\na,8,fast\n").find("not a number"), std::string::npos);
}

TEST(StudyInputs, AccuracyCsv) {
  auto a = parse_accuracy_csv("model,top1,top5\nx,80.1,95\ny,70,\n", "a.csv");
  ASSERT_TRUE(a.has_value()) << a.status().message();
  EXPECT_DOUBLE_EQ(*(*a)[0].acc1, 80.1);
  EXPECT_FALSE((*a)[1].acc5.has_value());
  EXPECT_FALSE(parse_accuracy_csv("model,acc1\nx,180\n", "a.csv").has_value());
}

TEST(Rebatch, EqualsImportingAtThatBatch) {
  const std::string path = std::string(ROOFLENS_SOURCE_DIR) + "/models/mobilenet_v2.onnx";
  ImportOptions io;
  io.batch = 1;
  auto g1 = import_onnx_file(path, io);
  ASSERT_TRUE(g1.has_value()) << g1.status().message();
  ASSERT_TRUE(infer_shapes(*g1).has_value());
  auto r = rebatch(*g1, 8);
  ASSERT_TRUE(r.has_value()) << r.status().message();
  io.batch = 8;
  auto g8 = import_onnx_file(path, io);
  ASSERT_TRUE(g8.has_value());
  ModelAnalysis a = test::analyze(r->graph, DType::kF16), b = test::analyze(*g8, DType::kF16);
  EXPECT_EQ(a.batch, 8);
  EXPECT_EQ(a.totals.flops, b.totals.flops);
  EXPECT_EQ(a.totals.bytes_in, b.totals.bytes_in);
  EXPECT_EQ(a.totals.bytes_out, b.totals.bytes_out);
  EXPECT_EQ(a.layers.size(), b.layers.size());
  EXPECT_FALSE(rebatch(*g1, 0).has_value());
}

}  // namespace
}  // namespace rooflens

namespace rooflens {
namespace {

TEST(MaxBatch, AffineSearchMatchesTheGeneralSearchInFewEvaluations) {
  int calls = 0;
  auto affine = [&](int64_t b) -> Expected<int64_t> {
    ++calls;
    return 1000 + 37 * b;
  };
  auto general = find_max_batch(affine, 1e6);
  calls = 0;
  auto fast = find_max_batch_affine(affine, 1e6);
  ASSERT_TRUE(fast.has_value() && general.has_value());
  EXPECT_EQ(*fast, *general);
  EXPECT_EQ(*fast, (1000000 - 1000) / 37);
  EXPECT_LE(calls, 4);
  // Not affine: still the right answer through the fallback.
  auto convex = [](int64_t b) -> Expected<int64_t> { return 1000 + b * b; };
  EXPECT_EQ(*find_max_batch_affine(convex, 1e6), *find_max_batch(convex, 1e6));
  // Too big at batch 1; exactly two fit; the limit caps it.
  EXPECT_FALSE(find_max_batch_affine(affine, 500).has_value());
  EXPECT_EQ(*find_max_batch_affine(affine, 1000 + 37 * 2), 2);
  EXPECT_EQ(*find_max_batch_affine(affine, 1e12, 64), 64);
}

}  // namespace
}  // namespace rooflens

namespace rooflens {
namespace {

TEST(Study, RankCorrelationWithAccuracy) {
  Study s;
  auto add = [&](const char* n, double thr, double util, std::optional<double> acc) {
    StudyModel m;
    m.name = n;
    m.throughput = thr;
    m.utilization = util;
    m.acc1 = acc;
    s.models.push_back(m);
  };
  add("a", 300, 0.1, 70);
  add("b", 200, 0.3, 75);
  add("c", 100, 0.5, 80);
  add("d", 50, 0.9, std::nullopt);  // no accuracy: left out of the correlation
  ASSERT_TRUE(compute_frontiers(s).is_ok());
  ASSERT_TRUE(s.spearman_utilization_accuracy.has_value());
  EXPECT_DOUBLE_EQ(*s.spearman_utilization_accuracy, 1.0);
  EXPECT_DOUBLE_EQ(*s.spearman_throughput_accuracy, -1.0);
  Study two;
  two.models = {s.models[0], s.models[1]};
  ASSERT_TRUE(compute_frontiers(two).is_ok());
  EXPECT_FALSE(two.spearman_utilization_accuracy.has_value());
}

}  // namespace
}  // namespace rooflens
