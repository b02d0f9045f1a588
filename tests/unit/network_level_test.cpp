// The kernel table's in-network level: it round-trips through a device file, is read at a
// batch and scales the table's times; the generated networks build, run through the fusion
// passes and land every costed layer in a kernel class, covering the classes CNNs use; the
// level is measured on this machine's oneDNN and bad requests are refused.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "kernel_table_support.h"
#include "rooflens/analysis/network_level.h"
#include "rooflens/calibration/level_networks.h"
#include "rooflens/cost/cost.h"
#include "rooflens/exec/backend.h"
#include "rooflens/passes/infer_shapes.h"
#include "rooflens/perf/kernel_predict.h"
#include "rooflens/report/predict_report.h"

namespace rooflens {
namespace {

// The in-network levels round-trip; a level that is not positive, batches out of order and
// a level list that is not an array are refused naming the field.
TEST(KernelTableFile, TheNetworkLevelsRoundTripAndBadOnesAreRefused) {
  KernelTable t = small_table();
  t.network_levels = {{1, 1.07, 7, 0.2, {{"depthwise", 1.15}, {"pointwise", 1.01}, {"pointwise@14", 1.2}}},
                      {8, 1.02, 7, 0.15, {{"conv_grouped@16", 1.4}}}};
  auto d = parse_device_json(device_text(kernel_table_json(t)), "cpu.json");
  ASSERT_TRUE(d) << d.status().message();
  EXPECT_EQ(d->kernel_table->network_levels, t.network_levels);
  auto good = nlohmann::json::parse(kernel_table_json(t));
  auto with = [&](const nlohmann::json& levels) {
    auto j = good;
    j["network_levels"] = levels;
    return j.dump();
  };
  expect_refused(with(nlohmann::json::parse(R"([{"batch": 1, "level": 0}])")), "network_levels[0].level");
  expect_refused(with(nlohmann::json::parse(R"([{"batch": 8, "level": 1.1}, {"batch": 1, "level": 1.0}])")),
                 "network_levels[1].batch");
  expect_refused(with(nlohmann::json::parse(R"({"batch": 1})")), "network_levels");
  expect_refused(with(nlohmann::json::parse(R"([{"batch": 1, "level": 1, "classes": {"conv": -1}}])")),
                 "network_levels[0].classes.conv");
  // A key that is not a kernel class or conv_grouped, or whose position is not a positive integer.
  for (const char* key : {"winograd", "winograd@7", "pointwise@", "pointwise@0", "pointwise@7x7", "pointwise@-7"})
    expect_refused(
        with(nlohmann::json::parse(std::string(R"([{"batch": 1, "level": 1, "classes": {")") + key + R"(": 1.1}}])")),
        std::string("network_levels[0].classes.") + key);
  const auto copies = with(nlohmann::json::parse(R"([{"batch": 1, "level": 1, "classes": {"move_copy": 0.9}}])"));
  EXPECT_TRUE(parse_kernel_table(copies, "t.json")) << "move_copy is a level class";
  for (const char* own : {"pool_global", "eltwise_norm"}) {
    const auto t =
        with(nlohmann::json::parse(fmt::format(R"([{{"batch": 8, "level": 1, "classes": {{"{}": 0.7}}}}])", own)));
    EXPECT_TRUE(parse_kernel_table(t, "t.json")) << own << " is a level class";
  }
}

// Between measured batches the level is interpolated on log batch; outside them the nearest
// one holds; a table without levels has level 1.
TEST(KernelTableFile, TheNetworkLevelAtABatch) {
  KernelTable t = small_table();
  EXPECT_EQ(network_level_at(t, 4), 1.0);
  t.network_levels = {{1, 1.10, 7, 0, {}}, {8, 1.04, 7, 0, {}}};
  EXPECT_DOUBLE_EQ(network_level_at(t, 1), 1.10);
  EXPECT_DOUBLE_EQ(network_level_at(t, 8), 1.04);
  EXPECT_DOUBLE_EQ(network_level_at(t, 256), 1.04);
  EXPECT_NEAR(network_level_at(t, 2), 1.10 - 0.06 / 3, 1e-12);  // log 2 / log 8 of the way
  // A class's own level where a batch has one, the batch's overall level where it has not.
  t.network_levels[0].classes["depthwise"] = 1.30;
  EXPECT_DOUBLE_EQ(network_level_at(t, 1, "depthwise"), 1.30);
  EXPECT_DOUBLE_EQ(network_level_at(t, 1, "pointwise"), 1.10);
  EXPECT_DOUBLE_EQ(network_level_at(t, 8, "depthwise"), 1.04);
  EXPECT_NEAR(network_level_at(t, 2, "depthwise"), 1.30 - 0.26 / 3, 1e-12);
}

// A class with levels at positions: interpolated on log position between them, the nearest
// one's outside them, in place of the class's own; a class without any takes its own level
// at every position; grouped convolutions never take their class's plain level.
TEST(KernelTableFile, TheNetworkLevelAtAPosition) {
  KernelTable t = small_table();
  t.network_levels = {{1,
                       1.10,
                       8,
                       0,
                       {{"pointwise", 1.05},
                        {"pointwise@7", 1.30},
                        {"pointwise@28", 1.00},
                        {"conv", 0.95},
                        {"conv_grouped", 1.6},
                        {"conv_grouped@16", 1.5}}}};
  EXPECT_DOUBLE_EQ(network_level_at(t, 1, "pointwise", 7), 1.30);
  EXPECT_DOUBLE_EQ(network_level_at(t, 1, "pointwise", 28), 1.00);
  EXPECT_NEAR(network_level_at(t, 1, "pointwise", 14), 1.15, 1e-12);  // halfway on log side
  EXPECT_DOUBLE_EQ(network_level_at(t, 1, "pointwise", 1), 1.30);
  EXPECT_DOUBLE_EQ(network_level_at(t, 1, "pointwise", 112), 1.00);
  EXPECT_DOUBLE_EQ(network_level_at(t, 1, "pointwise"), 1.05);  // no position: the class's own
  EXPECT_DOUBLE_EQ(network_level_at(t, 1, "conv", 14), 0.95);
  EXPECT_DOUBLE_EQ(network_level_at(t, 1, "conv_grouped", 96), 1.5);
  t.network_levels[0].classes.erase("conv_grouped@16");
  EXPECT_DOUBLE_EQ(network_level_at(t, 1, "conv_grouped", 96), 1.10);
  EXPECT_DOUBLE_EQ(network_level_at(t, 1, "pointwise@", 7), 1.10);  // not a class: the overall level
  // A copy never takes the concatenations' level: its own, else the overall one.
  t.network_levels[0].classes["move"] = 1.4;
  EXPECT_DOUBLE_EQ(network_level_at(t, 1, "move_copy"), 1.10);
  t.network_levels[0].classes["move_copy"] = 0.8;
  EXPECT_DOUBLE_EQ(network_level_at(t, 1, "move_copy"), 0.8);
  EXPECT_DOUBLE_EQ(network_level_at(t, 1, "move"), 1.4);
}

// The stream latency round-trips with the levels, a negative one is refused, and the level of
// a batch takes the median of the heads' excess over the rounds it uses (never below 0).
TEST(KernelTableFile, TheStreamLatencyRoundTripsAndIsTheHeadsMedianExcess) {
  KernelTable t = small_table();
  t.network_levels = {{1, 1.07, 7, 0.2, {}, 48e-6, 9}};
  auto d = parse_device_json(device_text(kernel_table_json(t)), "cpu.json");
  ASSERT_TRUE(d) << d.status().message();
  ASSERT_TRUE(d->kernel_table->network_levels[0].stream_latency_s);
  EXPECT_DOUBLE_EQ(*d->kernel_table->network_levels[0].stream_latency_s, 48e-6);
  EXPECT_EQ(d->kernel_table->network_levels[0].stream_layers, 9);
  auto j = nlohmann::json::parse(kernel_table_json(t));
  j["network_levels"][0]["stream_latency_s"] = -1e-6;
  expect_refused(j.dump(), "network_levels[0].stream_latency_s");
  std::vector<NetworkLevelTiming> timings(3);
  for (int i = 0; i < 3; ++i) {
    timings[i].network = "n" + std::to_string(i);
    timings[i].measured_s = timings[i].predicted_s = 1e-3;
  }
  timings[0].stream_excess_s = {40e-6};
  timings[1].stream_excess_s = {60e-6, 55e-6};
  EXPECT_DOUBLE_EQ(*network_level_of(timings, 1).stream_latency_s, 55e-6);
  EXPECT_EQ(network_level_of(timings, 1).stream_layers, 3);
  EXPECT_EQ(network_level_of(timings, 1).classes.count(kStreamLevelClass), 0u);
  timings[2].stream_excess_s = {-1e-3, -1e-3, -1e-3};
  EXPECT_DOUBLE_EQ(*network_level_of(timings, 1).stream_latency_s, 0.0);
  timings.pop_back();
  timings[1].stream_excess_s.pop_back();
  EXPECT_FALSE(network_level_of(timings, 1).stream_latency_s);  // 2 layers: fewer than kMinLevelLayers
}

// The table's in-network level multiplies each layer the table times, and a note says so.
TEST(KernelTablePredict, TheInNetworkLevelScalesTheTablesTimes) {
  KernelTable t = small_table();
  auto plain = predict_gemm(64, 1024, t);
  t.network_levels = {{1, 1.2, 7, 0.1, {}}};
  auto leveled = predict_gemm(64, 1024, t);
  ASSERT_TRUE(plain && leveled);
  ASSERT_EQ(plain->layers.size(), 1u);
  ASSERT_EQ(plain->layers[0].table_class, "gemm");
  EXPECT_NEAR(leveled->layers[0].time_s / plain->layers[0].time_s, 1.2, 1e-9);
  bool noted = false;
  for (const auto& n : leveled->notes) noted |= n.find("x 1.200") != std::string::npos;
  EXPECT_TRUE(noted);
  for (const auto& n : plain->notes) EXPECT_EQ(n.find("inside whole networks"), std::string::npos) << n;
  // The gemm class's own level replaces the overall one for it.
  t.network_levels[0].classes["gemm"] = 1.5;
  auto own = predict_gemm(64, 1024, t);
  ASSERT_TRUE(own);
  EXPECT_EQ(own->layers[0].level_class, "gemm");
  EXPECT_EQ(own->layers[0].level, 1.5);
  EXPECT_NEAR(own->layers[0].time_s / plain->layers[0].time_s, 1.5, 1e-9);
  // The layer's JSON names the class that timed it and the level it took; roofline-timed
  // layers have no "kernel_table".
  const auto j = report::predict_json(*own);
  ASSERT_EQ(j["layers"].size(), 1u);
  EXPECT_EQ(j["layers"][0]["kernel_table"]["class"], "gemm");
  EXPECT_EQ(j["layers"][0]["kernel_table"]["level_class"], "gemm");
  EXPECT_EQ(j["layers"][0]["kernel_table"]["level"], 1.5);
  KernelTable no_gemm = small_table();
  no_gemm.classes.erase("gemm");
  auto roofline = predict_gemm(64, 1024, no_gemm);
  ASSERT_TRUE(roofline);
  EXPECT_FALSE(report::predict_json(*roofline)["layers"][0].contains("kernel_table"));
}

TEST(LevelNetworks, EveryNetworkBuildsAndItsLayersHaveKernelClasses) {
  std::set<std::string> classes, names;
  std::set<double> grouped_widths;
  std::map<std::string, std::set<double>> sides;
  std::map<std::string, std::set<std::string>> split_ops;  // level class -> op types (first node)
  for (LevelNetwork& n : level_networks(8)) {
    names.insert(n.name);
    auto inferred = infer_shapes(n.graph);
    ASSERT_TRUE(inferred) << n.name << ": " << inferred.status().message();
    const ModelAnalysis m = analyze_graph(n.graph, *inferred, AnalyzeOptions{});
    EXPECT_TRUE(m.unknown_nodes.empty()) << n.name;
    EXPECT_EQ(m.batch, 8) << n.name;
    for (const auto& r : m.layers) {
      if (r.status != LayerStatus::kOk || r.cost.flops + r.cost.bytes_in + r.cost.bytes_out == 0) continue;
      auto k = classify_layer(n.graph, r, 16);
      ASSERT_TRUE(k) << n.name << ": " << r.name << " (" << r.op << ")";
      classes.insert(k->cls);
      const LevelKey key = level_key(n.graph, r, *k);
      if (k->cls == "conv" && k->x.size() > 6 && k->x[6] == 1) {
        grouped_widths.insert(key.position);
        EXPECT_EQ(key.cls, "conv_grouped") << r.name;
      } else if (k->cls == "move" || k->cls == "pool" || k->cls == "eltwise") {
        split_ops[key.cls].insert(r.op.substr(0, r.op.find('+')));
        EXPECT_EQ(key.position, 0) << r.name;
      } else {
        EXPECT_EQ(key.cls, k->cls) << r.name;
        if (k->cls == "conv" || k->cls == "pointwise")
          sides[k->cls].insert(key.position);
        else
          EXPECT_EQ(key.position, 0) << r.name;
      }
    }
  }
  EXPECT_EQ(names.size(), 11u);
  EXPECT_EQ(grouped_widths, (std::set<double>{16, 96}));
  // The positions are the outputs' sides: the networks have the 224x224 input's 224 (VGG's
  // first stage) to 7 (and 1, the squeeze-excite's 1x1s).
  EXPECT_EQ(sides["conv"], (std::set<double>{7, 14, 28, 56, 112, 224}));
  EXPECT_EQ(sides["pointwise"], (std::set<double>{1, 7, 14, 28, 56, 112}));
  for (const char* c :
       {"stem", "conv", "pointwise", "depthwise", "gemm_skinny", "gemm", "attention", "pool", "eltwise", "move"})
    EXPECT_TRUE(classes.count(c)) << "no " << c << " layer";
  // Concatenations keep the move class's level; the shuffle network's splits and transposes
  // are move_copy, measured on their own.
  EXPECT_EQ(split_ops["move"], (std::set<std::string>{"Concat"}));
  EXPECT_EQ(split_ops["move_copy"], (std::set<std::string>{"Split", "Transpose"}));
  // Global pooling (squeeze-excite's squeeze, the heads) is pool_global; windowed pools keep
  // the pool class. Standalone batch normalisations are eltwise_norm; the multiplies, the
  // transformer's residual adds and layer norms stay eltwise.
  EXPECT_EQ(split_ops["pool_global"], (std::set<std::string>{"GlobalAveragePool"}));
  EXPECT_EQ(split_ops["pool"], (std::set<std::string>{"AveragePool", "MaxPool"}));
  EXPECT_EQ(split_ops["eltwise_norm"], (std::set<std::string>{"BatchNormalization"}));
  EXPECT_EQ(split_ops["eltwise"], (std::set<std::string>{"Add", "LayerNormalization", "Mul"}));
}

DeviceSpec device_with_small_table() {
  auto d = load_device_file(std::string(ROOFLENS_SOURCE_DIR) + "/data/devices/epyc-milan-2c.json");
  EXPECT_TRUE(d) << d.status().message();
  KernelTable t;
  t.backend = "oneDNN test";
  t.threads = 1;
  t.dispatch_s = 2e-6;
  KernelFit f;  // every 1x1 convolution 50 us: the rest is timed by the roofline
  f.features = kernel_class_features().at("pointwise");
  f.coef.assign(f.features.size() + 1, 0.0);
  f.coef[0] = std::log(50e-6);
  t.classes["pointwise"] = f;
  d->kernel_table = t;
  return *d;
}

// One network at batch 1 on oneDNN: one level, the median of one ratio, which is the
// network's measured over predicted time; the table's own levels are not applied to it.
TEST(NetworkLevel, MeasuredOnOneDnn) {
  auto backend = make_onednn_backend();
  if (!backend) GTEST_SKIP() << "built without oneDNN";
  DeviceSpec d = device_with_small_table();
  d.kernel_table->network_levels = {{1, 5.0, 7, 0, {}}};  // must not leak into the prediction
  NetworkLevelOptions o;
  o.batches = {1};
  o.threads = 1;
  o.max_seconds = 0.05;
  o.networks = {"inverted"};
  std::vector<std::string> lines;
  o.progress = [&](const std::string& line) { lines.push_back(line); };
  auto r = measure_network_levels(*backend, d, o);
  ASSERT_TRUE(r) << r.status().message();
  ASSERT_EQ(r->levels.size(), 1u);
  // One line for the round, one for the network, one for the batch's levels: the class's,
  // then its positions in ascending order (7 before 14).
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_NE(lines[0].find("network level: round 1, 1 networks timed"), std::string::npos) << lines[0];
  lines.erase(lines.begin());
  EXPECT_NE(lines[0].find("network level: inverted at batch 1"), std::string::npos) << lines[0];
  std::vector<int> positions;
  for (size_t at = lines[1].find("pointwise@"); at != std::string::npos; at = lines[1].find("pointwise@", at + 1))
    positions.push_back(std::stoi(lines[1].substr(at + 10)));
  EXPECT_FALSE(positions.empty()) << lines[1];
  EXPECT_TRUE(std::is_sorted(positions.begin(), positions.end())) << lines[1];
  EXPECT_LT(lines[1].find("pointwise "), lines[1].find("pointwise@")) << lines[1];
  ASSERT_EQ(r->timings.size(), 1u);
  const auto& t = r->timings[0];
  EXPECT_EQ(t.network, "inverted");
  EXPECT_GT(t.measured_s, 0);
  EXPECT_GT(t.predicted_s, 0);
  EXPECT_EQ(r->levels[0].batch, 1);
  EXPECT_EQ(r->levels[0].networks, 1);
  EXPECT_DOUBLE_EQ(r->levels[0].level, t.measured_s / t.predicted_s);
  EXPECT_EQ(r->levels[0].spread, 0);
  // The table timed the 1x1 convolutions only: their class has its own level, the sum of
  // their measured times (the profile scaled to the end-to-end time) over their predicted,
  // and so has each output side with enough of them ("pointwise@N"); the sides' sums add up
  // to the class's.
  ASSERT_TRUE(t.classes.count("pointwise"));
  const LevelClassTime& pw = t.classes.at("pointwise");
  EXPECT_GE(pw.layers, kMinLevelLayers);
  EXPECT_LE(pw.measured_s, t.measured_s * (1 + 1e-9));
  LevelClassTime sides;
  for (const auto& [key, c] : t.classes) {
    if (key == "pointwise") continue;
    EXPECT_EQ(key.rfind("pointwise@", 0), 0u) << key;
    sides.measured_s += c.measured_s;
    sides.predicted_s += c.predicted_s;
    sides.layers += c.layers;
    if (c.layers >= kMinLevelLayers)
      EXPECT_DOUBLE_EQ(r->levels[0].classes.at(key), c.measured_s / c.predicted_s);
    else
      EXPECT_FALSE(r->levels[0].classes.count(key)) << key;
  }
  EXPECT_EQ(sides.layers, pw.layers);
  EXPECT_NEAR(sides.measured_s, pw.measured_s, 1e-9 * pw.measured_s);
  EXPECT_NEAR(sides.predicted_s, pw.predicted_s, 1e-9 * pw.predicted_s);
  EXPECT_DOUBLE_EQ(r->levels[0].classes.at("pointwise"), pw.measured_s / pw.predicted_s);
}

// Rounds: every network timed once per round, one timing per round, and a network's ratio
// is the median of its rounds'; levels() wants a table and a round.
TEST(NetworkLevel, RoundsAreTimedApartAndTheLevelIsTheirMedian) {
  auto backend = make_onednn_backend();
  if (!backend) GTEST_SKIP() << "built without oneDNN";
  NetworkLevelOptions o;
  o.batches = {1};
  o.threads = 1;
  o.max_seconds = 0.02;
  o.networks = {"inverted"};
  auto runs = LevelNetworkRuns::make(o);
  ASSERT_TRUE(runs) << runs.status().message();
  DeviceSpec d = device_with_small_table();
  auto none = runs->levels(d);
  ASSERT_FALSE(none);
  EXPECT_NE(none.status().message().find("no timed round"), std::string::npos);
  for (int r = 0; r < 3; ++r) ASSERT_TRUE(runs->measure_round(*backend));
  d.kernel_table.reset();
  EXPECT_FALSE(runs->levels(d));
  d = device_with_small_table();
  auto l = runs->levels(d);
  ASSERT_TRUE(l) << l.status().message();
  ASSERT_EQ(l->timings.size(), 3u);
  std::vector<double> ratios, counted;
  for (int r = 0; r < 3; ++r) {
    EXPECT_EQ(l->timings[r].round, r);
    ratios.push_back(l->timings[r].measured_s / l->timings[r].predicted_s);
    if (l->timings[r].counted) counted.push_back(ratios.back());
  }
  const std::vector<double>& used = counted.empty() ? ratios : counted;
  std::vector<double> sorted = used;
  std::sort(sorted.begin(), sorted.end());
  const double median =
      sorted.size() % 2 ? sorted[sorted.size() / 2] : 0.5 * (sorted[sorted.size() / 2 - 1] + sorted[sorted.size() / 2]);
  ASSERT_EQ(l->levels.size(), 1u);
  EXPECT_EQ(l->levels[0].networks, 1);
  EXPECT_DOUBLE_EQ(l->levels[0].level, median);
}

// One timing of `network` at `batch`: measured/predicted = ratio, and its layers of class `cls`
// (kMinLevelLayers of them) measured `cls_ratio` times their prediction of 1 s.
NetworkLevelTiming level_timing(const std::string& network, int64_t batch, double ratio, bool counted,
                                const std::string& cls, double cls_ratio) {
  NetworkLevelTiming t;
  t.network = network;
  t.batch = batch;
  t.measured_s = ratio;
  t.predicted_s = 1;
  t.counted = counted;
  t.classes[cls] = {cls_ratio, 1, kMinLevelLayers};
  return t;
}

// A network with no round in the table's dispatch state counts with all its rounds (its
// classes too); one with a round in it leaves its other rounds out; other batches stay out.
TEST(NetworkLevel, ANetworkReadOnlyInAnotherDispatchStateCountsWithAllItsRounds) {
  const std::vector<NetworkLevelTiming> timings = {
      level_timing("a", 1, 1.0, true, "conv", 1.0),    level_timing("a", 1, 1.1, true, "conv", 1.0),
      level_timing("a", 1, 3.0, false, "conv", 9.0),   level_timing("a", 1, 1.2, true, "conv", 1.0),
      level_timing("b", 1, 0.8, false, "conv@7", 0.8), level_timing("b", 1, 0.9, false, "conv@7", 0.8),
      level_timing("b", 1, 0.7, false, "conv@7", 0.8), level_timing("c", 1, 1.3, true, "pointwise", 1.3),
      level_timing("b", 8, 5.0, true, "conv@7", 5.0),
  };
  const NetworkLevel l = network_level_of(timings, 1);
  EXPECT_EQ(l.batch, 1);
  EXPECT_EQ(l.networks, 3);
  EXPECT_DOUBLE_EQ(l.level, 1.1);  // the median of a 1.1, b 0.8, c 1.3
  EXPECT_NEAR(l.spread, (1.3 - 0.8) / 1.1, 1e-12);
  ASSERT_TRUE(l.classes.count("conv@7"));
  EXPECT_NEAR(l.classes.at("conv@7"), 0.8, 1e-12);
  EXPECT_NEAR(l.classes.at("conv"), 1.0, 1e-12);  // a's round in the other state left out
  EXPECT_NEAR(l.classes.at("pointwise"), 1.3, 1e-12);
  EXPECT_EQ(network_level_of(timings, 4).networks, 0);
}

// The probe with levels: the networks are timed after each round of shapes (their round lines
// come between the probe's), and the fitted table carries their level; an error from between
// the rounds stops the probe.
TEST(NetworkLevel, ProbeTimesTheNetworksBetweenItsRounds) {
  auto backend = make_onednn_backend();
  if (!backend) GTEST_SKIP() << "built without oneDNN";
  KernelProbeOptions ko;
  ko.threads = 1;
  ko.quick = true;
  ko.classes = {"eltwise"};
  ko.rounds = 2;
  ko.flush_bytes = 0;
  std::vector<std::string> lines;
  ko.progress = [&](const std::string& line) { lines.push_back(line); };
  NetworkLevelOptions lo;
  lo.batches = {1};
  lo.threads = 1;
  lo.max_seconds = 0.02;
  lo.networks = {"inverted"};
  lo.progress = ko.progress;
  auto r = probe_kernels_with_levels(*backend, device_with_small_table(), ko, lo, "oneDNN", "test host");
  ASSERT_TRUE(r) << r.status().message();
  ASSERT_EQ(r->table.network_levels.size(), 1u);
  EXPECT_EQ(r->table.network_levels[0].batch, 1);
  EXPECT_EQ(r->table.network_levels[0].networks, 1);
  EXPECT_GT(r->table.network_levels[0].level, 0);
  std::vector<std::string> rounds;
  for (const auto& line : lines)
    if (line.find("round") != std::string::npos && line.find("round") < 25) rounds.push_back(line.substr(0, 25));
  ASSERT_EQ(rounds.size(), 4u);
  EXPECT_EQ(rounds[0].rfind("kernels: round 1/2", 0), 0u) << rounds[0];
  EXPECT_EQ(rounds[1].rfind("network level: round 1", 0), 0u) << rounds[1];
  EXPECT_EQ(rounds[2].rfind("kernels: round 2/2", 0), 0u) << rounds[2];
  EXPECT_EQ(rounds[3].rfind("network level: round 2", 0), 0u) << rounds[3];
  ko.after_round = [](int round) { return round == 1 ? Status::internal("stopped at round 1") : Status::ok(); };
  ko.progress = nullptr;
  auto stopped = probe_kernels(*backend, ko, "oneDNN", "test host");
  ASSERT_FALSE(stopped);
  EXPECT_NE(stopped.status().message().find("stopped at round 1"), std::string::npos);
}

TEST(NetworkLevel, RefusesUnknownNetworksBatchesOutOfOrderAndDevicesWithoutATable) {
  auto backend = make_onednn_backend();
  if (!backend) GTEST_SKIP() << "built without oneDNN";
  DeviceSpec d = device_with_small_table();
  NetworkLevelOptions o;
  o.networks = {"nosuch"};
  auto unknown = measure_network_levels(*backend, d, o);
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.status().message().find("no generated network 'nosuch'"), std::string::npos);
  o.networks = {};
  o.batches = {8, 1};
  EXPECT_FALSE(measure_network_levels(*backend, d, o));
  d.kernel_table.reset();
  o.batches = {1};
  auto none = measure_network_levels(*backend, d, o);
  ASSERT_FALSE(none);
  EXPECT_NE(none.status().message().find("kernel table"), std::string::npos);
}

}  // namespace
}  // namespace rooflens
