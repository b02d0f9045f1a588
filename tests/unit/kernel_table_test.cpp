// The measured kernel table: the fit recovers known coefficients from synthetic timings; a
// device file with a corrupt or foreign table is refused naming the file and the field; the
// predictor classifies layers and counts the backend's layout conversions (the probe that
// measures it: kernel_probe_test.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "kernel_table_support.h"
#include "rooflens/device/device.h"
#include "rooflens/ir/graph_builder.h"
#include "rooflens/perf/kernel_predict.h"
#include "rooflens/perf/model.h"

namespace rooflens {
namespace {

TEST(KernelTableFit, RecoversKnownCoefficients) {
  // kernels well above the dispatch
  const std::vector<double> coef = {-14.0, 0.92, 0.85, 0.97, 0.18, 0.3, -1.0, 0.35, -0.08};
  auto f = fit_kernel_class("conv", synthetic(coef, 3e-6, 8), 3e-6);
  ASSERT_TRUE(f) << f.status().message();
  ASSERT_EQ(f->coef.size(), coef.size());
  for (size_t i = 0; i < coef.size(); ++i) EXPECT_NEAR(f->coef[i], coef[i], 1e-6) << "coefficient " << i;
  EXPECT_LT(f->max_abs_error, 1e-6);
  EXPECT_EQ(f->features, kernel_class_features().at("conv"));
  EXPECT_EQ(f->samples, 60);
}

// A fixed cost per call beside the dispatch (a parallel region, the stream's wait), which
// dominates the smallest shapes, is recovered with the power law's coefficients.
TEST(KernelTableFit, RecoversAFixedCostPerCall) {
  const std::vector<double> coef = {-20.0, 1.0, 0.3};
  auto f = fit_kernel_class("eltwise", synthetic(coef, 1e-6, 2, 0, 4e-6), 1e-6);
  ASSERT_TRUE(f) << f.status().message();
  EXPECT_NEAR(f->fixed_s, 4e-6, 0.08e-6);
  EXPECT_NEAR(f->coef[0], coef[0], 0.15);
  EXPECT_NEAR(f->coef[1], coef[1], 0.02);
  EXPECT_NEAR(f->coef[2], coef[2], 0.02);
  EXPECT_LT(f->median_abs_error, 0.02);  // a pure power law is off by 17% here
  // Read back from a device file's table, the fixed cost is kept.
  KernelTable t;
  t.backend = "test";
  t.threads = 2;
  t.dispatch_s = 1e-6;
  t.classes["eltwise"] = *f;
  auto back = parse_kernel_table(kernel_table_json(t), "t.json");
  ASSERT_TRUE(back) << back.status().message();
  EXPECT_DOUBLE_EQ(back->classes.at("eltwise").fixed_s, f->fixed_s);
}

TEST(KernelTableFit, NoisyTimingsStayClose) {
  const std::vector<double> coef = {-20.0, 0.7, 0.3};
  auto f = fit_kernel_class("eltwise", synthetic(coef, 0, 2, 0.1), 0);
  ASSERT_TRUE(f) << f.status().message();
  EXPECT_NEAR(f->coef[1], 0.7, 0.02);
  EXPECT_LT(f->median_abs_error, 0.06);
}

TEST(KernelTableFit, RefusesTooFewSamplesAndBadTimes) {
  auto few = synthetic({-20.0, 1.0, 0.5}, 0, 2);
  few.resize(2);
  EXPECT_FALSE(fit_kernel_class("eltwise", few, 0));
  auto bad = synthetic({-20.0, 1.0, 0.5}, 0, 2);
  bad[3].seconds = -1;
  EXPECT_FALSE(fit_kernel_class("eltwise", bad, 0));
  EXPECT_FALSE(fit_kernel_class("warp-drive", synthetic({-20.0, 1.0, 0.5}, 0, 2), 0));
}

TEST(KernelTableFile, RoundTripsThroughADeviceFile) {
  auto d = parse_device_json(device_text(kernel_table_json(small_table())), "cpu.json");
  ASSERT_TRUE(d) << d.status().message();
  ASSERT_TRUE(d->kernel_table.has_value());
  EXPECT_EQ(d->kernel_table->threads, 2);
  EXPECT_NEAR(d->kernel_table->classes.at("gemm").coef[1], 1.0, 1e-6);
  EXPECT_EQ(d->kernel_table->host_clock_hz, 0);  // none written, none read
}

TEST(KernelTableFile, TheHostReferenceRoundTripsWithItsClockAndFma) {
  KernelTable t = small_table();
  t.host_gemm_flops = 60e9;
  t.host_stream_bytes = 30e9;
  t.host_clock_hz = 4.5e9;
  t.host_fma_flops = 550e9;
  t.host_dispatch_s = 0.85e-6;
  t.host_kernels_s = 1.4e-3;
  t.host_kernels8_s = 9.5e-3;
  auto d = parse_device_json(device_text(kernel_table_json(t)), "cpu.json");
  ASSERT_TRUE(d) << d.status().message();
  EXPECT_DOUBLE_EQ(d->kernel_table->host_gemm_flops, 60e9);
  EXPECT_DOUBLE_EQ(d->kernel_table->host_stream_bytes, 30e9);
  EXPECT_DOUBLE_EQ(d->kernel_table->host_clock_hz, 4.5e9);
  EXPECT_DOUBLE_EQ(d->kernel_table->host_fma_flops, 550e9);
  EXPECT_DOUBLE_EQ(d->kernel_table->host_dispatch_s, 0.85e-6);
  EXPECT_DOUBLE_EQ(d->kernel_table->host_kernels_s, 1.4e-3);
  EXPECT_DOUBLE_EQ(d->kernel_table->host_kernels8_s, 9.5e-3);
  auto j = nlohmann::json::parse(kernel_table_json(t));
  j["host_reference"]["clock_hz"] = -1;
  expect_refused(j.dump(), "host_reference.clock_hz");
  j["host_reference"]["clock_hz"] = 4.5e9;
  j["host_reference"]["fma_flops"] = "fast";
  expect_refused(j.dump(), "host_reference.fma_flops");
  j["host_reference"]["fma_flops"] = 550e9;
  j["host_reference"]["dispatch_s"] = 0;
  expect_refused(j.dump(), "host_reference.dispatch_s");
  j["host_reference"]["dispatch_s"] = 0.85e-6;
  j["host_reference"]["kernels_s"] = -1e-3;
  expect_refused(j.dump(), "host_reference.kernels_s");
  j["host_reference"].erase("kernels_s");
  j["host_reference"].erase("clock_hz");  // an older table: no clock, FMA or dispatch, still read
  j["host_reference"].erase("fma_flops");
  j["host_reference"].erase("dispatch_s");
  auto old = parse_device_json(device_text(j.dump()), "cpu.json");
  ASSERT_TRUE(old) << old.status().message();
  EXPECT_EQ(old->kernel_table->host_clock_hz, 0);
}

TEST(KernelTableFile, RefusesCorruptOrForeignTables) {
  auto good = nlohmann::json::parse(kernel_table_json(small_table()));
  auto with = [&](auto edit) {
    auto j = good;
    edit(j);
    return j.dump();
  };
  expect_refused(with([](auto& j) { j["schema"] = "nn-meter.predictor/2"; }), "kernel_table.schema");
  expect_refused(with([](auto& j) { j.erase("schema"); }), "kernel_table.schema");
  expect_refused(with([](auto& j) { j["classes"]["gemm"]["features"] = {"flops"}; }),
                 "kernel_table.classes.gemm.features");
  expect_refused(with([](auto& j) { j["classes"]["gemm"]["coef"] = {1.0, 2.0}; }), "kernel_table.classes.gemm.coef");
  expect_refused(with([](auto& j) { j["classes"]["gemm"]["coef"][2] = "fast"; }), "kernel_table.classes.gemm.coef[2]");
  expect_refused(with([](auto& j) { j["classes"]["gemm"]["fixed_s"] = -1e-6; }), "kernel_table.classes.gemm.fixed_s");
  expect_refused(with([](auto& j) { j["classes"]["winograd"] = j["classes"]["gemm"]; }),
                 "kernel_table.classes.winograd");
  expect_refused(with([](auto& j) { j["classes"]["gemm"]["samples"] = 1; }), "kernel_table.classes.gemm.samples");
  expect_refused(with([](auto& j) { j["threads"] = 0; }), "kernel_table.threads");
  expect_refused(with([](auto& j) { j["dtype"] = "int8"; }), "kernel_table.dtype");
  expect_refused(with([](auto& j) { j["classes"] = nlohmann::json::object(); }), "kernel_table.classes");
  expect_refused("[1, 2, 3]", "kernel_table");
}

// The lane fill appended to the conv classes: simd_lanes round-trips, and a table fitted before
// the feature existed (its conv list one shorter) is read with that coefficient 0, so it
// predicts as it did; a list that is not a leading part of the class's is still foreign.
// The same for a table fitted before the grouped feature (2026-12-05), and before the
// activation's per-k share: their coefficients read as 0, so the table predicts as it did;
// gemm's transcendental likewise.

TEST(KernelTableFile, ATableFittedBeforeTheLaneFillReadsItsCoefficientAsZero) {
  KernelTable t = small_table();
  t.simd_lanes = 16;
  t.classes["conv"] =
      *fit_kernel_class("conv", synthetic({-14.0, 0.9, 0.85, 0.97, 0.2, 0.3, -1.0, 0.35, -0.08}, 2e-6, 8), 2e-6);
  auto j = nlohmann::json::parse(kernel_table_json(t));
  auto d = parse_device_json(device_text(j.dump()), "cpu.json");
  ASSERT_TRUE(d) << d.status().message();
  EXPECT_EQ(d->kernel_table->simd_lanes, 16);
  EXPECT_NEAR(d->kernel_table->classes.at("conv").coef.at(6), -1.0, 1e-6);
  EXPECT_NEAR(d->kernel_table->classes.at("conv").coef.at(7), 0.35, 1e-6);
  EXPECT_NEAR(d->kernel_table->classes.at("conv").coef.at(8), -0.08, 1e-6);
  const std::vector<double> x = {5.0, 4.0, 6.0, 0.0, 1.0, std::log(0.75), 1.0, 6.0};
  // The activation's share; grouped too; and the lane fill.
  for (const int dropped : {1, 2, 3}) {
    auto old = j;
    if (dropped == 3) old.erase("simd_lanes");
    for (int i = 0; i < dropped; ++i) {
      old["classes"]["conv"]["features"].erase(7 - i);
      old["classes"]["conv"]["coef"].erase(8 - i);
    }
    if (dropped == 1) {  // gemm fitted before its transcendental
      old["classes"]["gemm"]["features"].erase(3);
      old["classes"]["gemm"]["coef"].erase(4);
    }
    auto o = parse_device_json(device_text(old.dump()), "cpu.json");
    ASSERT_TRUE(o) << o.status().message();
    EXPECT_EQ(o->kernel_table->simd_lanes, dropped == 3 ? 0 : 16);
    const KernelFit& c = o->kernel_table->classes.at("conv");
    EXPECT_EQ(c.features, kernel_class_features().at("conv"));
    ASSERT_EQ(c.coef.size(), 9u);
    if (dropped == 1) {
      const KernelFit& gm = o->kernel_table->classes.at("gemm");
      EXPECT_EQ(gm.features, kernel_class_features().at("gemm"));
      EXPECT_EQ(gm.coef.back(), 0.0);
      EXPECT_DOUBLE_EQ(gm.kernel_seconds({5.0, 6.0, 7.0, 1.0}), gm.kernel_seconds({5.0, 6.0, 7.0}));
    }
    EXPECT_EQ(c.coef.back(), 0.0);
    const std::vector<double> x_before(x.begin(), x.end() - dropped);
    EXPECT_DOUBLE_EQ(c.kernel_seconds(x), c.kernel_seconds(x_before)) << dropped;
  }
  auto shuffled = j;
  shuffled["classes"]["conv"]["features"] = {"log_cols", "log_rows"};
  shuffled["classes"]["conv"]["coef"] = {1.0, 2.0, 3.0};
  expect_refused(shuffled.dump(), "kernel_table.classes.conv.features");
  auto none = j;
  none["classes"]["conv"]["features"] = nlohmann::json::array();
  none["classes"]["conv"]["coef"] = {1.0};
  expect_refused(none.dump(), "kernel_table.classes.conv.features");
  for (auto bad : {nlohmann::json(0), nlohmann::json("16"), nlohmann::json(100)}) {
    auto l = j;
    l["simd_lanes"] = bad;
    expect_refused(l.dump(), "kernel_table.simd_lanes");
  }
}

// Output channels per group are counted in blocks of the table's vector lanes: 24 of 32 on
// AVX-512, all of them on AVX2; a grouped conv's fill is its group's; no lanes, no fill.
// A kxk conv of more than one group is marked grouped; 1x1 convs have no such feature.
TEST(KernelTablePredict, ConvOutputChannelsFillVectorBlocks) {
  GraphBuilder b("m");
  ValueId x = b.input("x", {1, 16, 8, 8});
  ValueId c24 = b.conv("c24", x, 16, 24, 3, ConvSpec{});
  ValueId p32 = b.conv("p32", c24, 24, 32, 1, ConvSpec{});
  ConvSpec g2;
  g2.group = 2;
  b.output(b.conv("g48", p32, 32, 48, 3, g2));
  Graph g = b.finish();
  auto inferred = infer_shapes(g);
  ASSERT_TRUE(inferred);
  const ModelAnalysis m = analyze_graph(g, *inferred, AnalyzeOptions{});
  ASSERT_EQ(m.layers.size(), 3u);
  auto fill = [&](size_t i, int lanes) { return classify_layer(g, m.layers[i], lanes)->x.at(5); };
  EXPECT_NEAR(fill(0, 16), std::log(24.0 / 32), 1e-12);
  EXPECT_EQ(fill(0, 8), 0.0);
  EXPECT_EQ(fill(0, 0), 0.0);
  EXPECT_EQ(fill(1, 16), 0.0);
  EXPECT_EQ(classify_layer(g, m.layers[1], 16)->cls, "pointwise");
  EXPECT_NEAR(fill(2, 16), std::log(24.0 / 32), 1e-12);  // 48 channels in 2 groups of 24
  EXPECT_EQ(classify_layer(g, m.layers[0], 16)->x.at(6), 0.0);
  EXPECT_EQ(classify_layer(g, m.layers[1], 16)->x.size(), 7u);
  EXPECT_EQ(classify_layer(g, m.layers[2], 16)->x.at(6), 1.0);
}

// A conv reading 3 channels is a stem, timed as a conv by tables without the class; a fused
// SiLU sets transcendental (and a conv's per-k share, transcendental x log_k); a GELU fused
// after a matrix product over tokens sets gemm's transcendental; ReLU sets none of them.
TEST(KernelTablePredict, StemsActivationsAndGeluHaveTheirFeatures) {
  GraphBuilder b("m");
  ValueId x = b.input("x", {1, 3, 32, 32});
  ConvSpec s2;
  s2.stride = 2;
  s2.pad = 1;
  ValueId stem = b.conv("stem", x, 3, 32, 3, s2);
  stem = b.add1("Mul", "stem.silu", {stem, b.add1("Sigmoid", "stem.sigmoid", {stem})});
  ConvSpec pad1;
  pad1.pad = 1;
  ValueId c3 = b.conv("c3", stem, 32, 32, 3, pad1);
  c3 = b.add1("Mul", "c3.silu", {c3, b.add1("Sigmoid", "c3.sigmoid", {c3})});
  ValueId pw = b.add1("Relu", "pw.relu", {b.conv("pw", c3, 32, 64, 1, ConvSpec{})});
  ValueId flat = b.add1("Reshape", "tokens", {pw, b.ints("tokens.shape", {1, 64, 256})});
  ValueId t = b.add1("Transpose", "tokens.t", {flat}, {{"perm", std::vector<int64_t>{0, 2, 1}}});
  ValueId y = b.add1("MatMul", "fc1", {t, b.weight("fc1.weight", {64, 128})});
  y = b.add1("Add", "fc1.bias", {y, b.weight("fc1.b", {128})});
  ValueId e = b.add1("Erf", "gelu.erf", {b.add1("Div", "gelu.div", {y, b.reals("sqrt2", {}, {1.4142135})})});
  ValueId h = b.add1("Mul", "gelu.mul", {y, b.add1("Add", "gelu.add", {e, b.reals("one", {}, {1.0})})});
  b.output(b.add1("Mul", "gelu.half", {h, b.reals("half", {}, {0.5})}));
  Graph g = b.finish();
  auto inferred = infer_shapes(g);
  ASSERT_TRUE(inferred);
  const ModelAnalysis m = analyze_graph(g, *inferred, AnalyzeOptions{});
  std::map<std::string, LayerKernel> by_class;
  for (const auto& L : m.layers)
    if (auto k = classify_layer(g, L, 16)) by_class[k->cls] = *k;
  ASSERT_EQ(by_class.count("stem"), 1u);
  ASSERT_EQ(by_class.count("conv"), 1u);
  ASSERT_EQ(by_class.count("pointwise"), 1u);
  ASSERT_EQ(by_class.count("gemm"), 1u);
  const LayerKernel& stem_k = by_class["stem"];
  const std::vector<double> stem_x = {std::log(16.0 * 16), std::log(32.0), std::log(27.0), 1.0};  // k = 3 x 3 x 3
  ASSERT_EQ(stem_k.x.size(), stem_x.size());
  for (size_t i = 0; i < stem_x.size(); ++i) EXPECT_NEAR(stem_k.x[i], stem_x[i], 1e-12) << i;
  EXPECT_EQ(stem_k.fallback_cls, "conv");
  ASSERT_EQ(stem_k.fallback_x.size(), kernel_class_features().at("conv").size());
  EXPECT_NEAR(stem_k.fallback_x[7], std::log(27.0), 1e-12);
  KernelTable older = small_table();  // no stem class: the conv fit times it
  older.classes["conv"] =
      *fit_kernel_class("conv", synthetic({-14.0, 0.9, 0.85, 0.97, 0.2, 0.3, -1.0, 0.35, -0.08}, 2e-6, 8), 2e-6);
  EXPECT_EQ(timed_kernel(older.classes, stem_k).cls, "conv");
  const auto& conv = by_class["conv"].x;
  ASSERT_EQ(conv.size(), kernel_class_features().at("conv").size());
  EXPECT_EQ(conv[4], 1.0);
  EXPECT_NEAR(conv[7], std::log(32.0 * 9), 1e-12);
  const auto& pw_x = by_class["pointwise"].x;
  ASSERT_EQ(pw_x.size(), kernel_class_features().at("pointwise").size());
  EXPECT_EQ(pw_x[4], 0.0);
  EXPECT_EQ(pw_x[6], 0.0);
  const auto& fc = by_class["gemm"].x;
  ASSERT_EQ(fc.size(), kernel_class_features().at("gemm").size());
  EXPECT_EQ(fc[3], 1.0);
}

// A patch embedding (ViT's 16x16 stride 16, ConvNeXt's 4x4 stride 4) reads the image too, but
// its windows do not overlap, unlike the stems the probe samples: it is timed as a conv.
TEST(KernelTablePredict, APatchEmbeddingIsAConvNotAStem) {
  GraphBuilder b("m");
  ValueId x = b.input("x", {1, 3, 64, 64});
  ConvSpec patch;
  patch.stride = 16;
  b.output(b.conv("patch", x, 3, 48, 16, patch));
  ConvSpec overlap;
  overlap.stride = 4;
  b.output(b.conv("alexnet", x, 3, 16, 11, overlap));
  Graph g = b.finish();
  auto inferred = infer_shapes(g);
  ASSERT_TRUE(inferred);
  const ModelAnalysis m = analyze_graph(g, *inferred, AnalyzeOptions{});
  ASSERT_EQ(m.layers.size(), 2u);
  const auto patch_k = classify_layer(g, m.layers[0], 16);
  const auto stem_k = classify_layer(g, m.layers[1], 16);
  ASSERT_TRUE(patch_k && stem_k);
  EXPECT_EQ(patch_k->cls, "conv");
  EXPECT_EQ(patch_k->x.size(), kernel_class_features().at("conv").size());
  EXPECT_NEAR(patch_k->x[2], std::log(3.0 * 16 * 16), 1e-12);  // K
  EXPECT_EQ(stem_k->cls, "stem");
}

// Conv -> Flatten -> Gemm: the conv reads the row-major graph input (a conversion to
// channels-last) and the Gemm reads the conv's channels-last output through a view (a
// conversion to row-major).
TEST(KernelTablePredict, ClassifiesLayersAndCountsConversions) {
  GraphBuilder b("m");
  ValueId x = b.input("x", {2, 16, 8, 8});
  ConvSpec s;
  ValueId c = b.add1("Relu", "c.relu", {b.conv("c", x, 16, 32, 3, s)});
  ValueId dw = b.conv("dw", c, 32, 32, 3, [] {
    ConvSpec d;
    d.group = 32;
    return d;
  }());
  ValueId p = b.add1("GlobalAveragePool", "gap", {dw});
  ValueId f = b.add1("Flatten", "flat", {p});
  ValueId w = b.weight("fc.weight", {10, 32});
  b.output(b.add1("Gemm", "fc", {f, w}, {{"transB", int64_t{1}}}));
  Graph g = b.finish();
  auto inferred = infer_shapes(g);
  ASSERT_TRUE(inferred);
  const ModelAnalysis m = analyze_graph(g, *inferred, AnalyzeOptions{});
  ASSERT_EQ(m.layers.size(), 4u);
  std::vector<std::string> classes;
  for (const auto& L : m.layers) classes.push_back(classify_layer(g, L, 16)->cls);
  EXPECT_EQ(classes, (std::vector<std::string>{"conv", "depthwise", "pool", "gemm_skinny"}));  // 2 rows
  auto conv = layout_conversions(g, m);
  ASSERT_EQ(conv[0].size(), 1u);  // the graph input into channels-last
  EXPECT_FALSE(conv[0][0].to_rowmajor);
  EXPECT_EQ(conv[0][0].bytes, 2 * 16 * 8 * 8 * 4);
  EXPECT_TRUE(conv[1].empty());
  EXPECT_TRUE(conv[2].empty());
  ASSERT_EQ(conv[3].size(), 1u);  // the pooled [2, 32, 1, 1] seen row-major by Flatten
  EXPECT_TRUE(conv[3][0].to_rowmajor);

  // With a table that has gemm and reorder only: the skinny gemm layer is timed from its
  // fallback, the gemm fit, the rest by the roofline, and the prediction says so.
  auto d = parse_device_json(device_text(kernel_table_json(small_table())), "cpu.json");
  ASSERT_TRUE(d) << d.status().message();
  PerfOptions o;
  o.dtype = "fp32";
  auto p1 = predict(g, m, *d, o);
  ASSERT_TRUE(p1) << p1.status().message();
  EXPECT_EQ(p1->layers[3].table_class, "gemm");
  EXPECT_EQ(p1->layers[3].layout_conversions, 1);
  EXPECT_TRUE(p1->layers[0].table_class.empty());
  bool noted = false;
  for (const auto& n : p1->notes) noted |= n.find("kernel table") != std::string::npos;
  EXPECT_TRUE(noted);
  const auto lk = classify_layer(g, m.layers[3], d->kernel_table->simd_lanes);
  EXPECT_NEAR(p1->layers[3].time_s, *table_layer_seconds(*d->kernel_table, d->kernel_table->classes, *lk, conv[3]),
              1e-15);
  const KernelFit& gemm = d->kernel_table->classes.at("gemm");
  EXPECT_NEAR(p1->layers[3].time_s,
              d->kernel_table->dispatch_s + gemm.kernel_seconds(lk->x) + conversions_seconds(*d->kernel_table, conv[3]),
              1e-15);
  o.use_kernel_table = false;
  auto p2 = predict(g, m, *d, o);
  ASSERT_TRUE(p2);
  EXPECT_TRUE(p2->layers[3].table_class.empty());
}

// DenseNet's pre-activation: a BatchNormalization + ReLU that alone reads a channel Concat
// runs inside the concat's pass on the oneDNN backend (ir/patterns.h), so the table
// predicts no time for its layer; the same pair after a convolution keeps its own pass.
// Inception's average pools: a constant Pad of a channels-last activation stays channels-last
// (the backend writes it so), so neither it nor the pool after it converts; a reflect Pad
// reads row-major, and the conv after it converts back.
TEST(KernelTablePredict, AConstantPadKeepsChannelsLast) {
  GraphBuilder b("m");
  ValueId x = b.input("x", {1, 8, 6, 6});
  ValueId c = b.conv("c", x, 8, 8, 1);
  ValueId pad = b.add1("Pad", "pad", {c, b.ints("pads", {0, 0, 1, 1, 0, 0, 1, 1})});
  ValueId pool = b.add1("AveragePool", "pool", {pad},
                        {{"kernel_shape", std::vector<int64_t>{3, 3}}, {"strides", std::vector<int64_t>{1, 1}}});
  ValueId mirror =
      b.add1("Pad", "mirror", {pool, b.ints("pads2", {0, 0, 1, 1, 0, 0, 1, 1})}, {{"mode", std::string("reflect")}});
  b.output(b.conv("c2", mirror, 8, 8, 3));
  Graph g = b.finish();
  auto inferred = infer_shapes(g);
  ASSERT_TRUE(inferred);
  const ModelAnalysis m = analyze_graph(g, *inferred, AnalyzeOptions{});
  ASSERT_EQ(m.layers.size(), 5u);
  auto conv = layout_conversions(g, m);
  EXPECT_EQ(conv[0].size(), 1u);  // the graph input into channels-last
  EXPECT_TRUE(conv[1].empty()) << "the constant pad";
  EXPECT_TRUE(conv[2].empty()) << "the pool";
  ASSERT_EQ(conv[3].size(), 1u) << "the reflect pad";
  EXPECT_TRUE(conv[3][0].to_rowmajor);
  ASSERT_EQ(conv[4].size(), 2u) << "the conv after it, and its output as the graph's";
  EXPECT_FALSE(conv[4][0].to_rowmajor);
  EXPECT_TRUE(conv[4][1].to_rowmajor);
}

TEST(KernelTablePredict, NormReluInsideAConcatTakesNoPassOfItsOwn) {
  GraphBuilder b("dense");
  ValueId x = b.input("x", {1, 16, 8, 8});
  ValueId y = b.conv("c1", x, 16, 16, 3, [] {
    ConvSpec s;
    s.pad = 1;
    return s;
  }());
  ValueId cat = b.add1("Concat", "cat", {x, y}, {{"axis", int64_t{1}}});
  ValueId a = b.add1("Relu", "relu1", {b.batchnorm("norm1", cat, 32)});
  ValueId z = b.conv("c2", a, 32, 16, 1, ConvSpec{});
  ValueId other = b.add1("Relu", "relu2", {b.batchnorm("norm2", b.add1("Relu", "r", {z}), 16)});
  b.output(other);
  Graph g = b.finish();
  auto inferred = infer_shapes(g);
  ASSERT_TRUE(inferred);
  const ModelAnalysis m = analyze_graph(g, *inferred, AnalyzeOptions{});
  KernelTable t = small_table();
  t.classes["eltwise"] = *fit_kernel_class("eltwise", synthetic({-20.0, 0.5, 0.1}, 2e-6, 2), 2e-6);
  auto d = parse_device_json(device_text(kernel_table_json(t)), "cpu.json");
  ASSERT_TRUE(d) << d.status().message();
  PerfOptions o;
  o.dtype = "fp32";
  auto p = predict(g, m, *d, o);
  ASSERT_TRUE(p) << p.status().message();
  int inside = 0, own = 0;
  for (size_t i = 0; i < m.layers.size(); ++i) {
    const std::string anchor = g.node(m.layers[i].nodes.front()).name;
    if (anchor == "norm1") {
      ++inside;
      EXPECT_EQ(p->layers[i].table_class, "in-concat");
      EXPECT_EQ(p->layers[i].time_s, 0.0);
    }
    if (anchor == "norm2") {
      ++own;
      EXPECT_NE(p->layers[i].table_class, "in-concat");
      EXPECT_GT(p->layers[i].time_s, 0.0);
    }
  }
  EXPECT_EQ(inside, 1);
  EXPECT_EQ(own, 1);
}

// A fit extrapolated past its samples may promise a layer faster than the machine's peak;
// the prediction holds such a layer at its FLOPs over the attainable peak and says so.
TEST(KernelTablePredict, NeverFasterThanTheAttainablePeak) {
  KernelTable t = small_table();
  t.classes["gemm"] =
      *fit_kernel_class("gemm", synthetic({-60.0, 1.0, 0.9, 0.95, 0.3}, 2e-6, 4), 2e-6);  // ~dispatch only
  auto p = predict_gemm(256, 4096, t);
  ASSERT_TRUE(p) << p.status().message();
  ASSERT_EQ(p->layers.size(), 1u);
  const auto& L = p->layers[0];
  EXPECT_EQ(L.table_class, "gemm");
  ASSERT_GT(L.peak_used, 0);
  EXPECT_NEAR(L.time_s, static_cast<double>(L.flops) / L.peak_used, 1e-12);
  EXPECT_GT(L.time_s, 100 * t.dispatch_s);
  bool noted = false;
  for (const auto& n : p->notes) noted |= n.find("held at it") != std::string::npos;
  EXPECT_TRUE(noted);
}

// Weights that, with the live activations, exceed the cache that keeps them between runs
// (the threads' private caches, at most the table's cache) stream from memory on every run: a
// layer is then held at least at its weights over the memory bandwidth. The same layer with
// weights that fit takes the warm fit's time.
TEST(KernelTablePredict, WeightsBeyondTheCacheTakeTheirStreamingTime) {
  KernelTable t = small_table();
  t.classes["gemm"] = *fit_kernel_class("gemm", synthetic({-40.0, 1.0, 0.9, 0.95, 0.3}, 2e-6, 4), 2e-6);
  t.cold = t.classes;
  t.cache_bytes = 32.0 * (1 << 20);
  double bw = 0;
  auto big = predict_gemm(1, 4096, t, &bw);  // 64 MiB of weights
  ASSERT_TRUE(big) << big.status().message();
  ASSERT_EQ(big->layers.size(), 1u);
  ASSERT_GT(bw, 0);
  EXPECT_NEAR(big->layers[0].time_s, 4096.0 * 4096 * 4 / bw, 1e-9);
  bool noted = false;
  for (const auto& n : big->notes) noted |= n.find("at least its weights") != std::string::npos;
  EXPECT_TRUE(noted);
  // The device file's cores have 512 KiB of L2 each, the table ran 2 threads: 1 MiB keeps
  // weights between runs, though the table's cache is 32 MiB.
  auto small = predict_gemm(1, 32, t);  // 512 KiB: kept, the fit's time (dispatch-sized)
  ASSERT_TRUE(small) << small.status().message();
  EXPECT_LT(small->layers[0].time_s, 32.0 * 4096 * 4 / bw);
  auto beyond_l2 = predict_gemm(1, 256, t);  // 4 MiB: within the table's cache, beyond the L2s
  ASSERT_TRUE(beyond_l2) << beyond_l2.status().message();
  EXPECT_NEAR(beyond_l2->layers[0].time_s, 256.0 * 4096 * 4 / bw, 1e-9);
}

// One 512 -> 2048 1x1 convolution (4 MiB of weights) over a side x side image, predicted with
// a pointwise fit of 2e-11 s per multiply-add (below the device's peak, which would floor
// it); `l2_bytes` > 0 replaces the device file's L2.
Expected<Prediction> predict_pointwise(int64_t side, double l2_bytes, double* bandwidth) {
  GraphBuilder b("pw");
  b.output(b.conv("pw", b.input("x", {1, 512, side, side}), 512, 2048, 1, ConvSpec{}));
  KernelTable t = small_table();
  KernelFit pw;
  pw.features = kernel_class_features().at("pointwise");
  pw.coef.assign(pw.features.size() + 1, 0.0);
  pw.coef[0] = std::log(2e-11);
  pw.coef[1] = pw.coef[2] = pw.coef[3] = 1;  // rows x cols x k
  pw.samples = 20;
  t.classes["pointwise"] = pw;
  t.classes["reorder"].coef[0] = std::log(1e-16);  // the layout conversions around it: dispatch-sized
  t.cold = t.classes;
  t.cache_bytes = 1 << 30;
  return predict_with_table(b.finish(), t, l2_bytes, bandwidth);
}

// A convolution whose weights do not stay in cache hides their stream behind its work only
// when it reuses each weight enough: with its warm time at most 3x the stream's it takes all
// of the stream on top, at 10x or more none, between them the share log(10 / ratio) /
// log(10 / 3). 5x5, 7x7 and 14x14 images put the ratio near 2.8, 5.4 and 22 here.
TEST(KernelTablePredict, AConvolutionTakesTheShareOfItsWeightsStreamItsReuseDoesNotHide) {
  for (int64_t side : {5, 7, 14}) {
    double bw = 0;
    auto kept = predict_pointwise(side, 1 << 30, &bw);  // a large L2 keeps the weights
    auto streamed = predict_pointwise(side, 0, &bw);    // 2 x 512 KiB of L2 do not
    ASSERT_TRUE(kept) << kept.status().message();
    ASSERT_TRUE(streamed) << streamed.status().message();
    EXPECT_EQ(streamed->layers[0].table_class, "pointwise");
    const double fit = kept->layers[0].time_s, stream = 2048.0 * 512 * 4 / bw, ratio = fit / stream;
    const double share = ratio <= 3 ? 1 : ratio >= 10 ? 0 : std::log(10 / ratio) / std::log(10.0 / 3);
    EXPECT_NEAR(streamed->layers[0].time_s, fit + share * stream, 1e-12) << side;
    if (side == 5) {
      EXPECT_LT(ratio, 3);
    } else if (side == 7) {
      EXPECT_GT(share, 0.1);
      EXPECT_LT(share, 0.9);
    } else if (side == 14) {
      EXPECT_GT(ratio, 10);
    }
  }
}

// Fused attention over [1, 12, 50, 64] Q, K^T and V with a scale and a bias on the scores.
struct AttentionGraph {
  Graph g;
  ModelAnalysis m;
};
AttentionGraph attention_graph() {
  GraphBuilder b("attn");
  ValueId s = b.add1("MatMul", "qk", {b.input("q", {1, 12, 50, 64}), b.input("k_t", {1, 12, 64, 50})});
  s = b.add1("Mul", "scale", {s, b.reals("f", {}, {0.125})});
  s = b.add1("Add", "bias", {s, b.weight("position_bias", {50, 50})});
  ValueId p = b.add1("Softmax", "softmax", {s}, {{"axis", int64_t{-1}}});
  b.output(b.add1("MatMul", "av", {p, b.input("v", {1, 12, 50, 64})}));
  AttentionGraph a{b.finish(), {}};
  auto inferred = infer_shapes(a.g);
  EXPECT_TRUE(inferred);
  if (inferred) a.m = analyze_graph(a.g, *inferred, AnalyzeOptions{});
  return a;
}

// An attention layer is a kernel of its own class, features read off Q.K^T: 12 score
// matrices of 50 x 50, head width 64, two ops on the scores. A table without the class (probed
// before it existed) times it as before: the GEMM view of Q.K^T with the gemm fit.
TEST(KernelTablePredict, AttentionHasItsClassAndOlderTablesTimeItAsAGemm) {
  const AttentionGraph a = attention_graph();
  ASSERT_EQ(a.m.layers.size(), 1u);
  ASSERT_TRUE(a.m.layers[0].attention);
  auto k = classify_layer(a.g, a.m.layers[0], 16);
  ASSERT_TRUE(k);
  EXPECT_EQ(k->cls, "attention");
  const std::vector<double> want = {std::log(12.0), std::log(50.0), std::log(50.0), std::log(64.0), 2.0};
  ASSERT_EQ(k->x.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(k->x[i], want[i], 1e-12) << i;
  EXPECT_EQ(k->fallback_cls, "gemm");
  const std::vector<double> gemm_view = {std::log(12.0 * 50), std::log(50.0), std::log(64.0), 0.0};
  ASSERT_EQ(k->fallback_x.size(), gemm_view.size());
  for (size_t i = 0; i < gemm_view.size(); ++i) EXPECT_NEAR(k->fallback_x[i], gemm_view[i], 1e-12) << i;

  KernelTable older = small_table();
  EXPECT_EQ(timed_kernel(older.classes, *k).cls, "gemm");
  const double t_old = *table_layer_seconds(older, older.classes, *k, {});
  EXPECT_NEAR(t_old, older.dispatch_s + older.classes.at("gemm").kernel_seconds(gemm_view), 1e-15);
  KernelTable t = older;
  t.classes["attention"] = *fit_kernel_class("attention", synthetic({-15.0, 1.0, 1.0, 1.0, 0.8, 0.1}, 2e-6, 5), 2e-6);
  EXPECT_EQ(timed_kernel(t.classes, *k).cls, "attention");
  EXPECT_NEAR(*table_layer_seconds(t, t.classes, *k, {}), t.dispatch_s + t.classes.at("attention").kernel_seconds(want),
              1e-15);
  auto d = parse_device_json(device_text(kernel_table_json(t)), "cpu.json");
  ASSERT_TRUE(d) << d.status().message();
  PerfOptions o;
  o.dtype = "fp32";
  auto p = predict(a.g, a.m, *d, o);
  ASSERT_TRUE(p) << p.status().message();
  EXPECT_EQ(p->layers[0].table_class, "attention");
}

// A matrix product over tokens whose weights do not stay in cache takes their streaming time
// on top of its fit (with a table that has gemm_skinny); a skinny one (a classifier head)
// takes the stream plus its FLOPs at the attainable peak, whatever its fit says, and any GEMM
// with an older table takes the larger of its fit and the stream.
TEST(KernelTablePredict, AGemmOverTokensBeyondTheCacheAddsItsWeightsStream) {
  KernelTable t = small_table();
  t.classes["gemm"] = *fit_kernel_class("gemm", synthetic({-24.0, 1.0, 0.9, 0.95, 0.3}, 2e-6, 4), 2e-6);
  t.cache_bytes = 32.0 * (1 << 20);
  t.cold = t.classes;
  double bw = 0;
  auto older = predict_gemm(256, 4096, t, &bw);  // 64 MiB of weights, 256 rows
  ASSERT_TRUE(older) << older.status().message();
  const double stream = 4096.0 * 4096 * 4 / bw;
  const double fit =
      t.dispatch_s + t.classes.at("gemm").kernel_seconds({std::log(256.0), std::log(4096.0), std::log(4096.0)});
  EXPECT_NEAR(older->layers[0].time_s, std::max(fit, stream), 1e-12);
  t.classes["gemm_skinny"] = *fit_kernel_class("gemm_skinny", synthetic({-30.0, 0.5, 0.9, 1.0}, 2e-6, 3), 2e-6);
  auto tokens = predict_gemm(256, 4096, t);
  ASSERT_TRUE(tokens) << tokens.status().message();
  EXPECT_EQ(tokens->layers[0].table_class, "gemm");
  EXPECT_NEAR(tokens->layers[0].time_s, fit + stream, 1e-12);
  bool noted = false;
  for (const auto& n : tokens->notes) noted |= n.find("1 matrix product(s) over tokens") != std::string::npos;
  EXPECT_TRUE(noted);
  auto head = predict_gemm(8, 4096, t);  // skinny: the stream, then the FLOPs
  ASSERT_TRUE(head) << head.status().message();
  EXPECT_EQ(head->layers[0].table_class, "gemm_skinny");
  const double head_compute = 2.0 * 8 * 4096 * 4096 / head->layers[0].peak_used;
  ASSERT_GT(head_compute, 0.05 * stream);
  EXPECT_NEAR(head->layers[0].t_compute, head_compute, 1e-12);
  EXPECT_NEAR(head->layers[0].time_s, stream + head_compute, 1e-12);
}

// A classifier head held at its weights' stream takes the stream and its FLOPs plus the
// networks' stream latency (interpolated on log batch), not a level; a table levelled before the latency existed
// gives it gemm_skinny's level, as it did; one being levelled keys it for the latency's fit.
TEST(KernelTablePredict, AHeadHeldAtItsStreamTakesTheStreamLatency) {
  KernelTable t = small_table();
  t.cache_bytes = 32.0 * (1 << 20);
  t.cold = t.classes;
  t.classes["gemm_skinny"] = *fit_kernel_class("gemm_skinny", synthetic({-30.0, 0.5, 0.9, 1.0}, 2e-6, 3), 2e-6);
  double bw = 0;
  auto bare = predict_gemm(1, 4096, t, &bw);
  ASSERT_TRUE(bare) << bare.status().message();
  const double stream = 4096.0 * 4096 * 4 / bw;
  const double compute = bare->layers[0].t_compute;
  ASSERT_GT(compute, 0);
  ASSERT_NEAR(bare->layers[0].time_s, stream + compute, 1e-12);  // held at it, its FLOPs after
  EXPECT_EQ(bare->layers[0].level_class, kStreamLevelClass);
  t.network_levels = {{1, 1.1, 7, 0, {{"gemm_skinny", 2.0}}}, {8, 1.0, 7, 0, {{"gemm_skinny", 2.5}}}};
  auto older = predict_gemm(1, 4096, t);
  ASSERT_TRUE(older);
  EXPECT_EQ(older->layers[0].level_class, "gemm_skinny");
  EXPECT_NEAR(older->layers[0].time_s, 2.0 * (stream + compute), 1e-12);
  t.network_levels[0].stream_latency_s = 50e-6;
  t.network_levels[1].stream_latency_s = 80e-6;
  auto held = predict_gemm(1, 4096, t);
  ASSERT_TRUE(held) << held.status().message();
  EXPECT_EQ(held->layers[0].level_class, kStreamLevelClass);
  EXPECT_EQ(held->layers[0].level, 1.0);
  EXPECT_NEAR(held->layers[0].time_s, stream + compute + 50e-6, 1e-12);
  bool noted = false;
  for (const auto& n : held->notes) noted |= n.find("plus 50.0 us") != std::string::npos;
  EXPECT_TRUE(noted);
  EXPECT_NEAR(*stream_latency_at(t, 2), 50e-6 + 30e-6 / 3, 1e-15);  // a third of the way on log batch
  EXPECT_DOUBLE_EQ(*stream_latency_at(t, 32), 80e-6);
  t.network_levels[1].stream_latency_s.reset();
  EXPECT_DOUBLE_EQ(*stream_latency_at(t, 8), 50e-6);  // the one batch that has it
  EXPECT_FALSE(stream_latency_at(small_table(), 1));
}

// A pool's features say whether it is a max pool: oneDNN's max pools took ~2x an average
// pool's time over the same window here (docs/perf-model.md, the pool class).
TEST(KernelClass, APoolSaysWhetherItTakesTheMax) {
  for (const char* op : {"MaxPool", "AveragePool"}) {
    GraphBuilder b("p");
    ValueId x = b.input("x", {1, 64, 56, 56});
    b.output(b.add1(op, "pool", {x},
                    {{"kernel_shape", std::vector<int64_t>{3, 3}},
                     {"strides", std::vector<int64_t>{1, 1}},
                     {"pads", std::vector<int64_t>{1, 1, 1, 1}}}));
    Graph g = b.finish();
    auto inferred = infer_shapes(g);
    ASSERT_TRUE(inferred);
    const ModelAnalysis m = analyze_graph(g, *inferred, AnalyzeOptions{});
    ASSERT_EQ(m.layers.size(), 1u);
    const auto k = classify_layer(g, m.layers[0], 8);
    ASSERT_TRUE(k);
    EXPECT_EQ(k->cls, "pool");
    ASSERT_EQ(k->x.size(), kernel_class_features().at("pool").size());
    EXPECT_EQ(k->x.back(), std::string(op) == "MaxPool" ? 1.0 : 0.0) << op;
    EXPECT_DOUBLE_EQ(k->x[0], k->x[1]);  // stride 1: as many outputs as inputs
  }
}

}  // namespace
}  // namespace rooflens
