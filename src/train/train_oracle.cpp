// The training oracle (train_oracle.h): spec parsing, the recipe's canonical form, the data,
// the cache and the clock. No LibTorch here: training itself is trainer.h.
#include "rooflens/train/train_oracle.h"

#include <charconv>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <set>
#include <system_error>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "rooflens/cost/cost.h"
#include "rooflens/nas/sss_space.h"
#include "rooflens/passes/infer_shapes.h"

namespace rooflens::train {

// ---------------------------------------------------------------------------------------
// Recipe.

std::string TrainRecipe::describe() const {
  auto subset = [](int64_t n) { return n > 0 ? std::to_string(n) : std::string("all"); };
  return fmt::format(
      "sgd nesterov momentum {} wd {} batch {} lr {} cosine to 0 per step, {} epoch(s), "
      "train {} test {} images, no augmentation, normalised by the train images' mean/std, {}, "
      "{} thread(s)",
      momentum, weight_decay, batch, lr, epochs, subset(train_subset), subset(test_subset),
      bn_recalibration > 0 ? fmt::format("BN statistics recomputed on {} train images", bn_recalibration)
                           : std::string("BN running averages"),
      threads);
}

Status validate_recipe(const TrainRecipe& r) {
  if (r.epochs < 1) return Status::invalid(fmt::format("training recipe: epochs={} must be at least 1", r.epochs));
  if (r.batch < 1) return Status::invalid(fmt::format("training recipe: batch={} must be at least 1", r.batch));
  if (r.threads < 1 || r.threads > 1024)
    return Status::invalid(fmt::format("training recipe: threads={} must be 1..1024", r.threads));
  if (!std::isfinite(r.lr) || r.lr < 0)
    return Status::invalid(fmt::format("training recipe: lr={} must be >= 0", r.lr));
  if (!std::isfinite(r.weight_decay) || r.weight_decay < 0)
    return Status::invalid(fmt::format("training recipe: weight decay {} must be >= 0", r.weight_decay));
  if (!(r.momentum >= 0 && r.momentum < 1))
    return Status::invalid(fmt::format("training recipe: momentum {} must be in [0, 1)", r.momentum));
  if (r.bn_recalibration < 0)
    return Status::invalid(
        fmt::format("training recipe: BN recalibration images {} must be >= 0 (0: off)", r.bn_recalibration));
  if (r.train_subset < 0 || r.test_subset < 0)
    return Status::invalid(fmt::format("training recipe: subsets ({} train, {} test) must be >= 0 (0: all)",
                                       r.train_subset, r.test_subset));
  return Status::ok();
}

// ---------------------------------------------------------------------------------------
// Keys and the in-memory cache.

std::string TrainKey::str() const {
  return fmt::format("{} {} on {} seed {} ({})", space, arch, dataset, seed, recipe);
}

Expected<std::optional<TrainResult>> MemoryTrainCache::find(const TrainKey& key) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = results_.find(key);
  if (it == results_.end()) return std::optional<TrainResult>();
  return std::optional<TrainResult>(it->second);
}

Status MemoryTrainCache::put(const TrainKey& key, const TrainResult& result) {
  std::lock_guard<std::mutex> lock(mu_);
  results_[key] = result;
  return Status::ok();
}

size_t MemoryTrainCache::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return results_.size();
}

// ---------------------------------------------------------------------------------------
// Spec.

namespace {

constexpr const char* kKeys = "epochs, batch, train-subset, test-subset, threads, bn-recal, trials, clock, db";

Expected<int64_t> parse_count(const std::string& spec, const std::string& key, const std::string& value, int64_t lo,
                              int64_t hi, bool all_allowed) {
  if (all_allowed && value == "all") return int64_t{0};
  int64_t v = 0;
  const char* end = value.data() + value.size();
  auto [ptr, ec] = std::from_chars(value.data(), end, v);
  if (value.empty() || ec != std::errc() || ptr != end || v < lo || v > hi)
    return Status::invalid(fmt::format("oracle '{}': {}={}: expected a whole number {}..{}{}", spec, key, value, lo, hi,
                                       all_allowed ? " or 'all'" : ""));
  return v;
}

}  // namespace

