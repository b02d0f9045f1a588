// NasExperiment (experiment.h): planning the runs of `rooflens nas`, the output directory and
// resume checks, running them over threads (or a pool), and the final accuracies they are
// judged by.
#include "rooflens/nas/experiment.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <thread>

#include <fmt/format.h>

namespace rooflens::nas {
namespace {

// NAME or NAME:SEEDS: the strategy and its number of runs.
Expected<std::pair<StrategyKind, int>> parse_strategy_item(const std::string& item, int seeds) {
  const size_t colon = item.find(':');
  const std::string s = item.substr(0, colon);
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
  return std::make_pair(*k, seeds);
}

}  // namespace

Expected<NasExperiment> NasExperiment::plan(const ExperimentSpec& spec) {
  if (spec.seeds < 1 || spec.seeds > 10000)
    return Status::invalid(fmt::format("--seeds {}: expected 1..10000", spec.seeds));
  NasExperiment x;
  x.spec_ = spec;
  std::vector<StrategyKind> seen;
  for (const std::string& item : spec.strategies) {
    auto parsed = parse_strategy_item(item, spec.seeds);
    if (!parsed) return parsed.status();
    const auto [kind, seeds] = *parsed;
    if (std::find(seen.begin(), seen.end(), kind) != seen.end())
      return Status::invalid(fmt::format("--strategy: '{}' given twice", item.substr(0, item.find(':'))));
    seen.push_back(kind);
    for (int i = 0; i < seeds; ++i) {
      const uint64_t seed = spec.seed_base + static_cast<uint64_t>(i);
      const std::string file = fmt::format("{}-seed{}.jsonl", item.substr(0, item.find(':')), seed);
      x.runs_.push_back({kind, seed, (std::filesystem::path(spec.out) / file).string()});
    }
  }
  if (x.runs_.empty()) return Status::invalid("--strategy: none given");
  ROOFLENS_RETURN_IF_ERROR(validate_config(spec.base));
  return x;
}

Status NasExperiment::prepare_output(bool resume) const {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (resume) {
    const bool is_dir = fs::is_directory(spec_.out, ec);
    const bool any = is_dir && std::any_of(runs_.begin(), runs_.end(), [](const ExperimentRun& r) {
                       std::error_code e;
                       return fs::exists(r.log, e);
                     });
    if (!any)
      return Status::invalid(
          fmt::format("--resume: '{}' holds no log of these runs ({}{}): nothing to resume; "
                      "check -o, or leave --resume out to start a new run",
                      spec_.out, fs::path(runs_.front().log).filename().string(), runs_.size() > 1 ? ", ..." : ""));
    return Status::ok();
  }
  fs::create_directories(spec_.out, ec);
  if (ec) return Status::invalid(fmt::format("--out '{}': {}", spec_.out, ec.message()));
  for (const ExperimentRun& r : runs_)
    if (fs::exists(r.log))
      return Status::invalid(
          fmt::format("{} exists: pass --resume to continue these runs, or choose another --out", r.log));
  return Status::ok();
}

Expected<std::vector<LoggedSearch>> NasExperiment::run(const SpaceTable& space, const std::string& oracle_spec,
                                                       const std::string& oracle_description,
                                                       const ExperimentOptions& options) const {
  std::vector<Expected<LoggedSearch>> results(runs_.size(), Status::internal("not run"));
  // Measured runs go one at a time: measurements must not share the cores (oneDNN's OpenMP
  // threads spin at barriers; with another busy thread on the core a layer takes many times
  // longer). Training runs too: each training times itself and uses its own LibTorch threads.
  const bool one_at_a_time = options.pool != nullptr || options.measure || oracle_spec.rfind("train:", 0) == 0;
  const int hw = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const int threads =
      one_at_a_time
          ? 1
          : std::max(1, std::min<int>(options.threads > 0 ? options.threads : hw, static_cast<int>(runs_.size())));
  std::atomic<size_t> next{0};
  std::mutex done_mu;
  auto worker = [&] {
    auto own = make_oracle(oracle_spec);
    for (size_t i = next++; i < runs_.size(); i = next++) {
      const ExperimentRun& t = runs_[i];
      if (!own) {
        results[i] = own.status();
        continue;
      }
      SearchConfig c = spec_.base;
      c.strategy = t.strategy;
      c.seed = t.seed;
      const auto start = std::chrono::steady_clock::now();
      if (options.pool != nullptr) {  // asynchronous over the pool (async_search.h)
        LostSink lost;
        if (options.on_lost) lost = [&options, i](const LostEvaluation& l) { return options.on_lost(i, l); };
        auto r = run_logged_async_search(c, space, *options.pool, oracle_description, t.log,
                                         options.progress ? options.progress(i, nullptr) : EvalSink{}, lost);
        if (r)
          results[i] = LoggedSearch{std::move(*r), 0, false};
        else
          results[i] = r.status();
      } else {
        results[i] = run_logged_search(c, space, **own, oracle_description, t.log, options.resume, options.measure,
                                       options.progress ? options.progress(i, own->get()) : EvalSink{});
      }
      const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      std::lock_guard<std::mutex> lock(done_mu);
      if (options.on_run_done) options.on_run_done(i, results[i], wall);
    }
  };
  std::vector<std::thread> pool;
  for (int j = 1; j < threads; ++j) pool.emplace_back(worker);
  worker();  // the calling thread works too
  for (auto& th : pool) th.join();
  std::vector<LoggedSearch> out;
  for (auto& r : results) {
    if (!r) return r.status();
    out.push_back(std::move(*r));
  }
  return out;
}

std::vector<double> NasExperiment::final_accuracies(AccuracyOracle& oracle, const std::vector<SearchResult>& runs,
                                                    std::string& why_not,
                                                    const std::function<void(int64_t, int64_t)>& progress) {
  std::vector<double> acc(static_cast<size_t>(kSssSpaceSize), std::nan(""));
  int64_t known = 0;
  std::string first_unknown;
  for (int64_t i = 0; i < kSssSpaceSize; ++i) {
    auto f = oracle.final_accuracy(i);
    if (f) {
      acc[static_cast<size_t>(i)] = *f;
      ++known;
    } else if (f.status().code() != StatusCode::kUnavailable) {
      why_not =
          fmt::format("the final accuracy of network {} ({}) failed: {}", i, sss_arch_string(i), f.status().message());
      return {};
    } else if (first_unknown.empty()) {
      first_unknown = fmt::format("the oracle has no final accuracy for network {} ({}): {}", i, sss_arch_string(i),
                                  f.status().message());
    }
    if (progress && (i + 1) % 1024 == 0) progress(i + 1, kSssSpaceSize);
  }
  if (known == kSssSpaceSize) return acc;
  if (known == 0) {
    why_not = first_unknown;
    return {};
  }
  for (const SearchResult& r : runs)
    for (const EvalRecord& e : r.evaluations)
      if (std::isnan(acc[static_cast<size_t>(e.arch)])) {
        why_not = fmt::format("network {} ({}) was evaluated but has no final accuracy; {}", e.arch,
                              sss_arch_string(e.arch), first_unknown);
        return {};
      }
  return acc;
}

}  // namespace rooflens::nas
