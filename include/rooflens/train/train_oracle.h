// The training oracle: an AccuracyOracle (rooflens/nas/oracle.h) that answers "how good is
// NATS-SSS network i?" by training it with LibTorch on an IDX image dataset (Fashion-MNIST by
// default) and testing it on the held-out split, and charges the measured wall seconds (or a
// simulated cost) to the search clock. Its own library target (rooflens_train); the core and
// rooflens_nas never link LibTorch: make_oracle("train:...") reaches this code only once
// register_train_oracle() has run (the `rooflens` program does so).
//
// The network is the generator's graph (build_sss_network, sss_space.h) built for the data's
// input: for Fashion-MNIST {1 channel, 28 x 28, 10 classes}. Against the benchmark's CIFAR-10
// network only two things change: the stem conv takes 1 input channel instead of 3 (18 x c0
// fewer weights), and the feature maps are 28/14/7 pixels instead of 32/16/8. The trainer
// (trainer.h) runs that graph node by node, so what is trained is what rooflens analyses.
//
// Spec (make_oracle, `rooflens nas --oracle`):
//   train:fashion-mnist[,KEY=VALUE]...   Debian's dataset-fashion-mnist (kFashionMnistDir)
//   train:DIR[,KEY=VALUE]...             DIR holding train-/t10k- images-idx3 and labels-idx1
//                                        files (.gz or plain); DIR may not contain ','
// Keys (each at most once):
//   epochs=N          training epochs (default kDefaultEpochs)
//   batch=N           images per SGD step (default kDefaultBatch = 32; the benchmark's is 256,
//                     too many for small subsets: see trainer.h)
//   train-subset=N    the first N training images, or "all" (default kDefaultTrainSubset)
//   test-subset=N     the first N test images, or "all" (default kDefaultTestSubset)
//   threads=N         torch intra-op threads (default kDefaultTrainThreads); part of the recipe,
//                     since another thread count gives slightly different numbers
//   bn-recal=N        BatchNorm statistics recomputed on N training images after training
//                     (default kDefaultBnRecalibration; 0: keep the running averages)
//   trials=N          training seeds 0..N-1 (default 3, as NATS-Bench records 3 seeds): the
//                     search's oracle seed picks one (nas::nats_pick_seed), so re-evaluating a
//                     network returns one of N repeatable trainings and a cache can answer it
//   clock=measured    cost = measured wall seconds of training + testing (default)
//   clock=simulated   cost = the deterministic model simulated_cost_seconds(): searches on it
//                     repeat exactly, whatever the machine's load
//   db=PATH           keep results in this SQLite file (the store module, store/train_store.h)
//                     and reuse them; db=none (default): in this process's memory only. Not
//                     part of the recipe; PATH may not contain ','
//
// evaluate(arch, seed): trains (or finds in the cache) trial nats_pick_seed(seed, trials);
//   accuracy = top-1 percent on the test images; cost per `clock` (a cached result costs what
//   its training cost when it was measured: the search pays for finding out, as NATS-Bench's
//   recorded times do).
// final_accuracy(arch): the mean test accuracy over the trials of `arch` in the cache, without
//   training: unavailable for a network nobody has trained (so a caller scanning the whole
//   space for the true frontier stops at once instead of training 32768 networks).
#pragma once

#include <compare>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "rooflens/nas/oracle.h"
#include "rooflens/train/idx_dataset.h"
#include "rooflens/train/trainer.h"
#include "rooflens/util/status.h"

namespace rooflens::train {

inline constexpr int kDefaultTrials = 3;

// What one training is keyed on, for a results store: two equal keys train identically (with
// the same software: TrainResult::versions records it).
struct TrainKey {
  std::string space;    // "nats-sss"
  std::string arch;     // "8:16:24:32:40"
  std::string dataset;  // "fashion-mnist", or the data directory
  std::string recipe;   // TrainRecipe::describe()
  uint64_t seed = 0;    // the torch seed of the trial
  auto operator<=>(const TrainKey&) const = default;
  std::string str() const;  // one line, for messages
};

// Where trained results are kept between evaluations. An in-memory one below; a durable one
// (SQLite, the `store` module) implements the same two calls. Implementations must be
// thread-safe: the oracles of several search threads share one.
class TrainCache {
 public:
  virtual ~TrainCache() = default;
  // The result stored for `key`, nullopt when there is none, or why the store failed.
  virtual Expected<std::optional<TrainResult>> find(const TrainKey& key) = 0;
  virtual Status put(const TrainKey& key, const TrainResult& result) = 0;
  // Where a found result came from, for progress lines: "the cache", "the database".
  virtual std::string origin() const { return "the cache"; }
};

class MemoryTrainCache : public TrainCache {
 public:
  Expected<std::optional<TrainResult>> find(const TrainKey& key) override;
  Status put(const TrainKey& key, const TrainResult& result) override;
  size_t size() const;

