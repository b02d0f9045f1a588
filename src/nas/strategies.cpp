// The four search strategies (strategy.h) as ask/tell objects, each written once, as the
// benchmark writes it (nats-sss.md section 4): random, regularized evolution (REA),
// REINFORCE, and approximate filtering of the throughput-utilization frontier.
#include <algorithm>
#include <deque>
#include <numeric>

#include "rooflens/nas/strategy.h"
#include "rooflens/util/pareto.h"

#include "search_choices.h"

namespace rooflens::nas {
namespace {

using detail::arch_of;
using detail::choices_of;
using detail::random_choices;

class RandomStrategy : public Strategy {
 public:
  std::optional<int64_t> ask(SearchRng& rng, const AskContext& context) override {
    if (!context.time_left) return std::nullopt;
    return arch_of(random_choices(rng));
  }
  void tell(int64_t, double) override {}
};

// Population and tournament as the benchmark: the initial population is sampled without a
// budget check; afterwards each child comes from a tournament on the population as it is when
// asked; each result joins the population and pushes out its oldest member.
class ReaStrategy : public Strategy {
 public:
  explicit ReaStrategy(const SearchConfig& config)
      : population_size_(config.rea_population), tournament_(config.rea_tournament) {}

  std::optional<int64_t> ask(SearchRng& rng, const AskContext& context) override {
    if (initial_asked_ < population_size_) {
      ++initial_asked_;
      return arch_of(random_choices(rng));
    }
    if (!context.time_left || population_.empty()) return std::nullopt;  // empty: wait for the first result
    // Tournament drawn with replacement; the first best wins ties (Python's max).
    const Member* parent = nullptr;
    for (int k = 0; k < tournament_; ++k) {
      const Member& m = population_[rng.uniform_index(population_.size())];
      if (parent == nullptr || m.reward > parent->reward) parent = &m;
    }
    // Mutation: one random layer gets a random width (possibly the one it had).
    auto child = choices_of(parent->arch);
    const auto layer = rng.uniform_index(kSssNumLayers);
    child[layer] = static_cast<int>(rng.uniform_index(kSssNumChoices));
    return arch_of(child);
  }

  void tell(int64_t arch, double reward) override {
    population_.push_back({arch, reward});
    while (static_cast<int>(population_.size()) > population_size_) population_.pop_front();
  }

 private:
  struct Member {
    int64_t arch;
    double reward;
  };
  int population_size_;
  int tournament_;
  int initial_asked_ = 0;
  std::deque<Member> population_;
};

// One evaluation at a time: the policy's update needs each reward before the next sample.
class ReinforceStrategy : public Strategy {
 public:
  ReinforceStrategy(const SearchConfig& config, SearchRng& rng)
      : policy_(rng, config.reinforce_lr), baseline_(config.reinforce_momentum) {}

  std::optional<int64_t> ask(SearchRng& rng, const AskContext& context) override {
    if (!context.time_left || context.in_flight > 0) return std::nullopt;
    return arch_of(policy_.sample(rng));
  }

  void tell(int64_t arch, double reward) override {
    baseline_.update(reward);  // before the advantage: the first advantage is 0
    policy_.update(choices_of(arch), reward - baseline_.value());
  }

 private:
  ReinforcePolicy policy_;
  EmaBaseline baseline_;
};

class FilterStrategy : public Strategy {
 public:
  FilterStrategy(std::vector<int64_t> candidates, double space_cost_seconds)
      : candidates_(std::move(candidates)), space_cost_seconds_(space_cost_seconds) {}

  std::optional<int64_t> ask(SearchRng&, const AskContext& context) override {
    if (!context.time_left || next_ >= candidates_.size()) return std::nullopt;
    return candidates_[next_++];
  }
  void tell(int64_t, double) override {}
  double start_seconds() const override { return space_cost_seconds_ > 0 ? space_cost_seconds_ : 0.0; }
  std::vector<int64_t> candidates() const override { return candidates_; }

 private:
  std::vector<int64_t> candidates_;
  double space_cost_seconds_;
  size_t next_ = 0;
};

// Positions 0 and n-1, then breadth-first midpoints of the intervals between positions
// already taken: any prefix covers the range evenly.
std::vector<size_t> spread_order(size_t n) {
  std::vector<size_t> order;
  if (n == 0) return order;
  order.push_back(0);
  if (n == 1) return order;
  order.push_back(n - 1);
  std::deque<std::pair<size_t, size_t>> q{{0, n - 1}};
  while (!q.empty()) {
    auto [lo, hi] = q.front();
    q.pop_front();
    if (hi - lo < 2) continue;
    const size_t mid = lo + (hi - lo) / 2;
    order.push_back(mid);
    q.push_back({lo, mid});
    q.push_back({mid, hi});
  }
  return order;
}

}  // namespace

Expected<std::vector<int64_t>> filter_candidates(const SearchConfig& config, const SpaceTable& space) {
  std::vector<Point2> pts(space.points.size());
  for (size_t i = 0; i < pts.size(); ++i) pts[i] = {space.points[i].throughput, space.points[i].utilization};
  auto front = pareto_front_2d(pts);
  if (!front) return front.status().with_context("throughput-utilization frontier of the space");
  std::vector<size_t> order;
  switch (config.filter_order) {
    case FilterOrder::kSpread: order = spread_order(front->size()); break;
    case FilterOrder::kUtilization:
    case FilterOrder::kThroughput: {
      order.resize(front->size());
      std::iota(order.begin(), order.end(), size_t{0});
      const bool by_util = config.filter_order == FilterOrder::kUtilization;
      std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        const SssPoint& pa = space.points[(*front)[a]];
        const SssPoint& pb = space.points[(*front)[b]];
        return by_util ? pa.utilization > pb.utilization : pa.throughput > pb.throughput;
      });
      break;
    }
  }
  std::vector<int64_t> out;
  for (size_t k : order) out.push_back(static_cast<int64_t>((*front)[k]));
  return out;
}

Expected<std::unique_ptr<Strategy>> make_strategy(const SearchConfig& config, const SpaceTable& space, SearchRng& rng) {
  switch (config.strategy) {
    case StrategyKind::kRandom: return std::unique_ptr<Strategy>(std::make_unique<RandomStrategy>());
    case StrategyKind::kRea: return std::unique_ptr<Strategy>(std::make_unique<ReaStrategy>(config));
    case StrategyKind::kReinforce: return std::unique_ptr<Strategy>(std::make_unique<ReinforceStrategy>(config, rng));
    case StrategyKind::kFilter: {
      auto c = filter_candidates(config, space);
      if (!c) return c.status();
      return std::unique_ptr<Strategy>(
          std::make_unique<FilterStrategy>(std::move(*c), config.filter_space_cost_seconds));
    }
  }
  return Status::internal("unknown strategy");
}

}  // namespace rooflens::nas
