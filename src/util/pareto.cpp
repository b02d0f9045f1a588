// Pareto frontiers (both objectives maximized): a sort and one sweep.
#include "rooflens/util/pareto.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

namespace rooflens {

Expected<std::vector<size_t>> pareto_front_2d(const std::vector<Point2>& pts) {
  for (size_t i = 0; i < pts.size(); ++i)
    if (std::isnan(pts[i].x) || std::isnan(pts[i].y))
      return Status::invalid("pareto: point " + std::to_string(i) + " has a NaN coordinate");
  std::vector<size_t> idx(pts.size());
  std::iota(idx.begin(), idx.end(), size_t{0});
  // x descending, then y descending: a point is on the frontier iff its y beats every y
  // seen at strictly larger x, and equals the best y among its own x group.
  std::sort(idx.begin(), idx.end(), [&](size_t a, size_t b) {
    if (pts[a].x != pts[b].x) return pts[a].x > pts[b].x;
    if (pts[a].y != pts[b].y) return pts[a].y > pts[b].y;
    return a < b;
  });
  std::vector<size_t> front;
  double best_y_larger_x = -INFINITY;  // best y among points with strictly larger x
  bool any_larger = false;
  size_t i = 0;
  while (i < idx.size()) {
    size_t j = i;
    const double x = pts[idx[i]].x;
    while (j < idx.size() && pts[idx[j]].x == x) ++j;
    const double top_y = pts[idx[i]].y;  // best y of this x group
    // A group's best point survives unless a larger-x point has y >= its y.
    if (!any_larger || top_y > best_y_larger_x)
      for (size_t k = i; k < j && pts[idx[k]].y == top_y; ++k) front.push_back(idx[k]);
    if (!any_larger || top_y > best_y_larger_x) best_y_larger_x = top_y;
    any_larger = true;
    i = j;
  }
  std::sort(front.begin(), front.end(), [&](size_t a, size_t b) {
    if (pts[a].x != pts[b].x) return pts[a].x < pts[b].x;
    if (pts[a].y != pts[b].y) return pts[a].y > pts[b].y;
    return a < b;
  });
  return front;
}

Expected<std::vector<size_t>> pareto_on_all_pairs(const std::vector<std::vector<double>>& cols,
                                                  const std::vector<std::pair<size_t, size_t>>& pairs) {
  if (cols.empty()) return std::vector<size_t>{};
  const size_t n = cols[0].size();
  for (const auto& c : cols)
    if (c.size() != n) return Status::invalid("pareto: objective columns differ in length");
  std::vector<int> hits(n, 0);
  for (const auto& [a, b] : pairs) {
    if (a >= cols.size() || b >= cols.size()) return Status::invalid("pareto: axis pair names a missing column");
    std::vector<Point2> pts(n);
    for (size_t i = 0; i < n; ++i) pts[i] = {cols[a][i], cols[b][i]};
    auto f = pareto_front_2d(pts);
    if (!f) return f.status();
    for (size_t i : *f) ++hits[i];
  }
  std::vector<size_t> out;
  for (size_t i = 0; i < n; ++i)
    if (hits[i] == static_cast<int>(pairs.size())) out.push_back(i);
  return out;
}

}  // namespace rooflens
