// Judging a NAS experiment (judge.h): scores, found and true frontiers, the correlation.
#include "rooflens/nas/judge.h"

#include <cmath>
#include <set>

#include <fmt/format.h>

#include "rooflens/nas/sss_study.h"
#include "rooflens/util/rank_correlation.h"

namespace rooflens::nas {
namespace {

std::vector<double> throughputs(const SpaceTable& space) {
  std::vector<double> t(space.points.size());
  for (size_t i = 0; i < t.size(); ++i) t[i] = space.points[i].throughput;
  return t;
}

}  // namespace

Expected<JudgedRun> judge_run(SearchResult result, const SpaceTable& space, const std::vector<double>& final_accuracy) {
  JudgedRun s;
  const size_t n = space.points.size();
  for (const auto& e : result.evaluations)
    if (e.arch < 0 || static_cast<size_t>(e.arch) >= n)
      return Status::invalid(fmt::format("nas report: evaluation {} names network {}, outside the space 0..{}", e.step,
                                         e.arch, static_cast<int64_t>(n) - 1));
  for (size_t pos : result.frontier)
    if (pos >= result.evaluations.size())
      return Status::invalid(
          fmt::format("nas report: the found frontier names evaluation {} of {}", pos, result.evaluations.size()));
  if (!final_accuracy.empty()) {
    std::vector<int64_t> evaluated;
    evaluated.reserve(result.evaluations.size());
    for (const auto& e : result.evaluations) evaluated.push_back(e.arch);
    const std::vector<double> thr = throughputs(space);
    auto score = score_search(evaluated, thr, final_accuracy);
    if (!score) return score.status().with_context("nas report");
    auto found = evaluated_frontier(evaluated, thr, final_accuracy);
    if (!found) return found.status().with_context("nas report");
    s.score = *score;
    s.found_frontier = std::move(*found);
    if (result.best_arch >= 0 && static_cast<size_t>(result.best_arch) < n)
      s.best_final_accuracy = final_accuracy[result.best_arch];
  }
  s.result = std::move(result);
  return s;
}

Expected<JudgedExperiment> judge_experiment(const SpaceTable& space, std::vector<double> final_accuracy,
                                            std::vector<SearchResult> results) {
  if (space.points.empty()) return Status::invalid("nas report: the space table is empty");
  for (size_t i = 0; i < space.points.size(); ++i)
    if (space.points[i].index != static_cast<int64_t>(i))
      return Status::invalid(
          fmt::format("nas report: space point {} has index {} (expected index order)", i, space.points[i].index));
  JudgedExperiment in;
  in.space = &space;
  auto tu = sss_frontier(space.points);
  if (!tu) return tu.status().with_context("nas report");
  in.space_frontier = std::move(*tu);
  if (!final_accuracy.empty()) {
    auto truth = true_frontier(throughputs(space), final_accuracy);
    if (!truth) return truth.status().with_context("nas report");
    in.true_frontier = std::move(*truth);
  }
  in.final_accuracy = std::move(final_accuracy);
  for (double f : in.final_accuracy) in.final_known_networks += std::isnan(f) ? 0 : 1;
  for (auto& r : results) {
    auto s = judge_run(std::move(r), space, in.final_accuracy);
    if (!s) return s.status();
    in.runs.push_back(std::move(*s));
  }
  if (!in.final_accuracy.empty()) {
    std::set<int64_t> seen;
    std::vector<double> util, acc;
    for (const auto& run : in.runs)
      for (const auto& e : run.result.evaluations)
        if (seen.insert(e.arch).second && !std::isnan(in.final_accuracy[e.arch])) {
          util.push_back(space.points[e.arch].utilization);
          acc.push_back(in.final_accuracy[e.arch]);
        }
    in.correlation_networks = static_cast<int64_t>(util.size());
    if (util.size() >= 3) in.utilization_accuracy_spearman = spearman(util, acc);
  }
  return in;
}

}  // namespace rooflens::nas
