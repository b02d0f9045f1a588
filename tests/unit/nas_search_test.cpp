// Search strategies (nas/search.h) and their logs (nas/search_log.h) on a FIXTURE: a
// deterministic synthetic space table and accuracy table written by this test. The numbers
// are made up so that the behaviour under test is visible; they are not NATS-Bench's.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "rooflens/nas/search.h"
#include "rooflens/nas/search_log.h"
#include "rooflens/util/pareto.h"

namespace fs = std::filesystem;
using namespace rooflens;
using namespace rooflens::nas;

namespace {

uint64_t mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  return x;
}

// Throughput falls with one size measure, utilization rises with another plus a little
// hash noise, so the throughput-utilization frontier is a real subset of the space.
const SpaceTable& fixture_space() {
  static const SpaceTable table = [] {
    SpaceTable t;
    t.source = "synthetic fixture";
    t.points.resize(kSssSpaceSize);
    for (int64_t i = 0; i < kSssSpaceSize; ++i) {
      const SssWidths w = sss_widths(i);
      double s1 = 0, s2 = 0;
      const double a[5] = {4, 2, 3, 1, 1.5}, b[5] = {1, 3, 1, 2, 2.5};
      for (int k = 0; k < 5; ++k) {
        s1 += a[k] * static_cast<double>(w[k] * w[k]);
        s2 += b[k] * static_cast<double>(w[k]);
      }
      SssPoint& p = t.points[static_cast<size_t>(i)];
      p.index = i;
      p.arch = sss_arch_string(i);
      p.throughput = 1e9 / (s1 + 2000);
      p.utilization = s2 / (s2 + 300) + 0.02 * static_cast<double>(mix(static_cast<uint64_t>(i)) % 1000) / 1000;
    }
    return t;
  }();
  return table;
}

// Accuracy monotone in utilization; cost grows with size.
class FixtureOracle : public AccuracyOracle {
 public:
  Expected<Evaluation> evaluate(int64_t arch, uint64_t seed) override {
    ++calls;
    const SssPoint& p = fixture_space().points[static_cast<size_t>(arch)];
    Evaluation e;
    e.accuracy = 50 + 45 * p.utilization + (noisy ? 0.5 * static_cast<double>(seed % 3) : 0.0);
    e.cost_seconds = 20 + 1e7 / p.throughput / 1000;
    return e;
  }
  Expected<double> final_accuracy(int64_t arch) override { return 50 + 45 * fixture_space().points[arch].utilization; }
  std::string describe() const override { return "fixture oracle (synthetic)"; }
  bool noisy = true;
  int64_t calls = 0;
};

SearchConfig config_for(StrategyKind k, uint64_t seed, double budget = 20000) {
  SearchConfig c;
  c.strategy = k;
  c.seed = seed;
  c.budget_seconds = budget;
  return c;
}

Expected<SearchResult> run(const SearchConfig& c, FixtureOracle& o) {
  return run_search(c, fixture_space(), oracle_source(o));
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

int hamming(int64_t a, int64_t b) {
  int d = 0;
  for (int k = 0; k < kSssNumLayers; ++k, a /= 8, b /= 8) d += (a % 8) != (b % 8);
  return d;
}

}  // namespace

TEST(SearchRng, SameSeedSameStreamAndUniformEnough) {
  SearchRng a(7), b(7), c(8);
  bool differs = false;
  for (int i = 0; i < 100; ++i) {
    const uint64_t x = a.next();
    EXPECT_EQ(x, b.next());
    differs |= x != c.next();
  }
  EXPECT_TRUE(differs);
  std::vector<int> counts(8, 0);
  for (int i = 0; i < 80000; ++i) ++counts[a.uniform_index(8)];
  for (int n : counts) EXPECT_NEAR(n, 10000, 500);
  double sum = 0, sq = 0;
  for (int i = 0; i < 20000; ++i) {
    const double z = a.normal();
    sum += z;
    sq += z * z;
  }
  EXPECT_NEAR(sum / 20000, 0, 0.05);
  EXPECT_NEAR(sq / 20000, 1, 0.05);
}

