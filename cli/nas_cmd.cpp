// `rooflens nas`: utilization-aware NAS on the NATS-Bench size space. Predicts the whole space
// on a device, runs each strategy x seed on a simulated clock (threads; results do not depend
// on their number), logs every run as JSONL (resumable), scores the runs against the true
// accuracy-throughput frontier when the oracle covers the space, and writes result.json and
// an optional HTML report.
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include "commands.h"
#include "common.h"
#include "loading.h"
#include "nas_measure.h"
#include "nas_output.h"
#include "nas_dist.h"
#include "nats_progress.h"
#include "rooflens/nas/search.h"
#include "rooflens/nas/search_log.h"
#include "rooflens/nas/sss_study.h"
#include "rooflens/store/train_store.h"
#include "rooflens/train/train_oracle.h"
#include "rooflens/util/parallel.h"
#include "train_db_path.h"

namespace rooflens::cli {

using namespace rooflens::nas;

void add_nas(CLI::App& app, NasArgs& a) {
  auto* cmd = app.add_subcommand(
      "nas", "neural architecture search on the NATS-Bench size space, on a simulated clock: random, regularized "
             "evolution, REINFORCE, or approximate filtering by the throughput-utilization frontier");
  cmd->add_option("--space", a.space, "search space (sss: NATS-Bench size space)")->capture_default_str();
  cmd->add_option("--oracle", a.oracle, "accuracy source: nats:PATH (NATS-Bench SSS: the directory "
                                        "NATS-sss-v1_0-50262-simple/ or the single file "
                                        "NATS-sss-v1_0-50262.pickle.pbz2, read once, progress on stderr) or "
                                        "csv:FILE (arch,accuracy[,train_seconds]), or train:fashion-mnist / "
                                        "train:DIR[,KEY=VALUE]... (train each network with LibTorch; docs/nas.md)")
      ->required();
  cmd->add_option("--epochs", a.epochs, "train: oracle: training epochs per network (default 1)");
  cmd->add_option("--train-batch", a.train_batch, "train: oracle: images per SGD step (default 32; the benchmark's 256)");
  cmd->add_option("--train-subset", a.train_subset, "train: oracle: first N training images, or all (default 3000)");
  cmd->add_option("--test-subset", a.test_subset, "train: oracle: first N test images, or all (default 1000)");
  cmd->add_option("--train-threads", a.train_threads, "train: oracle: LibTorch threads (default 1)");
  cmd->add_option("--train-clock", a.train_clock, "train: oracle: measured (wall seconds, default) or simulated");
  cmd->add_option("--db", a.db, "train: oracle: SQLite file that keeps every training and answers repeats from it "
                                "(default $ROOFLENS_CACHE_DIR, else $XDG_CACHE_HOME/rooflens, else "
                                "~/.cache/rooflens: train-results.sqlite); none: memory only; rooflens nas-db reads it");
  cmd->add_option("--strategy", a.strategies, "random, rea, reinforce, filter; several separated by commas; "
                                              "NAME:N runs N seeds of that one (e.g. filter:1,reinforce:9)")
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_option("--budget", a.budget, "simulated seconds per run (checked before each sample)")->capture_default_str();
  cmd->add_option("--seeds", a.seeds, "runs per strategy, seeds seed-base .. seed-base+N-1")->capture_default_str();
  cmd->add_option("--seed-base", a.seed_base, "first seed")->capture_default_str();
  cmd->add_option("--reward", a.reward, "accuracy (the benchmark's), soft or hard (MnasNet, on throughput)")
      ->capture_default_str();
  cmd->add_option("--target-throughput", a.target_throughput, "G_T of the soft/hard reward, images/s")
      ->capture_default_str();
  cmd->add_option("--w", a.w, "exponent of the soft reward")->capture_default_str();
  cmd->add_option("--filter-order", a.filter_order, "order filter evaluates the frontier in: spread, utilization, "
                                                    "throughput")
      ->capture_default_str();
  cmd->add_option("--dataset", a.dataset, "cifar10, cifar100 or ImageNet16-120 (input size and classes of the "
                                          "networks predicted; nats: oracle is cifar10; a train: oracle's networks take "
                                          "its own data)")
      ->capture_default_str();
  cmd->add_option("--device", a.device, "device for throughput and utilization (rooflens devices, or a .json)")
      ->capture_default_str();
  cmd->add_option("--dtype", a.dtype, "fp32, fp16, bf16, int8 or fp8")->capture_default_str();
  cmd->add_option("--batch", a.batch, "images per batch: N, or max")->capture_default_str();
  cmd->add_option("--throughput", a.throughput, "T of the reward and the logs: predicted (performance model, the "
                                                "whole space), or measured (each evaluated network run on this CPU "
                                                "through oneDNN, fp32; --device local.json)")
      ->check(CLI::IsMember({"predicted", "measured"}))
      ->capture_default_str();
  cmd->add_option("--max-seconds", a.max_seconds, "measured: timing budget per network (s)")->capture_default_str();
  cmd->add_option("-o,--out", a.out, "directory for the run logs (<strategy>-seed<k>.jsonl) and result.json")
      ->required();
  cmd->add_option("--max-evals", a.max_evals, "at most N evaluations per run (0: no cap): the same networks "
                                              "whether the run is spread over MPI ranks or not (random, filter)")
      ->capture_default_str();
  cmd->add_flag("--resume", a.resume, "continue the runs logged in --out (after a kill); finished runs are checked");
  cmd->add_option("--report", a.report, "write the HTML report (Figures 3, 5, 6 and the tables) into this directory");
  cmd->add_option("--jobs", a.jobs, "threads (default: one per core); results do not depend on it");
  cmd->add_option("--devices-dir", a.devices_dir, "directory of device JSON files");
  cmd->add_flag("--datasheet-peak", a.datasheet_peak, "use datasheet peaks even where a measured peak exists");
}

namespace {

struct Task {
  StrategyKind strategy;
  uint64_t seed;
  std::string log;
};

Expected<std::vector<Task>> make_tasks(const NasArgs& a) {
  if (a.seeds < 1 || a.seeds > 10000) return Status::invalid(fmt::format("--seeds {}: expected 1..10000", a.seeds));
  std::vector<Task> tasks;
  std::vector<StrategyKind> seen;
  for (const std::string& item : a.strategies) {
    // NAME or NAME:SEEDS (runs of this strategy; --seeds otherwise).
    const size_t colon = item.find(':');
    const std::string s = item.substr(0, colon);
    int seeds = a.seeds;
    if (colon != std::string::npos) {
      const std::string n = item.substr(colon + 1);
      char* end = nullptr;
      const long v = std::strtol(n.c_str(), &end, 10);
      if (n.empty() || *end != '\0' || v < 1 || v > 10000)
        return Status::invalid(fmt::format("--strategy '{}': seeds '{}' after ':' must be an integer 1..10000", item, n));
      seeds = static_cast<int>(v);
    }
    auto k = strategy_kind_from_name(s);
    if (!k) return k.status().with_context("--strategy");
    if (std::find(seen.begin(), seen.end(), *k) != seen.end())
      return Status::invalid(fmt::format("--strategy: '{}' given twice", s));
    seen.push_back(*k);
    for (int i = 0; i < seeds; ++i) {
      const uint64_t seed = a.seed_base + static_cast<uint64_t>(i);
      tasks.push_back({*k, seed, (std::filesystem::path(a.out) / fmt::format("{}-seed{}.jsonl", s, seed)).string()});
    }
  }
  if (tasks.empty()) return Status::invalid("--strategy: none given");
  return tasks;
}

// --oracle with the training flags appended (train: only; the oracle's spec parser checks them).
Expected<std::string> oracle_spec(const NasArgs& a) {
  const std::pair<const char*, const std::string*> flags[] = {{"epochs", &a.epochs},
                                                              {"train-batch", &a.train_batch},
                                                              {"train-subset", &a.train_subset},
                                                              {"test-subset", &a.test_subset},
                                                              {"train-threads", &a.train_threads},
                                                              {"train-clock", &a.train_clock}};
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
  TrainProgress(const NasArgs& a, const std::vector<Task>& tasks)
      : budget_(a.budget), max_evals_(a.max_evals), tasks_(tasks), clock_(tasks.size(), 0.0), evals_(tasks.size(), 0),
        start_(std::chrono::steady_clock::now()) {}

  // `oracle`: the run's own; a TrainOracle says where a result came from (the database).
  EvalSink sink(size_t i, const AccuracyOracle* oracle) const {
    const auto* trainer = dynamic_cast<const train::TrainOracle*>(oracle);
    return [this, i, trainer, best_arch = int64_t{-1}, best_reward = 0.0, best_accuracy = 0.0](const EvalRecord& r) mutable {
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
      const std::string eta = std::isfinite(eta_s) ? fmt::format("about {:.0f} s left", eta_s)
                                                   : std::string("time left unknown");
      const Task& t = tasks_[i];
      const std::string from = trainer != nullptr && !trainer->last_origin().empty()
                                   ? fmt::format(" (from {})", trainer->last_origin())
                               : !r.where.empty() ? fmt::format(" ({})", r.where)  // MPI: the rank, or the cache
                                                  : std::string();
      std::fprintf(stderr, "%s seed %llu, evaluation %lld: %s %.2f %% in %.1f s%s; clock %.1f of %g s; best %s %.2f %%; %s\n",
                   strategy_kind_name(t.strategy), static_cast<unsigned long long>(t.seed),
                   static_cast<long long>(r.step + 1), sss_arch_string(r.arch).c_str(), r.accuracy, r.cost_seconds,
                   from.c_str(),
                   r.clock_seconds, budget_, sss_arch_string(best_arch).c_str(), best_accuracy, eta.c_str());
      return Status::ok();
    };
  }

 private:
  double budget_;
  int64_t max_evals_;  // --max-evals, 0: none
  const std::vector<Task>& tasks_;
  mutable std::mutex mu_;
  mutable std::vector<double> clock_;  // per run, the clock after its latest evaluation
  mutable std::vector<int64_t> evals_;  // per run, evaluations so far
  std::chrono::steady_clock::time_point start_;
};

// Final accuracy of every network: the oracle's, NaN where it has none (unavailable: not
// trained, not in the table). Empty, with the reason, when it knows none, when a network a
// run evaluated is unknown, or on any other error. With some unknown, the report judges
// against the reference frontier of the known networks (nas/frontier_metrics.h).
std::vector<double> final_accuracies(AccuracyOracle& oracle, const std::vector<Expected<LoggedSearch>>& results,
                                     std::string& why_not) {
  std::vector<double> acc(static_cast<size_t>(kSssSpaceSize), std::nan(""));
  const bool tty = isatty(fileno(stderr)) != 0;
  int64_t known = 0;
  std::string first_unknown;
  for (int64_t i = 0; i < kSssSpaceSize; ++i) {
    auto f = oracle.final_accuracy(i);
    if (f) {
      acc[static_cast<size_t>(i)] = *f;
      ++known;
    } else if (f.status().code() != StatusCode::kUnavailable) {
      why_not = fmt::format("the final accuracy of network {} ({}) failed: {}", i, sss_arch_string(i),
                            f.status().message());
      return {};
    } else if (first_unknown.empty()) {
      first_unknown = fmt::format("the oracle has no final accuracy for network {} ({}): {}", i, sss_arch_string(i),
                                  f.status().message());
    }
    if (tty && (i + 1) % 1024 == 0)
      std::fprintf(stderr, "final accuracies %lld/%lld\r", static_cast<long long>(i + 1),
                   static_cast<long long>(kSssSpaceSize));
  }
  if (tty) std::fprintf(stderr, "\n");
  if (known == kSssSpaceSize) return acc;
  if (known == 0) {
    why_not = first_unknown;
    return {};
  }
  for (const auto& r : results)
    for (const EvalRecord& e : r->result.evaluations)
      if (std::isnan(acc[static_cast<size_t>(e.arch)])) {
        why_not = fmt::format("network {} ({}) was evaluated but has no final accuracy; {}", e.arch,
                              sss_arch_string(e.arch), first_unknown);
        return {};
      }
  return acc;
}

}  // namespace

int run_nas(const NasArgs& a) {
  // Under `mpirun -n N` (N >= 2, nas_dist.h): ranks >= 1 only train what rank 0 sends them; rank 0
  // runs everything below with its evaluations spread over them. Rank 0's session tells the
  // workers to stop when it goes out of scope, whatever path this function returns by.
  const MpiLaunch launch = detect_mpi_launch();
  auto mpi = start_nas_mpi(a, launch);
  if (!mpi) return report_error(mpi.status());
  if (*mpi && (*mpi)->rank() > 0) return run_nas_worker(**mpi);
  if (a.space != "sss")
    return report_error(Status::invalid(fmt::format("--space '{}': only sss (NATS-Bench size space) is built", a.space)));
  auto tasks = make_tasks(a);
  if (!tasks) return report_error(tasks.status());
  SearchConfig base;
  base.budget_seconds = a.budget;
  base.max_evaluations = a.max_evals;
  auto rk = reward_kind_from_name(a.reward);
  if (!rk) return report_error(rk.status().with_context("--reward"));
  base.reward.kind = *rk;
  base.reward.target_throughput = a.target_throughput;
  base.reward.w = a.w;
  auto fo = filter_order_from_name(a.filter_order);
  if (!fo) return report_error(fo.status().with_context("--filter-order"));
  base.filter_order = *fo;
  if (Status s = validate_config(base); !s) return report_error(s);
  auto ds = sss_dataset_from_name(a.dataset);
  if (!ds) return report_error(ds.status().with_context("--dataset"));
  if (a.oracle.rfind("nats:", 0) == 0 && *ds != SssDataset::kCifar10)
    return report_error(Status::invalid(fmt::format("--dataset {}: the nats: oracle answers for CIFAR-10 (the "
                                                    "benchmark's cifar10-valid / cifar10 entries); use cifar10",
                                                    a.dataset)));
  if (!parse_dtype(a.dtype))
    return report_error(Status::invalid("--dtype '" + a.dtype + "': expected fp32, fp16, bf16, int8 or fp8"));
  auto batch_opt = parse_batch_or_max(a.batch);
  if (!batch_opt) return report_error(batch_opt.status());
  const SssBatch batch = *batch_opt ? SssBatch::fixed(**batch_opt) : SssBatch::largest();
  // NATS-Bench's single file is read once, here with progress; every thread's oracle below
  // shares that index (make_oracle finds it while this holds it).
  std::shared_ptr<const NatsIndex> nats_index;
  if (a.oracle.rfind("nats:", 0) == 0) {
    const std::string path = a.oracle.substr(5);
    if (auto form = nats_data_form(path); form && *form == NatsDataForm::kSingleFile) {
      const NatsProgress progress(path);
      auto index = NatsOracle::shared_index(path, progress.callback());
      progress.finish();
      if (!index) return report_error(index.status().with_context(fmt::format("--oracle '{}'", a.oracle)));
      nats_index = *index;
    }
  }
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
  const bool measured = a.throughput == "measured";
  if (measured) {
    if (dev->is_gpu())
      return report_error(Status::invalid(fmt::format("--throughput measured runs the networks on this CPU; --device {} "
                                                      "is a GPU (pass this CPU's probe file: rooflens probe cpu --out "
                                                      "local.json, then --device local.json)",
                                                      a.device)));
    if (a.dtype != "fp32")
      return report_error(Status::invalid("--throughput measured: the CPU backend runs fp32; pass --dtype fp32"));
    if (batch.max) return report_error(Status::invalid("--throughput measured: give a fixed --batch N"));
    if (!(a.max_seconds > 0) || a.max_seconds > 600)
      return report_error(Status::invalid(fmt::format("--max-seconds {}: expected > 0 and <= 600", a.max_seconds)));
    for (const Task& t : *tasks)
      if (t.strategy == StrategyKind::kFilter)
        return report_error(Status::invalid(fmt::format(
            "--strategy filter with --throughput measured would measure all {} networks on this CPU before the first "
            "evaluation (about {:.0f} h at --max-seconds {} each, before building and warm-up); filter on predicted "
            "throughput, or measure with random, rea or reinforce",
            kSssSpaceSize, kSssSpaceSize * a.max_seconds / 3600, a.max_seconds)));
  }
  std::error_code ec;
  std::filesystem::create_directories(a.out, ec);
  if (ec) return report_error(Status::invalid(fmt::format("--out '{}': {}", a.out, ec.message())));
  if (!a.resume)
    for (const Task& t : *tasks)
      if (std::filesystem::exists(t.log))
        return report_error(Status::invalid(fmt::format("{} exists: pass --resume to continue these runs, or "
                                                        "choose another --out",
                                                        t.log)));

  // 1. The whole space on the device (predicted: no cost on the simulated clock).
  PerfOptions po;
  po.dtype = a.dtype;
  po.use_measured_peak = !a.datasheet_peak;
  const auto t0 = std::chrono::steady_clock::now();
  auto pts = predict_sss_space(net_input, *dev, po, batch, a.jobs);
  if (!pts) return report_error(pts.status());
  SpaceTable space;
  space.points = std::move(*pts);
  space.source = fmt::format("predicted by the rooflens performance model: NATS-SSS {} on {} ({}), {}, {}",
                             net_input.name, dev->name, dev->id, a.dtype,
                             batch.max ? std::string("max batch") : fmt::format("batch {}", batch.size));
  ThroughputFn measure;
  if (measured) {
    space.source = fmt::format("measured on this CPU through oneDNN (fp32, batch {}, {} s per network; utilization "
                               "over {}'s fp32 peak); NATS-SSS {}",
                               batch.size, a.max_seconds, dev->id, net_input.name);
    measure = cpu_throughput_fn(net_input, batch.size, *dev, a.max_seconds);
  }
  std::fprintf(stderr, "space: %lld networks predicted in %.2f s (%s)\n", static_cast<long long>(space.points.size()),
               std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), space.source.c_str());

