// Frontier metrics (nas/frontier_metrics.h) on hand-computed cases: hypervolume of small
// staircases, IGD, the score of a search against a tiny made-up space, errors, and a
// randomized check of the 2-D hypervolume against a brute-force union of rectangles.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <set>

#include "rooflens/nas/frontier_metrics.h"
#include "rooflens/util/pareto.h"

namespace rooflens::nas {
namespace {

// Bounds that make normalisation the identity: throughput and accuracy both in [0, 1].
Bounds unit_bounds() { return Bounds{0, 1, 0, 1}; }

// A made-up space of six networks (throughput img/s, accuracy %), chosen so the frontier,
// bounds and areas are easy to work out by hand. Bounds: throughput 100..500, accuracy 50..90.
//   0: (100, 90)  frontier (slowest, best)
//   1: (200, 80)  frontier
//   2: (200, 70)  dominated by 1
//   3: (300, 60)  dominated by 4
//   4: (400, 75)  frontier
//   5: (500, 50)  frontier (fastest, worst)
struct TinySpace {
  std::vector<double> throughput{100, 200, 200, 300, 400, 500};
  std::vector<double> accuracy{90, 80, 70, 60, 75, 50};
};

TEST(FrontierMetrics, HypervolumeOfStaircasesByHand) {
  const Bounds b = unit_bounds();
  EXPECT_DOUBLE_EQ(hypervolume({}, b), 0.0);
  EXPECT_DOUBLE_EQ(hypervolume({{0.5, 0.5}}, b), 0.25);
  // Two steps: [0,0.5]x[0,1] plus [0.5,1]x[0,0.5] = 0.5 + 0.25.
  EXPECT_DOUBLE_EQ(hypervolume({{0.5, 1.0}, {1.0, 0.5}}, b), 0.75);
  // Three steps, given out of order: (0.2,0.9) (0.6,0.7) (0.9,0.3):
  // 0.2*0.9 + 0.4*0.7 + 0.3*0.3 = 0.18 + 0.28 + 0.09 = 0.55.
  EXPECT_NEAR(hypervolume({{0.9, 0.3}, {0.2, 0.9}, {0.6, 0.7}}, b), 0.55, 1e-12);
  // Normalisation: throughput 100..500, accuracy 50..90; (300, 70) -> (0.5, 0.5).
  EXPECT_DOUBLE_EQ(hypervolume({{300, 70}}, Bounds{100, 500, 50, 90}), 0.25);
}

TEST(FrontierMetrics, DominatedAndDuplicatePointsAddNothing) {
  const Bounds b = unit_bounds();
  const std::vector<ObjPoint> front{{0.2, 0.9}, {0.6, 0.7}, {0.9, 0.3}};
  std::vector<ObjPoint> more = front;
  more.push_back({0.1, 0.1});   // dominated
  more.push_back({0.6, 0.65});  // dominated by (0.6, 0.7)
  more.push_back({0.6, 0.7});   // duplicate of a frontier point
  more.push_back({0.0, 0.0});   // the reference point itself
  EXPECT_DOUBLE_EQ(hypervolume(more, b), hypervolume(front, b));
}

TEST(FrontierMetrics, ClampsToBoundsAndIgnoresNaN) {
  const Bounds b = unit_bounds();
  // (2, 0.5) -> (1, 0.5); (0.5, -3) -> (0.5, 0); (inf, inf) -> (1, 1).
  EXPECT_DOUBLE_EQ(hypervolume({{2.0, 0.5}}, b), 0.5);
  EXPECT_DOUBLE_EQ(hypervolume({{0.5, -3.0}}, b), 0.0);
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_DOUBLE_EQ(hypervolume({{inf, inf}}, b), 1.0);
  EXPECT_DOUBLE_EQ(hypervolume({{0.5, 0.5}, {std::nan(""), 1.0}}, b), 0.25);
  // An empty range maps values at (or above) its minimum to 1.
  EXPECT_DOUBLE_EQ(hypervolume({{7, 0.5}}, Bounds{7, 7, 0, 1}), 0.5);
}

TEST(FrontierMetrics, BoundsOfASet) {
  auto b = bounds_of({{100, 90}, {500, 50}, {300, 70}});
  ASSERT_TRUE(b.has_value()) << b.status().message();
  EXPECT_EQ(b->throughput_min, 100);
  EXPECT_EQ(b->throughput_max, 500);
  EXPECT_EQ(b->accuracy_min, 50);
  EXPECT_EQ(b->accuracy_max, 90);
  EXPECT_FALSE(bounds_of({}).has_value());
  auto bad = bounds_of({{1, 2}, {std::numeric_limits<double>::infinity(), 3}});
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidInput);
  EXPECT_NE(bad.status().message().find("point 1"), std::string::npos) << bad.status().message();
  EXPECT_FALSE(bounds_of({{std::nan(""), 2}}).has_value());
}

TEST(FrontierMetrics, IgdZeroWhenFoundIsTruth) {
  const std::vector<ObjPoint> truth{{0.2, 0.9}, {0.6, 0.7}, {0.9, 0.3}};
  auto d = igd(truth, truth, unit_bounds());
  ASSERT_TRUE(d.has_value());
  EXPECT_DOUBLE_EQ(*d, 0.0);
  // Extra found points never increase IGD.
  std::vector<ObjPoint> more = truth;
  more.push_back({0.5, 0.5});
  EXPECT_DOUBLE_EQ(*igd(truth, more, unit_bounds()), 0.0);
}

TEST(FrontierMetrics, IgdByHand) {
  // truth (0,1) and (1,0); found (0,0.5) and (0.6,0):
  // (0,1) -> nearest (0,0.5) at 0.5; (1,0) -> nearest (0.6,0) at 0.4; mean 0.45.
  auto d = igd({{0, 1}, {1, 0}}, {{0, 0.5}, {0.6, 0}}, unit_bounds());
  ASSERT_TRUE(d.has_value());
  EXPECT_NEAR(*d, 0.45, 1e-12);
  // The same in units: throughput 100..500, accuracy 50..90.
  // truth (100, 90) and (500, 50); found (100, 70) and (340, 50) -> 0.5 and 0.4.
  auto u = igd({{100, 90}, {500, 50}}, {{100, 70}, {340, 50}}, Bounds{100, 500, 50, 90});
  ASSERT_TRUE(u.has_value());
  EXPECT_NEAR(*u, 0.45, 1e-12);
  // One found point for two true ones: (0.5, 0.5) is sqrt(0.5) from both.
  EXPECT_NEAR(*igd({{0, 1}, {1, 0}}, {{0.5, 0.5}}, unit_bounds()), std::sqrt(0.5), 1e-12);
}

TEST(FrontierMetrics, IgdInfiniteForEmptyFoundAndErrors) {
  auto d = igd({{0.5, 0.5}}, {}, unit_bounds());
  ASSERT_TRUE(d.has_value());
  EXPECT_TRUE(std::isinf(*d) && *d > 0);
  EXPECT_EQ(igd({}, {{0.5, 0.5}}, unit_bounds()).status().code(), StatusCode::kInvalidInput);
  EXPECT_FALSE(igd({{std::nan(""), 0.5}}, {{0.5, 0.5}}, unit_bounds()).has_value());
  EXPECT_FALSE(igd({{0.5, 0.5}}, {{0.5, std::nan("")}}, unit_bounds()).has_value());
}

TEST(FrontierMetrics, TrueFrontierOfTinySpace) {
  const TinySpace s;
  auto f = true_frontier(s.throughput, s.accuracy);
  ASSERT_TRUE(f.has_value()) << f.status().message();
  EXPECT_EQ(*f, (std::vector<int64_t>{0, 1, 4, 5}));
}

TEST(FrontierMetrics, ScoreOfTheTrueFrontierIsPerfect) {
  const TinySpace s;
  // Every frontier network, in scrambled order, repeated, plus dominated ones.
  auto score = score_search({5, 4, 1, 0, 4, 2, 3}, s.throughput, s.accuracy);
  ASSERT_TRUE(score.has_value()) << score.status().message();
  EXPECT_DOUBLE_EQ(score->hypervolume_ratio, 1.0);
  EXPECT_DOUBLE_EQ(score->igd, 0.0);
  EXPECT_EQ(score->true_frontier_size, 4);
  EXPECT_EQ(score->true_frontier_found, 4);
}

TEST(FrontierMetrics, ScoreOfAPartialSearchByHand) {
  const TinySpace s;
  // Normalised (throughput 100..500 -> /400, accuracy 50..90 -> /40):
  //   0: (0, 1)  1: (0.25, 0.75)  2: (0.25, 0.5)  3: (0.5, 0.25)  4: (0.75, 0.625)  5: (1, 0)
  // True HV: 0.25*0.75 + 0.5*0.625 + 0.25*0 = 0.1875 + 0.3125 = 0.5 (network 0 has x = 0).
  // Found {2, 3, 5} (none dominates another): HV 0.25*0.5 + 0.25*0.25 + 0.5*0 = 0.1875 -> 0.375.
  // IGD over the true frontier {0, 1, 4, 5}, nearest found point each:
  //   0 -> 2: hypot(0.25, 0.5); 1 -> 2: 0.25; 4 -> 3: hypot(0.25, 0.375); 5 -> 5: 0.
  auto score = score_search({5, 2, 3, 2}, s.throughput, s.accuracy);
  ASSERT_TRUE(score.has_value()) << score.status().message();
  EXPECT_NEAR(score->hypervolume_ratio, 0.375, 1e-12);
  const double want_igd = (std::hypot(0.25, 0.5) + 0.25 + std::hypot(0.25, 0.375) + 0.0) / 4;
  EXPECT_NEAR(score->igd, want_igd, 1e-12);
  EXPECT_EQ(score->true_frontier_size, 4);
  EXPECT_EQ(score->true_frontier_found, 1);  // network 5

  auto found = evaluated_frontier({5, 2, 3, 2}, s.throughput, s.accuracy);
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(*found, (std::vector<int64_t>{2, 3, 5}));  // distinct, throughput ascending
  // Network 4 dominates 2 and 3: adding it leaves {4, 5}, HV 0.75*0.625 = 0.46875 -> 0.9375.
  auto with4 = score_search({5, 2, 3, 4}, s.throughput, s.accuracy);
  ASSERT_TRUE(with4.has_value());
  EXPECT_NEAR(with4->hypervolume_ratio, 0.9375, 1e-12);
  EXPECT_EQ(*evaluated_frontier({5, 2, 3, 4}, s.throughput, s.accuracy), (std::vector<int64_t>{4, 5}));
}

TEST(FrontierMetrics, ScoreOfAnEmptySearch) {
  const TinySpace s;
  auto score = score_search({}, s.throughput, s.accuracy);
  ASSERT_TRUE(score.has_value()) << score.status().message();
  EXPECT_DOUBLE_EQ(score->hypervolume_ratio, 0.0);
  EXPECT_TRUE(std::isinf(score->igd));
  EXPECT_EQ(score->true_frontier_found, 0);
  EXPECT_EQ(score->true_frontier_size, 4);
}

TEST(FrontierMetrics, ScoreErrors) {
  const TinySpace s;
  auto mismatch = score_search({0}, s.throughput, {90, 80});
  ASSERT_FALSE(mismatch.has_value());
  EXPECT_EQ(mismatch.status().code(), StatusCode::kInvalidInput);
  EXPECT_NE(mismatch.status().message().find("6 throughputs but 2"), std::string::npos) << mismatch.status().message();

  auto out_of_range = score_search({0, 6}, s.throughput, s.accuracy);
  ASSERT_FALSE(out_of_range.has_value());
  EXPECT_NE(out_of_range.status().message().find("network 6"), std::string::npos) << out_of_range.status().message();
  EXPECT_FALSE(score_search({-1}, s.throughput, s.accuracy).has_value());

  std::vector<double> acc = s.accuracy;
  acc[3] = std::nan("");  // unknown: evaluating it cannot be judged
  auto nan = score_search({0, 3}, s.throughput, acc);
  ASSERT_FALSE(nan.has_value());
  EXPECT_NE(nan.status().message().find("network 3, whose final accuracy is not known"), std::string::npos)
      << nan.status().message();
  acc[3] = std::numeric_limits<double>::infinity();
  auto inf = score_search({0}, s.throughput, acc);
  ASSERT_FALSE(inf.has_value());
  EXPECT_NE(inf.status().message().find("network 3"), std::string::npos) << inf.status().message();
  const std::vector<double> none(s.throughput.size(), std::nan(""));
  EXPECT_FALSE(score_search({}, s.throughput, none).has_value());
  std::vector<double> thr = s.throughput;
  thr[2] = std::numeric_limits<double>::infinity();
  EXPECT_FALSE(score_search({0}, thr, s.accuracy).has_value());

  EXPECT_FALSE(true_frontier({}, {}).has_value());
  EXPECT_FALSE(true_frontier({1, 2}, {3}).has_value());
  EXPECT_FALSE(evaluated_frontier({9}, s.throughput, s.accuracy).has_value());
}

// Brute force: the area of the union of the rectangles [0, x_i] x [0, y_i], by cutting the
// unit square at every distinct coordinate and testing each cell's centre.
double union_area(const std::vector<rooflens::Point2>& pts) {
  std::set<double> xs{0.0, 1.0}, ys{0.0, 1.0};
  for (const auto& p : pts) xs.insert(p.x), ys.insert(p.y);
  const std::vector<double> vx(xs.begin(), xs.end()), vy(ys.begin(), ys.end());
  double area = 0;
  for (size_t i = 0; i + 1 < vx.size(); ++i)
    for (size_t j = 0; j + 1 < vy.size(); ++j) {
      const double cx = (vx[i] + vx[i + 1]) / 2, cy = (vy[j] + vy[j + 1]) / 2;
      bool covered = false;
      for (const auto& p : pts) covered = covered || (cx <= p.x && cy <= p.y);
      if (covered) area += (vx[i + 1] - vx[i]) * (vy[j + 1] - vy[j]);
    }
  return area;
}

TEST(FrontierMetrics, HypervolumeMatchesBruteForceOnRandomSets) {
  std::mt19937_64 rng(20240508);
  std::uniform_real_distribution<double> u(-0.2, 1.2);  // some points outside the bounds
  std::uniform_int_distribution<int> n_of(0, 40), grid(0, 10);
  for (int trial = 0; trial < 200; ++trial) {
    const int n = n_of(rng);
    std::vector<ObjPoint> pts;
    std::vector<rooflens::Point2> clamped;
    for (int k = 0; k < n; ++k) {
      // Half the trials on a coarse grid, so ties and duplicates occur.
      const ObjPoint p = trial % 2 ? ObjPoint{u(rng), u(rng)} : ObjPoint{grid(rng) / 10.0, grid(rng) / 10.0};
      pts.push_back(p);
      clamped.push_back({std::clamp(p.throughput, 0.0, 1.0), std::clamp(p.accuracy, 0.0, 1.0)});
    }
    EXPECT_NEAR(hypervolume(pts, unit_bounds()), union_area(clamped), 1e-12)
        << "trial " << trial << ", " << n << " points";
  }
}

TEST(FrontierMetrics, HypervolumeRatioNeverExceedsOneOnRandomSpaces) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> thr(1e3, 1e5), acc(40, 95);
  for (int trial = 0; trial < 50; ++trial) {
    std::vector<double> t(60), a(60);
    for (size_t i = 0; i < t.size(); ++i) t[i] = thr(rng), a[i] = acc(rng);
    std::vector<int64_t> evaluated;
    for (int64_t i = 0; i < 60; ++i)
      if (rng() % 3 == 0) evaluated.push_back(i);
    auto s = score_search(evaluated, t, a);
    ASSERT_TRUE(s.has_value()) << s.status().message();
    EXPECT_GE(s->hypervolume_ratio, 0.0);
    EXPECT_LE(s->hypervolume_ratio, 1.0 + 1e-12);
    EXPECT_GE(s->igd, 0.0);
    EXPECT_LE(s->true_frontier_found, s->true_frontier_size);
  }
}

