// Compute dtypes named by users.
#include <gtest/gtest.h>

#include "rooflens/ir/dtype.h"

namespace rooflens {
namespace {

TEST(DType, ParseArgNamesTheSettingAndTheChoices) {
  auto t = parse_dtype_arg("--dtype", "half");
  ASSERT_TRUE(t);
  EXPECT_EQ(*t, DType::kF16);
  auto bad = parse_dtype_arg("--dtype", "fp7");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidInput);
  EXPECT_EQ(bad.status().message(), "--dtype 'fp7': expected fp32, fp16, bf16, int8 or fp8");
}

}  // namespace
}  // namespace rooflens