Expected<TrainOracleOptions> parse_train_spec(const std::string& spec) {
  constexpr std::string_view kPrefix = "train:";
  if (spec.rfind(kPrefix, 0) != 0)
    return Status::invalid(fmt::format("oracle '{}': a training oracle spec starts with 'train:'", spec));
  std::vector<std::string> fields(1);
  for (char c : spec.substr(kPrefix.size())) {
    if (c == ',')
      fields.emplace_back();
    else
      fields.back() += c;
  }
  TrainOracleOptions o;
  if (fields[0].empty())
    return Status::invalid(
        fmt::format("oracle '{}': no dataset after 'train:' (fashion-mnist, or a directory of IDX "
                    "files)",
                    spec));
  if (fields[0] == "fashion-mnist") {
    o.dataset = "fashion-mnist";
    o.data_dir = kFashionMnistDir;
  } else {
    o.dataset = fields[0];
    o.data_dir = fields[0];
  }
  std::set<std::string> seen;
  for (size_t i = 1; i < fields.size(); ++i) {
    const std::string& f = fields[i];
    const size_t eq = f.find('=');
    const std::string key = f.substr(0, eq);
    if (eq == std::string::npos || key.empty())
      return Status::invalid(fmt::format("oracle '{}': option '{}' is not KEY=VALUE (keys: {})", spec, f, kKeys));
    const std::string value = f.substr(eq + 1);
    if (!seen.insert(key).second) return Status::invalid(fmt::format("oracle '{}': key '{}' given twice", spec, key));
    if (key == "epochs") {
      auto v = parse_count(spec, key, value, 1, 10000, false);
      if (!v) return v.status();
      o.recipe.epochs = static_cast<int>(*v);
    } else if (key == "batch") {
      auto v = parse_count(spec, key, value, 1, 65536, false);
      if (!v) return v.status();
      o.recipe.batch = *v;
    } else if (key == "train-subset" || key == "test-subset") {
      auto v = parse_count(spec, key, value, 1, int64_t{1} << 31, true);
      if (!v) return v.status();
      (key == "train-subset" ? o.recipe.train_subset : o.recipe.test_subset) = *v;
    } else if (key == "threads") {
      auto v = parse_count(spec, key, value, 1, 1024, false);
      if (!v) return v.status();
      o.recipe.threads = static_cast<int>(*v);
    } else if (key == "bn-recal") {
      auto v = parse_count(spec, key, value, 0, int64_t{1} << 31, false);
      if (!v) return v.status();
      o.recipe.bn_recalibration = *v;
    } else if (key == "trials") {
      auto v = parse_count(spec, key, value, 1, 1000, false);
      if (!v) return v.status();
      o.trials = static_cast<int>(*v);
    } else if (key == "clock") {
      if (value == "measured")
        o.clock = TrainClock::kMeasured;
      else if (value == "simulated")
        o.clock = TrainClock::kSimulated;
      else
        return Status::invalid(fmt::format("oracle '{}': clock={}: expected measured or simulated", spec, value));
    } else if (key == "db") {
      if (value.empty())
        return Status::invalid(fmt::format("oracle '{}': db= needs a file (or none: results in memory only)", spec));
      o.db = value == "none" ? std::string() : value;
    } else {
      return Status::invalid(fmt::format("oracle '{}': unknown key '{}' (keys: {})", spec, key, kKeys));
    }
  }
  return o;
}

// ---------------------------------------------------------------------------------------
// Data.

Expected<std::shared_ptr<const TrainData>> load_train_data(const std::string& dir) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) {
    std::string hint;
    if (dir == kFashionMnistDir) hint = " (Debian: apt-get install dataset-fashion-mnist)";
    return Status::unavailable(fmt::format("{} is not a directory{}", dir, hint));
  }
  auto train = load_idx_split(dir, "train");
  if (!train) return train.status();
  auto test = load_idx_split(dir, "t10k");
  if (!test) return test.status();
  auto d = std::make_shared<TrainData>();
  d->train = std::move(*train);
  d->test = std::move(*test);
  if (d->train.rows != d->train.cols || d->train.rows % 4 != 0)
    return Status::unsupported(
        fmt::format("{}: {}x{} images: the NATS-SSS network needs square images whose side is a "
                    "multiple of 4 (two stride-2 stages)",
                    d->train.source, d->train.rows, d->train.cols));
  if (d->test.rows != d->train.rows || d->test.cols != d->train.cols)
    return Status::invalid(fmt::format("{} has {}x{} images but {} has {}x{}", d->train.source, d->train.rows,
                                       d->train.cols, d->test.source, d->test.rows, d->test.cols));
  d->classes = std::max(d->train.classes, d->test.classes);
  if (d->classes < 2)
    return Status::invalid(
        fmt::format("{}: every label is 0: a classification dataset needs at least 2 classes", d->train.source));
  return std::shared_ptr<const TrainData>(std::move(d));
}

