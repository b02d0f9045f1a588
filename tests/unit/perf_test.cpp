// The performance model on hand-built layers (V100 FP16) and the device database.
#include <algorithm>
#include <cmath>

#include "rooflens/device/device.h"
#include "rooflens/perf/max_batch.h"
#include "rooflens/perf/model.h"
#include "test_util.h"

namespace rooflens {
namespace {

const std::string kDevices = std::string(ROOFLENS_SOURCE_DIR) + "/data/devices";

DeviceSpec device(const std::string& id) {
  auto db = load_device_dir(kDevices);
  EXPECT_TRUE(db.has_value()) << db.status().message();
  auto d = resolve_device(id, *db);
  EXPECT_TRUE(d.has_value()) << d.status().message();
  return *d;
}

struct Built {
  Graph g;
  ModelAnalysis m;
  Prediction p;
};

Built predict_conv(int64_t batch, int64_t cin, int64_t cout, int64_t hw, int64_t k, int64_t group,
                   const std::string& dev = "v100") {
  GraphBuilder b;
  ValueId x = b.input("x", {batch, cin, hw, hw});
  b.output(b.conv("conv", x, cin, cout, k, {.group = group}));
  Built r{b.finish(), {}, {}};
  r.m = test::analyze(r.g, DType::kF16);
  auto p = predict(r.g, r.m, device(dev), PerfOptions{});
  EXPECT_TRUE(p.has_value()) << p.status().message();
  r.p = *p;
  return r;
}

TEST(Device, V100Fp16Cmr) {
  DeviceSpec d = device("v100");
  EXPECT_EQ(d.id, "v100-sxm2-16gb");
  EXPECT_NEAR(d.cmr("fp16"), 125e12 / 900e9, 0.05);  // 138.9
  EXPECT_NEAR(d.cmr("fp16"), 138.9, 0.05);
}

TEST(Device, EveryBundledDeviceLoadsWithSources) {
  auto db = load_device_dir(kDevices);
  ASSERT_TRUE(db) << db.status().message();
  EXPECT_GE(db->size(), 16u);
  for (const auto& d : *db) {
    EXPECT_FALSE(d.peaks.empty()) << d.id;
    EXPECT_GT(d.mem_bandwidth, 0) << d.id;
    EXPECT_TRUE(d.sources.count("peaks")) << d.id << " has no source for its peaks";
    EXPECT_TRUE(d.sources.count("memory")) << d.id << " has no source for its memory";
  }
}

TEST(Device, BadFilesNameTheField) {
  auto bad = parse_device_json(R"({"schema":"rooflens.device/1","id":"x","name":"x","kind":"gpu","sm_count":1,
      "max_threads_per_sm":1,"max_blocks_per_sm":1,"memory":{"bytes":1e9,"bandwidth":-5},"peaks":[]})",
                               "x.json");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.status().message().find("x.json: field 'memory.bandwidth'"), std::string::npos)
      << bad.status().message();
  auto unit = parse_device_json(R"({"schema":"rooflens.device/1","id":"x","name":"x","kind":"gpu","sm_count":1,
      "max_threads_per_sm":1,"max_blocks_per_sm":1,"memory":{"bytes":1e9,"bandwidth":1e9},
      "peaks":[{"dtype":"fp16","unit":"warp","flops":1e12}]})",
                                "y.json");
  ASSERT_FALSE(unit);
  EXPECT_NE(unit.status().message().find("peaks[0].unit"), std::string::npos) << unit.status().message();
}

TEST(Device, CustomInlineDevice) {
  auto d = resolve_device("custom:fp16=125e12,bw=900e9,mem=16e9", {});
  ASSERT_TRUE(d) << d.status().message();
  EXPECT_NEAR(d->cmr("fp16"), 138.9, 0.05);
  EXPECT_FALSE(resolve_device("custom:fp16=abc,bw=1e9,mem=1e9", {}));
  EXPECT_FALSE(resolve_device("custom:fp16=1e12,mem=1e9", {}));
  EXPECT_FALSE(resolve_device("no-such-gpu", {}));
}

TEST(PerfModel, Conv3x3C64Batch64IsComputeBound) {
  Built r = predict_conv(64, 64, 64, 56, 3, 1);
  ASSERT_EQ(r.p.layers.size(), 1u);
  EXPECT_EQ(r.p.layers[0].bound, Bound::kCompute) << r.p.layers[0].why;
  EXPECT_EQ(r.p.layers[0].unit, ComputeUnit::kTensor);
}

