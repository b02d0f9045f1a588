// run_search (search.h): the four strategies on a simulated clock, each written as the
// benchmark writes it (nats-sss.md section 4), around one shared "evaluate a network" step.
#include <algorithm>
#include <cmath>
#include <deque>
#include <numeric>

#include <fmt/format.h>

#include "rooflens/nas/search.h"
#include "rooflens/util/pareto.h"

#include "search_choices.h"

namespace rooflens::nas {
namespace {

using detail::arch_of;
using detail::choices_of;
using detail::random_choices;

// The state every strategy shares: clock, rng, records, and the one evaluate step.
class Run {
 public:
  Run(const SearchConfig& config, const SpaceTable& space, const EvalSource& source, const EvalSink& sink)
      : config_(config), space_(space), source_(source), sink_(sink), rng_(config.seed) {
    clock_ = *SimClock::with_budget(config.budget_seconds);
    result_.config = config;
  }

  // Time left on the clock and under the evaluation cap (SearchConfig::max_evaluations).
  bool has_time_left() const { return clock_.has_time_left() && under_cap(); }
  bool under_cap() const {
    return config_.max_evaluations <= 0 || static_cast<int64_t>(result_.evaluations.size()) < config_.max_evaluations;
  }

  SearchRng& rng() { return rng_; }
  SimClock& clock() { return clock_; }
  SearchResult& result() { return result_; }

  // Draws the oracle seed, evaluates, charges, rewards, logs. Returns the reward.
  Expected<double> evaluate(int64_t arch) {
    const uint64_t oracle_seed = rng_.next();
    const int64_t step = static_cast<int64_t>(result_.evaluations.size());
    auto e = source_(step, arch, oracle_seed);
    if (!e)
      return e.status().with_context(
          fmt::format("{} search, seed {}, step {} (network {}, {})", strategy_kind_name(config_.strategy),
                      config_.seed, step, arch, sss_arch_string(arch)));
    if (!std::isfinite(e->cost_seconds) || e->cost_seconds < 0 || !std::isfinite(e->accuracy))
      return Status::invalid(fmt::format("step {} (network {}): evaluation returned accuracy {} and cost {} s; "
                                         "expected finite numbers, cost >= 0",
                                         step, arch, e->accuracy, e->cost_seconds));
    clock_.charge(e->cost_seconds);
    const SssPoint& p = space_.points[static_cast<size_t>(arch)];
    EvalRecord r;
    r.step = step;
    r.arch = arch;
    r.accuracy = e->accuracy;
    r.cost_seconds = e->cost_seconds;
    r.clock_seconds = clock_.now();
    r.throughput = e->throughput.value_or(p.throughput);
    r.utilization = e->utilization.value_or(p.utilization);
    if (!(r.throughput > 0) || !std::isfinite(r.throughput) || !std::isfinite(r.utilization))
      return Status::invalid(fmt::format("step {} (network {}): throughput {} images/s, utilization {}; expected "
                                         "finite numbers, throughput > 0",
                                         step, arch, r.throughput, r.utilization));
    r.reward = compute_reward(config_.reward, e->accuracy, r.throughput);
    r.oracle_seed = oracle_seed;
    if (sink_) ROOFLENS_RETURN_IF_ERROR(sink_(r));
    result_.evaluations.push_back(r);
    return r.reward;
  }

