// Predicting NATS-Bench size-space networks on a device (nas/sss_study.h): per-network
// counts against the benchmark, utilization from throughput, thread-count independence,
// the throughput-utilization frontier, and bad input.
#include "rooflens/nas/sss_study.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <vector>

namespace rooflens {
namespace {

const std::string kDevices = std::string(ROOFLENS_SOURCE_DIR) + "/data/devices";

DeviceSpec v100() {
  auto db = load_device_dir(kDevices);
  EXPECT_TRUE(db.has_value());
  auto d = resolve_device("v100", *db);
  EXPECT_TRUE(d.has_value());
  return *d;
}

PerfOptions fp16() {
  PerfOptions o;
  o.dtype = "fp16";
  return o;
}

// Named networks from shared/reference/nats-sss.md, and a spread of widths.
const std::vector<int64_t> kSample = {0, 1, 11, 284, 671, 4681, 9999, 20000, 30719, 32767};

TEST(SssStudy, PointsCarryCountsAndUtilizationFromThroughput) {
  const DeviceSpec d = v100();
  auto pts = predict_sss_indices(kSample, sss_net_input(SssDataset::kCifar10), d, fp16(), SssBatch::fixed(256), 2);
  ASSERT_TRUE(pts.has_value()) << pts.status().message();
  ASSERT_EQ(pts->size(), kSample.size());
  const double peak = d.best_peak("fp16")->flops;
  for (size_t i = 0; i < kSample.size(); ++i) {
    const SssPoint& p = (*pts)[i];
    SCOPED_TRACE(p.arch);
    EXPECT_EQ(p.index, kSample[i]);
    EXPECT_EQ(p.arch, sss_arch_string(kSample[i]));
    EXPECT_EQ(p.batch, 256);
    EXPECT_EQ(p.flop_benchmark, p.macs + 10);
    EXPECT_GE(p.flops, 2 * p.macs);
    EXPECT_GT(p.throughput, 0);
    EXPECT_GT(p.ai, 0);
    EXPECT_NEAR(p.utilization, p.throughput * static_cast<double>(p.flops) / peak, 1e-9 * p.utilization + 1e-12);
  }
  // The benchmark's stored CIFAR-10 counts (millions, 6 decimals).
  EXPECT_EQ((*pts)[0].flop_benchmark, 4481114);
  EXPECT_EQ((*pts)[0].params, 11714);
  EXPECT_EQ((*pts)[2].flop_benchmark, 6840650);
  EXPECT_EQ((*pts)[3].flop_benchmark, 21827994);
  EXPECT_EQ((*pts)[3].params, 144834);
}

TEST(SssStudy, SameAnswerOnOneThreadOrMany) {
  const DeviceSpec d = v100();
  auto one = predict_sss_indices(kSample, sss_net_input(SssDataset::kCifar100), d, fp16(), SssBatch::fixed(64), 1);
  auto many = predict_sss_indices(kSample, sss_net_input(SssDataset::kCifar100), d, fp16(), SssBatch::fixed(64), 3);
  ASSERT_TRUE(one.has_value() && many.has_value());
  for (size_t i = 0; i < kSample.size(); ++i) {
    EXPECT_EQ((*one)[i].arch, (*many)[i].arch);
    EXPECT_DOUBLE_EQ((*one)[i].throughput, (*many)[i].throughput);
    EXPECT_EQ((*one)[i].flop_benchmark, (*one)[i].macs + 100);
  }
}

TEST(SssStudy, MaxBatchFitsAndMatchesTheSingleNetworkPath) {
  const DeviceSpec d = v100();
  auto pts =
      predict_sss_indices({0, 32767}, sss_net_input(SssDataset::kImageNet16_120), d, fp16(), SssBatch::largest(), 2);
  ASSERT_TRUE(pts.has_value()) << pts.status().message();
  for (const SssPoint& p : *pts) {
    Prediction detail;
    auto one = predict_sss_network(sss_widths(p.index), sss_net_input(SssDataset::kImageNet16_120), d, fp16(),
                                   SssBatch::largest(), &detail);
    ASSERT_TRUE(one.has_value());
    EXPECT_EQ(one->batch, p.batch);
    EXPECT_GT(p.batch, 256);
    EXPECT_LE(detail.memory_bytes, d.mem_bytes - d.reserved_bytes);
    EXPECT_DOUBLE_EQ(detail.throughput, p.throughput);
  }
  EXPECT_GT((*pts)[0].batch, (*pts)[1].batch);  // the narrow network fits more images
}

TEST(SssStudy, FrontierIsNonEmptyAndNonDominated) {
  const DeviceSpec d = v100();
  std::vector<int64_t> idx;
  for (int64_t i = 0; i < kSssSpaceSize; i += 97) idx.push_back(i);
  auto pts = predict_sss_indices(idx, sss_net_input(SssDataset::kCifar10), d, fp16(), SssBatch::fixed(256), 0);
  ASSERT_TRUE(pts.has_value());
  auto front = sss_frontier(*pts);
  ASSERT_TRUE(front.has_value());
  ASSERT_FALSE(front->empty());
  std::set<size_t> on(front->begin(), front->end());
  for (size_t f : *front)
    for (size_t j = 0; j < pts->size(); ++j) {
      const SssPoint &a = (*pts)[j], &b = (*pts)[f];
      const bool dominates = a.throughput >= b.throughput && a.utilization >= b.utilization &&
                             (a.throughput > b.throughput || a.utilization > b.utilization);
      EXPECT_FALSE(dominates) << a.arch << " dominates frontier point " << b.arch;
    }
  // Every point off the frontier is dominated by one on it.
  for (size_t j = 0; j < pts->size(); ++j) {
    if (on.count(j)) continue;
    bool dominated = false;
    for (size_t f : *front)
      dominated |= (*pts)[f].throughput >= (*pts)[j].throughput && (*pts)[f].utilization >= (*pts)[j].utilization;
    EXPECT_TRUE(dominated) << (*pts)[j].arch;
  }
  for (size_t k = 1; k < front->size(); ++k)
    EXPECT_LE((*pts)[(*front)[k - 1]].throughput, (*pts)[(*front)[k]].throughput);
}

TEST(SssStudy, BadInputIsReported) {
  const DeviceSpec d = v100();
  auto bad_index =
      predict_sss_indices({0, kSssSpaceSize}, sss_net_input(SssDataset::kCifar10), d, fp16(), SssBatch::fixed(1), 1);
  ASSERT_FALSE(bad_index.has_value());
  EXPECT_EQ(bad_index.status().code(), StatusCode::kInvalidInput);
  EXPECT_NE(bad_index.status().message().find("32768"), std::string::npos);

  PerfOptions fp8;
  fp8.dtype = "fp8";
  auto no_peak = predict_sss_network(sss_widths(0), sss_net_input(SssDataset::kCifar10), d, fp8, SssBatch::fixed(1));
  ASSERT_FALSE(no_peak.has_value());
  EXPECT_EQ(no_peak.status().code(), StatusCode::kUnsupported);

  auto bad_batch =
      predict_sss_network(sss_widths(0), sss_net_input(SssDataset::kCifar10), d, fp16(), SssBatch::fixed(0));
  ASSERT_FALSE(bad_batch.has_value());
  EXPECT_EQ(bad_batch.status().code(), StatusCode::kInvalidInput);

  SssWidths odd = {8, 8, 12, 8, 8};
  auto bad_width = predict_sss_network(odd, sss_net_input(SssDataset::kCifar10), d, fp16(), SssBatch::fixed(1));
  ASSERT_FALSE(bad_width.has_value());
  EXPECT_EQ(bad_width.status().code(), StatusCode::kInvalidInput);
}

}  // namespace
}  // namespace rooflens