double simulated_cost_seconds(int64_t macs_per_image, const TrainRecipe& recipe, int64_t train_images,
                              int64_t test_images) {
  const double recal = static_cast<double>(std::min(recipe.bn_recalibration, train_images));
  const double images = static_cast<double>(recipe.epochs) * static_cast<double>(train_images) +
                        (static_cast<double>(test_images) + recal) / 3.0;
  return images * kSimSecondsPerImage * std::pow(static_cast<double>(macs_per_image) / 1e6, kSimMacsExponent);
}

// ---------------------------------------------------------------------------------------
// The oracle.

Expected<std::unique_ptr<TrainOracle>> TrainOracle::create(TrainOracleOptions options,
                                                           std::shared_ptr<const TrainData> data,
                                                           std::shared_ptr<TrainCache> cache) {
  ROOFLENS_RETURN_IF_ERROR(validate_recipe(options.recipe));
  if (options.trials < 1)
    return Status::invalid(fmt::format("training oracle: trials={} must be >= 1", options.trials));
  if (!data) return Status::internal("training oracle: no data");
  if (options.recipe.train_subset > data->train.count)
    return Status::invalid(fmt::format("training oracle: train-subset={} but {} holds {} images",
                                       options.recipe.train_subset, data->train.source, data->train.count));
  if (options.recipe.test_subset > data->test.count)
    return Status::invalid(fmt::format("training oracle: test-subset={} but {} holds {} images",
                                       options.recipe.test_subset, data->test.source, data->test.count));
  if (!cache) cache = std::make_shared<MemoryTrainCache>();
  return std::unique_ptr<TrainOracle>(new TrainOracle(std::move(options), std::move(data), std::move(cache)));
}

Expected<Graph> TrainOracle::network(int64_t arch_index, int64_t batch) const {
  if (!sss_index_valid(arch_index))
    return Status::invalid(fmt::format("NATS-SSS index {} is outside 0..{}", arch_index, kSssSpaceSize - 1));
  return build_sss_network(sss_widths(arch_index), *network_input(), batch);
}

std::optional<SssNetInput> TrainOracle::network_input() const {
  SssNetInput in;
  in.name = options_.dataset == "fashion-mnist" ? "fashion-mnist" : "idx";
  in.channels = 1;
  in.image_size = data_->train.rows;
  in.classes = data_->classes;
  return in;
}

TrainKey TrainOracle::key(int64_t arch_index, uint64_t train_seed) const {
  return {"nats-sss", sss_arch_string(arch_index), options_.dataset, options_.recipe.describe(), train_seed};
}

Expected<TrainResult> TrainOracle::train(int64_t arch_index, uint64_t train_seed, bool* cached) {
  if (!sss_index_valid(arch_index))
    return Status::invalid(fmt::format("NATS-SSS index {} is outside 0..{}", arch_index, kSssSpaceSize - 1));
  const TrainKey k = key(arch_index, train_seed);
  auto hit = cache_->find(k);
  if (!hit) return hit.status().with_context("training cache");
  if (cached) *cached = hit->has_value();
  last_origin_ = hit->has_value() ? cache_->origin() : std::string();
  if (hit->has_value()) return **hit;
  auto g = network(arch_index);
  if (!g) return g.status();
  auto r = train_and_evaluate(*g, data_->train, data_->test, options_.recipe, train_seed);
  if (!r) return r.status().with_context(fmt::format("training NATS-SSS {}", k.arch));
  ROOFLENS_RETURN_IF_ERROR(cache_->put(k, *r).with_context("training cache"));
  return r;
}

uint64_t TrainOracle::trial_of(uint64_t oracle_seed) const {
  return nas::nats_pick_seed(oracle_seed, static_cast<size_t>(options_.trials));
}

Expected<std::optional<TrainResult>> TrainOracle::find_result(int64_t arch_index, uint64_t train_seed) {
  if (!sss_index_valid(arch_index))
    return Status::invalid(fmt::format("NATS-SSS index {} is outside 0..{}", arch_index, kSssSpaceSize - 1));
  auto hit = cache_->find(key(arch_index, train_seed));
  if (!hit) return hit.status().with_context("training cache");
  last_origin_ = hit->has_value() ? cache_->origin() : std::string();
  return hit;
}

Status TrainOracle::store_result(int64_t arch_index, uint64_t train_seed, const TrainResult& result) {
  if (!sss_index_valid(arch_index))
    return Status::invalid(fmt::format("NATS-SSS index {} is outside 0..{}", arch_index, kSssSpaceSize - 1));
  return cache_->put(key(arch_index, train_seed), result).with_context("training cache");
}

