// run_async_search (async_search.h): random, filter, REA and REINFORCE dispatching to a pool of
// workers on the simulated clock of N parallel workers. Each strategy draws from the run's
// SearchRng in the same order as search_run.cpp does, so one worker reproduces run_search.
#include <algorithm>
#include <cmath>
#include <deque>
#include <map>

#include <fmt/format.h>

#include "rooflens/nas/async_search.h"

#include "search_choices.h"

namespace rooflens::nas {
namespace {

using detail::arch_of;
using detail::choices_of;
using detail::random_choices;

struct Member {
  int64_t arch;
  double reward;
};

struct InFlight {
  int64_t arch = 0;
  uint64_t oracle_seed = 0;
  int worker = -1;
  double start = 0;
  std::array<int, kSssNumLayers> actions{};  // REINFORCE's sample
};

class AsyncRun {
 public:
  AsyncRun(const SearchConfig& config, const SpaceTable& space, EvalPool& pool, const EvalSink& sink,
           const LostSink& on_lost)
      : config_(config), space_(space), pool_(pool), sink_(sink), on_lost_(on_lost), rng_(config.seed) {
    result_.config = config;
    busy_until_.assign(static_cast<size_t>(pool.workers()), 0.0);
    busy_.assign(static_cast<size_t>(pool.workers()), false);
  }

  Status run() {
    if (config_.strategy == StrategyKind::kFilter) {
      auto c = filter_candidates(config_, space_);
      if (!c) return c.status();
      result_.filter_candidates = std::move(*c);
      // The space table's cost delays every worker's first evaluation (run_filter charges it first).
      if (config_.filter_space_cost_seconds > 0) {
        for (double& b : busy_until_) b = 0.0 + config_.filter_space_cost_seconds;
        clock_ = 0.0 + config_.filter_space_cost_seconds;
      }
    }
    if (config_.strategy == StrategyKind::kReinforce) {
      policy_.emplace(rng_, config_.reinforce_lr);  // draws its logits first, as run_reinforce does
      baseline_.emplace(config_.reinforce_momentum);
    }
    for (;;) {
      ROOFLENS_RETURN_IF_ERROR(dispatch_to_free_workers());
      if (in_flight_.empty()) break;
      auto done = pool_.wait_any();
      if (!done) return done.status();
      ROOFLENS_RETURN_IF_ERROR(arrive(*done));
    }
    return Status::ok();
  }

  SearchResult& result() { return result_; }
  double clock() const { return clock_; }

 private:
  bool under_cap() const { return config_.max_evaluations <= 0 || dispatched_ < config_.max_evaluations; }

  // Gives every live idle worker a job, in worker order, while the strategy has one for it.
  Status dispatch_to_free_workers() {
    for (int w = 0; w < pool_.workers(); ++w) {
      if (busy_[static_cast<size_t>(w)] || !pool_.alive(w)) continue;
      const double start = std::max(busy_until_[static_cast<size_t>(w)], event_time_);
      InFlight job;
      if (!next_job(start, job)) return Status::ok();  // nothing for this worker: none for the others
      job.worker = w;
      job.start = start;
      job.oracle_seed = rng_.next();  // after the network, as Run::evaluate draws it
      const int64_t ticket = dispatched_++;
      ROOFLENS_RETURN_IF_ERROR(pool_.submit(w, {ticket, job.arch, job.oracle_seed}));
      busy_[static_cast<size_t>(w)] = true;
      in_flight_[ticket] = job;
    }
    return Status::ok();
  }

  // The strategy's next network for a worker starting at `start`; false when it has none now.
  bool next_job(double start, InFlight& job) {
    if (!under_cap()) return false;
    const bool time_left = start < config_.budget_seconds;
    switch (config_.strategy) {
      case StrategyKind::kRandom:
        if (!time_left) return false;
        job.arch = arch_of(random_choices(rng_));
        return true;
      case StrategyKind::kFilter:
        if (!time_left || next_candidate_ >= result_.filter_candidates.size()) return false;
        job.arch = result_.filter_candidates[next_candidate_++];
        return true;
      case StrategyKind::kRea: {
        if (initial_dispatched_ < config_.rea_population) {  // no budget check, as the benchmark
          ++initial_dispatched_;
          job.arch = arch_of(random_choices(rng_));
          return true;
        }
        if (!time_left || population_.empty()) return false;  // empty: wait for the first result
        // Tournament drawn with replacement; the first best wins ties (Python's max).
        const Member* parent = nullptr;
        for (int k = 0; k < config_.rea_tournament; ++k) {
          const Member& m = population_[rng_.uniform_index(population_.size())];
          if (parent == nullptr || m.reward > parent->reward) parent = &m;
        }
        auto child = choices_of(parent->arch);
        const auto layer = rng_.uniform_index(kSssNumLayers);
        child[layer] = static_cast<int>(rng_.uniform_index(kSssNumChoices));
        job.arch = arch_of(child);
        return true;
      }
      case StrategyKind::kReinforce:
        if (!time_left || !in_flight_.empty()) return false;  // one at a time
        job.actions = policy_->sample(rng_);
        job.arch = arch_of(job.actions);
        return true;
    }
    return false;
  }

