// FIXTURE (made up, not measured, not NATS-Bench data): a NAS-report input built from a
// synthetic space whose throughput, utilization and final accuracy are deterministic
// functions of each network's widths, and a few fake search runs over it (an approximate
// filter, REINFORCE with nine seeds, random search with three). Shared by the unit test
// (tests/unit/nas_report_test.cpp) and the browser check (tests/report/nas_html_browser_test.cpp).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "rooflens/nas/search.h"
#include "rooflens/nas/sss_space.h"
#include "rooflens/nas/sss_study.h"

namespace rooflens::test {

// A deterministic hash of (a, b) in [0, 1) (splitmix64).
inline double nas_fixture_hash(uint64_t a, uint64_t b) {
  uint64_t z = a * 0x9E3779B97F4A7C15ull + b + 0x632BE59BD9B4E019ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return static_cast<double>(z >> 11) / 9007199254740992.0;
}

// A made-up cost per network: widths squared, weighted by a made-up resolution per layer.
inline double nas_fixture_cost(int64_t index) {
  const SssWidths w = sss_widths(index);
  const double weight[kSssNumLayers] = {4, 4, 2, 1, 1};
  double c = 0;
  for (int k = 0; k < kSssNumLayers; ++k) c += weight[k] * static_cast<double>(w[k] * w[k]);
  return c;  // 768 .. 49152
}

// The first `n` networks of the size space (n <= kSssSpaceSize) with made-up numbers.
inline nas::SpaceTable make_test_nas_space(int64_t n = kSssSpaceSize) {
  nas::SpaceTable t;
  t.source = "FIXTURE: made-up throughput and utilization (not predicted, not measured)";
  t.points.reserve(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    const double c = nas_fixture_cost(i);
    SssPoint p;
    p.index = i;
    p.arch = sss_arch_string(i);
    p.macs = static_cast<int64_t>(c * 1000);
    p.flop_benchmark = p.macs + 10;
    p.flops = 2 * p.macs;
    p.params = static_cast<int64_t>(c * 3);
    p.batch = 256;
    p.throughput = 4e5 * 2000 / (c + 2000) * (0.9 + 0.2 * nas_fixture_hash(i, 1));
    p.utilization = 0.02 + 0.35 * std::sqrt(c / 49152) * (0.6 + 0.4 * nas_fixture_hash(i, 2));
    p.ai = 10 + 40 * p.utilization;
    t.points.push_back(p);
  }
  return t;
}

// Made-up final accuracy (percent) per network: rises with cost, plus a little noise.
inline std::vector<double> make_test_final_accuracy(const nas::SpaceTable& space) {
  std::vector<double> a(space.points.size());
  for (size_t i = 0; i < a.size(); ++i) {
    const double c = nas_fixture_cost(static_cast<int64_t>(i));
    a[i] = 68 + 26 * (1 - std::exp(-c / 9000)) + 3 * (nas_fixture_hash(i, 3) - 0.5);
  }
  return a;
}

// One fake run that evaluated `archs` in order; the search sees the final accuracy plus
// noise (so its own frontier differs a little from the final-accuracy one).
inline nas::SearchResult make_test_run(const nas::SpaceTable& space, const std::vector<double>& final_accuracy,
                                       nas::StrategyKind strategy, uint64_t seed, const std::vector<int64_t>& archs,
                                       nas::RewardKind reward = nas::RewardKind::kAccuracy) {
  nas::SearchResult r;
  r.config.strategy = strategy;
  r.config.seed = seed;
  r.config.reward.kind = reward;
  double clock = 0;
  for (size_t k = 0; k < archs.size(); ++k) {
    const SssPoint& p = space.points[static_cast<size_t>(archs[k])];
    nas::EvalRecord e;
    e.step = static_cast<int64_t>(k);
    e.arch = archs[k];
    e.accuracy = final_accuracy[static_cast<size_t>(archs[k])] + 2 * (nas_fixture_hash(seed * 7919 + k, 4) - 0.5);
    e.cost_seconds = 60 + nas_fixture_cost(archs[k]) / 400;
    clock += e.cost_seconds;
    e.clock_seconds = clock;
    e.throughput = p.throughput;
    e.utilization = p.utilization;
    e.reward = nas::compute_reward(r.config.reward, e.accuracy, e.throughput);
    e.oracle_seed = seed * 1000 + k;
    if (r.best_arch < 0 || e.reward > r.best_reward) {
      r.best_arch = e.arch;
      r.best_reward = e.reward;
    }
    r.evaluations.push_back(e);
  }
  r.clock_seconds = clock;
  r.frontier = nas::found_frontier(r.evaluations);
  if (strategy == nas::StrategyKind::kFilter) r.filter_candidates = archs;
  return r;
}

// `count` made-up draws of seed `seed`, biased towards wide networks by `bias` in [0, 1].
inline std::vector<int64_t> make_test_draws(const nas::SpaceTable& space, uint64_t seed, int count, double bias) {
  std::vector<int64_t> out;
  const auto n = static_cast<int64_t>(space.points.size());
  for (int k = 0; k < count; ++k) {
    int64_t i = static_cast<int64_t>(nas_fixture_hash(seed * 104729 + k, 5) * static_cast<double>(n));
    if (nas_fixture_hash(seed, k) < bias) i = n - 1 - i / 8;  // the widest networks sit at high indices
    out.push_back(std::clamp<int64_t>(i, 0, n - 1));
  }
  return out;
}

// The runs of the fixture: the filter over the throughput-utilization frontier, nine
// REINFORCE seeds (seed 4 much worse: few draws) and three random-search seeds.
inline std::vector<nas::SearchResult> make_test_nas_runs(const nas::SpaceTable& space,
                                                         const std::vector<double>& final_accuracy) {
  std::vector<nas::SearchResult> runs;
  auto tu = sss_frontier(space.points);
  std::vector<int64_t> cand;
  if (tu)
    for (size_t i : *tu) cand.push_back(static_cast<int64_t>(i));
  runs.push_back(make_test_run(space, final_accuracy, nas::StrategyKind::kFilter, 0, cand));
  for (uint64_t s = 0; s < 9; ++s)
    runs.push_back(make_test_run(space, final_accuracy, nas::StrategyKind::kReinforce, s,
                                 make_test_draws(space, s, s == 4 ? 12 : 150, 0.3), nas::RewardKind::kSoft));
  for (uint64_t s = 0; s < 3; ++s)
    runs.push_back(
        make_test_run(space, final_accuracy, nas::StrategyKind::kRandom, s, make_test_draws(space, 100 + s, 120, 0)));
  return runs;
}

}  // namespace rooflens::test