TEST(Reward, AccuracySoftHard) {
  RewardSpec r;
  EXPECT_DOUBLE_EQ(compute_reward(r, 90, 1000), 90);
  r.kind = RewardKind::kSoft;
  EXPECT_NEAR(compute_reward(r, 90, 175000), 90, 1e-12);
  EXPECT_NEAR(compute_reward(r, 90, 17500), 90 * std::pow(0.1, 0.07), 1e-12);
  EXPECT_GT(compute_reward(r, 90, 350000), 90);  // faster than the target is rewarded
  r.kind = RewardKind::kHard;
  EXPECT_DOUBLE_EQ(compute_reward(r, 90, 350000), 90);
  EXPECT_NEAR(compute_reward(r, 90, 87500), 45, 1e-12);
  EXPECT_FALSE(reward_kind_from_name("fast"));
  EXPECT_EQ(*strategy_kind_from_name("rea"), StrategyKind::kRea);
  EXPECT_FALSE(strategy_kind_from_name("bayes"));
}

TEST(Reinforce, FirstAdvantageIsZeroAndLogitsBarelyMove) {
  EmaBaseline b(0.9);
  b.update(66.6);
  EXPECT_NEAR(66.6 - b.value(), 0, 1e-12);
  SearchRng rng(1);
  ReinforcePolicy p(rng, 0.01);
  const auto before = p.logits();
  for (double z : before) EXPECT_LT(std::abs(z), 1e-2);  // 1e-3 * N(0,1)
  p.update({0, 1, 2, 3, 4}, 66.6 - b.value());
  for (size_t k = 0; k < before.size(); ++k) EXPECT_NEAR(p.logits()[k], before[k], 1e-6);
}

TEST(Reinforce, UpdateIsAdamOnTheScoreFunctionGradient) {
  SearchRng rng(3);
  ReinforcePolicy p(rng, 0.01);
  std::vector<double> z = p.logits(), m(z.size(), 0), v(z.size(), 0);
  const std::array<int, 5> actions = {1, 7, 0, 3, 3};
  const double adv[3] = {5.0, -2.0, 0.5};
  for (int t = 1; t <= 3; ++t) {
    // Reference: softmax per row, grad = adv * (p - onehot), Adam(0.9, 0.999, 1e-8).
    std::vector<double> g(z.size());
    for (int i = 0; i < 5; ++i) {
      double mx = -1e300, s = 0;
      for (int j = 0; j < 8; ++j) mx = std::max(mx, z[i * 8 + j]);
      for (int j = 0; j < 8; ++j) s += std::exp(z[i * 8 + j] - mx);
      for (int j = 0; j < 8; ++j) g[i * 8 + j] = adv[t - 1] * (std::exp(z[i * 8 + j] - mx) / s - (j == actions[i]));
    }
    for (size_t k = 0; k < z.size(); ++k) {
      m[k] = 0.9 * m[k] + 0.1 * g[k];
      v[k] = 0.999 * v[k] + 0.001 * g[k] * g[k];
      const double mh = m[k] / (1 - std::pow(0.9, t)), vh = v[k] / (1 - std::pow(0.999, t));
      z[k] -= 0.01 * mh / (std::sqrt(vh) + 1e-8);
    }
    p.update(actions, adv[t - 1]);
    for (size_t k = 0; k < z.size(); ++k) ASSERT_NEAR(p.logits()[k], z[k], 1e-9) << "step " << t << " logit " << k;
  }
  // A positive advantage made the chosen widths more likely (Adam's first step is ~lr).
  EXPECT_GT(p.probabilities(1)[7], 1.0 / 8);
}

