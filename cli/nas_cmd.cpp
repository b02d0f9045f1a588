// `rooflens nas`: utilization-aware NAS on the NATS-Bench size space. Maps the flags to a
// NasExperiment (rooflens/nas/experiment.h: the runs, resume, judging) and its errors to exit
// codes, prints progress on stderr, and writes result.json and the optional HTML report.
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <thread>

#include <fmt/format.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "common.h"
#include "loading.h"
#include "nas_dist.h"
#include "nas_measure.h"
#include "nas_output.h"
#include "nats_progress.h"
#include "rooflens/nas/experiment.h"
#include "rooflens/nas/search.h"
#include "rooflens/nas/search_log.h"
#include "rooflens/nas/sss_study.h"
#include "rooflens/store/train_store.h"
#include "rooflens/train/train_oracle.h"
#include "train_db_path.h"

namespace rooflens::cli {

using namespace rooflens::nas;

void add_nas(CLI::App& app, NasArgs& a) {
  auto* cmd = app.add_subcommand(
      "nas",
      "neural architecture search on the NATS-Bench size space, on a simulated clock: random, regularized "
      "evolution, REINFORCE, or approximate filtering by the throughput-utilization frontier");
  cmd->add_option("--space", a.space, "search space (sss: NATS-Bench size space)")->capture_default_str();
  cmd->add_option("--oracle", a.oracle,
                  "accuracy source: nats:PATH (NATS-Bench SSS: the directory "
                  "NATS-sss-v1_0-50262-simple/ or the single file "
                  "NATS-sss-v1_0-50262.pickle.pbz2, read once, progress on stderr) or "
                  "csv:FILE (arch,accuracy[,train_seconds]), or train:fashion-mnist / "
                  "train:DIR[,KEY=VALUE]... (train each network with LibTorch; docs/nas.md)")
      ->required();
  cmd->add_option("--epochs", a.epochs, "train: oracle: training epochs per network (default 1)")->type_name("INT");
  cmd->add_option("--train-batch", a.train_batch,
                  "train: oracle: images per SGD step (default 32; the benchmark's 256)")
      ->type_name("INT");
  cmd->add_option("--train-subset", a.train_subset, "train: oracle: first N training images, or all (default 3000)")
      ->type_name("INT|all");
  cmd->add_option("--test-subset", a.test_subset, "train: oracle: first N test images, or all (default 1000)")
      ->type_name("INT|all");
  cmd->add_option("--train-threads", a.train_threads, "train: oracle: LibTorch threads (default 1)")->type_name("INT");
  cmd->add_option("--train-clock", a.train_clock, "train: oracle: measured (wall seconds, default) or simulated")
      ->type_name("measured|simulated");
  cmd->add_option("--db", a.db,
                  "train: oracle: SQLite file that keeps every training and answers repeats from it "
                  "(default $ROOFLENS_CACHE_DIR, else $XDG_CACHE_HOME/rooflens, else "
                  "~/.cache/rooflens: train-results.sqlite); none: memory only; rooflens nas-db reads it");
  cmd->add_option("--strategy", a.strategies,
                  "random, rea, reinforce, filter; several separated by commas; "
                  "NAME:N runs N seeds of that one (e.g. filter:1,reinforce:9)")
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_option("--budget", a.budget,
                  "seconds per run on the search's clock, checked before each sample: the "
                  "recorded training times of nats: and csv:, the wall seconds of each "
                  "training for train: (--train-clock measured, its default)")
      ->capture_default_str();
  cmd->add_option("--seeds", a.seeds, "runs per strategy, seeds seed-base .. seed-base+N-1")->capture_default_str();
  cmd->add_option("--seed-base", a.seed_base, "first seed")->capture_default_str();
  cmd->add_option("--reward", a.reward, "accuracy (the benchmark's), soft or hard (MnasNet, on throughput)")
      ->capture_default_str();
  cmd->add_option("--target-throughput", a.target_throughput, "G_T of the soft/hard reward, images/s")
      ->capture_default_str();
  cmd->add_option("--w", a.w, "exponent of the soft reward")->capture_default_str();
  cmd->add_option("--filter-order", a.filter_order,
                  "order filter evaluates the frontier in: spread, utilization, "
                  "throughput")
      ->capture_default_str();
  cmd->add_option("--dataset", a.dataset,
                  "cifar10, cifar100 or ImageNet16-120 (input size and classes of the "
                  "networks predicted; nats: oracle is cifar10; a train: oracle's networks take "
                  "its own data)")
      ->capture_default_str();
  cmd->add_option("--device", a.device, "device for throughput and utilization (rooflens devices, or a .json)")
      ->capture_default_str();
  cmd->add_option("--dtype", a.dtype, "fp32, fp16, bf16, int8 or fp8")->capture_default_str();
  cmd->add_option("--batch", a.batch, "images per batch: N, or max")->capture_default_str();
  cmd->add_option("--throughput", a.throughput,
                  "T of the reward and the logs: predicted (performance model, the "
                  "whole space), or measured (each evaluated network run on this CPU "
                  "through oneDNN, fp32; --device local.json)")
      ->check(CLI::IsMember({"predicted", "measured"}))
      ->capture_default_str();
  cmd->add_option("--max-seconds", a.max_seconds, "measured: timing budget per network (s)")->capture_default_str();
  cmd->add_option("-o,--out", a.out, "directory for the run logs (<strategy>-seed<k>.jsonl) and result.json")
      ->required();
  cmd->add_option("--max-evals", a.max_evals,
                  "at most N evaluations per run (0: no cap): the same networks "
                  "whether the run is spread over MPI ranks or not (random, filter)")
      ->capture_default_str();
  cmd->add_flag("--resume", a.resume, "continue the runs logged in --out (after a kill); finished runs are checked");
  cmd->add_option("--report", a.report, "write the HTML report (Figures 3, 5, 6 and the tables) into this directory");
  cmd->add_option("--jobs", a.jobs,
                  "runs at the same time and threads predicting the space (default: one per "
                  "core); results do not depend on it. Runs with a train: oracle or measured "
                  "throughput go one at a time whatever it says (--train-threads sets training's)");
  cmd->add_option("--devices-dir", a.devices_dir, "directory of device JSON files");
  cmd->add_flag("--datasheet-peak", a.datasheet_peak, "use datasheet peaks even where a measured peak exists");
}

namespace {

// --oracle with the training flags appended (train: only; the oracle's spec parser checks them).
Expected<std::string> oracle_spec(const NasArgs& a) {
  const std::pair<const char*, const std::string*> flags[] = {
      {"epochs", &a.epochs},           {"train-batch", &a.train_batch},     {"train-subset", &a.train_subset},
      {"test-subset", &a.test_subset}, {"train-threads", &a.train_threads}, {"train-clock", &a.train_clock}};
  std::string spec = a.oracle;
  for (const auto& [flag, value] : flags) {
    if (value->empty()) continue;
    if (a.oracle.rfind("train:", 0) != 0)
      return Status::invalid(fmt::format("--{}: only the training oracle (--oracle train:...) takes it", flag));
    const std::string key = flag == std::string("train-threads") ? "threads"
                            : flag == std::string("train-clock") ? "clock"
                            : flag == std::string("train-batch") ? "batch"
                                                                 : flag;
    spec += fmt::format(",{}={}", key, *value);
  }
  if (a.oracle.rfind("train:", 0) != 0) {
    if (!a.db.empty()) return Status::invalid("--db: only the training oracle (--oracle train:...) stores results");
    return spec;
  }
  if (a.db.empty() && spec.find(",db=") != std::string::npos) return spec;  // the spec names it
  auto db = train_db_for_nas(a.db);
  if (!db) return db.status();
  spec += ",db=" + (db->empty() ? std::string("none") : *db);
  return spec;
}

// Progress of training runs on stderr: one line per evaluation (run, step, network, accuracy,
// seconds, clock, best so far) and the time left, estimated as the clock still to spend over
// all runs times the wall seconds per clock second so far.
class TrainProgress {
 public:
  TrainProgress(const NasArgs& a, const std::vector<ExperimentRun>& tasks)
      : budget_(a.budget),
        max_evals_(a.max_evals),
        tasks_(tasks),
        clock_(tasks.size(), 0.0),
        evals_(tasks.size(), 0),
        start_(std::chrono::steady_clock::now()) {}

