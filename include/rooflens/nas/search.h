// Search strategies over the NATS-Bench size space on a simulated clock (study.md section 4,
// nats-sss.md section 4): random search, regularized evolution (REA) and REINFORCE exactly as
// the benchmark implements them, and approximate filtering (throughput-utilization frontier
// first, accuracy only for those networks).
//
// A run is one strategy (strategy.h: ask/tell) with one seed. It asks an AccuracyOracle (oracle.h) for each network
// it samples, charges the evaluation's cost to a SimClock, and rewards the network with
// accuracy or MnasNet's soft/hard throughput objective. Throughput and utilization come from
// a table of the whole space (sss_study.h: predicted on a device, index order), shared
// read-only by every run.
//
// Determinism: everything random in a run comes from one generator seeded by the run's seed
// (SearchRng below, the same stream on every platform), so a run's evaluations depend only
// on (config, seed, oracle answers), never on threads or timing. A run can be replayed from
// its log (SearchReplay): the strategy is re-run with the same seed and the logged accuracy
// and cost are used in place of the oracle for the steps already done; this is how --resume
// reaches exactly the result of an uninterrupted run.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "rooflens/nas/oracle.h"
#include "rooflens/nas/sss_study.h"
#include "rooflens/util/status.h"

namespace rooflens::nas {

// ---------------------------------------------------------------------------------------
// Rewards. accuracy: the benchmark's default (reward = accuracy, percent).
// soft (MnasNet, throughput form): reward = accuracy * (T / target)^w, w = 0.07.
// hard (MnasNet): reward = accuracy when T >= target, else accuracy * (T / target)^1
//   (MnasNet's latency exponents 0 and -1, with throughput ~ 1 / latency).
enum class RewardKind { kAccuracy, kSoft, kHard };

struct RewardSpec {
  RewardKind kind = RewardKind::kAccuracy;
  double target_throughput = 175000;  // G_T, images/s (study.md section 4)
  double w = 0.07;
};

// Invalid input for a reward name other than accuracy|soft|hard.
Expected<RewardKind> reward_kind_from_name(const std::string& name);
const char* reward_kind_name(RewardKind kind);
// Precondition: throughput > 0 for soft and hard.
double compute_reward(const RewardSpec& spec, double accuracy, double throughput);

// ---------------------------------------------------------------------------------------
enum class StrategyKind { kRandom, kRea, kReinforce, kFilter };
Expected<StrategyKind> strategy_kind_from_name(const std::string& name);
const char* strategy_kind_name(StrategyKind kind);

// The order in which approximate filtering evaluates the throughput-utilization frontier.
//  spread:      both ends of the frontier first, then recursively the midpoints (by position
//               along the frontier sorted by throughput): whatever the budget, the networks
//               evaluated cover the frontier's throughput range evenly, which is what an
//               accuracy-throughput frontier needs.
//  utilization: highest utilization first (the paper's finding: accuracy rises with it).
//  throughput:  highest throughput first.
enum class FilterOrder { kSpread, kUtilization, kThroughput };
Expected<FilterOrder> filter_order_from_name(const std::string& name);
const char* filter_order_name(FilterOrder order);

struct SearchConfig {
  StrategyKind strategy = StrategyKind::kRandom;
  RewardSpec reward;
  double budget_seconds = 20000;  // simulated seconds; checked before each sample
  uint64_t seed = 0;
  // REA (nats-sss.md: population 10, tournament 3 drawn with replacement).
  int rea_population = 10;
  int rea_tournament = 3;
  // REINFORCE (Adam lr 0.01, EMA baseline momentum 0.9).
  double reinforce_lr = 0.01;
  double reinforce_momentum = 0.9;
  // Filter.
  FilterOrder filter_order = FilterOrder::kSpread;
  // Simulated seconds the space table cost to obtain, charged to the clock before the
  // filter's first evaluation (0 for predictions; measured seconds for measurements).
  double filter_space_cost_seconds = 0;
  // At most this many evaluations (REA's initial population included); 0: no cap. Lets two
  // runs that differ only in how they are spread (1 process, N MPI ranks) evaluate the same
  // networks whatever the clock says.
  int64_t max_evaluations = 0;
};

// Checks ranges (budget >= 0 and not NaN, population >= 1, tournament >= 1, lr > 0,
// 0 <= momentum < 1, target > 0, space cost >= 0); invalid input names the field.
Status validate_config(const SearchConfig& config);

// One evaluation as the run saw it.
struct EvalRecord {
  int64_t step = 0;          // 0-based position in the run
  int64_t arch = 0;          // SSS index
  double accuracy = 0;       // percent, what the oracle returned (the search's view)
  double cost_seconds = 0;   // charged to the clock
  double clock_seconds = 0;  // the clock after the charge
  double throughput = 0;     // images/s, from the space table (or measured: ThroughputFn)
  double utilization = 0;    // 0..1, likewise
  double reward = 0;         // compute_reward(accuracy, throughput)
  uint64_t oracle_seed = 0;  // the seed passed to the oracle
  std::string where;         // asynchronous runs: who evaluated it ("rank 2", "cache"); not logged
};

// An evaluation an asynchronous run dispatched and never got back: its worker died
// (async_search.h). Nothing is charged for it; the network may be evaluated again later.
struct LostEvaluation {
  int64_t arch = 0;
  uint64_t oracle_seed = 0;
  int worker = -1;           // the pool's worker index
  std::string where;         // e.g. "rank 2"
  double start_seconds = 0;  // simulated time it was dispatched at
  std::string reason;
};

struct SearchResult {
  SearchConfig config;
  std::vector<EvalRecord> evaluations;  // in order
  int64_t best_arch = -1;               // highest reward seen (first one on ties); -1 if none
  double best_reward = 0;
  double clock_seconds = 0;  // final clock
  // The found accuracy-throughput frontier: positions in `evaluations` of the distinct
  // networks on the Pareto frontier of (throughput, accuracy as the search saw it), sorted by
  // throughput ascending. A network evaluated twice counts once (its best accuracy).
  std::vector<size_t> frontier;
  // Filter only: the throughput-utilization frontier of the space (SSS indices, throughput
  // ascending) and the order the filter evaluated it in.
  std::vector<int64_t> filter_candidates;
  // Asynchronous runs only: evaluations lost with their worker, in the order noticed.
  std::vector<LostEvaluation> lost;
};

// The whole space as a search sees it: points[i].index == i, kSssSpaceSize points.
struct SpaceTable {
  std::vector<SssPoint> points;
  std::string source;  // what the numbers are, e.g. "predicted, v100 fp16, batch 256"
};

// Supplies the accuracy and cost of one step: the oracle, or a log being replayed.
// Called with (step, arch, oracle_seed); must return the same answer for the same call.
using EvalSource = std::function<Expected<Evaluation>(int64_t step, int64_t arch, uint64_t oracle_seed)>;

// Called after each evaluation (for logging); a non-ok Status stops the run with that error.
using EvalSink = std::function<Status(const EvalRecord&)>;

// Runs one search to the end of its budget: the one driver (async_search.h) over a pool of one
// worker that calls `source` in this thread. Errors: invalid config; an evaluation that fails
// (the oracle's Status, e.g. a network missing from the data, with the step).
Expected<SearchResult> run_search(const SearchConfig& config, const SpaceTable& space, const EvalSource& source,
                                  const EvalSink& sink = {});

// Throughput (images/s) and utilization (0..1) of one network, measured when asked (e.g. on
// this CPU). May be called from several runs' threads at once: it must be thread-safe.
using ThroughputFn = std::function<Expected<std::pair<double, double>>(int64_t arch)>;

// An EvalSource that asks `oracle`, and, when `measure` is set, measures the network's
// throughput and utilization (Evaluation::throughput/utilization) instead of taking them
// from the space table.
EvalSource oracle_source(AccuracyOracle& oracle, ThroughputFn measure = {});

// The networks approximate filtering evaluates, in its order (config.filter_order): the
// throughput-utilization frontier of `space`. Used by the filter strategy (strategy.h).
Expected<std::vector<int64_t>> filter_candidates(const SearchConfig& config, const SpaceTable& space);

// Positions in `evals` of the distinct networks on the (throughput, accuracy) frontier
// (throughput ascending); used for SearchResult::frontier.
std::vector<size_t> found_frontier(const std::vector<EvalRecord>& evals);

// ---------------------------------------------------------------------------------------
// The generator every strategy draws from: splitmix64-seeded xoshiro256**, with uniform
// integers by rejection and normals by Box-Muller, so streams match on every platform.
class SearchRng {
 public:
  explicit SearchRng(uint64_t seed);
  uint64_t next();
  // Uniform in [0, n); precondition n >= 1.
  uint64_t uniform_index(uint64_t n);
  // Uniform in [0, 1).
  double uniform01();
  double normal();

 private:
  uint64_t s_[4];
  std::optional<double> spare_normal_;
};

// ---------------------------------------------------------------------------------------
// REINFORCE's policy, exposed for tests: 5 x 8 logits, softmax per row, Adam.
class ReinforcePolicy {
 public:
  ReinforcePolicy(SearchRng& rng, double lr);                   // logits ~ 1e-3 * N(0, 1), row-major draws
  std::vector<double> probabilities(int layer) const;           // softmax of row `layer`
  std::array<int, kSssNumLayers> sample(SearchRng& rng) const;  // one choice per layer
  // One Adam step on loss = -(sum of log p(actions)) * advantage.
  void update(const std::array<int, kSssNumLayers>& actions, double advantage);
  const std::vector<double>& logits() const { return logits_; }

 private:
  std::vector<double> logits_, m_, v_;
  double lr_;
  int64_t t_ = 0;
};

// The benchmark's bias-corrected exponential moving average baseline.
class EmaBaseline {
 public:
  explicit EmaBaseline(double momentum) : momentum_(momentum) {}
  void update(double value);
  double value() const { return numerator_ / denominator_; }

 private:
  double momentum_, numerator_ = 0, denominator_ = 0;
};

}  // namespace rooflens::nas
