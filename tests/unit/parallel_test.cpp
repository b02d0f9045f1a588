// util/parallel.h: every index once, on any number of threads; the worker count.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <vector>

#include "rooflens/util/parallel.h"

namespace rooflens {
namespace {

TEST(Parallel, ForVisitsEveryIndexOnce) {
  for (int threads : {0, 1, 3, 8}) {
    for (size_t n : {size_t{0}, size_t{1}, size_t{2}, size_t{100}}) {
      std::vector<std::atomic<int>> seen(n);
      parallel_for(n, threads, [&](size_t i) { ++seen[i]; });
      for (size_t i = 0; i < n; ++i) EXPECT_EQ(seen[i].load(), 1) << "index " << i << " of " << n << ", " << threads;
    }
  }
}

TEST(Parallel, RunsTheWorkerOnEveryThread) {
  for (int threads : {-1, 0, 1, 4}) {
    std::atomic<int> runs{0};
    run_on_threads(threads, [&] { ++runs; });
    EXPECT_EQ(runs.load(), std::max(1, threads)) << threads;
  }
}

}  // namespace
}  // namespace rooflens
