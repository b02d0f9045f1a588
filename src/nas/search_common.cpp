// The parts of search.h every strategy shares: names, rewards, config checks, the
// platform-independent generator, REINFORCE's policy and baseline, and the found frontier.
#include <algorithm>
#include <cmath>
#include <map>
#include <numbers>

#include <fmt/format.h>

#include "rooflens/nas/search.h"
#include "rooflens/util/pareto.h"

namespace rooflens::nas {

Expected<RewardKind> reward_kind_from_name(const std::string& name) {
  if (name == "accuracy") return RewardKind::kAccuracy;
  if (name == "soft") return RewardKind::kSoft;
  if (name == "hard") return RewardKind::kHard;
  return Status::invalid(fmt::format("reward '{}': expected accuracy, soft or hard", name));
}

const char* reward_kind_name(RewardKind kind) {
  switch (kind) {
    case RewardKind::kAccuracy: return "accuracy";
    case RewardKind::kSoft: return "soft";
    case RewardKind::kHard: return "hard";
  }
  return "?";
}

double compute_reward(const RewardSpec& spec, double accuracy, double throughput) {
  switch (spec.kind) {
    case RewardKind::kAccuracy: return accuracy;
    case RewardKind::kSoft: return accuracy * std::pow(throughput / spec.target_throughput, spec.w);
    case RewardKind::kHard:
      return throughput >= spec.target_throughput ? accuracy : accuracy * (throughput / spec.target_throughput);
  }
  return accuracy;
}

Expected<StrategyKind> strategy_kind_from_name(const std::string& name) {
  if (name == "random") return StrategyKind::kRandom;
  if (name == "rea") return StrategyKind::kRea;
  if (name == "reinforce") return StrategyKind::kReinforce;
  if (name == "filter") return StrategyKind::kFilter;
  return Status::invalid(fmt::format("strategy '{}': expected random, rea, reinforce or filter", name));
}

const char* strategy_kind_name(StrategyKind kind) {
  switch (kind) {
    case StrategyKind::kRandom: return "random";
    case StrategyKind::kRea: return "rea";
    case StrategyKind::kReinforce: return "reinforce";
    case StrategyKind::kFilter: return "filter";
  }
  return "?";
}

Expected<FilterOrder> filter_order_from_name(const std::string& name) {
  if (name == "spread") return FilterOrder::kSpread;
  if (name == "utilization") return FilterOrder::kUtilization;
  if (name == "throughput") return FilterOrder::kThroughput;
  return Status::invalid(fmt::format("filter order '{}': expected spread, utilization or throughput", name));
}

const char* filter_order_name(FilterOrder order) {
  switch (order) {
    case FilterOrder::kSpread: return "spread";
    case FilterOrder::kUtilization: return "utilization";
    case FilterOrder::kThroughput: return "throughput";
  }
  return "?";
}

Status validate_config(const SearchConfig& c) {
  if (std::isnan(c.budget_seconds) || c.budget_seconds < 0)
    return Status::invalid(fmt::format("budget {} s: must be a number >= 0", c.budget_seconds));
  if (c.rea_population < 1) return Status::invalid(fmt::format("REA population {}: must be >= 1", c.rea_population));
  if (c.rea_tournament < 1)
    return Status::invalid(fmt::format("REA tournament size {}: must be >= 1", c.rea_tournament));
  if (!(c.reinforce_lr > 0) || !std::isfinite(c.reinforce_lr))
    return Status::invalid(fmt::format("REINFORCE learning rate {}: must be > 0", c.reinforce_lr));
  if (!(c.reinforce_momentum >= 0 && c.reinforce_momentum < 1))
    return Status::invalid(fmt::format("REINFORCE baseline momentum {}: must be in [0, 1)", c.reinforce_momentum));
  if (!(c.reward.target_throughput > 0) || !std::isfinite(c.reward.target_throughput))
    return Status::invalid(
        fmt::format("reward target throughput {}: must be > 0 images/s", c.reward.target_throughput));
  if (!std::isfinite(c.reward.w))
    return Status::invalid(fmt::format("reward exponent w {}: must be a finite number", c.reward.w));
  if (c.max_evaluations < 0)
    return Status::invalid(fmt::format("max evaluations {}: must be >= 0 (0: no cap)", c.max_evaluations));
  if (!(c.filter_space_cost_seconds >= 0) || !std::isfinite(c.filter_space_cost_seconds))
    return Status::invalid(
        fmt::format("filter space cost {} s: must be a finite number >= 0", c.filter_space_cost_seconds));
  return Status::ok();
}

// ---------------------------------------------------------------------------------------
namespace {
uint64_t splitmix64(uint64_t& x) {
  uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
}  // namespace

SearchRng::SearchRng(uint64_t seed) {
  uint64_t x = seed;
  for (auto& s : s_) s = splitmix64(x);
}

uint64_t SearchRng::next() {
  const uint64_t result = rotl(s_[1] * 5, 7) * 9;
  const uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

uint64_t SearchRng::uniform_index(uint64_t n) {
  ROOFLENS_ASSERT(n >= 1);
  const uint64_t threshold = (0 - n) % n;  // 2^64 mod n: reject the incomplete last block
  for (;;) {
    const uint64_t r = next();
    if (r >= threshold) return r % n;
  }
}

double SearchRng::uniform01() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

double SearchRng::normal() {
  if (spare_normal_) {
    const double z = *spare_normal_;
    spare_normal_.reset();
    return z;
  }
  const double u1 = 1.0 - uniform01();  // (0, 1]
  const double u2 = uniform01();
  const double r = std::sqrt(-2.0 * std::log(u1));
  spare_normal_ = r * std::sin(2 * std::numbers::pi * u2);
  return r * std::cos(2 * std::numbers::pi * u2);
}

// ---------------------------------------------------------------------------------------
ReinforcePolicy::ReinforcePolicy(SearchRng& rng, double lr)
    : logits_(kSssNumLayers * kSssNumChoices), m_(logits_.size(), 0.0), v_(logits_.size(), 0.0), lr_(lr) {
  for (auto& z : logits_) z = 1e-3 * rng.normal();
}

std::vector<double> ReinforcePolicy::probabilities(int layer) const {
  ROOFLENS_ASSERT(layer >= 0 && layer < kSssNumLayers);
  const double* z = logits_.data() + static_cast<size_t>(layer) * kSssNumChoices;
  const double zmax = *std::max_element(z, z + kSssNumChoices);
  std::vector<double> p(kSssNumChoices);
  double sum = 0;
  for (int j = 0; j < kSssNumChoices; ++j) sum += (p[j] = std::exp(z[j] - zmax));
  for (auto& x : p) x /= sum;
  return p;
}

std::array<int, kSssNumLayers> ReinforcePolicy::sample(SearchRng& rng) const {
  std::array<int, kSssNumLayers> a{};
  for (int i = 0; i < kSssNumLayers; ++i) {
    const auto p = probabilities(i);
    const double u = rng.uniform01();
    double cum = 0;
    a[i] = kSssNumChoices - 1;
    for (int j = 0; j < kSssNumChoices; ++j) {
      cum += p[j];
      if (u < cum) {
        a[i] = j;
        break;
      }
    }
  }
  return a;
}

void ReinforcePolicy::update(const std::array<int, kSssNumLayers>& actions, double advantage) {
  // d/dz_ij of -(log softmax(z_i)[a_i]) * adv = adv * (p_ij - [j == a_i]). Adam as torch
  // implements it: betas (0.9, 0.999), eps 1e-8, no weight decay.
  constexpr double kBeta1 = 0.9, kBeta2 = 0.999, kEps = 1e-8;
  ++t_;
  const double bc1 = 1 - std::pow(kBeta1, static_cast<double>(t_));
  const double bc2 = 1 - std::pow(kBeta2, static_cast<double>(t_));
  std::vector<double> grad(logits_.size());
  for (int i = 0; i < kSssNumLayers; ++i) {
    const auto p = probabilities(i);
    for (int j = 0; j < kSssNumChoices; ++j)
      grad[static_cast<size_t>(i) * kSssNumChoices + j] = advantage * (p[j] - (j == actions[i] ? 1.0 : 0.0));
  }
  for (size_t k = 0; k < logits_.size(); ++k) {
    m_[k] = kBeta1 * m_[k] + (1 - kBeta1) * grad[k];
    v_[k] = kBeta2 * v_[k] + (1 - kBeta2) * grad[k] * grad[k];
    const double denom = std::sqrt(v_[k]) / std::sqrt(bc2) + kEps;
    logits_[k] -= (lr_ / bc1) * m_[k] / denom;
  }
}

void EmaBaseline::update(double value) {
  numerator_ = momentum_ * numerator_ + (1 - momentum_) * value;
  denominator_ = momentum_ * denominator_ + (1 - momentum_);
}

// ---------------------------------------------------------------------------------------
std::vector<size_t> found_frontier(const std::vector<EvalRecord>& evals) {
  std::map<int64_t, size_t> best;  // arch -> position of its best accuracy (first on ties)
  for (size_t i = 0; i < evals.size(); ++i) {
    auto [it, fresh] = best.emplace(evals[i].arch, i);
    if (!fresh && evals[i].accuracy > evals[it->second].accuracy) it->second = i;
  }
  std::vector<size_t> pos;
  std::vector<Point2> pts;
  for (const auto& [arch, i] : best) {
    pos.push_back(i);
    pts.push_back({evals[i].throughput, evals[i].accuracy});
  }
  auto front = pareto_front_2d(pts);
  std::vector<size_t> out;
  if (!front) return out;  // NaN cannot reach here: oracles return finite accuracies
  for (size_t k : *front) out.push_back(pos[k]);
  return out;
}

}  // namespace rooflens::nas
