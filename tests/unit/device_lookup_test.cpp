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

}  // namespace
}  // namespace rooflens