namespace {

nlohmann::json result_to_json(const TrainResult& r) {
  return {{"accuracy", r.accuracy},         {"train_seconds", r.train_seconds},
          {"eval_seconds", r.eval_seconds}, {"final_loss", r.final_loss},
          {"train_images", r.train_images}, {"test_images", r.test_images},
          {"threads", r.threads},           {"recipe", r.recipe},
          {"versions", r.versions}};
}

Expected<TrainResult> result_from_json(const std::string& text) {
  TrainResult r;
  try {
    const nlohmann::json j = nlohmann::json::parse(text);
    r.accuracy = j.at("accuracy").get<double>();
    r.train_seconds = j.at("train_seconds").get<double>();
    r.eval_seconds = j.at("eval_seconds").get<double>();
    r.final_loss = j.at("final_loss").get<double>();
    r.train_images = j.at("train_images").get<int64_t>();
    r.test_images = j.at("test_images").get<int64_t>();
    r.threads = j.at("threads").get<int>();
    r.recipe = j.at("recipe").get<std::string>();
    r.versions = j.at("versions").get<std::string>();
  } catch (const nlohmann::json::exception& e) {
    return Status::internal(fmt::format("a training result from a worker: {}", e.what()));
  }
  return r;
}

}  // namespace

Expected<std::optional<nas::DistributableOracle::Answer>> TrainOracle::answer_here(int64_t arch_index, uint64_t seed) {
  const uint64_t trial = trial_of(seed);
  auto hit = find_result(arch_index, trial);
  if (!hit) return hit.status();
  if (!hit->has_value()) return std::optional<Answer>();
  const std::string origin = last_origin_.empty() ? std::string("the cache") : last_origin_;
  auto e = evaluation_of(arch_index, trial, **hit, origin);
  if (!e) return e.status();
  return std::optional<Answer>(Answer{std::move(*e), origin});
}

Expected<nas::DistributableOracle::Work> TrainOracle::do_work(int64_t arch_index, uint64_t seed) {
  auto r = train(arch_index, trial_of(seed));
  if (!r) return r.status();
  return Work{result_to_json(*r).dump(), r->accuracy};
}

Expected<nas::Evaluation> TrainOracle::accept_work(int64_t arch_index, uint64_t seed, const std::string& result) {
  auto r = result_from_json(result);
  if (!r) return r.status();
  const uint64_t trial = trial_of(seed);
  ROOFLENS_RETURN_IF_ERROR(store_result(arch_index, trial, *r));
  return evaluation_of(arch_index, trial, *r, "");
}

std::string TrainOracle::worker_spec(const std::string& spec) const {
  std::string out;
  size_t pos = 0;
  bool first = true;
  while (pos <= spec.size()) {
    size_t comma = spec.find(',', pos);
    if (comma == std::string::npos) comma = spec.size();
    const std::string field = spec.substr(pos, comma - pos);
    if (first || field.rfind("db=", 0) != 0) out += (first ? "" : ",") + field;
    first = false;
    pos = comma + 1;
  }
  return out;
}

Expected<nas::Evaluation> TrainOracle::evaluate(int64_t arch_index, uint64_t seed) {
  const uint64_t trial = trial_of(seed);
  bool cached = false;
  auto r = train(arch_index, trial, &cached);
  if (!r) return r.status();
  return evaluation_of(arch_index, trial, *r, cached ? last_origin_ : std::string());
}

Expected<nas::Evaluation> TrainOracle::evaluation_of(int64_t arch_index, uint64_t trial, const TrainResult& result,
                                                     const std::string& origin) const {
  const TrainResult* r = &result;
  const bool cached = !origin.empty();
  nas::Evaluation e;
  e.accuracy = r->accuracy;
  if (options_.clock == TrainClock::kMeasured) {
    e.cost_seconds = r->train_seconds + r->eval_seconds;
  } else {
    auto g = network(arch_index);
    if (!g) return g.status();
    auto inferred = infer_shapes(*g);
    if (!inferred) return inferred.status();
    const ModelAnalysis m = analyze_graph(*g, *inferred, AnalyzeOptions{});
    e.cost_seconds = simulated_cost_seconds(m.totals.macs, options_.recipe, r->train_images, r->test_images);
  }
  e.detail = fmt::format(
      "{}: trained {} epoch(s) on {} images, tested on {}, trial seed {}, {} thread(s): {:.2f} s "
      "train + {:.2f} s test{}; cost {:.2f} s ({})",
      options_.dataset, options_.recipe.epochs, r->train_images, r->test_images, trial, r->threads, r->train_seconds,
      r->eval_seconds, cached ? fmt::format(" (from {})", origin) : "", e.cost_seconds,
      options_.clock == TrainClock::kMeasured ? "measured" : "simulated");
  return e;
}