TEST(Search, ClockIsCheckedBeforeEachSample) {
  for (auto k : {StrategyKind::kRandom, StrategyKind::kReinforce, StrategyKind::kRea, StrategyKind::kFilter}) {
    FixtureOracle o;
    auto r = run(config_for(k, 5, 3000), o);
    ASSERT_TRUE(r) << r.status().message();
    const auto& e = r->evaluations;
    ASSERT_FALSE(e.empty());
    const size_t first_checked = k == StrategyKind::kRea ? 10 : 0;
    for (size_t i = std::max<size_t>(first_checked, 1); i < e.size(); ++i)
      EXPECT_LT(e[i - 1].clock_seconds, 3000) << strategy_kind_name(k) << " sampled step " << i << " after the budget";
    if (k != StrategyKind::kFilter) EXPECT_GE(r->clock_seconds, 3000) << strategy_kind_name(k) << " stopped early";
    EXPECT_EQ(r->clock_seconds, e.back().clock_seconds);
  }
  FixtureOracle o;
  auto r0 = run(config_for(StrategyKind::kRandom, 1, 0), o);
  ASSERT_TRUE(r0);
  EXPECT_TRUE(r0->evaluations.empty());
  EXPECT_EQ(r0->best_arch, -1);
}

TEST(Search, ReaKeepsPopulationTenAndMutatesOneLayer) {
  FixtureOracle o;
  auto none = run(config_for(StrategyKind::kRea, 2, 0), o);  // initial population ignores the budget
  ASSERT_TRUE(none);
  EXPECT_EQ(none->evaluations.size(), 10u);
  auto r = run(config_for(StrategyKind::kRea, 2), o);
  ASSERT_TRUE(r);
  const auto& e = r->evaluations;
  ASSERT_GT(e.size(), 50u);
  // Every child is within one layer of a member of the population it was bred from: the
  // previous 10 evaluations (append the child, drop the oldest).
  for (size_t s = 10; s < e.size(); ++s) {
    int best = 99;
    for (size_t m = s - 10; m < s; ++m) best = std::min(best, hamming(e[s].arch, e[m].arch));
    EXPECT_LE(best, 1) << "step " << s;
  }
  // Selection pressure: the later population is better than the random initial one.
  double init = 0, late = 0;
  for (size_t i = 0; i < 10; ++i) init += e[i].reward, late += e[e.size() - 1 - i].reward;
  EXPECT_GT(late, init);
}

TEST(Search, ReproduciblePerSeedAtTheDefaultBudget) {
  for (auto k : {StrategyKind::kRandom, StrategyKind::kRea, StrategyKind::kReinforce}) {
    FixtureOracle o1, o2, o3;
    auto a = run(config_for(k, 11), o1), b = run(config_for(k, 11), o2), c = run(config_for(k, 12), o3);
    ASSERT_TRUE(a && b && c);
    ASSERT_EQ(a->evaluations.size(), b->evaluations.size());
    for (size_t i = 0; i < a->evaluations.size(); ++i) {
      EXPECT_EQ(search_log_line(a->evaluations[i]), search_log_line(b->evaluations[i]));
    }
    EXPECT_EQ(search_log_done(*a), search_log_done(*b));
    EXPECT_NE(search_log_done(*a), search_log_done(*c)) << strategy_kind_name(k);
  }
}

TEST(Search, ReinforceLearnsOnTheFixture) {
  FixtureOracle o;
  o.noisy = false;
  auto r = run(config_for(StrategyKind::kReinforce, 4, 200000), o);
  ASSERT_TRUE(r);
  const auto& e = r->evaluations;
  ASSERT_GT(e.size(), 400u);
  double first = 0, last = 0;
  for (size_t i = 0; i < 100; ++i) first += e[i].reward, last += e[e.size() - 1 - i].reward;
  EXPECT_GT(last, first + 100);  // mean reward up by more than 1 point
}

TEST(Search, FilterFindsTheTrueFrontierWhenAccuracyIsMonotoneInUtilization) {
  const auto& sp = fixture_space();
  FixtureOracle o;
  o.noisy = false;
  std::vector<Point2> at(sp.points.size()), tu(sp.points.size());
  for (size_t i = 0; i < at.size(); ++i) {
    at[i] = {sp.points[i].throughput, *o.final_accuracy(static_cast<int64_t>(i))};
    tu[i] = {sp.points[i].throughput, sp.points[i].utilization};
  }
  auto truth = pareto_front_2d(at);
  auto tu_front = pareto_front_2d(tu);
  ASSERT_TRUE(truth && tu_front);
  ASSERT_GT(tu_front->size(), 10u);
  ASSERT_LT(tu_front->size(), 2000u);
  for (auto order : {FilterOrder::kSpread, FilterOrder::kUtilization, FilterOrder::kThroughput}) {
    SearchConfig c = config_for(StrategyKind::kFilter, 0, std::numeric_limits<double>::infinity());
    c.filter_order = order;
    auto r = run(c, o);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->evaluations.size(), tu_front->size());
    std::set<int64_t> found, want(truth->begin(), truth->end());
    for (size_t k : r->frontier) found.insert(r->evaluations[k].arch);
    EXPECT_EQ(found, want) << filter_order_name(order);
  }
}

