// Accuracy oracles: what a NAS search asks "how good is network i, and what did finding out
// cost?", behind one interface, plus the simulated clock the cost is charged to.
//
// - NatsOracle: NATS-Bench's tabular "simulated train-and-evaluate" on CIFAR-10 (the
//   benchmark's own semantics, shared/reference/nats-sss.md section 3), read from the
//   official per-network files.
// - CsvOracle: a user's table `arch,accuracy[,train_seconds]`.
// - make_oracle("nats:PATH" | "csv:FILE"): choose one by a spec string (the training oracle,
//   "train:...", lives in its own target and is a separate issue).
//
// Search strategies use it in an ask/tell loop (nats-sss.md section 4):
//   SimClock clock = *SimClock::with_budget(20000);
//   while (clock.has_time_left()) {            // checked BEFORE each sample
//     int64_t arch = strategy.ask();
//     auto e = evaluate_and_charge(oracle, clock, arch, rng());  // charged in full
//     strategy.tell(arch, e->accuracy);
//   }
// Units: accuracy in percent (top-1), cost in (simulated) seconds.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "rooflens/nas/nats_data.h"
#include "rooflens/nas/nats_single_file.h"
#include "rooflens/nas/sss_space.h"
#include "rooflens/util/status.h"

namespace rooflens::nas {

// One simulated train-and-evaluate of one network.
struct Evaluation {
  double accuracy = 0;      // percent, top-1: the reward a search sees
  double cost_seconds = 0;  // simulated seconds the evaluation took; finite and >= 0
  std::string detail;       // where the numbers came from (dataset, hp, seed, split)
  // Throughput (images/s) and utilization (0..1) of the network, when the search measures
  // them per evaluation instead of reading its space table (search.h). Oracles leave them
  // empty; the search's measuring source or a replayed log sets them.
  std::optional<double> throughput, utilization;
};

// Interface every oracle implements. Architectures are NATS-Bench SSS indices
// (0..kSssSpaceSize-1, see sss_space.h); an index out of range is invalid input.
// Oracles may cache and so are not thread-safe: use one per thread.
class AccuracyOracle {
 public:
  virtual ~AccuracyOracle() = default;

  // The accuracy a search would observe after (simulated) training of `arch_index`, and the
  // time that took. `seed` drives any randomness of the oracle (for NATS-Bench: which of the
  // recorded training trials is returned); the same (arch, seed) always gives the same
  // Evaluation. A search passes a fresh draw of its own RNG per call.
  virtual Expected<Evaluation> evaluate(int64_t arch_index, uint64_t seed) = 0;

  // The number a search reports for its answer once it is over (for NATS-Bench: test
  // accuracy after the full 90-epoch recipe). Percent. Never charged to a clock.
  virtual Expected<double> final_accuracy(int64_t arch_index) = 0;

  // One line saying what the oracle returns and where from, for reports and logs.
  virtual std::string describe() const = 0;

  // The input the oracle's networks take, when it is not the benchmark dataset the search
  // names (--dataset): the training oracle trains on its own data (e.g. Fashion-MNIST, 1 x 28
  // x 28, 10 classes), and the throughput and utilization a search weighs must be those of
  // the networks it trains. nullopt: the search's dataset.
  virtual std::optional<SssNetInput> network_input() const { return std::nullopt; }
};

// An oracle whose work can be done by another process (dist/: MPI ranks), as evaluate() in
// three parts. The process running the search calls answer_here (a cache: no work) and, when
// that has nothing, sends (spec, arch, seed) to a worker; the worker makes the same oracle with
// make_oracle(spec) and calls do_work, whose text result travels back to accept_work, which
// stores it and returns the Evaluation evaluate() would have returned. The text is the oracle's
// own format: only the oracle reads it.
class DistributableOracle : public AccuracyOracle {
 public:
  struct Answer {
    Evaluation evaluation;
    std::string origin;  // where it came from ("the database"), for progress lines
  };
  struct Work {
    std::string result;   // for accept_work, in the process running the search
    double accuracy = 0;  // percent, for the worker's own progress
  };
  // The Evaluation without the work, when it can; nullopt when the work must be done.
  virtual Expected<std::optional<Answer>> answer_here(int64_t arch_index, uint64_t seed) = 0;
  // The work of evaluate(arch_index, seed), on a worker.
  virtual Expected<Work> do_work(int64_t arch_index, uint64_t seed) = 0;
  // A do_work result from a worker: kept (as a fresh evaluate() would keep it), and its Evaluation.
  virtual Expected<Evaluation> accept_work(int64_t arch_index, uint64_t seed, const std::string& result) = 0;
  // The spec a worker makes this oracle from: what the worker needs, less what only the
  // process running the search keeps (e.g. a results database).
  virtual std::string worker_spec(const std::string& spec) const { return spec; }
};

// The simulated clock of a search: starts at 0 and advances by each evaluation's cost.
//
// The benchmark's searches (nats-sss.md section 4) check the clock BEFORE each sample
// (`has_time_left()`: now < budget) and then charge the whole evaluation, so the last one
// may carry the clock past the budget; regularized evolution's initial population is
// evaluated and charged without any check. `can_afford()` is the stricter test (the
// evaluation would end within budget) for strategies that want it.
class SimClock {
 public:
  // Unlimited budget.
  SimClock() = default;
  // Invalid input when the budget is NaN or negative (+inf means unlimited).
  static Expected<SimClock> with_budget(double budget_seconds);

