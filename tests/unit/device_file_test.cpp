// The device-file writer (device_json) beside the parser: every bundled device reads back as
// itself, writing is stable, fields the parser reads as optional are written as null or left
// out, and the probes' device files (CPU from a made-up result here; GPU in gpu_probe_test)
// go through the same writer.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "rooflens/device/device.h"

namespace rooflens {
namespace {

const std::string kDevices = std::string(ROOFLENS_SOURCE_DIR) + "/data/devices";

// parse(write(d)) == d, and write(parse(write(d))) == write(d), as text.
void expect_round_trip(const DeviceSpec& d) {
  const std::string text = device_json(d).dump(2);
  auto back = parse_device_json(text, d.file);
  ASSERT_TRUE(back) << d.id << ": " << back.status().message();
  EXPECT_TRUE(*back == d) << d.id << ": read back differently:\n" << text;
  EXPECT_EQ(device_json(*back).dump(2), text) << d.id;
}

TEST(DeviceFile, EveryBundledDeviceReadsBackAsItself) {
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator(kDevices)) {
    if (e.path().extension() != ".json") continue;
    auto d = load_device_file(e.path().string());
    ASSERT_TRUE(d) << d.status().message();
    expect_round_trip(*d);
    ++n;
  }
  EXPECT_GE(n, 17);
}

TEST(DeviceFile, OptionalPartsRoundTrip) {
  auto d = load_device_file(kDevices + "/epyc-milan-2c.json");
  ASSERT_TRUE(d) << d.status().message();
  // Parts no bundled file has: cache roofs, fitted efficiencies, a kernel table.
  d->mem_levels = {{"L1", 65536, 1e12}, {"L2", 1048576, 5e11}, {"L3", 33554432, 2e11}};
  d->efficiency = {{"gemm", 0.7}, {"memory", 0.85}};
  KernelTable kt;
  kt.backend = "oneDNN test";
  kt.host = "test host";
  kt.measured = "2026-12-02T00:00:00Z";
  kt.threads = 2;
  kt.dispatch_s = 2e-6;
  kt.cache_bytes = 33554432;
  KernelFit f;
  f.features = kernel_class_features().at("gemm");
  f.coef.assign(f.features.size() + 1, 0.5);
  f.samples = 12;
  f.median_abs_error = 0.05;
  f.max_abs_error = 0.2;
  for (const auto& x : f.features) f.range[x] = {1.0, 9.0};
  kt.classes["gemm"] = f;
  kt.cold["gemm"] = f;
  d->kernel_table = kt;
  d->sources["kernel_table"] = "made up for the test";
  d->sources["zz_note"] = "a source for no field is kept";
  expect_round_trip(*d);
}

TEST(DeviceFile, WritesAbsentFiguresAsNullInSchemaOrder) {
  auto d = load_device_file(kDevices + "/epyc-milan-2c.json");
  ASSERT_TRUE(d) << d.status().message();
  d->clock_base_hz = 0;
  d->cpu->l1d_bytes = 0;
  const auto j = device_json(*d);
  EXPECT_TRUE(j["sm_count"].is_null());
  EXPECT_TRUE(j["compute_capability"].is_null());
  EXPECT_TRUE(j["tensor_core"].is_null());
  EXPECT_TRUE(j["max_threads_per_sm"].is_null());
  EXPECT_TRUE(j["clock_hz"]["base"].is_null());
  EXPECT_TRUE(j["cpu"]["l1d_bytes"].is_null());
  EXPECT_FALSE(j.contains("host_link"));
  EXPECT_FALSE(j.contains("kernel_table"));
  EXPECT_EQ(j["workspace_bytes"].dump(), "268435456");  // whole sizes stay integers
  std::vector<std::string> keys;
  for (const auto& [k, v] : j.items()) keys.push_back(k);
  const std::vector<std::string> want = {"schema",
                                         "id",
                                         "aliases",
                                         "name",
                                         "kind",
                                         "arch",
                                         "compute_capability",
                                         "sm_count",
                                         "clock_hz",
                                         "memory",
                                         "l2_bytes",
                                         "peaks",
                                         "measured_peaks",
                                         "tensor_core",
                                         "launch_overhead_s",
                                         "max_threads_per_sm",
                                         "max_blocks_per_sm",
                                         "cpu",
                                         "workspace_bytes",
                                         "reserved_bytes",
                                         "sources"};
  EXPECT_EQ(keys, want);
  std::vector<std::string> sources;
  for (const auto& [k, v] : j["sources"].items()) sources.push_back(k);
  ASSERT_GE(sources.size(), 3u);
  EXPECT_EQ(sources[0], "peaks");
  EXPECT_EQ(sources[1], "measured_peaks");
  EXPECT_EQ(sources[2], "memory");
}

TEST(DeviceFile, GpuWithHostLinkKeepsItsSource) {
  auto d = load_device_file(kDevices + "/v100-sxm2-16gb.json");
  ASSERT_TRUE(d) << d.status().message();
  ASSERT_TRUE(d->host_link);
  const auto j = device_json(*d);
  EXPECT_EQ(j["host_link"]["name"], "PCIe 3.0 x16");
  EXPECT_EQ(j["sources"]["host_link"], d->host_link->source);
  EXPECT_EQ(j["tensor_core"]["channel_multiple"]["fp16"], 8);
}

}  // namespace
}  // namespace rooflens
