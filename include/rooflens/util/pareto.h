// Pareto frontiers of points scored on two or more objectives, every objective maximized.
#pragma once

#include <cstddef>
#include <vector>

#include "rooflens/util/status.h"

namespace rooflens {

struct Point2 {
  double x = 0, y = 0;
};

// Indices of the points no other point dominates (another point is >= on both axes and
// > on one), both axes maximized, sorted by x ascending (y descending along the frontier).
// Duplicates of a frontier point are all on the frontier (neither dominates the other).
// O(n log n). Invalid input on a NaN coordinate (names the index); infinities are allowed.
Expected<std::vector<size_t>> pareto_front_2d(const std::vector<Point2>& pts);

// Indices of the points that sit on every 2-D frontier of the given axis pairs: each pair
// (a, b) names two columns of `cols` (cols[k][i] = objective k of point i). Sorted ascending.
Expected<std::vector<size_t>> pareto_on_all_pairs(const std::vector<std::vector<double>>& cols,
                                                  const std::vector<std::pair<size_t, size_t>>& pairs);

}  // namespace rooflens