  double now() const { return now_; }
  double budget() const { return budget_; }
  double remaining() const { return now_ < budget_ ? budget_ - now_ : 0.0; }
  int64_t charges() const { return charges_; }  // evaluations charged so far

  bool has_time_left() const { return now_ < budget_; }
  bool can_afford(double cost_seconds) const { return now_ + cost_seconds <= budget_; }

  // Advances the clock. Precondition (asserted): cost is finite and >= 0; oracles
  // guarantee it for their Evaluations.
  void charge(double cost_seconds);
  void charge(const Evaluation& evaluation) { charge(evaluation.cost_seconds); }

 private:
  double now_ = 0;
  double budget_ = std::numeric_limits<double>::infinity();
  int64_t charges_ = 0;
};

// oracle.evaluate(arch, seed), and on success clock.charge(cost). A failed evaluation
// charges nothing.
Expected<Evaluation> evaluate_and_charge(AccuracyOracle& oracle, SimClock& clock, int64_t arch_index, uint64_t seed);

// ---------------------------------------------------------------------------------------
// NATS-Bench SSS, CIFAR-10 (nats-sss.md section 3), from either form of the benchmark's data:
// the `NATS-sss-v1_0-50262-simple/` directory of per-network files (each read on first use),
// or the single file `NATS-sss-v1_0-50262.pickle.pbz2`, streamed once into a NatsIndex
// (nats_single_file.h) that every oracle over that file shares:
//   evaluate:       hp "12", dataset "cifar10-valid", one of the recorded seeds chosen by
//                   `seed` (see nats_pick_seed); accuracy = `x-valid@11` (after the 12th and
//                   last epoch); cost = sum of train_times of epochs 0..11 + eval_times
//                   `x-valid@11` (the benchmark's simulate_train_eval).
//   final_accuracy: hp "90", dataset "cifar10", `ori-test@89`, the mean over the recorded
//                   seeds (the benchmark's non-random query; the files hold one seed).
// A network whose file is absent gives an unavailable Status naming the file (the genuine
// public subset holds only networks 0, 11 and 284; the full benchmark is 1.1 GB). Loaded
// networks are cached for the oracle's lifetime (about 0.6 MB each when parsed).

// The networks of a single file, as a NatsOracle reads them: by arch index, each reduced to
// NatsOracle::compact (about 6.5 KB; all 32768 about 215 MB).
struct NatsIndex {
  std::string path;
  std::vector<std::optional<NatsNetwork>> networks;  // by arch index; empty where not read
  size_t count = 0;                                  // networks held
  bool complete = false;                             // the whole file was read
};

class NatsOracle : public AccuracyOracle {
 public:
  explicit NatsOracle(std::string dir) : dir_(std::move(dir)) {}
  // Over a single file's index (load_index, shared_index); non-null.
  explicit NatsOracle(std::shared_ptr<const NatsIndex> index);

  Expected<Evaluation> evaluate(int64_t arch_index, uint64_t seed) override;
  Expected<double> final_accuracy(int64_t arch_index) override;
  std::string describe() const override;

  // The parsed file of one network, loaded on first use (or the index's compact entry). The
  // pointer stays valid for the oracle's lifetime. Checks that the file's arch_index and
  // arch_str match `arch_index` (an index checked them while reading).
  Expected<const NatsNetwork*> network(int64_t arch_index);
  size_t cached_networks() const { return cache_.size(); }  // directory form

