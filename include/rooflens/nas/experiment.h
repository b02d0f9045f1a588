// A NAS experiment: strategy x seed runs of one search on one space table with one oracle,
// each logged to its own JSONL file (search_log.h) in one directory, then judged together
// against the oracle's final accuracies. What `rooflens nas` (and a binding) calls:
//   auto x = NasExperiment::plan(spec);          // the runs and their log files
//   x->prepare_output(resume);                   // the directory; resume detection and checks
//   auto logged = x->run(space, oracle_spec, oracle_description, options);
//   auto truth = x->final_accuracies(oracle, results);
// Results do not depend on the number of threads: each run's evaluations depend only on its
// configuration, its seed and the oracle's answers (search.h).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "rooflens/nas/async_search.h"
#include "rooflens/nas/search.h"
#include "rooflens/nas/search_log.h"
#include "rooflens/util/status.h"

namespace rooflens::nas {

// One run of the experiment.
struct ExperimentRun {
  StrategyKind strategy = StrategyKind::kRandom;
  uint64_t seed = 0;
  std::string log;  // out/<strategy>-seed<k>.jsonl
};

struct ExperimentSpec {
  // NAME or NAME:SEEDS (that many runs of NAME); each strategy at most once.
  std::vector<std::string> strategies = {"random"};
  int seeds = 1;           // runs per strategy without :SEEDS, 1..10000
  uint64_t seed_base = 0;  // seeds seed_base .. seed_base + n - 1
  std::string out;         // the directory of the logs (and the caller's result.json)
  SearchConfig base;       // everything but strategy and seed, the same for every run
};

// Per-run callbacks and how to spread the runs.
struct ExperimentOptions {
  // Runs at the same time, each with its own oracle; 0: one per core. Runs that measure, train
  // (a train: oracle) or use a pool go one at a time whatever this says.
  int threads = 0;
  bool resume = false;       // continue the logs in out (run_logged_search)
  ThroughputFn measure;      // measure each evaluated network (search.h), else the space table's
  EvalPool* pool = nullptr;  // when set, every run is asynchronous over it (one run at a time, no resume)
  // Called for each run's live evaluations; `oracle` is the run's own (null on a pool).
  std::function<EvalSink(size_t run, const AccuracyOracle* oracle)> progress;
  // Pool runs: an evaluation lost with its worker.
  std::function<Status(size_t run, const LostEvaluation&)> on_lost;
  // After each run, in completion order, serialised; `wall_seconds`: its real time.
  std::function<void(size_t run, const Expected<LoggedSearch>& result, double wall_seconds)> on_run_done;
};

class NasExperiment {
 public:
  // Invalid input: seeds out of range, a strategy unknown, given twice, or with bad :SEEDS,
  // none given, an invalid base configuration.
  static Expected<NasExperiment> plan(const ExperimentSpec& spec);

  const ExperimentSpec& spec() const { return spec_; }
  const std::vector<ExperimentRun>& runs() const { return runs_; }

  // Creates the output directory. resume == false: none of the runs' logs may exist (invalid
  // input: pass resume or choose another directory). resume == true: the directory must hold
  // the log of at least one of these runs (invalid input otherwise: a folder that never held
  // this experiment is not resumed into a fresh run by a typo).
  Status prepare_output(bool resume) const;

  // Runs every run (make_oracle(oracle_spec) per thread), logs them. The first failing run's
  // error, else every run's result in plan order.
  Expected<std::vector<LoggedSearch>> run(const SpaceTable& space, const std::string& oracle_spec,
                                          const std::string& oracle_description,
                                          const ExperimentOptions& options) const;

  // Final accuracy of every network (the oracle's; NaN where it has none). Empty, with the
  // reason in why_not, when it knows none, when a network a run evaluated is unknown, or on any
  // other error. `progress` (optional) is called with networks done and the total.
  static std::vector<double> final_accuracies(AccuracyOracle& oracle, const std::vector<SearchResult>& runs,
                                              std::string& why_not,
                                              const std::function<void(int64_t, int64_t)>& progress = {});

 private:
  ExperimentSpec spec_;
  std::vector<ExperimentRun> runs_;
};

}  // namespace rooflens::nas