  // `oracle`: the run's own; a TrainOracle says where a result came from (the database).
  EvalSink sink(size_t i, const AccuracyOracle* oracle) const {
    const auto* trainer = dynamic_cast<const train::TrainOracle*>(oracle);
    return [this, i, trainer, best_arch = int64_t{-1}, best_reward = 0.0,
            best_accuracy = 0.0](const EvalRecord& r) mutable {
      if (best_arch < 0 || r.reward > best_reward) {
        best_arch = r.arch;
        best_reward = r.reward;
        best_accuracy = r.accuracy;
      }
      std::lock_guard<std::mutex> lock(mu_);
      clock_[i] = r.clock_seconds;
      double used = 0, left = 0;
      for (double c : clock_) {
        used += c;
        left += std::max(0.0, budget_ - c);
      }
      const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
      double eta_s = std::isfinite(left) && used > 0 ? left * wall / used : HUGE_VAL;
      evals_[i] = r.step + 1;
      if (max_evals_ > 0) {  // --max-evals: evaluations still to do at the rate so far, if sooner
        int64_t done = 0, to_do = 0;
        for (int64_t n : evals_) {
          done += n;
          to_do += std::max<int64_t>(0, max_evals_ - n);
        }
        eta_s = std::min(eta_s, static_cast<double>(to_do) * wall / static_cast<double>(std::max<int64_t>(done, 1)));
      }
      const std::string eta =
          std::isfinite(eta_s) ? fmt::format("about {:.0f} s left", eta_s) : std::string("time left unknown");
      const ExperimentRun& t = tasks_[i];
      const std::string from = trainer != nullptr && !trainer->last_origin().empty()
                                   ? fmt::format(" (from {})", trainer->last_origin())
                               : !r.where.empty() ? fmt::format(" ({})", r.where)  // MPI: the rank, or the cache
                                                  : std::string();
      std::fprintf(stderr,
                   "%s seed %llu, evaluation %lld: %s %.2f %% in %.1f s%s; clock %.1f of %g s; best %s %.2f %%; %s\n",
                   strategy_kind_name(t.strategy), static_cast<unsigned long long>(t.seed),
                   static_cast<long long>(r.step + 1), sss_arch_string(r.arch).c_str(), r.accuracy, r.cost_seconds,
                   from.c_str(), r.clock_seconds, budget_, sss_arch_string(best_arch).c_str(), best_accuracy,
                   eta.c_str());
      return Status::ok();
    };
  }