 private:
  mutable std::mutex mu_;
  std::map<TrainKey, TrainResult> results_;
};

enum class TrainClock { kMeasured, kSimulated };

struct TrainOracleOptions {
  std::string dataset = "fashion-mnist";  // the name in keys and messages
  std::string data_dir = kFashionMnistDir;
  TrainRecipe recipe;
  int trials = kDefaultTrials;  // >= 1
  TrainClock clock = TrainClock::kMeasured;
  // db=PATH: the results store file (the opener registered below opens it; all oracles of a
  // process with the same PATH share it); empty or db=none: the process-wide memory cache.
  // Not part of the recipe or the key: where results are kept does not change them.
  std::string db;
};

// Parses a "train:..." spec (grammar above). Invalid input names the spec and the bad part:
// another scheme, an empty dataset, an unknown or repeated key, a value that is not a whole
// number in range or not one of the listed words.
Expected<TrainOracleOptions> parse_train_spec(const std::string& spec);

// Both splits of a dataset, loaded once and shared read-only.
struct TrainData {
  ImageDataset train, test;
  int64_t classes = 0;  // max of both splits' classes
};
// Loads "train" and "t10k" from `dir` (load_idx_split) and checks they fit the SSS network:
// square images whose side is a multiple of 4 and the same size in both splits, at least 2
// classes.
Expected<std::shared_ptr<const TrainData>> load_train_data(const std::string& dir);

// The simulated cost of training and testing `arch` under `recipe`: a fixed model of one
// thread of the machine the defaults were measured on (docs/nas.md, "Training oracle"),
//   seconds = images x kSimSecondsPerImage x (MACs per image / 1e6)^kSimMacsExponent,
//   images  = epochs x train images + (test images + BN recalibration images) / 3
// (a forward pass costs about a third of a training step). Time grows more slowly than MACs
// because the wide networks' convolutions run more efficiently; the power law fits the
// measured 8:8:8:8:8, 32:32:32:32:32, 40:40:40:40:40 and 64:64:64:64:64 within 25 % (the
// measurements themselves vary that much with the machine's load).
// Deterministic: it depends only on its arguments.
inline constexpr double kSimSecondsPerImage = 4.3e-4;
inline constexpr double kSimMacsExponent = 0.64;
double simulated_cost_seconds(int64_t macs_per_image, const TrainRecipe& recipe, int64_t train_images,
                              int64_t test_images);

class TrainOracle : public nas::DistributableOracle {
 public:
  // `data` from load_train_data(options.data_dir); `cache` may be shared between oracles
  // (a fresh MemoryTrainCache when null). Invalid input for a bad recipe or trial count.
  static Expected<std::unique_ptr<TrainOracle>> create(TrainOracleOptions options,
                                                       std::shared_ptr<const TrainData> data,
                                                       std::shared_ptr<TrainCache> cache = nullptr);

  Expected<nas::Evaluation> evaluate(int64_t arch_index, uint64_t seed) override;
  Expected<double> final_accuracy(int64_t arch_index) override;
  std::string describe() const override;
  // {dataset, 1 channel, the images' side, the data's classes}.
  std::optional<SssNetInput> network_input() const override;
  // Training on another process (nas::DistributableOracle): the cache answers here; a worker
  // trains; its TrainResult travels as JSON; the worker's spec drops db=PATH (the process
  // running the search alone keeps the results store; a worker keeps what it trained in memory).
  Expected<std::optional<Answer>> answer_here(int64_t arch_index, uint64_t seed) override;
  Expected<Work> do_work(int64_t arch_index, uint64_t seed) override;
  Expected<nas::Evaluation> accept_work(int64_t arch_index, uint64_t seed, const std::string& result) override;
  std::string worker_spec(const std::string& spec) const override;

  // The network `arch` as trained here (input [batch, 1, S, S], `classes` logits).
  Expected<Graph> network(int64_t arch_index, int64_t batch = 1) const;
  TrainKey key(int64_t arch_index, uint64_t train_seed) const;
  // Trains trial `train_seed` of `arch` unless the cache holds it. `cached` (optional) says
  // which happened.
  Expected<TrainResult> train(int64_t arch_index, uint64_t train_seed, bool* cached = nullptr);
  const TrainOracleOptions& options() const { return options_; }
  // evaluate() in parts, for a caller that trains elsewhere (dist/: MPI ranks): the trial an
  // oracle seed selects; the cached result of a trial (nullopt: none; sets last_origin());
  // storing a result trained elsewhere; and the Evaluation evaluate() makes of a result
  // (`origin`: where a cached one came from, empty when it was just trained).
  uint64_t trial_of(uint64_t oracle_seed) const;
  Expected<std::optional<TrainResult>> find_result(int64_t arch_index, uint64_t train_seed);
  Status store_result(int64_t arch_index, uint64_t train_seed, const TrainResult& result);
  Expected<nas::Evaluation> evaluation_of(int64_t arch_index, uint64_t train_seed, const TrainResult& result,
                                          const std::string& origin) const;
  // Where the latest train() (or evaluate()) got its result: empty when it trained, else the
  // cache's origin() ("the database"). For progress lines; an oracle serves one thread.
  const std::string& last_origin() const { return last_origin_; }

 private:
  TrainOracle(TrainOracleOptions options, std::shared_ptr<const TrainData> data, std::shared_ptr<TrainCache> cache)
      : options_(std::move(options)), data_(std::move(data)), cache_(std::move(cache)) {}

  TrainOracleOptions options_;
  std::shared_ptr<const TrainData> data_;
  std::shared_ptr<TrainCache> cache_;
  std::string last_origin_;
};

// make_oracle's factory for "train:": parses the spec, loads the data (once per directory
// per process) and builds a TrainOracle. All oracles it makes share one process-wide
// MemoryTrainCache, so the per-thread oracles of `rooflens nas` and the one that reports
// final accuracies see the same trainings.
Expected<std::unique_ptr<nas::AccuracyOracle>> make_train_oracle(const std::string& spec);

// Registers make_train_oracle for the "train" scheme of nas::make_oracle. Idempotent.
void register_train_oracle();

// Opens the results store of a spec's db=PATH. The store module provides one
// (store::open_train_cache); this library does not link SQLite, so a program registers it.
// Without one, db=PATH is refused as unsupported. The last registration wins.
using TrainStoreOpener = std::function<Expected<std::shared_ptr<TrainCache>>(const std::string& path)>;
void register_train_store_opener(TrainStoreOpener opener);

}  // namespace rooflens::train
