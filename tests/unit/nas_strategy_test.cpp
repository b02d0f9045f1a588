// The ask/tell strategies (nas/strategy.h) on their own, without a driver: what each asks for
// and when it has nothing to ask (REA's initial population without a budget check, REINFORCE
// one at a time, the filter's candidates), on a FIXTURE space of made-up numbers.
#include <gtest/gtest.h>

#include <set>

#include "rooflens/nas/strategy.h"

#include "nas_fixture_space.h"

using namespace rooflens;
using namespace rooflens::nas;

namespace {

std::unique_ptr<Strategy> make(StrategyKind kind, SearchRng& rng, SearchConfig c = {}) {
  c.strategy = kind;
  auto s = make_strategy(c, fixture_space(), rng);
  EXPECT_TRUE(s) << s.status().message();
  return std::move(*s);
}

TEST(NasStrategy, RandomAsksOnlyWithTimeLeft) {
  SearchRng rng(1);
  auto s = make(StrategyKind::kRandom, rng);
  EXPECT_TRUE(s->ask(rng, {true, 5}).has_value());  // other evaluations out: still asks
  EXPECT_FALSE(s->ask(rng, {false, 0}).has_value());
  EXPECT_TRUE(s->candidates().empty());
  EXPECT_EQ(s->start_seconds(), 0);
}

TEST(NasStrategy, ReaSamplesItsInitialPopulationWithoutABudgetThenWaitsForAResult) {
  SearchRng rng(2);
  SearchConfig c;
  c.rea_population = 3;
  auto s = make(StrategyKind::kRea, rng, c);
  std::vector<int64_t> initial;
  for (int i = 0; i < 3; ++i) {
    auto a = s->ask(rng, {false, i});  // no time left: the initial population goes out anyway
    ASSERT_TRUE(a.has_value());
    initial.push_back(*a);
  }
  EXPECT_FALSE(s->ask(rng, {true, 3}).has_value()) << "no result yet: no parent to mutate";
  s->tell(initial[0], 10);
  auto child = s->ask(rng, {true, 2});
  ASSERT_TRUE(child.has_value());
  // A child differs from its parent (the only member) in at most one layer.
  const SssWidths p = sss_widths(initial[0]), k = sss_widths(*child);
  int differ = 0;
  for (int l = 0; l < kSssNumLayers; ++l) differ += p[l] != k[l];
  EXPECT_LE(differ, 1);
  EXPECT_FALSE(s->ask(rng, {false, 2}).has_value()) << "after the initial population the budget counts";
}

TEST(NasStrategy, ReinforceAsksOneAtATime) {
  SearchRng rng(3);
  auto s = make(StrategyKind::kReinforce, rng);
  auto a = s->ask(rng, {true, 0});
  ASSERT_TRUE(a.has_value());
  EXPECT_FALSE(s->ask(rng, {true, 1}).has_value()) << "its update needs each reward before the next sample";
  s->tell(*a, 80);
  EXPECT_TRUE(s->ask(rng, {true, 0}).has_value());
  EXPECT_FALSE(s->ask(rng, {false, 0}).has_value());
}

TEST(NasStrategy, FilterAsksItsCandidatesInOrderThenStops) {
  SearchRng rng(4);
  SearchConfig c;
  c.filter_space_cost_seconds = 12.5;
  auto s = make(StrategyKind::kFilter, rng, c);
  auto expected = filter_candidates(c, fixture_space());
  ASSERT_TRUE(expected);
  ASSERT_EQ(s->candidates(), *expected);
  ASSERT_FALSE(expected->empty());
  EXPECT_EQ(s->start_seconds(), 12.5);
  std::vector<int64_t> asked;
  while (auto a = s->ask(rng, {true, 0})) asked.push_back(*a);
  EXPECT_EQ(asked, *expected);
  SearchRng rng2(4);
  auto t = make(StrategyKind::kFilter, rng2, c);
  EXPECT_FALSE(t->ask(rng2, {false, 0}).has_value());
}

// One strategy object, driven by hand as the sequential benchmark loop drives it, gives what
// run_search (the driver over a pool of one worker) gives.
TEST(NasStrategy, HandDrivenLoopMatchesTheDriver) {
  for (StrategyKind k : {StrategyKind::kRandom, StrategyKind::kRea, StrategyKind::kReinforce}) {
    SearchConfig c;
    c.strategy = k;
    c.seed = 11;
    c.budget_seconds = 400;
    auto source = [](int64_t, int64_t arch, uint64_t seed) -> Expected<Evaluation> {
      Evaluation e;
      e.accuracy =
          50 + fixture_space().points[static_cast<size_t>(arch)].utilization * 40 + static_cast<double>(seed % 5);
      e.cost_seconds = 7;
      return e;
    };
    auto driven = run_search(c, fixture_space(), source);
    ASSERT_TRUE(driven) << driven.status().message();

    SearchRng rng(c.seed);
    auto s = make(k, rng, c);
    double clock = 0;
    std::vector<int64_t> archs;
    for (;;) {
      auto a = s->ask(rng, {clock < c.budget_seconds, 0});
      if (!a) break;
      const uint64_t seed = rng.next();
      auto e = source(0, *a, seed);
      clock += e->cost_seconds;
      archs.push_back(*a);
      s->tell(*a, e->accuracy);
    }
    ASSERT_EQ(archs.size(), driven->evaluations.size()) << strategy_kind_name(k);
    for (size_t i = 0; i < archs.size(); ++i) EXPECT_EQ(archs[i], driven->evaluations[i].arch) << i;
    EXPECT_EQ(clock, driven->clock_seconds);
  }
}

}  // namespace
