// The minimum-cut choice of activation layout per layer (exec/layout_plan.h).
#include <gtest/gtest.h>

#include <random>

#include "rooflens/exec/layout_plan.h"

namespace rooflens {
namespace {

double brute_force_min(const LayoutProblem& p) {
  const size_t n = p.cost_s.size();
  double best = 1e300;
  for (uint32_t mask = 0; mask < (1u << n); ++mask) {
    std::vector<int> x(n);
    for (size_t i = 0; i < n; ++i) x[i] = (mask >> i) & 1u;
    best = std::min(best, layout_cost(p, x));
  }
  return best;
}

TEST(LayoutPlan, MatchesExhaustiveSearchOnRandomGraphs) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> cost(0.0, 10.0), reorder(0.0, 6.0);
  for (int trial = 0; trial < 300; ++trial) {
    LayoutProblem p;
    const int n = 1 + trial % 11;
    for (int i = 0; i < n; ++i) p.cost_s.push_back({cost(rng), cost(rng)});
    // Edges forward in layer order (a network's values), some layers read by several.
    std::uniform_int_distribution<int> pick(0, n - 1);
    for (int k = 0; k < 2 * n; ++k) {
      int a = pick(rng), b = pick(rng);
      if (a == b) continue;
      if (a > b) std::swap(a, b);
      p.edges.push_back({a, b, reorder(rng), reorder(rng)});
    }
    const std::vector<int> x = choose_layouts(p);
    ASSERT_EQ(x.size(), static_cast<size_t>(n));
    EXPECT_NEAR(layout_cost(p, x), brute_force_min(p), 1e-9) << "trial " << trial;
  }
}

TEST(LayoutPlan, AFastBlockedLayerAloneIsNotWorthTwoReorders) {
  // A chain of three whose ends are slower blocked; the middle one is 2 s faster blocked,
  // but the reorders in and out cost 3.
  LayoutProblem p;
  p.cost_s = {{1, 2.5}, {5, 3}, {1, 2.5}};
  p.edges = {{0, 1, 1.5, 1.5}, {1, 2, 1.5, 1.5}};
  EXPECT_EQ(choose_layouts(p), (std::vector<int>{0, 0, 0}));
  // Cheaper reorders: now it pays (5 > 3 + 0.5 + 0.5).
  p.edges = {{0, 1, 0.5, 0.5}, {1, 2, 0.5, 0.5}};
  EXPECT_EQ(choose_layouts(p), (std::vector<int>{0, 1, 0}));
  // A run of layers each a little faster blocked: the whole run moves, reorders paid once.
  LayoutProblem q;
  q.cost_s = {{1, 2.5}, {2, 1.6}, {2, 1.6}, {2, 1.6}, {1, 2.5}};
  for (int i = 0; i < 4; ++i) q.edges.push_back({i, i + 1, 0.5, 0.5});
  const std::vector<int> x = choose_layouts(q);
  EXPECT_EQ(x, (std::vector<int>{0, 1, 1, 1, 0}));
  EXPECT_NEAR(layout_cost(q, x), 1 + 3 * 1.6 + 1 + 1.0, 1e-12);
}

TEST(LayoutPlan, TiesStayChannelsLast) {
  // Layers as fast either way with free reorders: nothing moves to blocked.
  LayoutProblem p;
  p.cost_s = {{2, 2}, {3, 3}};
  p.edges = {{0, 1, 0, 0}};
  EXPECT_EQ(choose_layouts(p), (std::vector<int>{0, 0}));
}

}  // namespace
}  // namespace rooflens
