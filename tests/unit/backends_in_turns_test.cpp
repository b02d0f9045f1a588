// Two oneDNN backends prepared on different thread counts and run in turns by one thread, as
// the thread trial of MeasureOptions::adapt_threads runs them (src/exec/measure.cpp): each run
// must use its own backend's count (OpenMP's count belongs to the calling thread, which the
// last prepare set) and compute what it computes alone.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <vector>

#if ROOFLENS_WITH_ONEDNN
#include <omp.h>
#endif

#include "rooflens/exec/backend.h"
#include "rooflens/exec/weights.h"
#include "rooflens/ir/graph_builder.h"
#include "test_util.h"

namespace rooflens {
namespace {

double relative_difference(const Tensor& a, const Tensor& b) {
  double num = 0, den = 0;
  for (size_t i = 0; i < a.data.size(); ++i) {
    const double d = static_cast<double>(a.data[i]) - b.data[i];
    num += d * d;
    den += static_cast<double>(b.data[i]) * b.data[i];
  }
  return den > 0 ? std::sqrt(num / den) : INFINITY;
}

TEST(BackendsInTurns, EachRunsOnItsOwnThreadCount) {
#if !ROOFLENS_WITH_ONEDNN
  GTEST_SKIP() << "built without the oneDNN backend";
#else
  GraphBuilder b;
  ValueId x = b.input("x", {2, 3, 9, 9});
  ValueId c1 = b.add1("Relu", "relu1", {b.conv("conv1", x, 3, 8, 3)});
  b.output(b.add1("Relu", "relu2", {b.conv("conv2", c1, 8, 16, 3)}));
  Graph g = b.finish();
  ModelAnalysis m = test::analyze(g);
  auto two = make_onednn_backend();
  ASSERT_TRUE(two);
  auto one = two->fresh();
  ASSERT_TRUE(one);
  ExecOptions o;
  o.threads = 2;
  ASSERT_TRUE(two->prepare(g, m, o).ok());
  o.threads = 1;
  ASSERT_TRUE(one->prepare(g, m, o).ok());  // the last prepare left this thread's count at 1
  const std::vector<Tensor> in{random_input(g, g.inputs.front(), 3)};
  std::vector<Tensor> first, alone_one, again;
  ASSERT_TRUE(two->run(in, &first).ok());
  EXPECT_EQ(omp_get_max_threads(), 2);
  ASSERT_TRUE(one->run(in, &alone_one).ok());
  EXPECT_EQ(omp_get_max_threads(), 1);
  ASSERT_TRUE(two->run(in, &again).ok());
  EXPECT_EQ(omp_get_max_threads(), 2);
  ASSERT_EQ(first.front().shape, again.front().shape);
  EXPECT_LT(relative_difference(again.front(), first.front()), 1e-6);
  EXPECT_LT(relative_difference(alone_one.front(), first.front()), 1e-5);
#endif
}

}  // namespace
}  // namespace rooflens
