// Judging a NAS experiment's runs against the oracle's final accuracies: each run's score
// against the true accuracy-throughput frontier (frontier_metrics.h), the frontier it found,
// the final accuracy of what it returns, and the utilization-accuracy rank correlation over
// the networks the runs evaluated. Plain data; report/nas_report.h formats it.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "rooflens/nas/frontier_metrics.h"
#include "rooflens/nas/search.h"
#include "rooflens/util/status.h"

namespace rooflens::nas {

// One search run (one strategy, one seed) and how it scored.
struct JudgedRun {
  SearchResult result;
  // Against the true frontier (score_search); set when the final accuracy is known.
  std::optional<FrontierScore> score;
  // Final accuracy (percent) of the network the run returns (result.best_arch), when known.
  std::optional<double> best_final_accuracy;
  // The run's found frontier under the final accuracy (evaluated_frontier: SSS indices,
  // throughput ascending); empty when the final accuracy is unknown (then result.frontier,
  // under the accuracy the search saw, is what the run found).
  std::vector<int64_t> found_frontier;
};

struct JudgedExperiment {
  // The whole space (points[i].index == i); not owned: it must outlive this.
  const SpaceTable* space = nullptr;
  // Positions in space->points of the throughput-utilization frontier (sss_frontier).
  std::vector<size_t> space_frontier;
  // Percent, one per network of the space (index order), the oracle's final accuracy; empty
  // when it is not known (then there is no true frontier and no score). NaN marks a network
  // whose final accuracy is unknown (a training oracle knows only what it trained): the
  // "true" frontier and the scores are then over the known networks only (the reference
  // frontier, frontier_metrics.h).
  std::vector<double> final_accuracy;
  // The true accuracy-throughput frontier (true_frontier); empty iff final_accuracy is.
  std::vector<int64_t> true_frontier;
  // Networks whose final accuracy is known (not NaN); the space's size when it covers the space.
  int64_t final_known_networks = 0;
  // Spearman rank correlation of utilization (space table) and final accuracy over the
  // distinct networks the runs evaluated whose final accuracy is known (the paper's Figure 3
  // finding: accuracy rises with utilization); nullopt with fewer than 3 such networks.
  std::optional<double> utilization_accuracy_spearman;
  int64_t correlation_networks = 0;
  // The runs, in the order given.
  std::vector<JudgedRun> runs;
};

// One run: when `final_accuracy` is not empty, its score, best_final_accuracy and
// found_frontier. Errors: final_accuracy's length is not the space's, a non-finite value, an
// evaluation naming a network outside the space.
Expected<JudgedRun> judge_run(SearchResult result, const SpaceTable& space, const std::vector<double>& final_accuracy);

// Every run, the space's throughput-utilization frontier, the true frontier and the
// correlation. `space` must outlive the result. Errors as judge_run, and an empty space or one
// whose points[i].index != i.
Expected<JudgedExperiment> judge_experiment(const SpaceTable& space, std::vector<double> final_accuracy,
                                            std::vector<SearchResult> results);

}  // namespace rooflens::nas