  // What evaluate(), final_accuracy() and `rooflens sss --nats` read of a network, and all
  // an index keeps of one: hps "12" and "90" only; of "12" the cifar10-valid results with
  // their train_times and `x-valid@11` eval entries; of "90" every result's scalars (flop,
  // params, latency: `sss --nats --dataset` shows them) and cifar10's `ori-test@89`.
  static NatsNetwork compact(const NatsNetwork& net);
  // Streams a single file into an index, in one pass. `only` non-empty: keeps just those
  // networks and stops reading once all are in (`rooflens sss ARCH --nats FILE`). Each
  // network's hps must describe it (arch_index, arch_str), else invalid input.
  static Expected<std::shared_ptr<const NatsIndex>> load_index(
      const std::string& path, const std::vector<int64_t>& only = {},
      std::function<void(const NatsReadProgress&)> progress = {});
  // load_index(path) once per process: later calls (each thread's oracle) get the same index
  // while anything holds it. Thread-safe; a second caller waits for the first read.
  static Expected<std::shared_ptr<const NatsIndex>> shared_index(
      const std::string& path, std::function<void(const NatsReadProgress&)> progress = {});

 private:
  std::string where(int64_t arch_index) const;  // the network's data, in messages
  std::string dir_;
  std::shared_ptr<const NatsIndex> index_;
  std::map<int64_t, std::unique_ptr<NatsNetwork>> cache_;
};

// Which of `count` recorded trials (seeds in file order) the RNG seed `seed` selects:
// splitmix64(seed) mod count, the same on every platform. The benchmark draws with Python's
// random.choice; its stream is not reproduced, only the uniform choice among the trials.
size_t nats_pick_seed(uint64_t seed, size_t count);

// ---------------------------------------------------------------------------------------
// A table of accuracies. Columns (header required, any order, case-insensitive, more
// columns allowed): `arch` (an arch string "8:16:24:32:40" or an integer index),
// `accuracy` (percent, 0..100) and optionally `train_seconds` (> 0; an empty field means
// the default). Errors name file:line and the field: a missing column, a bad arch, an
// accuracy outside 0..100 or not a number, a bad train_seconds, an arch listed twice.
// evaluate() ignores the seed and costs train_seconds or the default; final_accuracy() is
// the same accuracy (the table holds one number per network). An arch not in the table is
// unavailable.
class CsvOracle : public AccuracyOracle {
 public:
  // Default cost per evaluation for make_oracle("csv:FILE"): one simulated second, so a
  // budget of N seconds allows N evaluations of networks without train_seconds.
  static constexpr double kDefaultCostSeconds = 1.0;

  // Reads and parses `file`. Invalid input when default_cost_seconds is not finite and > 0.
  static Expected<std::unique_ptr<CsvOracle>> load(const std::string& file,
                                                   double default_cost_seconds = kDefaultCostSeconds);
  // Parses CSV `text`; `file` names it in messages.
  static Expected<std::unique_ptr<CsvOracle>> parse(const std::string& text, const std::string& file,
                                                    double default_cost_seconds = kDefaultCostSeconds);

  Expected<Evaluation> evaluate(int64_t arch_index, uint64_t seed) override;
  Expected<double> final_accuracy(int64_t arch_index) override;
  std::string describe() const override;

  struct Row {
    double accuracy = 0;
    double cost_seconds = 0;  // train_seconds, or the default
    bool default_cost = false;
    int line = 0;  // 1-based line in the file
  };
  const std::map<int64_t, Row>& rows() const { return rows_; }

 private:
  CsvOracle() = default;
  Expected<const Row*> find(int64_t arch_index) const;

  std::string file_;
  double default_cost_seconds_ = kDefaultCostSeconds;
  std::map<int64_t, Row> rows_;
};

// Builds an oracle from a spec string:
//   nats:PATH  NatsOracle over PATH: the -simple directory, or the single file (read once
//              per process, NatsOracle::shared_index)
//   csv:FILE   CsvOracle::load(FILE) with the default cost
//   SCHEME:... the factory registered for SCHEME (register_oracle_scheme), e.g. "train:..."
//              (rooflens/train/train_oracle.h, its own target, registered by the program)
// An unknown scheme is invalid input listing the schemes; "train:..." without a registered
// factory is unsupported (the program was linked without the training oracle).
Expected<std::unique_ptr<AccuracyOracle>> make_oracle(const std::string& spec);

// A factory for oracles of one scheme, given the whole spec ("train:fashion-mnist,epochs=2").
using OracleFactory = std::function<Expected<std::unique_ptr<AccuracyOracle>>(const std::string& spec)>;
// Makes make_oracle answer specs "SCHEME:..." with `factory` (replacing an earlier one for the
// scheme). Lets oracles with heavy dependencies live in their own targets, which the core
// does not link. Thread-safe.
void register_oracle_scheme(const std::string& scheme, OracleFactory factory);

}  // namespace rooflens::nas
