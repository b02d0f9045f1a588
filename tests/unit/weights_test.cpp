// Deterministic weights for stripped files (weights.h): same seed, same numbers; roles
// shape the ranges; the file's data wins when present.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

#include "rooflens/exec/weights.h"
#include "test_util.h"

namespace rooflens {
namespace {

using Ints = std::vector<int64_t>;

TEST(Weights, DeterministicAndShapedByRole) {
  GraphBuilder b;
  ValueId x = b.input("x", {1, 16, 8, 8});
  ValueId c = b.conv("conv", x, 16, 32, 3, ConvSpec{.bias = true});
  b.output(b.batchnorm("bn", c, 32));
  Graph g = b.finish();
  ASSERT_TRUE(infer_shapes(g).has_value());
  auto id = [&](const std::string& n) { return *g.find_value(n); };
  const Tensor w1 = *stored_tensor(g, id("conv.weight"), 42);
  const Tensor w2 = *stored_tensor(g, id("conv.weight"), 42);
  const Tensor w3 = *stored_tensor(g, id("conv.weight"), 43);
  EXPECT_EQ(w1.data, w2.data);
  EXPECT_NE(w1.data, w3.data);
  EXPECT_EQ(w1.shape, (Shape{32, 16, 3, 3}));
  const double bound = std::sqrt(6.0 / (16 * 9));
  for (float v : w1.data) EXPECT_LE(std::fabs(v), bound);
  const Tensor scale = *stored_tensor(g, id("bn.scale"), 42), var = *stored_tensor(g, id("bn.var"), 42);
  EXPECT_NE(scale.data, var.data);  // different names, different numbers
  for (float v : var.data) EXPECT_TRUE(v >= 0.5f && v <= 1.5f);
  for (const char* n : {"bn.mean", "bn.bias", "conv.bias"}) {
    const Tensor t = *stored_tensor(g, id(n), 42);
    for (float v : t.data) EXPECT_LE(std::fabs(v), 0.1f) << n;
  }
  const Tensor in1 = random_input(g, x, 3), in2 = random_input(g, x, 3);
  EXPECT_EQ(in1.data, in2.data);
  for (float v : in1.data) EXPECT_LE(std::fabs(v), 1.0f);
}

TEST(Weights, KnownContentsAndIntegersWithoutData) {
  GraphBuilder b;
  ValueId x = b.input("x", {2});
  ValueId k = b.reals("k", {2}, {0.25, -4});
  ValueId s = b.ints("s", {2, 1});
  ValueId q = b.weight("q", {2}, DType::kI64);
  b.output(b.add1("Mul", "m", {x, k}));
  b.output(b.add1("Reshape", "r", {x, s}));
  b.output(b.add1("Add", "a", {b.add1("Cast", "c", {x}, {{"to", int64_t{7}}}), q}));
  Graph g = b.finish();
  ASSERT_TRUE(infer_shapes(g).has_value());
  EXPECT_EQ(stored_tensor(g, k, 1)->data, (std::vector<float>{0.25f, -4.0f}));
  EXPECT_EQ(stored_tensor(g, s, 1)->ints, (Ints{2, 1}));
  auto missing = stored_tensor(g, q, 1);
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(missing.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(missing.status().message().find("'q'"), std::string::npos);
}

TEST(Weights, GemmAndMatMulFanIn) {
  GraphBuilder b;
  ValueId x = b.input("x", {1, 600});
  ValueId wt = b.weight("fc_t.weight", {10, 600});  // transB=1: [N, K]
  ValueId wn = b.weight("fc_n.weight", {600, 10});  // transB=0: [K, N]
  ValueId wm = b.weight("mm.weight", {600, 3000});  // MatMul: [K, N]
  b.output(b.add1("Gemm", "fc_t", {x, wt}, {{"transB", int64_t{1}}}));
  b.output(b.add1("Gemm", "fc_n", {x, wn}));
  b.output(b.add1("MatMul", "mm", {x, wm}));
  Graph g = b.finish();
  ASSERT_TRUE(infer_shapes(g).has_value());
  const double bound = std::sqrt(6.0 / 600);
  for (ValueId w : {wt, wn, wm}) {
    float mx = 0;
    const Tensor t = *stored_tensor(g, w, 9);
    for (float v : t.data) mx = std::max(mx, std::fabs(v));
    EXPECT_LE(mx, bound) << g.value(w).name;
    EXPECT_GT(mx, 0.9 * bound) << g.value(w).name;  // the full He range is used
  }
}

}  // namespace
}  // namespace rooflens
