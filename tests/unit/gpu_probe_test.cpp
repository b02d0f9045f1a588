// The GPU probe (rooflens_gpu_probe): without a CUDA device it is unavailable and says why;
// with one, a quick probe gives positive figures below 2x the datasheet; the device file it
// writes for a made-up result (always run) loads through the device parser as the device
// the probe filled; GPU names match
// their database entries.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "rooflens/device/device.h"
#include "rooflens/microbench/gpu_probe.h"

namespace rooflens::microbench {
namespace {

// The bundled database: in the source tree, or beside the binary (<root>/<build>/<dir>/binary)
// when the binary runs on another machine than the one it was built on.
std::string devices_dir() {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  for (const fs::path& p : {fs::path(ROOFLENS_SOURCE_DIR) / "data/devices", exe.parent_path() / "../../data/devices",
                            exe.parent_path() / "../data/devices"})
    if (!ec && fs::exists(p / "h200.json", ec)) return p.string();
  return std::string(ROOFLENS_SOURCE_DIR) + "/data/devices";
}

std::vector<DeviceSpec> database() {
  auto db = load_device_dir(devices_dir());
  EXPECT_TRUE(db) << db.status().message();
  return db ? *db : std::vector<DeviceSpec>{};
}

// One quick probe per test binary (it takes seconds on a GPU).
const Expected<GpuProbeResult>& quick_probe() {
  static const Expected<GpuProbeResult> r = [] {
    GpuProbeOptions o;
    o.quick = true;
    return run_gpu_probe(o);
  }();
  return r;
}

TEST(GpuProbe, UnavailableWithoutDeviceSaysWhy) {
  const auto& r = quick_probe();
  if (r) GTEST_SKIP() << "a CUDA device is present ('" << r->facts.name << "'); QuickProbeOnDevice checks it";
  EXPECT_EQ(r.status().code(), StatusCode::kUnavailable) << r.status().message();
  const std::string& m = r.status().message();
  EXPECT_TRUE(m.find("no CUDA device") != std::string::npos || m.find("built without CUDA") != std::string::npos) << m;
}

TEST(GpuProbe, QuickProbeOnDevice) {
  const auto& r = quick_probe();
  if (!r) GTEST_SKIP() << "no GPU to probe: " << r.status().message();
  const GpuFacts& f = r->facts;
  EXPECT_FALSE(f.name.empty());
  EXPECT_GT(f.sm_count, 0);
  EXPECT_GT(f.global_mem_bytes, 0);
  auto ds = match_datasheet_device(f.name, f.global_mem_bytes, database());
  ASSERT_EQ(r->gemm.size(), 4u);  // quick: 4096^3 for fp32, tf32, fp16, bf16
  for (const auto& m : r->gemm) {
    SCOPED_TRACE(m.dtype);
    EXPECT_TRUE(m.verified) << "largest error " << m.max_abs_error;
    EXPECT_GT(m.flops.median, 0);
    if (ds) {
      if (auto p = ds->unit_peak(m.dtype, m.unit == "tensor" ? ComputeUnit::kTensor : ComputeUnit::kCuda)) {
        EXPECT_LT(m.flops.best, 2 * p->flops) << "datasheet " << ds->id;
      }
    }
  }
  ASSERT_EQ(r->copy.size(), 2u);
  for (const auto& c : r->copy) {
    EXPECT_GT(c.bytes_per_s.median, 0) << c.method;
    if (ds) {
      EXPECT_LT(c.bytes_per_s.best, 2 * ds->mem_bandwidth) << c.method;
    }
  }
  ASSERT_EQ(r->launch.size(), 3u);
  for (const auto& l : r->launch) {
    EXPECT_GT(l.seconds.median, 0) << l.method;
    EXPECT_LT(l.seconds.median, 1e-3) << l.method;
  }
  ASSERT_EQ(r->host_copy.size(), 2u);
  for (const auto& h : r->host_copy) {
    EXPECT_GT(h.bytes_per_s.median, 0) << h.direction;
    if (ds && ds->host_link) {
      EXPECT_LT(h.bytes_per_s.best, 2 * ds->host_link->bandwidth_bytes_per_s) << h.direction;
    }
  }
  auto dev = gpu_probe_device_json(*r, "probe-test", ds ? &*ds : nullptr);
  ASSERT_TRUE(dev) << dev.status().message();
  auto parsed = parse_device_json(dev->dump(2), "probe-test.json");
  ASSERT_TRUE(parsed) << parsed.status().message();
  EXPECT_EQ(parsed->measured_peaks.size(), 4u);
}

// A made-up H200 result: every figure the device file takes, plausible values.
GpuProbeResult made_up_h200() {
  GpuProbeResult r;
  r.date = "2025-01-01T00:00:00Z";
  r.repeats = 10;
  r.warmups = 3;
  GpuFacts& f = r.facts;
  f.name = "NVIDIA H200";
  f.pci_bus_id = "0000:18:00.0";
  f.sm_count = 132;
  f.cc_major = 9;
  f.cc_minor = 0;
  f.global_mem_bytes = 150754820096.0;  // 143771 MiB, as nvidia-smi shows
  f.l2_bytes = 52428800;
  f.clock_hz = 1.98e9;
  f.max_threads_per_sm = 2048;
  f.max_blocks_per_sm = 32;
  f.driver_version = 13000;
  f.runtime_version = 13000;
  f.cublas_version = 130001;
  f.pcie_link_current = "PCIe 5.0 x16";
  const struct {
    const char* dtype;
    const char* unit;
    double flops;
  } kGemm[] = {
      {"fp32", "cuda", 5.1e13}, {"tf32", "tensor", 3.6e14}, {"fp16", "tensor", 7.2e14}, {"bf16", "tensor", 7.0e14}};
  for (int64_t n : {8192, 4096})
    for (const auto& g : kGemm) {
      GemmMeasurement m;
      m.dtype = g.dtype;
      m.unit = g.unit;
      m.accumulator = "fp32";
      m.compute_type = "CUBLAS_COMPUTE_32F";
      m.m = m.n = m.k = n;
      m.gemms_per_repeat = 5;
      const double scale = n == 8192 ? 1.0 : 0.9;
      m.flops = summarize({g.flops * scale * 0.97, g.flops * scale, g.flops * scale * 0.99}, true);
      m.verified = true;
      r.gemm.push_back(m);
    }
  r.copy.push_back({"kernel", 2.0 * (1 << 30), 2, summarize({4.0e12, 4.1e12, 4.05e12}, true)});
  r.copy.push_back({"cudaMemcpy", 2.0 * (1 << 30), 2, summarize({3.9e12, 3.95e12}, true)});
  r.launch.push_back({"stream", 20000, summarize({2.1e-6, 2.0e-6, 2.2e-6}, false)});
  r.launch.push_back({"graph", 20000, summarize({1.1e-6, 1.0e-6}, false)});
  r.launch.push_back({"round_trip", 1000, summarize({6e-6, 7e-6}, false)});
  r.host_copy.push_back({"host_to_device", 256.0 * (1 << 20), summarize({5.3e10, 5.5e10}, true)});
  r.host_copy.push_back({"device_to_host", 256.0 * (1 << 20), summarize({5.4e10, 5.6e10}, true)});
  return r;
}

TEST(GpuProbe, DeviceFileOfMadeUpResultLoadsWithDatasheet) {
  const auto db = database();
  const GpuProbeResult r = made_up_h200();
  auto ds = match_datasheet_device(r.facts.name, r.facts.global_mem_bytes, db);
  ASSERT_TRUE(ds);
  EXPECT_EQ(ds->id, "h200");
  auto dev = gpu_probe_device_json(r, "h200-probed", &*ds);
  ASSERT_TRUE(dev) << dev.status().message();
  // Written and read back as `predict --device FILE.json` does.
  const std::string path = ::testing::TempDir() + "/rooflens-gpu-probe-h200.json";
  std::ofstream(path) << dev->dump(2) << "\n";
  auto d = load_device_file(path);
  ASSERT_TRUE(d) << d.status().message();
  EXPECT_EQ(d->id, "h200-probed");
  // The file is the device the probe filled, written by the device-file writer.
  auto spec = gpu_probe_device_spec(r, "h200-probed", &*ds);
  ASSERT_TRUE(spec) << spec.status().message();
  spec->file = path;
  EXPECT_TRUE(*d == *spec);
  EXPECT_TRUE(d->is_gpu());
  EXPECT_EQ(d->sm_count, 132);
  EXPECT_EQ(d->compute_capability, "9.0");
  EXPECT_EQ(d->peaks.size(), ds->peaks.size());  // the datasheet's peaks
  ASSERT_EQ(d->measured_peaks.size(), 4u);
  EXPECT_DOUBLE_EQ(d->best_measured_peak("fp16")->flops, 7.2e14);  // best of the 8192 run
  EXPECT_DOUBLE_EQ(d->best_measured_peak("fp32")->flops, 5.1e13);
  EXPECT_EQ(d->best_measured_peak("fp32")->unit, ComputeUnit::kCuda);
  EXPECT_EQ(d->best_measured_peak("tf32")->unit, ComputeUnit::kTensor);
  for (const auto& p : d->measured_peaks) EXPECT_NE(p.source.find("rooflens probe gpu"), std::string::npos);
  EXPECT_DOUBLE_EQ(d->mem_bandwidth, 4.1e12);
  EXPECT_DOUBLE_EQ(d->mem_bytes, r.facts.global_mem_bytes);
  EXPECT_DOUBLE_EQ(d->launch_overhead_s, 2.1e-6);  // median of the back-to-back launches
  ASSERT_TRUE(d->host_link);
  EXPECT_DOUBLE_EQ(d->host_link->bandwidth_bytes_per_s, 5.5e10);
  EXPECT_NE(d->host_link->name.find("PCIe 5.0 x16"), std::string::npos);
  EXPECT_EQ(d->tc_channel_multiple.at("fp16"), 8);
  for (const char* k : {"peaks", "measured_peaks", "memory", "launch_overhead_s", "host_link", "clock_hz"})
    EXPECT_FALSE(d->sources[k].empty()) << k;
  // The rooflens.gpu_probe/1 object names the datasheet and compares against it.
  const auto j = gpu_probe_json(r, &*ds);
  EXPECT_EQ(j["schema"], kGpuProbeSchema);
  EXPECT_EQ(j["datasheet"]["id"], "h200");
  EXPECT_DOUBLE_EQ(j["peak_flops"]["fp16"].get<double>(), 7.2e14);
}

TEST(GpuProbe, DeviceFileWithoutDatasheetUsesMeasuredPeaks) {
  GpuProbeResult r = made_up_h200();
  r.facts.name = "NVIDIA Unreleased 9000";
  r.facts.pcie_link_current.clear();
  EXPECT_FALSE(match_datasheet_device(r.facts.name, r.facts.global_mem_bytes, database()));
  auto dev = gpu_probe_device_json(r, "mystery", nullptr);
  ASSERT_TRUE(dev) << dev.status().message();
  auto d = parse_device_json(dev->dump(), "mystery.json");
  ASSERT_TRUE(d) << d.status().message();
  auto spec = gpu_probe_device_spec(r, "mystery", nullptr);
  ASSERT_TRUE(spec) << spec.status().message();
  spec->file = "mystery.json";
  EXPECT_TRUE(*d == *spec);
  EXPECT_EQ(d->peaks.size(), 4u);
  EXPECT_DOUBLE_EQ(d->best_peak("bf16")->flops, 7.0e14);
  EXPECT_EQ(d->tc_channel_multiple.at("tf32"), 4);
  EXPECT_EQ(d->tc_channel_multiple.at("fp8"), 16);
  EXPECT_EQ(d->mem_type, "unknown");
}

TEST(GpuProbe, DeviceFileRefusesIncompleteResults) {
  GpuProbeResult r = made_up_h200();
  EXPECT_EQ(gpu_probe_device_json(r, "", nullptr).status().code(), StatusCode::kInvalidInput);
  GpuProbeResult no_copy = r;
  no_copy.copy.clear();
  auto d = gpu_probe_device_json(no_copy, "x", nullptr);
  ASSERT_FALSE(d);
  EXPECT_NE(d.status().message().find("device copy"), std::string::npos) << d.status().message();
  GpuProbeResult no_gemm = r;
  no_gemm.gemm.clear();
  EXPECT_FALSE(gpu_probe_device_json(no_gemm, "x", nullptr));
}

TEST(GpuProbe, ComparisonsPairMeasurementsWithTheDatasheet) {
  const auto db = database();
  const GpuProbeResult r = made_up_h200();
  auto ds = match_datasheet_device(r.facts.name, r.facts.global_mem_bytes, db);
  ASSERT_TRUE(ds);
  const auto rows = compare_with_datasheet(r, &*ds);
  ASSERT_EQ(rows.size(), r.gemm.size() + r.copy.size() + r.launch.size() + r.host_copy.size());
  EXPECT_DOUBLE_EQ(rows[0].datasheet, 6.69e13);   // fp32 8192 against the CUDA-core fp32 peak
  EXPECT_DOUBLE_EQ(rows[2].datasheet, 9.894e14);  // fp16 tensor, fp32 accumulate
  EXPECT_DOUBLE_EQ(rows[8].datasheet, 4.8e12);    // the copy kernel against memory.bandwidth
  EXPECT_EQ(rows[11].datasheet, 0);               // the graph node has no datasheet figure
  EXPECT_DOUBLE_EQ(rows.back().datasheet, 63e9);  // device to host against PCIe 5.0 x16
  for (const auto& c : compare_with_datasheet(r, nullptr)) EXPECT_EQ(c.datasheet, 0) << c.what;
}

TEST(GpuProbe, NamesMatchTheirDatabaseEntries) {
  const auto db = database();
  const double gib = 1024.0 * 1024 * 1024;
  const struct {
    const char* name;
    double mem;
    const char* id;
  } kCases[] = {
      {"NVIDIA H200", 140.4 * gib, "h200"},
      {"NVIDIA H100 80GB HBM3", 79.1 * gib, "h100-sxm"},
      {"NVIDIA H100 PCIe", 79.1 * gib, "h100-pcie"},
      {"NVIDIA A100-SXM4-80GB", 79.1 * gib, "a100-sxm4-80gb"},
      {"NVIDIA A100-SXM4-40GB", 39.4 * gib, "a100-sxm4-40gb"},
      {"NVIDIA A100 80GB PCIe", 79.1 * gib, "a100-pcie-80gb"},
      {"Tesla V100-SXM2-16GB", 15.8 * gib, "v100-sxm2-16gb"},
      {"Tesla V100-SXM2-32GB", 31.7 * gib, "v100-sxm2-32gb"},
      {"Tesla T4", 14.7 * gib, "t4"},
      {"NVIDIA A10", 22.1 * gib, "a10"},
      {"NVIDIA L4", 22.1 * gib, "l4"},
      {"NVIDIA L40S", 44.4 * gib, "l40s"},
      {"NVIDIA GeForce RTX 4090", 23.6 * gib, "rtx-4090"},
      {"NVIDIA B200", 178 * gib, "b200"},
  };
  for (const auto& c : kCases) {
    auto d = match_datasheet_device(c.name, c.mem, db);
    ASSERT_TRUE(d) << c.name;
    EXPECT_EQ(d->id, c.id) << c.name;
  }
  for (const char* none : {"NVIDIA H200 NVL", "NVIDIA H100 NVL", "NVIDIA RTX 6000 Ada Generation", "", "NVIDIA"})
    EXPECT_FALSE(match_datasheet_device(none, 80 * gib, db)) << none;
}

}  // namespace
}  // namespace rooflens::microbench