// The assembled path (networks from cached segments) against the full one (each network
// built, analysed and predicted): the same numbers, bit for bit, on a GPU and a CPU, fp16
// and fp32, at batch 1, 256 and the max batch.
namespace rooflens {
namespace {

DeviceSpec device_named(const std::string& id) {
  auto db = load_device_dir(kDevices);
  EXPECT_TRUE(db.has_value());
  auto d = resolve_device(id, *db);
  EXPECT_TRUE(d.has_value());
  return *d;
}

std::vector<int64_t> assembled_sample(bool max) {
  // The 4 corners (all narrow, all wide, alternating both ways), then a spread.
  std::vector<int64_t> idx = {0, kSssSpaceSize - 1, *sss_index(SssWidths{8, 64, 8, 64, 8}),
                              *sss_index(SssWidths{64, 8, 64, 8, 64})};
  const int64_t stride = max ? 331 : 157;  // ~100 / ~210 networks
  for (int64_t i = 5; i < kSssSpaceSize; i += stride) idx.push_back(i);
  return idx;
}

void expect_same_points(const std::vector<SssPoint>& full, const std::vector<SssPoint>& fast) {
  ASSERT_EQ(full.size(), fast.size());
  for (size_t i = 0; i < full.size(); ++i) {
    const SssPoint &a = full[i], &b = fast[i];
    SCOPED_TRACE(a.arch);
    EXPECT_EQ(a.index, b.index);
    EXPECT_EQ(a.arch, b.arch);
    EXPECT_EQ(a.macs, b.macs);
    EXPECT_EQ(a.flop_benchmark, b.flop_benchmark);
    EXPECT_EQ(a.flops, b.flops);
    EXPECT_EQ(a.params, b.params);
    EXPECT_EQ(a.batch, b.batch);
    // Bit for bit: the same doubles summed in the same order.
    EXPECT_EQ(a.ai, b.ai);
    EXPECT_EQ(a.throughput, b.throughput);
    EXPECT_EQ(a.utilization, b.utilization);
  }
}

TEST(SssStudy, AssembledMatchesFullOnGpuAndCpu) {
  struct Case {
    std::string device, dtype;
    SssNetInput input;
  };
  // The last case is the training oracle's Fashion-MNIST network (1 channel, 28 x 28): its
  // space table is assembled from segments too.
  const std::vector<Case> cases = {{"v100", "fp16", sss_net_input(SssDataset::kCifar10)},
                                   {"v100", "fp32", sss_net_input(SssDataset::kImageNet16_120)},
                                   {"epyc-milan-2c", "fp32", sss_net_input(SssDataset::kCifar100)},
                                   {"v100", "fp16", SssNetInput{"fashion-mnist", 1, 28, 10}}};
  for (const Case& c : cases) {
    const DeviceSpec d = device_named(c.device);
    PerfOptions o;
    o.dtype = c.dtype;
    for (SssBatch batch : {SssBatch::fixed(1), SssBatch::fixed(256), SssBatch::largest()}) {
      SCOPED_TRACE(c.device + " " + c.dtype + " batch " +
                   (batch.max ? std::string("max") : std::to_string(batch.size)));
      const std::vector<int64_t> idx = assembled_sample(batch.max);
      auto full = predict_sss_indices(idx, c.input, d, o, batch, 2, {}, SssMethod::kFull);
      auto fast = predict_sss_indices(idx, c.input, d, o, batch, 2, {}, SssMethod::kAssembled);
      ASSERT_TRUE(full.has_value()) << full.status().message();
      ASSERT_TRUE(fast.has_value()) << fast.status().message();
      expect_same_points(*full, *fast);
    }
  }
}

TEST(SssStudy, AssembledMatchesFullOnFp16OnACpuAndWithoutL2) {
  // The CPU device has no fp16 peak: both paths refuse it the same way.
  const DeviceSpec cpu = device_named("epyc-milan-2c");
  PerfOptions o;
  o.dtype = "fp16";
  auto full = predict_sss_indices({0, 1}, sss_net_input(SssDataset::kCifar10), cpu, o, SssBatch::fixed(256), 1, {},
                                  SssMethod::kFull);
  auto fast = predict_sss_indices({0, 1}, sss_net_input(SssDataset::kCifar10), cpu, o, SssBatch::fixed(256), 1, {},
                                  SssMethod::kAssembled);
  ASSERT_FALSE(full.has_value());
  ASSERT_FALSE(fast.has_value());
  EXPECT_EQ(full.status().code(), fast.status().code());
  EXPECT_EQ(full.status().message(), fast.status().message());

  // A GPU with a small L2 and the measured peak off: reuse decided differently, same answers.
  DeviceSpec small = device_named("v100");
  small.l2_bytes = 256 * 1024;
  PerfOptions po;
  po.dtype = "fp16";
  po.use_measured_peak = false;
  const std::vector<int64_t> idx = {0, 7, 511, 4095, 20000, 32767};
  for (SssBatch batch : {SssBatch::fixed(3), SssBatch::largest()}) {
    auto a = predict_sss_indices(idx, sss_net_input(SssDataset::kCifar10), small, po, batch, 1, {}, SssMethod::kFull);
    auto b =
        predict_sss_indices(idx, sss_net_input(SssDataset::kCifar10), small, po, batch, 1, {}, SssMethod::kAssembled);
    ASSERT_TRUE(a.has_value() && b.has_value());
    expect_same_points(*a, *b);
  }
}

TEST(SssStudy, WholeSpaceIsAssembledInIndexOrder) {
  const DeviceSpec d = v100();
  int64_t last_done = 0;
  auto pts = predict_sss_space(sss_net_input(SssDataset::kCifar10), d, fp16(), SssBatch::fixed(256), 2,
                               [&](int64_t done, int64_t total) {
                                 EXPECT_EQ(total, kSssSpaceSize);
                                 EXPECT_GT(done, last_done);
                                 last_done = done;
                               });
  ASSERT_TRUE(pts.has_value()) << pts.status().message();
  ASSERT_EQ(pts->size(), static_cast<size_t>(kSssSpaceSize));
  EXPECT_EQ(last_done, kSssSpaceSize);
  for (int64_t i = 0; i < kSssSpaceSize; i += 1001) EXPECT_EQ((*pts)[static_cast<size_t>(i)].index, i);
  // Spot checks against the full path.
  auto full = predict_sss_indices({0, 12345, 32767}, sss_net_input(SssDataset::kCifar10), d, fp16(),
                                  SssBatch::fixed(256), 1, {}, SssMethod::kFull);
  ASSERT_TRUE(full.has_value());
  expect_same_points(*full, {(*pts)[0], (*pts)[12345], (*pts)[32767]});
}

}  // namespace
}  // namespace rooflens