  // 2. The runs, spread over threads; each thread has its own oracle (oracles cache).
  std::vector<Expected<LoggedSearch>> results(tasks->size(), Status::internal("not run"));
  const int hw = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  // Measured runs go one at a time: measurements must not share the cores (oneDNN's OpenMP
  // threads spin at barriers; with another busy thread on the core a layer takes many times longer).
  // Training runs too: each training times itself and uses its own LibTorch threads.
  const int jobs = measured || training
                       ? 1
                       : std::max(1, std::min<int>(a.jobs > 0 ? a.jobs : hw, static_cast<int>(tasks->size())));
  std::atomic<size_t> next{0};
  std::mutex io;
  size_t finished = 0;
  const TrainProgress train_progress(a, *tasks);
  auto worker = [&] {
    auto own = make_oracle(*spec);
    for (size_t i = next++; i < tasks->size(); i = next++) {
      const Task& t = (*tasks)[i];
      if (!own) {
        results[i] = own.status();
        continue;
      }
      SearchConfig c = base;
      c.strategy = t.strategy;
      c.seed = t.seed;
      const auto start = std::chrono::steady_clock::now();
      if (mpi_pool) {  // an MPI job: asynchronous over the worker ranks (async_search.h)
        auto r = run_logged_async_search(c, space, *mpi_pool, oracle_desc, t.log, train_progress.sink(i, nullptr),
                                         [&t](const LostEvaluation& l) {
                                           std::fprintf(stderr, "%s seed %llu: LOST %s (oracle seed %llu) with %s: %s\n",
                                                        strategy_kind_name(t.strategy),
                                                        static_cast<unsigned long long>(t.seed),
                                                        sss_arch_string(l.arch).c_str(),
                                                        static_cast<unsigned long long>(l.oracle_seed),
                                                        l.where.c_str(), l.reason.c_str());
                                           return Status::ok();
                                         });
        if (r) results[i] = LoggedSearch{std::move(*r), 0, false};
        else results[i] = r.status();
      } else {
        results[i] = run_logged_search(c, space, **own, oracle_desc, t.log, a.resume, measure,
                                       training ? train_progress.sink(i, own->get()) : EvalSink{});
      }
      const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      std::lock_guard<std::mutex> lock(io);
      ++finished;
      if (results[i]) {
        const SearchResult& r = results[i]->result;
        std::fprintf(stderr, "[%zu/%zu] %s seed %llu: %zu evaluations%s%s, clock %.0f s, best %s (reward %.3f), %.1f s\n",
                     finished, tasks->size(), strategy_kind_name(t.strategy), static_cast<unsigned long long>(t.seed),
                     r.evaluations.size(),
                     r.lost.empty() ? "" : fmt::format(" ({} lost with their worker rank)", r.lost.size()).c_str(),
                     results[i]->replayed_steps > 0
                         ? fmt::format(" ({} replayed from the log)", results[i]->replayed_steps).c_str()
                         : "",
                     r.clock_seconds, r.best_arch >= 0 ? sss_arch_string(r.best_arch).c_str() : "-", r.best_reward,
                     wall);
      } else {
        std::fprintf(stderr, "[%zu/%zu] %s seed %llu: failed\n", finished, tasks->size(),
                     strategy_kind_name(t.strategy), static_cast<unsigned long long>(t.seed));
      }
    }
  };
  run_on_threads(jobs, worker);  // each thread with its own oracle, taking the next task
  for (auto& r : results)
    if (!r) return report_error(r.status());

  // 3. Judged against the true frontier when the oracle covers the space; outputs.
  NasOutcome outcome;
  outcome.space = &space;
  outcome.oracle = oracle_desc;
  outcome.device = fmt::format("{} ({}), {}, {}, NATS-SSS {}", dev->name, dev->id, a.dtype,
                               batch.max ? std::string("max batch") : fmt::format("batch {}", batch.size),
                               net_input.name);
  outcome.args = &a;
  outcome.final_accuracy = final_accuracies(**oracle, results, outcome.no_truth_reason);
  for (auto& r : results) outcome.runs.push_back(std::move(r->result));
  for (const Task& t : *tasks) outcome.logs.push_back(t.log);
  return write_nas_outputs(outcome, **oracle);
}

}  // namespace rooflens::cli