TEST(PerfModel, DepthwiseIsMemoryBound) {
  Built r = predict_conv(64, 256, 256, 14, 3, 256);
  EXPECT_EQ(r.p.layers[0].bound, Bound::kMemory) << r.p.layers[0].why;
  EXPECT_LT(r.p.layers[0].ai, r.p.cmr);
}

TEST(PerfModel, OddChannelsAreMisaligned) {
  for (int64_t c : {3, 7}) {
    // A ResNet-style 7x7 stem: compute-heavy enough that running off tensor cores binds.
    Built r = predict_conv(256, c, 64, 112, 7, 1);
    const auto& L = r.p.layers[0];
    EXPECT_FALSE(L.aligned) << c;
    EXPECT_NE(L.unit, ComputeUnit::kTensor) << c;
    EXPECT_EQ(L.bound, Bound::kMisaligned) << c << ": " << L.why;
    EXPECT_NE(std::find(L.flags.begin(), L.flags.end(), "misaligned"), L.flags.end());
    // A 3x3 conv with 3 channels is memory-bound, but still flagged.
    Built small = predict_conv(256, c, 64, 112, 3, 1);
    EXPECT_NE(std::find(small.p.layers[0].flags.begin(), small.p.layers[0].flags.end(), "misaligned"),
              small.p.layers[0].flags.end())
        << c;
  }
  Built aligned = predict_conv(256, 64, 64, 56, 3, 1);
  EXPECT_TRUE(aligned.p.layers[0].flags.empty());
}

TEST(PerfModel, GeForceFp16UsesTheFp32AccumulateRate) {
  DeviceSpec d = device("rtx-4090");
  auto p = d.best_peak("fp16");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->accumulator, "fp32");
  EXPECT_NEAR(p->flops, 165.2e12, 1e11);
}

TEST(PerfModel, ArticleTinyLayerIsStarved) {
  // 1x1x10 conv with 5 outputs on 7x7: 2,450 MACs.
  Built r = predict_conv(1, 10, 5, 7, 1, 1);
  EXPECT_EQ(r.m.totals.macs, 2450);
  const auto& L = r.p.layers[0];
  EXPECT_LT(L.wave_efficiency, 0.05);
  EXPECT_TRUE(L.bound == Bound::kStarved || L.bound == Bound::kLaunch) << bound_name(L.bound);
  // Work-starved even ignoring launch overhead: compute time inflated by the idle SMs.
  EXPECT_GT(L.t_compute, 10 * static_cast<double>(L.flops) / L.peak_used);
}

TEST(PerfModel, MaxBatchSearchIsExactAndLogarithmic) {
  int calls = 0;
  auto mem = [&](int64_t b) -> Expected<int64_t> {
    ++calls;
    return 1000 + 37 * b;
  };
  auto mb = find_max_batch(mem, 1000 + 37 * 12345);
  ASSERT_TRUE(mb);
  EXPECT_EQ(*mb, 12345);
  EXPECT_LT(calls, 40);
  auto none = find_max_batch(mem, 500);
  EXPECT_FALSE(none);
}

TEST(PerfModel, MemoryOverflowNoteOnlyWhenTheBatchDoesNotFit) {
  DeviceSpec d = device("v100");
  Prediction p;
  p.batch = 1000000;
  p.memory_bytes = static_cast<int64_t>(d.mem_bytes - d.reserved_bytes);  // exactly full: fits
  EXPECT_FALSE(memory_overflow_note(p, d));
  p.memory_bytes = int64_t{3'600'000'000'000};
  auto note = memory_overflow_note(p, d);
  ASSERT_TRUE(note);
  EXPECT_EQ(*note, "batch 1000000 needs 3600.00 GB: more than the device's 17.2 GB");
}

}  // namespace
}  // namespace rooflens