 private:
  const SearchConfig& config_;
  const SpaceTable& space_;
  const EvalSource& source_;
  const EvalSink& sink_;
  SearchRng rng_;
  SimClock clock_;
  SearchResult result_;
};

Status run_random(Run& run) {
  while (run.has_time_left()) {
    auto r = run.evaluate(arch_of(random_choices(run.rng())));
    if (!r) return r.status();
  }
  return Status::ok();
}

Status run_rea(Run& run, const SearchConfig& config) {
  struct Member {
    int64_t arch;
    double reward;
  };
  std::deque<Member> population;
  // The initial population is evaluated without a budget check, as the benchmark does.
  while (static_cast<int>(population.size()) < config.rea_population && run.under_cap()) {
    const int64_t arch = arch_of(random_choices(run.rng()));
    auto r = run.evaluate(arch);
    if (!r) return r.status();
    population.push_back({arch, *r});
  }
  while (run.has_time_left()) {
    // Tournament drawn with replacement; the first best wins ties (Python's max).
    const Member* parent = nullptr;
    for (int k = 0; k < config.rea_tournament; ++k) {
      const Member& m = population[run.rng().uniform_index(population.size())];
      if (parent == nullptr || m.reward > parent->reward) parent = &m;
    }
    // Mutation: one random layer gets a random width (possibly the one it had).
    auto child = choices_of(parent->arch);
    const auto layer = run.rng().uniform_index(kSssNumLayers);
    child[layer] = static_cast<int>(run.rng().uniform_index(kSssNumChoices));
    const int64_t arch = arch_of(child);
    auto r = run.evaluate(arch);
    if (!r) return r.status();
    population.push_back({arch, *r});
    population.pop_front();
  }
  return Status::ok();
}

Status run_reinforce(Run& run, const SearchConfig& config) {
  ReinforcePolicy policy(run.rng(), config.reinforce_lr);
  EmaBaseline baseline(config.reinforce_momentum);
  while (run.has_time_left()) {
    const auto actions = policy.sample(run.rng());
    auto r = run.evaluate(arch_of(actions));
    if (!r) return r.status();
    baseline.update(*r);  // before the advantage: the first advantage is 0
    policy.update(actions, *r - baseline.value());
  }
  return Status::ok();
}

// Positions 0 and n-1, then breadth-first midpoints of the intervals between positions
// already taken: any prefix covers the range evenly.
std::vector<size_t> spread_order(size_t n) {
  std::vector<size_t> order;
  if (n == 0) return order;
  order.push_back(0);
  if (n == 1) return order;
  order.push_back(n - 1);
  std::deque<std::pair<size_t, size_t>> q{{0, n - 1}};
  while (!q.empty()) {
    auto [lo, hi] = q.front();
    q.pop_front();
    if (hi - lo < 2) continue;
    const size_t mid = lo + (hi - lo) / 2;
    order.push_back(mid);
    q.push_back({lo, mid});
    q.push_back({mid, hi});
  }
  return order;
}

}  // namespace

Expected<std::vector<int64_t>> filter_candidates(const SearchConfig& config, const SpaceTable& space) {
  std::vector<Point2> pts(space.points.size());
  for (size_t i = 0; i < pts.size(); ++i) pts[i] = {space.points[i].throughput, space.points[i].utilization};
  auto front = pareto_front_2d(pts);
  if (!front) return front.status().with_context("throughput-utilization frontier of the space");
  std::vector<size_t> order;
  switch (config.filter_order) {
    case FilterOrder::kSpread: order = spread_order(front->size()); break;
    case FilterOrder::kUtilization:
    case FilterOrder::kThroughput: {
      order.resize(front->size());
      std::iota(order.begin(), order.end(), size_t{0});
      const bool by_util = config.filter_order == FilterOrder::kUtilization;
      std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        const SssPoint& pa = space.points[(*front)[a]];
        const SssPoint& pb = space.points[(*front)[b]];
        return by_util ? pa.utilization > pb.utilization : pa.throughput > pb.throughput;
      });
      break;
    }
  }
  std::vector<int64_t> out;
  for (size_t k : order) out.push_back(static_cast<int64_t>((*front)[k]));
  return out;
}

namespace {

Status run_filter(Run& run, const SearchConfig& config, const SpaceTable& space) {
  auto cands = filter_candidates(config, space);
  if (!cands) return cands.status();
  run.result().filter_candidates = std::move(*cands);
  if (config.filter_space_cost_seconds > 0) run.clock().charge(config.filter_space_cost_seconds);
  for (int64_t arch : run.result().filter_candidates) {
    if (!run.has_time_left()) break;
    auto r = run.evaluate(arch);
    if (!r) return r.status();
  }
  return Status::ok();
}

}  // namespace

Expected<SearchResult> run_search(const SearchConfig& config, const SpaceTable& space, const EvalSource& source,
                                  const EvalSink& sink) {
  ROOFLENS_RETURN_IF_ERROR(validate_config(config));
  if (space.points.size() != static_cast<size_t>(kSssSpaceSize))
    return Status::invalid(fmt::format("space table holds {} networks; expected all {}", space.points.size(),
                                       kSssSpaceSize));
  for (size_t i = 0; i < space.points.size(); ++i) {
    const SssPoint& p = space.points[i];
    if (p.index != static_cast<int64_t>(i) || !(p.throughput > 0) || !std::isfinite(p.throughput) ||
        !std::isfinite(p.utilization))
      return Status::invalid(fmt::format("space table row {}: index {}, throughput {}, utilization {}; expected "
                                         "index order and finite throughput > 0",
                                         i, p.index, p.throughput, p.utilization));
  }
  Run run(config, space, source, sink);
  Status st;
  switch (config.strategy) {
    case StrategyKind::kRandom: st = run_random(run); break;
    case StrategyKind::kRea: st = run_rea(run, config); break;
    case StrategyKind::kReinforce: st = run_reinforce(run, config); break;
    case StrategyKind::kFilter: st = run_filter(run, config, space); break;
  }
  if (!st.is_ok()) return st;
  SearchResult& result = run.result();
  result.clock_seconds = run.clock().now();
  for (const EvalRecord& r : result.evaluations)
    if (result.best_arch < 0 || r.reward > result.best_reward) {
      result.best_arch = r.arch;
      result.best_reward = r.reward;
    }
  result.frontier = found_frontier(result.evaluations);
  return std::move(result);
}

EvalSource oracle_source(AccuracyOracle& oracle, ThroughputFn measure) {
  return [&oracle, measure = std::move(measure)](int64_t, int64_t arch, uint64_t oracle_seed) -> Expected<Evaluation> {
    auto e = oracle.evaluate(arch, oracle_seed);
    if (!e || !measure) return e;
    auto t = measure(arch);
    if (!t) return t.status().with_context(fmt::format("measuring network {} ({})", arch, sss_arch_string(arch)));
    e->throughput = t->first;
    e->utilization = t->second;
    return e;
  };
}

}  // namespace rooflens::nas