  Status arrive(const PoolDone& done) {
    auto it = in_flight_.find(done.ticket);
    if (it == in_flight_.end())
      return Status::internal(fmt::format("evaluation pool returned ticket {}, which is not out", done.ticket));
    const InFlight job = it->second;
    in_flight_.erase(it);
    busy_[static_cast<size_t>(job.worker)] = false;
    if (done.worker_lost) {
      LostEvaluation l;
      l.arch = job.arch;
      l.oracle_seed = job.oracle_seed;
      l.worker = job.worker;
      l.where = done.where;
      l.start_seconds = job.start;
      l.reason = done.reason;
      result_.lost.push_back(l);
      if (on_lost_) ROOFLENS_RETURN_IF_ERROR(on_lost_(l));
      bool any = false;
      for (int w = 0; w < pool_.workers(); ++w) any = any || pool_.alive(w);
      if (!any)
        return Status::unavailable(fmt::format("{} search, seed {}: every worker of the pool ({}) was lost",
                                               strategy_kind_name(config_.strategy), config_.seed, pool_.describe()));
      return Status::ok();
    }
    const int64_t step = static_cast<int64_t>(result_.evaluations.size());
    if (!done.evaluation)
      return done.evaluation.status().with_context(
          fmt::format("{} search, seed {}, step {} (network {}, {})", strategy_kind_name(config_.strategy),
                      config_.seed, step, job.arch, sss_arch_string(job.arch)));
    const Evaluation& e = *done.evaluation;
    if (!std::isfinite(e.cost_seconds) || e.cost_seconds < 0 || !std::isfinite(e.accuracy))
      return Status::invalid(fmt::format("step {} (network {}): evaluation returned accuracy {} and cost {} s; "
                                         "expected finite numbers, cost >= 0",
                                         step, job.arch, e.accuracy, e.cost_seconds));
    const double end = job.start + e.cost_seconds;
    busy_until_[static_cast<size_t>(job.worker)] = end;
    event_time_ = end;
    clock_ = std::max(clock_, end);
    const SssPoint& p = space_.points[static_cast<size_t>(job.arch)];
    EvalRecord r;
    r.step = step;
    r.arch = job.arch;
    r.accuracy = e.accuracy;
    r.cost_seconds = e.cost_seconds;
    r.clock_seconds = end;
    r.throughput = e.throughput.value_or(p.throughput);
    r.utilization = e.utilization.value_or(p.utilization);
    if (!(r.throughput > 0) || !std::isfinite(r.throughput) || !std::isfinite(r.utilization))
      return Status::invalid(fmt::format("step {} (network {}): throughput {} images/s, utilization {}; expected "
                                         "finite numbers, throughput > 0",
                                         step, job.arch, r.throughput, r.utilization));
    r.reward = compute_reward(config_.reward, e.accuracy, r.throughput);
    r.oracle_seed = job.oracle_seed;
    r.where = done.where;
    if (sink_) ROOFLENS_RETURN_IF_ERROR(sink_(r));
    result_.evaluations.push_back(r);
    if (config_.strategy == StrategyKind::kRea) {
      population_.push_back({r.arch, r.reward});
      while (static_cast<int>(population_.size()) > config_.rea_population) population_.pop_front();
    } else if (config_.strategy == StrategyKind::kReinforce) {
      baseline_->update(r.reward);  // before the advantage: the first advantage is 0
      policy_->update(job.actions, r.reward - baseline_->value());
    }
    return Status::ok();
  }

  const SearchConfig& config_;
  const SpaceTable& space_;
  EvalPool& pool_;
  const EvalSink& sink_;
  const LostSink& on_lost_;
  SearchRng rng_;
  SearchResult result_;
  std::vector<double> busy_until_;
  std::vector<bool> busy_;
  std::map<int64_t, InFlight> in_flight_;  // by ticket
  double event_time_ = 0;                  // simulated time of the latest completion processed
  double clock_ = 0;
  int64_t dispatched_ = 0;
  size_t next_candidate_ = 0;
  int initial_dispatched_ = 0;
  std::deque<Member> population_;
  std::optional<ReinforcePolicy> policy_;
  std::optional<EmaBaseline> baseline_;
};

}  // namespace

Expected<SearchResult> run_async_search(const SearchConfig& config, const SpaceTable& space, EvalPool& pool,
                                        const EvalSink& sink, const LostSink& on_lost) {
  ROOFLENS_RETURN_IF_ERROR(validate_config(config));
  if (pool.workers() < 1) return Status::invalid("evaluation pool without workers");
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
  AsyncRun run(config, space, pool, sink, on_lost);
  ROOFLENS_RETURN_IF_ERROR(run.run());
  SearchResult& result = run.result();
  result.clock_seconds = run.clock();
  for (const EvalRecord& r : result.evaluations)
    if (result.best_arch < 0 || r.reward > result.best_reward) {
      result.best_arch = r.arch;
      result.best_reward = r.reward;
    }
  result.frontier = found_frontier(result.evaluations);
  return std::move(result);
}

}  // namespace rooflens::nas
