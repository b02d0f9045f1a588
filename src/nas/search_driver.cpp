// The one search driver (search.h run_search, async_search.h run_async_search): any Strategy
// (strategy.h) over an EvalPool on the simulated clock of its workers. A sequential run is a
// pool of one worker that evaluates in the caller's thread (SourcePool below); threads
// (ThreadEvalPool) and MPI ranks (dist/) are other pools.
#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include <fmt/format.h>

#include "rooflens/nas/async_search.h"
#include "rooflens/nas/strategy.h"

namespace rooflens::nas {
namespace {

struct InFlight {
  int64_t arch = 0;
  uint64_t oracle_seed = 0;
  int worker = -1;
  double start = 0;
};

class SearchDriver {
 public:
  SearchDriver(const SearchConfig& config, const SpaceTable& space, EvalPool& pool, const EvalSink& sink,
               const LostSink& on_lost)
      : config_(config), space_(space), pool_(pool), sink_(sink), on_lost_(on_lost), rng_(config.seed) {
    result_.config = config;
    busy_until_.assign(static_cast<size_t>(pool.workers()), 0.0);
    busy_.assign(static_cast<size_t>(pool.workers()), false);
  }

  Status run() {
    auto strategy = make_strategy(config_, space_, rng_);
    if (!strategy) return strategy.status();
    strategy_ = std::move(*strategy);
    result_.filter_candidates = strategy_->candidates();
    // Time spent before the first evaluation (the filter's space table) delays every worker.
    clock_ = strategy_->start_seconds();
    for (double& b : busy_until_) b = clock_;
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
      if (!under_cap()) return Status::ok();
      const AskContext context{start < config_.budget_seconds, static_cast<int64_t>(in_flight_.size())};
      const std::optional<int64_t> arch = strategy_->ask(rng_, context);
      if (!arch) return Status::ok();  // nothing for this worker: none for the others
      InFlight job;
      job.arch = *arch;
      job.worker = w;
      job.start = start;
      job.oracle_seed = rng_.next();  // after the network
      const int64_t ticket = dispatched_++;
      ROOFLENS_RETURN_IF_ERROR(pool_.submit(w, {ticket, job.arch, job.oracle_seed}));
      busy_[static_cast<size_t>(w)] = true;
      in_flight_[ticket] = job;
    }
    return Status::ok();
  }

  Status lose(const InFlight& job, const PoolDone& done) {
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

  // The record of a finished evaluation: checks the numbers, rewards.
  Expected<EvalRecord> record(const InFlight& job, const Expected<Evaluation>& evaluation, int64_t step) const {
    if (!evaluation)
      return evaluation.status().with_context(fmt::format("{} search, seed {}, step {} (network {}, {})",
                                                          strategy_kind_name(config_.strategy), config_.seed, step,
                                                          job.arch, sss_arch_string(job.arch)));
    const Evaluation& e = *evaluation;
    if (!std::isfinite(e.cost_seconds) || e.cost_seconds < 0 || !std::isfinite(e.accuracy))
      return Status::invalid(
          fmt::format("step {} (network {}): evaluation returned accuracy {} and cost {} s; "
                      "expected finite numbers, cost >= 0",
                      step, job.arch, e.accuracy, e.cost_seconds));
    const SssPoint& p = space_.points[static_cast<size_t>(job.arch)];
    EvalRecord r;
    r.step = step;
    r.arch = job.arch;
    r.accuracy = e.accuracy;
    r.cost_seconds = e.cost_seconds;
    r.clock_seconds = job.start + e.cost_seconds;
    r.throughput = e.throughput.value_or(p.throughput);
    r.utilization = e.utilization.value_or(p.utilization);
    if (!(r.throughput > 0) || !std::isfinite(r.throughput) || !std::isfinite(r.utilization))
      return Status::invalid(
          fmt::format("step {} (network {}): throughput {} images/s, utilization {}; expected "
                      "finite numbers, throughput > 0",
                      step, job.arch, r.throughput, r.utilization));
    r.reward = compute_reward(config_.reward, e.accuracy, r.throughput);
    r.oracle_seed = job.oracle_seed;
    return r;
  }

  Status arrive(const PoolDone& done) {
    auto it = in_flight_.find(done.ticket);
    if (it == in_flight_.end())
      return Status::internal(fmt::format("evaluation pool returned ticket {}, which is not out", done.ticket));
    const InFlight job = it->second;
    in_flight_.erase(it);
    busy_[static_cast<size_t>(job.worker)] = false;
    if (done.worker_lost) return lose(job, done);
    auto r = record(job, done.evaluation, static_cast<int64_t>(result_.evaluations.size()));
    if (!r) return r.status();
    const double end = r->clock_seconds;
    busy_until_[static_cast<size_t>(job.worker)] = end;
    event_time_ = end;
    clock_ = std::max(clock_, end);
    r->where = done.where;
    if (sink_) ROOFLENS_RETURN_IF_ERROR(sink_(*r));
    result_.evaluations.push_back(*r);
    strategy_->tell(r->arch, r->reward);
    return Status::ok();
  }

  const SearchConfig& config_;
  const SpaceTable& space_;
  EvalPool& pool_;
  const EvalSink& sink_;
  const LostSink& on_lost_;
  SearchRng rng_;
  std::unique_ptr<Strategy> strategy_;
  SearchResult result_;
  std::vector<double> busy_until_;
  std::vector<bool> busy_;
  std::map<int64_t, InFlight> in_flight_;  // by ticket
  double event_time_ = 0;                  // simulated time of the latest completion processed
  double clock_ = 0;
  int64_t dispatched_ = 0;
};

// One worker that evaluates in the caller's thread, when the driver waits: the sequential run.
// Tickets are dispatch order, which with one worker that is never lost is the step.
class SourcePool : public EvalPool {
 public:
  explicit SourcePool(const EvalSource& source) : source_(source) {}
  int workers() const override { return 1; }
  bool alive(int) const override { return true; }
  Status submit(int, const PoolJob& job) override {
    job_ = job;
    return Status::ok();
  }
  Expected<PoolDone> wait_any() override {
    if (!job_) return Status::internal("wait_any with no job out");
    PoolDone d;
    d.ticket = job_->ticket;
    d.worker = 0;
    d.evaluation = source_(job_->ticket, job_->arch, job_->oracle_seed);
    job_.reset();
    return d;
  }
  std::string describe() const override { return "1 worker, in the calling thread"; }