TEST(Search, FilterSpreadOrderCoversTheFrontierEarly) {
  FixtureOracle o;
  SearchConfig c = config_for(StrategyKind::kFilter, 0, 100);  // a handful of evaluations
  auto r = run(c, o);
  ASSERT_TRUE(r);
  const auto& cand = r->filter_candidates;
  ASSERT_GE(r->evaluations.size(), 3u);
  // The first two are the frontier's ends (slowest and fastest), the third its middle.
  const auto& sp = fixture_space().points;
  double tmin = 1e300, tmax = 0;
  for (int64_t a : cand) tmin = std::min(tmin, sp[a].throughput), tmax = std::max(tmax, sp[a].throughput);
  EXPECT_EQ(sp[r->evaluations[0].arch].throughput, tmin);
  EXPECT_EQ(sp[r->evaluations[1].arch].throughput, tmax);
}

TEST(Search, FilterChargesTheSpaceCost) {
  FixtureOracle o;
  SearchConfig c = config_for(StrategyKind::kFilter, 0, 1000);
  c.filter_space_cost_seconds = 1000;  // the whole budget spent on measuring the space
  auto r = run(c, o);
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->evaluations.empty());
  EXPECT_EQ(r->clock_seconds, 1000);
}

TEST(Search, BadConfigAndFailingOracleAreErrors) {
  FixtureOracle o;
  SearchConfig c = config_for(StrategyKind::kRea, 0);
  c.rea_population = 0;
  auto r = run(c, o);
  ASSERT_FALSE(r);
  EXPECT_NE(r.status().message().find("population"), std::string::npos);
  c = config_for(StrategyKind::kRandom, 0, -1);
  EXPECT_FALSE(run(c, o));
  EvalSource failing = [](int64_t, int64_t arch, uint64_t) -> Expected<Evaluation> {
    return Status::unavailable("network " + std::to_string(arch) + " not in the table");
  };
  auto f = run_search(config_for(StrategyKind::kRandom, 0), fixture_space(), failing);
  ASSERT_FALSE(f);
  EXPECT_NE(f.status().message().find("step 0"), std::string::npos) << f.status().message();
  SpaceTable small;
  EXPECT_FALSE(run_search(config_for(StrategyKind::kRandom, 0), small, failing));
}

// --------------------------------------------------------------------------------------
class SearchLogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("rooflens-nas-log-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(SearchLogTest, ResumeFromAnyCutIsByteIdentical) {
  for (auto k : {StrategyKind::kReinforce, StrategyKind::kRea, StrategyKind::kFilter}) {
    const SearchConfig c = config_for(k, 9, 5000);
    const std::string full = (dir_ / "full.jsonl").string();
    FixtureOracle o;
    auto a = run_logged_search(c, fixture_space(), o, o.describe(), full, false);
    ASSERT_TRUE(a) << a.status().message();
    const std::string want = slurp(full);
    ASSERT_GT(want.size(), 1000u);
    // Existing log without --resume is refused, never overwritten.
    auto again = run_logged_search(c, fixture_space(), o, o.describe(), full, false);
    ASSERT_FALSE(again);
    EXPECT_NE(again.status().message().find("--resume"), std::string::npos);
    // Cut the log at many points (mid-line included: a SIGKILL mid-write) and resume.
    for (size_t cut : {size_t{0}, size_t{5}, want.find('\n') + 1, want.size() / 3, want.size() / 2 + 7, want.size() - 3,
                       want.size()}) {
      const std::string part = (dir_ / "part.jsonl").string();
      std::ofstream(part, std::ios::binary) << want.substr(0, cut);
      FixtureOracle o2;
      auto b = run_logged_search(c, fixture_space(), o2, o2.describe(), part, true);
      ASSERT_TRUE(b) << b.status().message();
      EXPECT_EQ(slurp(part), want) << strategy_kind_name(k) << " cut at " << cut;
      EXPECT_EQ(search_log_done(b->result), search_log_done(a->result));
      if (cut == want.size()) EXPECT_TRUE(b->was_complete);
      // Replayed steps did not ask the oracle.
      EXPECT_EQ(o2.calls, static_cast<int64_t>(a->result.evaluations.size()) - b->replayed_steps);
    }
    fs::remove(full);
  }
}