TEST(FrontierMetrics, UnknownNetworksAreLeftOutOfTheReference) {
  // Networks 1 and 5 have no final accuracy (say, never trained): the reference frontier is
  // that of networks 0, 2, 3, 4, and the bounds are theirs (throughput 100..400, accuracy 60..90).
  const TinySpace s;
  const double nan = std::nan("");
  const std::vector<double> acc{90, nan, 70, 60, 75, nan};
  auto truth = true_frontier(s.throughput, acc);
  ASSERT_TRUE(truth.has_value()) << truth.status().message();
  EXPECT_EQ(*truth, (std::vector<int64_t>{0, 4}));
  auto all = score_search({0, 2, 4}, s.throughput, acc);
  ASSERT_TRUE(all.has_value()) << all.status().message();
  EXPECT_DOUBLE_EQ(all->hypervolume_ratio, 1.0);
  EXPECT_EQ(all->true_frontier_found, 2);
  EXPECT_EQ(all->true_frontier_size, 2);
  // Only network 2 (200, 70) -> (1/3, 1/3) against the reference (0, 1) and (1, 0.5):
  // HV(reference) = 0 x 1 + 1 x 0.5 = 0.5 (network 0 sits at normalised throughput 0).
  auto one = score_search({2}, s.throughput, acc);
  ASSERT_TRUE(one.has_value()) << one.status().message();
  EXPECT_NEAR(one->hypervolume_ratio, (1.0 / 9.0) / 0.5, 1e-12);
  EXPECT_EQ(one->true_frontier_found, 0);
}

}  // namespace
}  // namespace rooflens::nas
