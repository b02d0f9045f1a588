// Frontier metrics (frontier_metrics.h): normalisation, 2-D hypervolume by one sweep over the
// Pareto frontier, IGD by brute force (frontiers are small), and the score of a search.
#include "rooflens/nas/frontier_metrics.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <string>

#include <fmt/format.h>

#include "rooflens/util/pareto.h"

namespace rooflens::nas {
namespace {

// v mapped to [0, 1] by [lo, hi]; an empty range maps v >= lo to 1 (and below to 0).
double normalise(double v, double lo, double hi) {
  if (!(hi > lo)) return v >= lo ? 1.0 : 0.0;
  return std::clamp((v - lo) / (hi - lo), 0.0, 1.0);
}

Point2 normalised(const ObjPoint& p, const Bounds& b) {
  return {normalise(p.throughput, b.throughput_min, b.throughput_max),
          normalise(p.accuracy, b.accuracy_min, b.accuracy_max)};
}

// Checks the space columns and the indices a search evaluated.
Status check_space(const std::vector<double>& throughput, const std::vector<double>& final_accuracy) {
  if (throughput.size() != final_accuracy.size())
    return Status::invalid(
        fmt::format("frontier metrics: {} throughputs but {} final accuracies (one each per network)",
                    throughput.size(), final_accuracy.size()));
  if (throughput.empty()) return Status::invalid("frontier metrics: the space is empty");
  size_t known = 0;
  for (size_t i = 0; i < throughput.size(); ++i) {
    if (!std::isfinite(throughput[i]))
      return Status::invalid(fmt::format("frontier metrics: throughput of network {} is {}", i, throughput[i]));
    if (std::isnan(final_accuracy[i])) continue;  // unknown: not part of the reference
    if (!std::isfinite(final_accuracy[i]))
      return Status::invalid(fmt::format("frontier metrics: final accuracy of network {} is {}", i, final_accuracy[i]));
    ++known;
  }
  if (known == 0) return Status::invalid("frontier metrics: no network has a known final accuracy");
  return Status::ok();
}

// The networks with a known (not NaN) final accuracy.
std::vector<int64_t> known_networks(const std::vector<double>& final_accuracy) {
  std::vector<int64_t> ids;
  for (size_t i = 0; i < final_accuracy.size(); ++i)
    if (!std::isnan(final_accuracy[i])) ids.push_back(static_cast<int64_t>(i));
  return ids;
}

Status check_indices(const std::vector<int64_t>& evaluated, const std::vector<double>& final_accuracy) {
  const size_t n = final_accuracy.size();
  for (size_t k = 0; k < evaluated.size(); ++k) {
    if (evaluated[k] < 0 || static_cast<uint64_t>(evaluated[k]) >= n)
      return Status::invalid(fmt::format("frontier metrics: evaluation {} names network {}, outside the space 0..{}", k,
                                         evaluated[k], n - 1));
    if (std::isnan(final_accuracy[static_cast<size_t>(evaluated[k])]))
      return Status::invalid(
          fmt::format("frontier metrics: evaluation {} names network {}, whose final accuracy is "
                      "not known",
                      k, evaluated[k]));
  }
  return Status::ok();
}

// Frontier of the networks `ids` (distinct) under (throughput, accuracy): SSS indices,
// throughput ascending.
std::vector<int64_t> frontier_of(const std::vector<int64_t>& ids, const std::vector<double>& throughput,
                                 const std::vector<double>& accuracy) {
  std::vector<Point2> pts(ids.size());
  for (size_t k = 0; k < ids.size(); ++k) pts[k] = {throughput[ids[k]], accuracy[ids[k]]};
  auto f = pareto_front_2d(pts);
  ROOFLENS_ASSERT(f.has_value());  // values were checked finite
  std::vector<int64_t> out;
  out.reserve(f->size());
  for (size_t k : *f) out.push_back(ids[k]);
  return out;
}

std::vector<ObjPoint> objectives(const std::vector<int64_t>& ids, const std::vector<double>& throughput,
                                 const std::vector<double>& accuracy) {
  std::vector<ObjPoint> out;
  out.reserve(ids.size());
  for (int64_t i : ids) out.push_back({throughput[i], accuracy[i]});
  return out;
}

}  // namespace

Expected<Bounds> bounds_of(const std::vector<ObjPoint>& points) {
  if (points.empty()) return Status::invalid("frontier metrics: bounds of an empty set of points");
  Bounds b{points[0].throughput, points[0].throughput, points[0].accuracy, points[0].accuracy};
  for (size_t i = 0; i < points.size(); ++i) {
    const ObjPoint& p = points[i];
    if (!std::isfinite(p.throughput) || !std::isfinite(p.accuracy))
      return Status::invalid(fmt::format("frontier metrics: point {} is not finite (throughput {}, accuracy {})", i,
                                         p.throughput, p.accuracy));
    b.throughput_min = std::min(b.throughput_min, p.throughput);
    b.throughput_max = std::max(b.throughput_max, p.throughput);
    b.accuracy_min = std::min(b.accuracy_min, p.accuracy);
    b.accuracy_max = std::max(b.accuracy_max, p.accuracy);
  }
  return b;
}

double hypervolume(const std::vector<ObjPoint>& points, const Bounds& bounds) {
  std::vector<Point2> pts;
  pts.reserve(points.size());
  for (const ObjPoint& p : points)
    if (!std::isnan(p.throughput) && !std::isnan(p.accuracy)) pts.push_back(normalised(p, bounds));
  auto f = pareto_front_2d(pts);
  ROOFLENS_ASSERT(f.has_value());  // NaNs were dropped
  // Frontier by x ascending, y descending: each point adds the strip between the previous
  // point's x and its own, up to its y.
  double area = 0, prev_x = 0;
  for (size_t k : *f) {
    area += (pts[k].x - prev_x) * pts[k].y;
    prev_x = pts[k].x;
  }
  return area;
}

Expected<double> igd(const std::vector<ObjPoint>& truth, const std::vector<ObjPoint>& found, const Bounds& bounds) {
  if (truth.empty()) return Status::invalid("frontier metrics: IGD needs a non-empty true frontier");
  auto nan = [](const ObjPoint& p) { return std::isnan(p.throughput) || std::isnan(p.accuracy); };
  for (size_t i = 0; i < truth.size(); ++i)
    if (nan(truth[i])) return Status::invalid(fmt::format("frontier metrics: true-frontier point {} has a NaN", i));
  for (size_t i = 0; i < found.size(); ++i)
    if (nan(found[i])) return Status::invalid(fmt::format("frontier metrics: found point {} has a NaN", i));
  if (found.empty()) return std::numeric_limits<double>::infinity();
  std::vector<Point2> f(found.size());
  for (size_t i = 0; i < found.size(); ++i) f[i] = normalised(found[i], bounds);
  double sum = 0;
  for (const ObjPoint& t : truth) {
    const Point2 a = normalised(t, bounds);
    double best = std::numeric_limits<double>::infinity();
    for (const Point2& b : f) best = std::min(best, std::hypot(a.x - b.x, a.y - b.y));
    sum += best;
  }
  return sum / static_cast<double>(truth.size());
}

Expected<std::vector<int64_t>> true_frontier(const std::vector<double>& throughput,
                                             const std::vector<double>& final_accuracy) {
  ROOFLENS_RETURN_IF_ERROR(check_space(throughput, final_accuracy));
  return frontier_of(known_networks(final_accuracy), throughput, final_accuracy);
}

Expected<std::vector<int64_t>> evaluated_frontier(const std::vector<int64_t>& evaluated,
                                                  const std::vector<double>& throughput,
                                                  const std::vector<double>& final_accuracy) {
  ROOFLENS_RETURN_IF_ERROR(check_space(throughput, final_accuracy));
  ROOFLENS_RETURN_IF_ERROR(check_indices(evaluated, final_accuracy));
  const std::set<int64_t> distinct(evaluated.begin(), evaluated.end());
  return frontier_of({distinct.begin(), distinct.end()}, throughput, final_accuracy);
}

Expected<FrontierScore> score_search(const std::vector<int64_t>& evaluated, const std::vector<double>& throughput,
                                     const std::vector<double>& final_accuracy) {
  auto found = evaluated_frontier(evaluated, throughput, final_accuracy);
  if (!found) return found.status();
  auto truth = true_frontier(throughput, final_accuracy);
  if (!truth) return truth.status();
  auto bounds = bounds_of(objectives(known_networks(final_accuracy), throughput, final_accuracy));
  if (!bounds) return bounds.status();

  const std::vector<ObjPoint> truth_pts = objectives(*truth, throughput, final_accuracy);
  const std::vector<ObjPoint> found_pts = objectives(*found, throughput, final_accuracy);
  FrontierScore s;
  const double hv_truth = hypervolume(truth_pts, *bounds), hv_found = hypervolume(found_pts, *bounds);
  if (hv_truth > 0)
    s.hypervolume_ratio = hv_found / hv_truth;
  else
    s.hypervolume_ratio = found_pts.empty() ? 0.0 : 1.0;
  auto d = igd(truth_pts, found_pts, *bounds);
  if (!d) return d.status();
  s.igd = *d;
  s.true_frontier_size = static_cast<int64_t>(truth->size());
  const std::set<int64_t> seen(evaluated.begin(), evaluated.end());
  for (int64_t i : *truth) s.true_frontier_found += seen.count(i) ? 1 : 0;
  return s;
}

}  // namespace rooflens::nas