namespace rooflens {
namespace {

TEST(PerfModel, FittedEfficienciesSlowTheirClassOnly) {
  GraphBuilder b;
  ValueId x = b.input("x", {8, 64, 28, 28});
  ValueId c = b.conv("conv", x, 64, 64, 3);
  b.output(b.conv("dw", c, 64, 64, 3, {.group = 64}));
  Graph g = b.finish();
  ModelAnalysis m = test::analyze(g, DType::kF32);
  auto cpu = resolve_device("epyc-milan-2c", *load_device_dir(kDevices));
  ASSERT_TRUE(cpu);
  PerfOptions po;
  po.dtype = "fp32";
  auto base = predict(g, m, *cpu, po);
  DeviceSpec slow = *cpu;
  slow.efficiency["gemm"] = 0.5;
  auto fitted = predict(g, m, slow, po);
  ASSERT_TRUE(base && fitted);
  EXPECT_NEAR(fitted->layers[0].t_compute, 2 * base->layers[0].t_compute, 1e-12);
  EXPECT_EQ(fitted->layers[1].kernel_class, "depthwise");
  EXPECT_DOUBLE_EQ(fitted->layers[1].t_compute, base->layers[1].t_compute);
  auto bad = parse_device_json(R"({"schema":"rooflens.device/1","id":"x","name":"x","kind":"cpu",
      "memory":{"bytes":1e9,"bandwidth":1e9},"peaks":[{"dtype":"fp32","unit":"simd","flops":1e11}],
      "cpu":{"cores":2,"simd_bits":256,"fma_units":2},"efficiency":{"gemm":1.5}})",
                               "e.json");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.status().message().find("efficiency.gemm"), std::string::npos);
}

}  // namespace
}  // namespace rooflens

