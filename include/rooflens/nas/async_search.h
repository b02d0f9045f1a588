// Batch-asynchronous search: the strategies of search.h with their evaluations spread over N
// workers that run at the same time (threads here, MPI ranks in dist/), on the simulated clock
// of N parallel workers.
//
// An EvalPool runs evaluations: submit(worker, job) starts one on an idle worker, wait_any()
// returns whichever finishes first (or says that a worker died on its job). The one driver
// (search_driver.cpp: run_async_search here, and run_search over a pool of one worker in the
// calling thread) keeps every live worker busy with what the Strategy (strategy.h) asks for:
//   random:    each free worker gets the next random network;
//   filter:    each free worker gets the next network of the filter's order;
//   REA:       the initial population's samples go out as workers free up (no budget check, as
//              in the benchmark); afterwards each free worker gets the child of a tournament on
//              the population as it is at that moment; results join the population (and push
//              out its oldest member) as they arrive ("asynchronous tournaments");
//   REINFORCE: one evaluation at a time (its update needs each reward before the next sample),
//              on whichever worker is free: the others stay idle.
//
// Clock semantics (simulated seconds; the budget is SearchConfig::budget_seconds):
//   - worker w is busy until busy_until[w] (0 at the start; filter: the space table's cost);
//   - an evaluation dispatched after the event at simulated time t (the completion that freed
//     the worker, or 0 at the start) starts at start = max(busy_until[w], t) and ends at
//     start + cost: busy_until[w] = start + cost;
//   - the budget is checked against `start` before dispatching (start < budget), as the
//     sequential run checks its clock before each sample; the last evaluations may end past it;
//   - EvalRecord::clock_seconds is the evaluation's completion time; the run's clock is the
//     latest completion.
// With one worker this is exactly run_search: the same networks, oracle seeds, records and
// clock (tests/unit/nas_async_search_test.cpp checks it for random, REA, filter, REINFORCE).
// With N workers, results are used in the order they ARRIVE (real time), so REA's populations
// and the set of evaluations at the budget's edge depend on timing; random and filter dispatch a
// fixed sequence (the same networks and oracle seeds in the same order as one worker), and
// with SearchConfig::max_evaluations they evaluate exactly the same networks.
//
// Records: step = position in arrival order (the log's order); where = who evaluated it.
// A worker lost on a job: its evaluation goes to SearchResult::lost (nothing charged), the
// worker gets no more work, the run goes on with the others; with no live worker left the run
// fails (unavailable).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "rooflens/nas/oracle.h"
#include "rooflens/nas/search.h"
#include "rooflens/util/status.h"

namespace rooflens::nas {

struct PoolJob {
  int64_t ticket = 0;  // the driver's id (dispatch order, 0-based)
  int64_t arch = 0;
  uint64_t oracle_seed = 0;
};

struct PoolDone {
  int64_t ticket = -1;
  int worker = -1;
  // The evaluation, or why it failed (an error stops the run, as in run_search).
  Expected<Evaluation> evaluation = Status::internal("no evaluation");
  bool worker_lost = false;  // the worker died on this job: no evaluation; it takes no more jobs
  std::string where;         // who answered: "rank 2", "thread 0", "cache"
  std::string reason;        // worker_lost: what was noticed
};

// Runs evaluations on `workers()` workers. Single-threaded use (the driver's thread).
class EvalPool {
 public:
  virtual ~EvalPool() = default;
  virtual int workers() const = 0;
  // False once the worker is known to be dead (it then takes no job).
  virtual bool alive(int worker) const = 0;
  // Starts `job` on `worker`, which must be alive and idle (no job submitted and not returned).
  virtual Status submit(int worker, const PoolJob& job) = 0;
  // Blocks until a submitted job finishes or its worker is lost. Precondition: a job is out.
  virtual Expected<PoolDone> wait_any() = 0;
  virtual std::string describe() const = 0;
};

using OracleMaker = std::function<Expected<std::unique_ptr<AccuracyOracle>>()>;

// N threads, each evaluating with its own oracle (oracles are not thread-safe). `measure`, when
// set, measures throughput and utilization per evaluation as oracle_source does.
class ThreadEvalPool : public EvalPool {
 public:
  // Invalid input for workers < 1; an oracle maker's error is returned as is.
  static Expected<std::unique_ptr<ThreadEvalPool>> create(int workers, const OracleMaker& make,
                                                          ThroughputFn measure = {});
  ~ThreadEvalPool() override;  // waits for jobs in flight
  int workers() const override;
  bool alive(int) const override { return true; }
  Status submit(int worker, const PoolJob& job) override;
  Expected<PoolDone> wait_any() override;
  std::string describe() const override;

  struct State;

 private:
  explicit ThreadEvalPool(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

// Called when a worker is lost with a job (for the log and progress); a non-ok Status stops the run.
using LostSink = std::function<Status(const LostEvaluation&)>;

// Runs one search on `pool` to the end of its budget (or max_evaluations). Errors: invalid
// config or space table (as run_search); an evaluation that fails; every worker lost.
Expected<SearchResult> run_async_search(const SearchConfig& config, const SpaceTable& space, EvalPool& pool,
                                        const EvalSink& sink = {}, const LostSink& on_lost = {});

}  // namespace rooflens::nas