 private:
  double budget_;
  int64_t max_evals_;  // --max-evals, 0: none
  const std::vector<ExperimentRun>& tasks_;
  mutable std::mutex mu_;
  mutable std::vector<double> clock_;   // per run, the clock after its latest evaluation
  mutable std::vector<int64_t> evals_;  // per run, evaluations so far
  std::chrono::steady_clock::time_point start_;
};

// Everything but strategy and seed, from the flags.
Expected<SearchConfig> base_config(const NasArgs& a) {
  SearchConfig base;
  base.budget_seconds = a.budget;
  base.max_evaluations = a.max_evals;
  auto rk = reward_kind_from_name(a.reward);
  if (!rk) return rk.status().with_context("--reward");
  base.reward.kind = *rk;
  base.reward.target_throughput = a.target_throughput;
  base.reward.w = a.w;
  auto fo = filter_order_from_name(a.filter_order);
  if (!fo) return fo.status().with_context("--filter-order");
  base.filter_order = *fo;
  return base;
}

// NATS-Bench's single file is read once, here with progress; every thread's oracle shares that
// index (make_oracle finds it while the caller holds it). Null for other oracles.
Expected<std::shared_ptr<const NatsIndex>> load_nats_index(const NasArgs& a) {
  if (a.oracle.rfind("nats:", 0) != 0) return std::shared_ptr<const NatsIndex>();
  const std::string path = a.oracle.substr(5);
  auto form = nats_data_form(path);
  if (!form || *form != NatsDataForm::kSingleFile) return std::shared_ptr<const NatsIndex>();
  const NatsProgress progress(path);
  auto index = NatsOracle::shared_index(path, progress.callback());
  progress.finish();
  if (!index) return index.status().with_context(fmt::format("--oracle '{}'", a.oracle));
  return *index;
}

// --throughput measured: what it can measure (this CPU, fp32, a fixed batch, no filter).
Status check_measured(const NasArgs& a, const DeviceSpec& dev, const SssBatch& batch, const NasExperiment& x) {
  if (dev.is_gpu())
    return Status::invalid(
        fmt::format("--throughput measured runs the networks on this CPU; --device {} is a GPU "
                    "(pass this CPU's probe file: rooflens probe cpu --out local.json, then "
                    "--device local.json)",
                    a.device));
  if (a.dtype != "fp32") return Status::invalid("--throughput measured: the CPU backend runs fp32; pass --dtype fp32");
  if (batch.max) return Status::invalid("--throughput measured: give a fixed --batch N");
  if (!(a.max_seconds > 0) || a.max_seconds > 600)
    return Status::invalid(fmt::format("--max-seconds {}: expected > 0 and <= 600", a.max_seconds));
  for (const ExperimentRun& t : x.runs())
    if (t.strategy == StrategyKind::kFilter)
      return Status::invalid(fmt::format(
          "--strategy filter with --throughput measured would measure all {} networks on this CPU before the first "
          "evaluation (about {:.0f} h at --max-seconds {} each, before building and warm-up); filter on predicted "
          "throughput, or measure with random, rea or reinforce",
          kSssSpaceSize, kSssSpaceSize * a.max_seconds / 3600, a.max_seconds));
  return Status::ok();
}

// The whole space on the device (predicted: no cost on the simulated clock); `measure` is set
// for --throughput measured.
Expected<SpaceTable> space_table(const NasArgs& a, const SssNetInput& net_input, const DeviceSpec& dev,
                                 const SssBatch& batch, ThroughputFn& measure) {
  PerfOptions po;
  po.dtype = a.dtype;
  po.use_measured_peak = !a.datasheet_peak;
  const auto t0 = std::chrono::steady_clock::now();
  auto pts = predict_sss_space(net_input, dev, po, batch, a.jobs);
  if (!pts) return pts.status();
  SpaceTable space;
  space.points = std::move(*pts);
  space.source = fmt::format("predicted by the rooflens performance model: NATS-SSS {} on {} ({}), {}, {}",
                             net_input.name, dev.name, dev.id, a.dtype,
                             batch.max ? std::string("max batch") : fmt::format("batch {}", batch.size));
  if (a.throughput == "measured") {
    space.source = fmt::format(
        "measured on this CPU through oneDNN (fp32, batch {}, {} s per network; utilization "
        "over {}'s fp32 peak); NATS-SSS {}",
        batch.size, a.max_seconds, dev.id, net_input.name);
    measure = cpu_throughput_fn(net_input, batch.size, dev, a.max_seconds);
  }
  std::fprintf(stderr, "space: %lld networks predicted in %.2f s (%s)\n", static_cast<long long>(space.points.size()),
               std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), space.source.c_str());
  return space;
}

// The line printed on stderr as each run ends.
void print_run_done(size_t finished, const NasExperiment& x, size_t i, const Expected<LoggedSearch>& result,
                    double wall) {
  const ExperimentRun& t = x.runs()[i];
  if (!result) {
    std::fprintf(stderr, "[%zu/%zu] %s seed %llu: failed\n", finished, x.runs().size(), strategy_kind_name(t.strategy),
                 static_cast<unsigned long long>(t.seed));
    return;
  }
  const SearchResult& r = result->result;
  std::fprintf(stderr, "[%zu/%zu] %s seed %llu: %zu evaluations%s%s, clock %.0f s, best %s (reward %.3f), %.1f s\n",
               finished, x.runs().size(), strategy_kind_name(t.strategy), static_cast<unsigned long long>(t.seed),
               r.evaluations.size(),
               r.lost.empty() ? "" : fmt::format(" ({} lost with their worker rank)", r.lost.size()).c_str(),
               result->replayed_steps > 0 ? fmt::format(" ({} replayed from the log)", result->replayed_steps).c_str()
                                          : "",
               r.clock_seconds, r.best_arch >= 0 ? sss_arch_string(r.best_arch).c_str() : "-", r.best_reward, wall);
}

Status print_lost(const ExperimentRun& t, const LostEvaluation& l) {
  std::fprintf(stderr, "%s seed %llu: LOST %s (oracle seed %llu) with %s: %s\n", strategy_kind_name(t.strategy),
               static_cast<unsigned long long>(t.seed), sss_arch_string(l.arch).c_str(),
               static_cast<unsigned long long>(l.oracle_seed), l.where.c_str(), l.reason.c_str());
  return Status::ok();
}

void print_final_progress(int64_t done, int64_t total) {
  std::fprintf(stderr, "final accuracies %lld/%lld%s", static_cast<long long>(done), static_cast<long long>(total),
               done == total ? "\r\n" : "\r");
}

}  // namespace