TEST_F(SearchLogTest, ResumeRefusesAnotherRunsLog) {
  const std::string path = (dir_ / "run.jsonl").string();
  FixtureOracle o;
  ASSERT_TRUE(run_logged_search(config_for(StrategyKind::kRandom, 1, 500), fixture_space(), o, "x", path, false));
  auto other = run_logged_search(config_for(StrategyKind::kRandom, 2, 500), fixture_space(), o, "x", path, true);
  ASSERT_FALSE(other);
  EXPECT_NE(other.status().message().find("another run"), std::string::npos);
  // A corrupted middle line is named with its line number.
  std::string text = slurp(path);
  const size_t second = text.find('\n') + 1;
  text.replace(second, 5, "garba");
  std::ofstream(path, std::ios::binary) << text;
  auto bad = run_logged_search(config_for(StrategyKind::kRandom, 1, 500), fixture_space(), o, "x", path, true);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.status().message().find(":2"), std::string::npos) << bad.status().message();
}

TEST_F(SearchLogTest, MeasuredThroughputIsLoggedAndReplayedFromTheLog) {
  const SearchConfig c = config_for(StrategyKind::kReinforce, 3, 3000);
  std::atomic<int> calls{0};
  // Deterministic per network, so a resumed run can be compared byte for byte; far from the
  // table's values, so a table value in the log would show.
  ThroughputFn measure = [&](int64_t arch) -> Expected<std::pair<double, double>> {
    ++calls;
    return std::make_pair(5000.0 + static_cast<double>(arch % 97), 0.25);
  };
  const std::string full = (dir_ / "measured.jsonl").string();
  FixtureOracle o;
  auto a = run_logged_search(c, fixture_space(), o, o.describe(), full, false, measure);
  ASSERT_TRUE(a) << a.status().message();
  ASSERT_GT(a->result.evaluations.size(), 20u);
  EXPECT_EQ(calls.load(), static_cast<int>(a->result.evaluations.size()));
  for (const EvalRecord& r : a->result.evaluations) {
    EXPECT_EQ(r.throughput, 5000.0 + static_cast<double>(r.arch % 97));
    EXPECT_EQ(r.utilization, 0.25);
    EXPECT_DOUBLE_EQ(r.reward, r.accuracy);  // accuracy reward
  }
  const std::string want = slurp(full);
  const std::string part = (dir_ / "measured-part.jsonl").string();
  std::ofstream(part, std::ios::binary) << want.substr(0, want.size() / 2);
  calls = 0;
  FixtureOracle o2;
  auto b = run_logged_search(c, fixture_space(), o2, o2.describe(), part, true, measure);
  ASSERT_TRUE(b) << b.status().message();
  EXPECT_EQ(slurp(part), want);
  EXPECT_EQ(calls.load(), static_cast<int>(a->result.evaluations.size()) - static_cast<int>(b->replayed_steps));
  // A measurement that fails stops the run with the network named.
  ThroughputFn broken = [](int64_t) -> Expected<std::pair<double, double>> {
    return Status::unavailable("backend refused");
  };
  FixtureOracle o3;
  auto f = run_logged_search(c, fixture_space(), o3, o3.describe(), (dir_ / "broken.jsonl").string(), false, broken);
  ASSERT_FALSE(f);
  EXPECT_NE(f.status().message().find("measuring network"), std::string::npos) << f.status().message();
}