namespace rooflens {
namespace {

// The corrections of docs/perf-model.md ("Corrections against published measurements"):
// memory-bound GPU kernels reach gpu_dram_efficiency of the datasheet bandwidth, every GPU
// kernel adds kernel_gap_s, and a measured peak (the power-capped T4) scales compute roofs.
TEST(PerfModel, MemoryBoundLayerUsesAchievableBandwidth) {
  Built r = predict_conv(64, 256, 256, 14, 3, 256);  // depthwise 3x3: memory-bound
  const LayerPrediction& L = r.p.layers[0];
  ASSERT_EQ(L.bound, Bound::kMemory) << L.why;
  ASSERT_DOUBLE_EQ(L.bw_efficiency, 1.0);
  const PerfOptions defaults;
  EXPECT_DOUBLE_EQ(defaults.gpu_dram_efficiency, 0.8);
  EXPECT_NEAR(L.t_memory, static_cast<double>(L.dram_bytes) / (900e9 * 0.8), 1e-12);
  EXPECT_DOUBLE_EQ(L.t_gap, defaults.engine.kernel_gap_s);
  EXPECT_NEAR(L.time_s, L.t_memory + defaults.engine.kernel_gap_s, 1e-12);

  // The datasheet roof comes back with efficiency 1 and no gap.
  PerfOptions raw;
  raw.gpu_dram_efficiency = 1.0;
  raw.engine.kernel_gap_s = 0;
  auto p = predict(r.g, r.m, device("v100"), raw);
  ASSERT_TRUE(p);
  EXPECT_NEAR(p->layers[0].t_memory, static_cast<double>(L.dram_bytes) / 900e9, 1e-12);
  EXPECT_NEAR(p->layers[0].time_s, p->layers[0].t_memory, 1e-12);
  EXPECT_NEAR(L.t_memory / p->layers[0].t_memory, 1.25, 1e-9);

  // A device file's efficiency.memory replaces the default share.
  DeviceSpec fitted = device("v100");
  fitted.efficiency["memory"] = 0.5;
  auto q = predict(r.g, r.m, fitted, PerfOptions{});
  ASSERT_TRUE(q);
  EXPECT_NEAR(q->layers[0].t_memory, static_cast<double>(L.dram_bytes) / (900e9 * 0.5), 1e-12);
}

TEST(PerfModel, PowerCappedT4UsesItsMeasuredFp16Peak) {
  Built r = predict_conv(64, 64, 64, 32, 3, 1, "t4");
  const LayerPrediction& L = r.p.layers[0];
  EXPECT_EQ(L.unit, ComputeUnit::kTensor);
  ASSERT_TRUE(r.p.peak_measured.has_value());
  EXPECT_NEAR(*r.p.peak_measured, 24e12, 1e6);
  EXPECT_NEAR(L.peak_used, 24e12, 1e6);  // 65 TFLOP/s datasheet x 24/65
  EXPECT_NEAR(r.p.peak_datasheet, 65e12, 1e6);
}

// Round 2 (docs/perf-model.md, "Narrow GEMMs on tensor cores", "L2 reuse distance") and the
// A100 PCIe device file.
TEST(PerfModel, NarrowOutputChannelsRunAtTheNarrowTileRate) {
  // DenseNet's 3x3 conv: 128 -> 32 channels. A 128x32 tile reuses each operand over
  // 128*32/160 = 25.6 outputs against 64 for 128x128: 0.4 of the tensor rate.
  Built narrow = predict_conv(64, 128, 32, 56, 3, 1);
  const LayerPrediction& N = narrow.p.layers[0];
  ASSERT_EQ(N.unit, ComputeUnit::kTensor);
  EXPECT_EQ(N.tile_n, 32);
  EXPECT_NEAR(N.tile_efficiency, 0.4, 1e-12);
  EXPECT_NEAR(N.t_compute, static_cast<double>(N.flops) / (N.peak_used * N.wave_efficiency * 0.4), 1e-12);
  // 48 channels: a 64-wide tile (0.75 useful x 2/3 reuse) beats 32 (0.75 x 0.4) and 128.
  Built c48 = predict_conv(64, 128, 48, 56, 3, 1);
  EXPECT_EQ(c48.p.layers[0].tile_n, 64);
  EXPECT_NEAR(c48.p.layers[0].tile_efficiency, 0.5, 1e-12);
  // Wide layers keep the full tile and rate.
  Built wide = predict_conv(64, 64, 128, 56, 3, 1);
  EXPECT_EQ(wide.p.layers[0].tile_n, 128);
  EXPECT_DOUBLE_EQ(wide.p.layers[0].tile_efficiency, 1.0);
  // The option off restores the full-rate model; CUDA-core layers are never affected.
  PerfOptions off;
  off.narrow_tile_efficiency = false;
  auto p = predict(narrow.g, narrow.m, device("v100"), off);
  ASSERT_TRUE(p);
  EXPECT_DOUBLE_EQ(p->layers[0].tile_efficiency, 1.0);
  EXPECT_LT(p->layers[0].t_compute, N.t_compute);
  Built dw = predict_conv(64, 256, 256, 14, 3, 256);
  EXPECT_DOUBLE_EQ(dw.p.layers[0].tile_efficiency, 1.0);
}

TEST(PerfModel, ActivationsStayInL2WithinTheReuseDistance) {
  // a -> b -> c, then Concat(a, c): a was written two layers before the Concat reads it.
  auto build = [](int64_t batch, int64_t hw) {
    GraphBuilder b;
    ValueId x = b.input("x", {batch, 64, hw, hw});
    ValueId a = b.conv("a", x, 64, 64, 3);
    ValueId c = b.conv("c", b.conv("b", a, 64, 64, 3), 64, 64, 3);
    b.output(b.add1("Concat", "cat", {a, c}, {{"axis", int64_t{1}}}));
    Built r{b.finish(), {}, {}};
    r.m = test::analyze(r.g, DType::kF16);
    auto p = predict(r.g, r.m, device("v100"), PerfOptions{});
    EXPECT_TRUE(p.has_value()) << p.status().message();
    r.p = *p;
    return r;
  };
  auto concat = [](const Built& r) {
    return *std::find_if(r.p.layers.begin(), r.p.layers.end(),
                         [](const LayerPrediction& L) { return L.op == "Concat"; });
  };
  // Small tensors (100 KB each): both inputs are still in the V100's 6 MB L2.
  Built small = build(1, 28);
  const int64_t t_small = 64 * 28 * 28 * 2;
  EXPECT_EQ(concat(small).dram_bytes, concat(small).bytes - 2 * t_small);
  // Large tensors (1.6 MB each): a, b's and c's outputs exceed half the L2; only c is reused.
  Built large = build(1, 112);
  const int64_t t_large = 64 * 112 * 112 * 2;
  EXPECT_EQ(concat(large).dram_bytes, concat(large).bytes - t_large);
}

TEST(Device, A100PcieHasTheSxmPeaksAndLessBandwidth) {
  DeviceSpec pcie = device("a100-pcie");
  DeviceSpec sxm = device("a100-sxm4-80gb");
  EXPECT_EQ(pcie.id, "a100-pcie-80gb");
  EXPECT_DOUBLE_EQ(pcie.mem_bandwidth, 1.935e12);
  EXPECT_DOUBLE_EQ(pcie.best_peak("int8")->flops, sxm.best_peak("int8")->flops);
  EXPECT_DOUBLE_EQ(pcie.best_peak("fp16")->flops, 312e12);
  EXPECT_EQ(pcie.sm_count, sxm.sm_count);
  EXPECT_EQ(pcie.l2_bytes, sxm.l2_bytes);
  // A memory-bound layer takes 2039/1935 as long (plus the same gap).
  Built a = predict_conv(64, 256, 256, 14, 3, 256, "a100-pcie");
  Built b = predict_conv(64, 256, 256, 14, 3, 256, "a100-sxm4-80gb");
  EXPECT_NEAR(a.p.layers[0].t_memory / b.p.layers[0].t_memory, 2.039 / 1.935, 1e-9);
}

}  // namespace
}  // namespace rooflens