int run_nas(const NasArgs& a) {
  // Under `mpirun -n N` (N >= 2, nas_dist.h): ranks >= 1 only train what rank 0 sends them; rank 0
  // runs everything below with its evaluations spread over them. Rank 0's session tells the
  // workers to stop when it goes out of scope, whatever path this function returns by.
  const MpiLaunch launch = detect_mpi_launch();
  auto mpi = start_nas_mpi(a, launch);
  if (!mpi) {  // a refused argument: said once, by rank 0; every rank exits with its code
    if (launch.rank > 0 && mpi.status().code() == StatusCode::kInvalidInput) return exit_code_for(mpi.status());
    return report_error(mpi.status());
  }
  if (*mpi && (*mpi)->rank() > 0) return run_nas_worker(**mpi);
  if (a.space != "sss")
    return report_error(
        Status::invalid(fmt::format("--space '{}': only sss (NATS-Bench size space) is built", a.space)));
  auto base = base_config(a);
  if (!base) return report_error(base.status());
  ExperimentSpec xs;
  xs.strategies = a.strategies;
  xs.seeds = a.seeds;
  xs.seed_base = a.seed_base;
  xs.out = a.out;
  xs.base = *base;
  auto experiment = NasExperiment::plan(xs);
  if (!experiment) return report_error(experiment.status());
  auto ds = sss_dataset_from_name(a.dataset);
  if (!ds) return report_error(ds.status().with_context("--dataset"));
  if (a.oracle.rfind("nats:", 0) == 0 && *ds != SssDataset::kCifar10)
    return report_error(
        Status::invalid(fmt::format("--dataset {}: the nats: oracle answers for CIFAR-10 (the "
                                    "benchmark's cifar10-valid / cifar10 entries); use cifar10",
                                    a.dataset)));
  if (!parse_dtype(a.dtype))
    return report_error(Status::invalid("--dtype '" + a.dtype + "': expected fp32, fp16, bf16, int8 or fp8"));
  auto batch_opt = parse_batch_or_max(a.batch);
  if (!batch_opt) return report_error(batch_opt.status());
  const SssBatch batch = *batch_opt ? SssBatch::fixed(**batch_opt) : SssBatch::largest();
  auto nats_index = load_nats_index(a);  // held until the end: the oracles share it
  if (!nats_index) return report_error(nats_index.status());
  auto spec = oracle_spec(a);
  if (!spec) return report_error(spec.status());
  const bool training = spec->rfind("train:", 0) == 0;
  train::register_train_oracle();
  train::register_train_store_opener(store::open_train_cache);
  auto oracle = make_oracle(*spec);
  if (!oracle) return report_error(oracle.status().with_context("--oracle"));
  std::string oracle_desc = (*oracle)->describe();
  std::unique_ptr<EvalPool> mpi_pool;  // rank 0 of an MPI job: the worker ranks
  if (*mpi) {
    auto pool = make_nas_mpi_pool(**mpi, **oracle, *spec);
    if (!pool) return report_error(pool.status());
    mpi_pool = std::move(*pool);
    oracle_desc += fmt::format("; asynchronous over {}", mpi_pool->describe());
    std::fprintf(stderr, "nas: MPI: rank 0 runs the search; %d worker rank(s) train\n", mpi_pool->workers());
  }
  // The networks' input: the oracle's own data (training), else the benchmark dataset.
  const std::optional<SssNetInput> oracle_input = (*oracle)->network_input();
  if (oracle_input && a.dataset != "cifar10")
    return report_error(Status::invalid(fmt::format(
        "--dataset {}: the networks of --oracle '{}' take its data ({}, {} x {} x {}, {} classes); leave --dataset out",
        a.dataset, a.oracle, oracle_input->name, oracle_input->channels, oracle_input->image_size,
        oracle_input->image_size, oracle_input->classes)));
  const SssNetInput net_input = oracle_input.value_or(sss_net_input(*ds));
  auto dev = device_with_peak(a.device, a.devices_dir, a.dtype);
  if (!dev) return report_error(dev.status());
  if (a.throughput == "measured")
    if (Status s = check_measured(a, *dev, batch, *experiment); !s) return report_error(s);
  if (Status s = experiment->prepare_output(a.resume); !s) return report_error(s);

  ThroughputFn measure;
  auto space = space_table(a, net_input, *dev, batch, measure);
  if (!space) return report_error(space.status());
  const TrainProgress train_progress(a, experiment->runs());
  ExperimentOptions opt;
  opt.threads = a.jobs;
  opt.resume = a.resume;
  opt.measure = measure;
  opt.pool = mpi_pool.get();
  if (training) opt.progress = [&](size_t i, const AccuracyOracle* o) { return train_progress.sink(i, o); };
  opt.on_lost = [&](size_t i, const LostEvaluation& l) { return print_lost(experiment->runs()[i], l); };
  size_t finished = 0;
  opt.on_run_done = [&](size_t i, const Expected<LoggedSearch>& r, double wall) {
    print_run_done(++finished, *experiment, i, r, wall);
  };
  auto results = experiment->run(*space, *spec, oracle_desc, opt);
  if (!results) return report_error(results.status());

  // Judged against the true frontier when the oracle covers the space; outputs.
  NasOutcome outcome;
  outcome.space = &*space;
  outcome.oracle = oracle_desc;
  outcome.device =
      fmt::format("{} ({}), {}, {}, NATS-SSS {}", dev->name, dev->id, a.dtype,
                  batch.max ? std::string("max batch") : fmt::format("batch {}", batch.size), net_input.name);
  outcome.args = &a;
  for (auto& r : *results) outcome.runs.push_back(std::move(r.result));
  const bool tty = isatty(fileno(stderr)) != 0;
  outcome.final_accuracy = NasExperiment::final_accuracies(**oracle, outcome.runs, outcome.no_truth_reason,
                                                           tty ? print_final_progress : nullptr);
  for (const ExperimentRun& t : experiment->runs()) outcome.logs.push_back(t.log);
  return write_nas_outputs(outcome, **oracle);
}

}  // namespace rooflens::cli
