// The oracle interface's shared parts (oracle.h): the simulated clock, evaluate-and-charge,
// and choosing an oracle by spec string.
#include "rooflens/nas/oracle.h"

#include <cmath>
#include <filesystem>
#include <map>
#include <mutex>
#include <system_error>

#include <fmt/format.h>

namespace rooflens::nas {

Expected<SimClock> SimClock::with_budget(double budget_seconds) {
  if (std::isnan(budget_seconds) || budget_seconds < 0)
    return Status::invalid(
        fmt::format("time budget {} s: must be a number >= 0 (seconds of simulated time)", budget_seconds));
  SimClock clock;
  clock.budget_ = budget_seconds;
  return clock;
}

void SimClock::charge(double cost_seconds) {
  ROOFLENS_ASSERT(std::isfinite(cost_seconds) && cost_seconds >= 0);
  now_ += cost_seconds;
  ++charges_;
}

Expected<Evaluation> evaluate_and_charge(AccuracyOracle& oracle, SimClock& clock, int64_t arch_index, uint64_t seed) {
  auto e = oracle.evaluate(arch_index, seed);
  if (e) clock.charge(*e);
  return e;
}

namespace {
std::mutex& registry_mutex() {
  static std::mutex mu;
  return mu;
}
std::map<std::string, OracleFactory>& registry() {
  static std::map<std::string, OracleFactory> factories;
  return factories;
}
}  // namespace

void register_oracle_scheme(const std::string& scheme, OracleFactory factory) {
  std::lock_guard<std::mutex> lock(registry_mutex());
  registry()[scheme] = std::move(factory);
}

Expected<std::unique_ptr<AccuracyOracle>> make_oracle(const std::string& spec) {
  constexpr const char* kSchemes =
      "nats:DIR|FILE (NATS-Bench SSS -simple directory or single .pickle.pbz2 file), "
      "csv:FILE (arch,accuracy[,train_seconds])";
  constexpr const char* kTrainScheme = "train:fashion-mnist|DIR[,KEY=VALUE]... (train each network with LibTorch)";
  const size_t colon = spec.find(':');
  const std::string scheme = colon == std::string::npos ? std::string() : spec.substr(0, colon);
  const std::string rest = colon == std::string::npos ? std::string() : spec.substr(colon + 1);
  OracleFactory registered;
  {
    std::lock_guard<std::mutex> lock(registry_mutex());
    auto it = registry().find(scheme);
    if (it != registry().end()) registered = it->second;
  }
  if (registered) return registered(spec);
  if (scheme == "train")
    return Status::unsupported(
        fmt::format("oracle '{}': this program was linked without the training oracle "
                    "(rooflens_train, rooflens::train::register_train_oracle()); use one of: {}",
                    spec, kSchemes));
  if (scheme != "nats" && scheme != "csv")
    return Status::invalid(fmt::format("oracle '{}': unknown scheme '{}'; expected one of: {}, {}", spec,
                                       colon == std::string::npos ? spec : scheme, kSchemes, kTrainScheme));
  if (rest.empty()) return Status::invalid(fmt::format("oracle '{}': empty path after '{}:'", spec, scheme));
  if (scheme == "nats") {
    auto form = nats_data_form(rest);
    if (!form) return form.status().with_context(fmt::format("oracle '{}'", spec));
    if (*form == NatsDataForm::kDirectory) return std::unique_ptr<AccuracyOracle>(std::make_unique<NatsOracle>(rest));
    auto index = NatsOracle::shared_index(rest);
    if (!index) return index.status().with_context(fmt::format("oracle '{}'", spec));
    return std::unique_ptr<AccuracyOracle>(std::make_unique<NatsOracle>(*index));
  }
  auto csv = CsvOracle::load(rest);
  if (!csv) return csv.status();
  return std::unique_ptr<AccuracyOracle>(std::move(*csv));
}

}  // namespace rooflens::nas