Expected<double> TrainOracle::final_accuracy(int64_t arch_index) {
  if (!sss_index_valid(arch_index))
    return Status::invalid(fmt::format("NATS-SSS index {} is outside 0..{}", arch_index, kSssSpaceSize - 1));
  double sum = 0;
  int n = 0;
  for (int t = 0; t < options_.trials; ++t) {
    auto hit = cache_->find(key(arch_index, static_cast<uint64_t>(t)));
    if (!hit) return hit.status().with_context("training cache");
    if (hit->has_value()) {
      sum += (*hit)->accuracy;
      ++n;
    }
  }
  if (n == 0)
    return Status::unavailable(
        fmt::format("NATS-SSS {} has not been trained by this training oracle (final accuracy "
                    "is the mean test accuracy of the trials trained; none is trained on demand)",
                    sss_arch_string(arch_index)));
  return sum / n;
}

std::string TrainOracle::describe() const {
  return fmt::format(
      "trained with LibTorch on {} ({}: {} train / {} test images {}x{}, {} classes); the NATS-SSS "
      "network with a 1-channel {}x{} stem; {}; one of {} trial seed(s); clock {}; {}",
      options_.dataset, options_.data_dir, data_->train.count, data_->test.count, data_->train.rows, data_->train.cols,
      data_->classes, data_->train.rows, data_->train.cols, options_.recipe.describe(), options_.trials,
      options_.clock == TrainClock::kMeasured ? "measured (wall seconds of training + test)"
                                              : "simulated (simulated_cost_seconds)",
      trainer_versions());
}

// ---------------------------------------------------------------------------------------
// The factory behind make_oracle("train:...").

namespace {

struct Shared {
  std::mutex mu;
  std::map<std::string, std::shared_ptr<const TrainData>> data;  // by directory
  std::shared_ptr<MemoryTrainCache> cache = std::make_shared<MemoryTrainCache>();
  TrainStoreOpener opener;                                    // register_train_store_opener
  std::map<std::string, std::shared_ptr<TrainCache>> stores;  // by db=PATH, opened once
};

Shared& shared() {
  static Shared s;
  return s;
}

}  // namespace

Expected<std::unique_ptr<nas::AccuracyOracle>> make_train_oracle(const std::string& spec) {
  auto o = parse_train_spec(spec);
  if (!o) return o.status();
  ROOFLENS_RETURN_IF_ERROR(validate_recipe(o->recipe).with_context(fmt::format("oracle '{}'", spec)));
  Shared& s = shared();
  std::shared_ptr<const TrainData> data;
  {
    std::lock_guard<std::mutex> lock(s.mu);  // held while loading: one load per directory
    auto it = s.data.find(o->data_dir);
    if (it != s.data.end()) {
      data = it->second;
    } else {
      auto d = load_train_data(o->data_dir);
      if (!d) return d.status().with_context(fmt::format("oracle '{}'", spec));
      data = *d;
      s.data[o->data_dir] = data;
    }
  }
  // After the spec and the data, so that their errors come first.
  if (Status t = trainer_status(); !t) return t.with_context(fmt::format("oracle '{}'", spec));
  std::shared_ptr<TrainCache> cache = s.cache;
  if (!o->db.empty()) {  // after the trainer: a program that cannot train opens no store
    std::lock_guard<std::mutex> lock(s.mu);
    auto it = s.stores.find(o->db);
    if (it != s.stores.end()) {
      cache = it->second;
    } else {
      if (!s.opener)
        return Status::unsupported(
            fmt::format("oracle '{}': db={}: this program has no results store (the store "
                        "module is not registered)",
                        spec, o->db));
      auto store = s.opener(o->db);
      if (!store) return store.status().with_context(fmt::format("oracle '{}'", spec));
      cache = *store;
      s.stores[o->db] = cache;
    }
  }
  auto oracle = TrainOracle::create(std::move(*o), std::move(data), std::move(cache));
  if (!oracle) return oracle.status().with_context(fmt::format("oracle '{}'", spec));
  return std::unique_ptr<nas::AccuracyOracle>(std::move(*oracle));
}

void register_train_oracle() { nas::register_oracle_scheme("train", make_train_oracle); }

void register_train_store_opener(TrainStoreOpener opener) {
  Shared& s = shared();
  std::lock_guard<std::mutex> lock(s.mu);
  s.opener = std::move(opener);
}

}  // namespace rooflens::train
