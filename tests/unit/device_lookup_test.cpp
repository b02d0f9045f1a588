// Finding the database entry of a GPU by the name its driver reports.
#include <gtest/gtest.h>

#include "rooflens/device/device.h"

namespace rooflens {
namespace {

const std::string kDevices = std::string(ROOFLENS_SOURCE_DIR) + "/data/devices";

TEST(DeviceLookup, GpuByTheDriversName) {
  auto db = load_device_dir(kDevices);
  ASSERT_TRUE(db) << db.status().message();
  auto h200 = find_gpu_by_name("NVIDIA H200", *db);
  ASSERT_TRUE(h200) << h200.status().message();
  EXPECT_EQ(h200->name.rfind("NVIDIA H200", 0), 0u);
  EXPECT_TRUE(h200->is_gpu());
  auto none = find_gpu_by_name("NVIDIA Z999", *db);
  ASSERT_FALSE(none);
  EXPECT_EQ(none.status().code(), StatusCode::kInvalidInput);
  EXPECT_EQ(none.status().message(),
            "no device entry matches the GPU 'NVIDIA Z999': give --device with its database id or a device file");
  EXPECT_FALSE(find_gpu_by_name("AMD EPYC", *db));  // CPUs are not GPUs
}

// A dtype the device has no peak for is refused naming the ones it has, each once.
TEST(DeviceLookup, NoPeakNamesThePeaksTheDeviceHas) {
  auto db = load_device_dir(kDevices);
  ASSERT_TRUE(db) << db.status().message();
  auto cpu = resolve_device("epyc-milan-2c", *db);
  ASSERT_TRUE(cpu) << cpu.status().message();
  EXPECT_EQ(cpu->no_peak_message("fp16"), "device 'epyc-milan-2c' has no fp16 peak (its peaks: fp32)");
  DeviceSpec d = *cpu;
  d.peaks.push_back(d.peaks.front());  // fp32 on a second unit: still named once
  d.peaks.push_back(Peak{"int8", ComputeUnit::kSimd, "int32", 1e12, ""});
  EXPECT_EQ(d.no_peak_message("fp8"), "device 'epyc-milan-2c' has no fp8 peak (its peaks: fp32, int8)");
  d.peaks.clear();
  EXPECT_EQ(d.no_peak_message("fp32"), "device 'epyc-milan-2c' has no fp32 peak (it has no peaks)");
}

}  // namespace
}  // namespace rooflens