 private:
  const EvalSource& source_;
  std::optional<PoolJob> job_;
};

Status check_space(const SpaceTable& space) {
  if (space.points.size() != static_cast<size_t>(kSssSpaceSize))
    return Status::invalid(
        fmt::format("space table holds {} networks; expected all {}", space.points.size(), kSssSpaceSize));
  for (size_t i = 0; i < space.points.size(); ++i) {
    const SssPoint& p = space.points[i];
    if (p.index != static_cast<int64_t>(i) || !(p.throughput > 0) || !std::isfinite(p.throughput) ||
        !std::isfinite(p.utilization))
      return Status::invalid(
          fmt::format("space table row {}: index {}, throughput {}, utilization {}; expected "
                      "index order and finite throughput > 0",
                      i, p.index, p.throughput, p.utilization));
  }
  return Status::ok();
}

Expected<SearchResult> drive(const SearchConfig& config, const SpaceTable& space, EvalPool& pool, const EvalSink& sink,
                             const LostSink& on_lost) {
  SearchDriver driver(config, space, pool, sink, on_lost);
  ROOFLENS_RETURN_IF_ERROR(driver.run());
  SearchResult& result = driver.result();
  result.clock_seconds = driver.clock();
  for (const EvalRecord& r : result.evaluations)
    if (result.best_arch < 0 || r.reward > result.best_reward) {
      result.best_arch = r.arch;
      result.best_reward = r.reward;
    }
  result.frontier = found_frontier(result.evaluations);
  return std::move(result);
}

}  // namespace

Expected<SearchResult> run_search(const SearchConfig& config, const SpaceTable& space, const EvalSource& source,
                                  const EvalSink& sink) {
  ROOFLENS_RETURN_IF_ERROR(validate_config(config));
  ROOFLENS_RETURN_IF_ERROR(check_space(space));
  SourcePool pool(source);
  return drive(config, space, pool, sink, {});
}

Expected<SearchResult> run_async_search(const SearchConfig& config, const SpaceTable& space, EvalPool& pool,
                                        const EvalSink& sink, const LostSink& on_lost) {
  ROOFLENS_RETURN_IF_ERROR(validate_config(config));
  if (pool.workers() < 1) return Status::invalid("evaluation pool without workers");
  ROOFLENS_RETURN_IF_ERROR(check_space(space));
  return drive(config, space, pool, sink, on_lost);
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
