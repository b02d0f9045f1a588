// Pareto frontiers over hand-made point sets (both objectives maximized).
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "rooflens/util/pareto.h"

namespace rooflens {
namespace {

std::vector<size_t> front(const std::vector<Point2>& pts) {
  auto f = pareto_front_2d(pts);
  EXPECT_TRUE(f.has_value()) << f.status().message();
  return f.has_value() ? *f : std::vector<size_t>{};
}

// O(n^2) definition, for cross-checking.
std::vector<size_t> brute(const std::vector<Point2>& p) {
  std::vector<size_t> out;
  for (size_t i = 0; i < p.size(); ++i) {
    bool dom = false;
    for (size_t j = 0; j < p.size() && !dom; ++j)
      dom = p[j].x >= p[i].x && p[j].y >= p[i].y && (p[j].x > p[i].x || p[j].y > p[i].y);
    if (!dom) out.push_back(i);
  }
  return out;
}

TEST(Pareto, EmptyAndSinglePoint) {
  EXPECT_TRUE(front({}).empty());
  EXPECT_EQ(front({{3, 4}}), (std::vector<size_t>{0}));
}

TEST(Pareto, StaircaseSortedByX) {
  // 0:(1,5) 1:(2,4) 2:(3,1) 3:(1.5,3) dominated by 1, 4:(3,0.5) dominated by 2.
  std::vector<Point2> p{{1, 5}, {2, 4}, {3, 1}, {1.5, 3}, {3, 0.5}};
  EXPECT_EQ(front(p), (std::vector<size_t>{0, 1, 2}));
}

TEST(Pareto, AllDominatedByOne) {
  std::vector<Point2> p{{1, 1}, {2, 2}, {10, 10}, {5, 3}};
  EXPECT_EQ(front(p), (std::vector<size_t>{2}));
}

TEST(Pareto, TiesOnOneAxisKeepOnlyTheBetterOther) {
  // Same x: only the larger y survives. Same y: only the larger x survives.
  std::vector<Point2> p{{2, 1}, {2, 3}, {1, 3}, {0.5, 4}};
  EXPECT_EQ(front(p), (std::vector<size_t>{3, 1}));
}

TEST(Pareto, DuplicatesAreAllOnTheFrontier) {
  std::vector<Point2> p{{2, 2}, {2, 2}, {1, 1}};
  EXPECT_EQ(front(p), (std::vector<size_t>{0, 1}));
}

TEST(Pareto, NaNRefusedWithIndex) {
  auto f = pareto_front_2d({{1, 1}, {NAN, 2}});
  ASSERT_FALSE(f.has_value());
  EXPECT_NE(f.status().message().find("point 1"), std::string::npos);
}

TEST(Pareto, MatchesBruteForceOnRandomSets) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> d(0, 20);  // small range: many ties and duplicates
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<Point2> p(1 + trial % 40);
    for (auto& q : p) q = {static_cast<double>(d(rng)), static_cast<double>(d(rng))};
    auto f = front(p);
    std::sort(f.begin(), f.end());
    EXPECT_EQ(f, brute(p)) << "trial " << trial;
  }
}

TEST(Pareto, OnAllThreePairs) {
  // cols: accuracy, throughput, utilization. Model 0 is best on accuracy only, 1 is
  // balanced and on all three frontiers, 2 is dominated everywhere.
  std::vector<std::vector<double>> cols{{80, 78, 70, 60}, {100, 500, 400, 900}, {0.2, 0.6, 0.5, 0.3}};
  auto all = pareto_on_all_pairs(cols, {{0, 1}, {0, 2}, {1, 2}});
  ASSERT_TRUE(all.has_value());
  EXPECT_EQ(*all, (std::vector<size_t>{1}));
  auto bad = pareto_on_all_pairs({{1, 2}, {1}}, {{0, 1}});
  EXPECT_FALSE(bad.has_value());
}

}  // namespace
}  // namespace rooflens
