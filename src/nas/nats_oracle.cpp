// NATS-Bench SSS tabular oracle (oracle.h): the benchmark's simulated train-and-evaluate on
// CIFAR-10, read from the official per-network files or from the single file's index
// (shared/reference/nats-sss.md section 3; the benchmark's api_size.py simulate_train_eval /
// get_more_info).
#include <cmath>
#include <filesystem>
#include <mutex>
#include <set>
#include <system_error>

#include <fmt/format.h>

#include "rooflens/nas/oracle.h"
#include "rooflens/nas/sss_space.h"

namespace rooflens::nas {
namespace {

// nats-sss.md section 3, "Simulated train-and-evaluate ... for CIFAR-10": the cifar10-valid
// entry of the 12-epoch recipe; reward = x-valid top-1 after the last epoch (index 11).
constexpr const char* kSearchHp = "12";
constexpr int kSearchEpochs = 12;
constexpr const char* kSearchDataset = "cifar10-valid";
constexpr const char* kSearchSplit = "x-valid";
// nats-sss.md section 3, "Final numbers after a search are reported from hp 90: test
// accuracy of cifar10 ori-test" (after the last epoch, index 89).
constexpr const char* kFinalHp = "90";
constexpr int kFinalEpochs = 90;
constexpr const char* kFinalDataset = "cifar10";
constexpr const char* kFinalSplit = "ori-test";

Status check_index(int64_t arch_index) {
  if (!sss_index_valid(arch_index))
    return Status::invalid(
        fmt::format("arch index {} is outside the NATS-Bench SSS space (0..{})", arch_index, kSssSpaceSize - 1));
  return Status::ok();
}

uint64_t splitmix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// The hp entry of a network and the seeds it records for a dataset; errors name the file.
struct HpSeeds {
  const NatsHpResults* hp;
  const std::vector<int>* seeds;
};
Expected<HpSeeds> hp_seeds(const NatsNetwork& net, const std::string& path, const char* hp_name, const char* dataset) {
  const NatsHpResults* hp = net.find(hp_name);
  if (!hp) return Status::invalid(fmt::format("{}: no hp '{}' entry", path, hp_name));
  auto seeds = hp->dataset_seeds.find(dataset);
  if (seeds == hp->dataset_seeds.end() || seeds->second.empty())
    return Status::invalid(fmt::format("{}: hp '{}' has no seeds for '{}'", path, hp_name, dataset));
  return HpSeeds{hp, &seeds->second};
}

}  // namespace

size_t nats_pick_seed(uint64_t seed, size_t count) {
  ROOFLENS_ASSERT(count > 0);
  return static_cast<size_t>(splitmix64(seed) % count);
}

NatsOracle::NatsOracle(std::shared_ptr<const NatsIndex> index) : index_(std::move(index)) {
  ROOFLENS_ASSERT(index_ != nullptr);
}

std::string NatsOracle::where(int64_t arch_index) const {
  if (index_) return fmt::format("{} {}[{}]", index_->path, kNatsRecordKey, arch_index);
  return nats_network_path(dir_, static_cast<int>(arch_index));
}

Expected<const NatsNetwork*> NatsOracle::network(int64_t arch_index) {
  ROOFLENS_RETURN_IF_ERROR(check_index(arch_index));
  if (index_) {
    const auto& nets = index_->networks;
    if (static_cast<size_t>(arch_index) < nets.size() && nets[static_cast<size_t>(arch_index)])
      return &*nets[static_cast<size_t>(arch_index)];
    return Status::unavailable(fmt::format("NATS-Bench network {} ({}) is not in {}{}", arch_index,
                                           sss_arch_string(arch_index), index_->path,
                                           index_->complete ? "" : " as far as it was read"));
  }
  if (auto it = cache_.find(arch_index); it != cache_.end()) return it->second.get();
  const std::string path = nats_network_path(dir_, static_cast<int>(arch_index));
  const std::string name = std::filesystem::path(path).filename().string();
  std::error_code ec;
  if (!std::filesystem::exists(path, ec))
    return Status::unavailable(
        fmt::format("NATS-Bench network {} ({}): {} is not in {}; the public sample holds only networks 0, 11 and 284, "
                    "other networks need the full benchmark (NATS-sss-v1_0-50262-simple, 1.1 GB)",
                    arch_index, sss_arch_string(arch_index), name, dir_));
  auto net = read_nats_network(path);
  if (!net) return net.status();
  const std::string arch = sss_arch_string(arch_index);
  for (const NatsHpResults& hp : net->hps)
    if (hp.arch_index != arch_index || hp.arch_str != arch)
      return Status::invalid(fmt::format("{}: hp '{}' describes network {} ({}), expected {} ({})", path, hp.hp,
                                         hp.arch_index, hp.arch_str, arch_index, arch));
  auto owned = std::make_unique<NatsNetwork>(std::move(*net));
  const NatsNetwork* p = owned.get();
  cache_.emplace(arch_index, std::move(owned));
  return p;
}

Expected<Evaluation> NatsOracle::evaluate(int64_t arch_index, uint64_t seed) {
  auto net = network(arch_index);
  if (!net) return net.status();
  const std::string path = where(arch_index);
  auto hs = hp_seeds(**net, path, kSearchHp, kSearchDataset);
  if (!hs) return hs.status();
  const std::vector<int>& seeds = *hs->seeds;
  // "one random seed of the three" (nats-sss.md section 3): the benchmark's is_random=True.
  const int trial_seed = seeds[nats_pick_seed(seed, seeds.size())];
  const NatsResult* r = hs->hp->find(kSearchDataset, trial_seed);
  if (!r)
    return Status::invalid(fmt::format("{}: hp '{}' lists seed {} for '{}' but has no result for it", path, kSearchHp,
                                       trial_seed, kSearchDataset));
  const std::string where = fmt::format("{}: hp '{}' {} seed {}", path, kSearchHp, kSearchDataset, trial_seed);
  const int last = kSearchEpochs - 1;
  const double acc = r->eval_acc1(kSearchSplit, last);
  if (!std::isfinite(acc)) return Status::invalid(fmt::format("{}: no eval_acc1es '{}@{}'", where, kSearchSplit, last));
  // "cost = the training time of all 12 epochs + one evaluation pass of x-valid"
  // (nats-sss.md section 3; train-all-time + the x-valid pass's time in the benchmark).
  double train = 0;
  for (int e = 0; e < kSearchEpochs; ++e) {
    auto t = r->train_times.find(e);
    if (t == r->train_times.end() || !std::isfinite(t->second) || t->second < 0)
      return Status::invalid(fmt::format("{}: train_times has no valid entry for epoch {}", where, e));
    train += t->second;
  }
  // The benchmark's "valid-per-time" is the x-valid times of epochs 0..11 summed and divided
  // by 12; the files repeat one pass's time for every epoch (times come from the 1-epoch run,
  // nats-sss.md section 3), so that mean is the x-valid@11 time read here.
  const double eval = r->eval_time(kSearchSplit, last);
  if (!std::isfinite(eval) || eval < 0)
    return Status::invalid(fmt::format("{}: no valid eval_times '{}@{}'", where, kSearchSplit, last));
  Evaluation out;
  out.accuracy = acc;
  out.cost_seconds = train + eval;
  out.detail = fmt::format("{} hp={} seed={} {}@{}: train {:.4f} s ({} epochs) + eval {:.4f} s", kSearchDataset,
                           kSearchHp, trial_seed, kSearchSplit, last, train, kSearchEpochs, eval);
  return out;
}

Expected<double> NatsOracle::final_accuracy(int64_t arch_index) {
  auto net = network(arch_index);
  if (!net) return net.status();
  const std::string path = where(arch_index);
  auto hs = hp_seeds(**net, path, kFinalHp, kFinalDataset);
  if (!hs) return hs.status();
  const NatsHpResults* hp = hs->hp;
  const std::vector<int>& seeds = *hs->seeds;
  // The benchmark's non-random query averages the recorded trials.
  double sum = 0;
  for (int s : seeds) {
    const NatsResult* r = hp->find(kFinalDataset, s);
    const double acc = r ? r->eval_acc1(kFinalSplit, kFinalEpochs - 1) : NAN;
    if (!std::isfinite(acc))
      return Status::invalid(fmt::format("{}: hp '{}' {} seed {}: no eval_acc1es '{}@{}'", path, kFinalHp,
                                         kFinalDataset, s, kFinalSplit, kFinalEpochs - 1));
    sum += acc;
  }
  return sum / static_cast<double>(seeds.size());
}

std::string NatsOracle::describe() const {
  return fmt::format(
      "NATS-Bench SSS tabular oracle ({}): evaluate = {} hp {} {}@{} of one recorded seed drawn from the RNG seed, "
      "cost = {} epochs' train time + one {} pass (simulated seconds); final = {} hp {} {}@{} (mean over seeds)",
      index_ ? index_->path : dir_, kSearchDataset, kSearchHp, kSearchSplit, kSearchEpochs - 1, kSearchEpochs,
      kSearchSplit, kFinalDataset, kFinalHp, kFinalSplit, kFinalEpochs - 1);
}

// ---- the single-file form -------------------------------------------------------------

NatsNetwork NatsOracle::compact(const NatsNetwork& net) {
  // The one eval entry each part reads: x-valid after the 12th epoch, ori-test after the 90th.
  const std::string search_key = fmt::format("{}@{}", kSearchSplit, kSearchEpochs - 1);
  const std::string final_key = fmt::format("{}@{}", kFinalSplit, kFinalEpochs - 1);
  auto only = [](const std::map<std::string, double>& all, const std::string& key) {
    std::map<std::string, double> kept;
    if (auto it = all.find(key); it != all.end()) kept.insert(*it);
    return kept;
  };
  NatsNetwork out;
  for (const NatsHpResults& hp : net.hps) {
    const bool search = hp.hp == kSearchHp, is_final = hp.hp == kFinalHp;
    if (!search && !is_final) continue;
    NatsHpResults h;
    h.hp = hp.hp;
    h.arch_index = hp.arch_index;
    h.arch_str = hp.arch_str;
    for (const auto& [dataset, seeds] : hp.dataset_seeds)
      if (is_final || dataset == kSearchDataset) h.dataset_seeds.emplace(dataset, seeds);
    for (const NatsResult& r : hp.results) {
      if (search && r.dataset != kSearchDataset) continue;
      NatsResult c;
      c.dataset = r.dataset;
      c.seed = r.seed;
      c.epochs = r.epochs;
      c.flop = r.flop;
      c.params = r.params;
      c.latency = r.latency;
      if (search) {
        c.train_times = r.train_times;
        c.eval_acc1es = only(r.eval_acc1es, search_key);
        c.eval_times = only(r.eval_times, search_key);
      } else if (r.dataset == kFinalDataset) {
        c.eval_acc1es = only(r.eval_acc1es, final_key);
        c.eval_times = only(r.eval_times, final_key);
      }
      h.results.push_back(std::move(c));
    }
    out.hps.push_back(std::move(h));
  }
  return out;
}

Expected<std::shared_ptr<const NatsIndex>> NatsOracle::load_index(
    const std::string& path, const std::vector<int64_t>& only, std::function<void(const NatsReadProgress&)> progress) {
  std::set<int64_t> wanted;
  for (int64_t i : only) {
    ROOFLENS_RETURN_IF_ERROR(check_index(i));
    wanted.insert(i);
  }
  auto index = std::make_shared<NatsIndex>();
  index->path = path;
  index->networks.resize(static_cast<size_t>(kSssSpaceSize));
  NatsSingleFileOptions options;
  options.progress = std::move(progress);
  auto read = read_nats_single_file(
      path,
      [&](int64_t i, NatsNetwork&& net) -> Expected<bool> {
        const std::string where = fmt::format("{} {}[{}]", path, kNatsRecordKey, i);
        if (!sss_index_valid(i))
          return Status::invalid(fmt::format("{}: outside the NATS-Bench SSS space (0..{})", where, kSssSpaceSize - 1));
        // The check network() makes of a directory's file (arch_index is checked by the reader).
        const std::string arch = sss_arch_string(i);
        for (const NatsHpResults& hp : net.hps)
          if (hp.arch_str != arch)
            return Status::invalid(fmt::format("{}: hp '{}' describes network {} ({}), expected {} ({})", where, hp.hp,
                                               hp.arch_index, hp.arch_str, i, arch));
        if (!only.empty() && !wanted.count(i)) return true;
        std::optional<NatsNetwork>& slot = index->networks[static_cast<size_t>(i)];
        if (!slot) ++index->count;
        slot = compact(net);
        if (only.empty()) return true;
        wanted.erase(i);
        return !wanted.empty();  // stop once every wanted network is in
      },
      options);
  if (!read) return read.status();
  index->complete = !read->stopped;
  return std::shared_ptr<const NatsIndex>(std::move(index));
}

Expected<std::shared_ptr<const NatsIndex>> NatsOracle::shared_index(
    const std::string& path, std::function<void(const NatsReadProgress&)> progress) {
  static std::mutex mu;
  static std::map<std::string, std::weak_ptr<const NatsIndex>> indexes;
  std::error_code ec;
  std::string key = std::filesystem::weakly_canonical(path, ec).string();
  if (ec) key = path;
  // Held while reading: a second oracle over the same file waits for the first read.
  std::lock_guard<std::mutex> lock(mu);
  if (auto held = indexes[key].lock()) return held;
  auto index = load_index(path, {}, std::move(progress));
  if (!index) return index.status();
  indexes[key] = *index;
  return *index;
}

}  // namespace rooflens::nas
