// Accuracy oracles and the simulated clock (oracle.h): the NATS-Bench tabular oracle over the
// genuine files in shared/data gives the numbers nats-sss.md section 3 quotes; the CSV oracle
// round-trips and names file:line and field for every error; make_oracle picks by spec.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>
#include <string>

#include "rooflens/nas/oracle.h"
#include "rooflens/nas/sss_space.h"

namespace rooflens {
namespace {

namespace fs = std::filesystem;
using nas::CsvOracle;
using nas::Evaluation;
using nas::NatsOracle;
using nas::SimClock;

const std::string kDir = std::string(ROOFLENS_SOURCE_DIR) + "/../shared/data/nats-sss-v1_0-50262-simple";

#define SKIP_WITHOUT_DATA() \
  if (!fs::exists(kDir + "/000000.pickle.pbz2")) GTEST_SKIP() << "NATS-Bench data not found at " << kDir

// ---- SimClock -------------------------------------------------------------------------

TEST(SimClock, StartsAtZeroUnlimited) {
  SimClock c;
  EXPECT_EQ(c.now(), 0);
  EXPECT_TRUE(std::isinf(c.budget()));
  EXPECT_TRUE(c.has_time_left());
  EXPECT_TRUE(c.can_afford(1e300));
  EXPECT_EQ(c.charges(), 0);
}

TEST(SimClock, ChargesAndChecksLikeTheBenchmark) {
  auto c = SimClock::with_budget(100);
  ASSERT_TRUE(c.has_value()) << c.status().message();
  c->charge(43.80);
  c->charge(Evaluation{66.6, 43.80, ""});
  EXPECT_DOUBLE_EQ(c->now(), 87.60);
  EXPECT_DOUBLE_EQ(c->remaining(), 12.40);
  EXPECT_EQ(c->charges(), 2);
  // Checked before sampling: time is left, so the next evaluation runs and is charged in
  // full, past the budget (nats-sss.md section 4).
  EXPECT_TRUE(c->has_time_left());
  EXPECT_FALSE(c->can_afford(43.80));
  EXPECT_TRUE(c->can_afford(12.40));
  c->charge(43.80);
  EXPECT_DOUBLE_EQ(c->now(), 131.40);
  EXPECT_FALSE(c->has_time_left());
  EXPECT_EQ(c->remaining(), 0);
  c->charge(0);  // a free evaluation still counts
  EXPECT_EQ(c->charges(), 4);
}

TEST(SimClock, ExactlyAtBudgetStops) {
  auto c = SimClock::with_budget(10);
  ASSERT_TRUE(c.has_value());
  EXPECT_TRUE(c->can_afford(10));
  c->charge(10);
  EXPECT_FALSE(c->has_time_left());
  auto zero = SimClock::with_budget(0);
  ASSERT_TRUE(zero.has_value());
  EXPECT_FALSE(zero->has_time_left());
}

TEST(SimClock, RejectsBadBudget) {
  for (double b : {-1.0, std::numeric_limits<double>::quiet_NaN()}) {
    auto c = SimClock::with_budget(b);
    ASSERT_FALSE(c.has_value());
    EXPECT_EQ(c.status().code(), StatusCode::kInvalidInput);
    EXPECT_NE(c.status().message().find(">= 0"), std::string::npos) << c.status().message();
  }
  EXPECT_TRUE(SimClock::with_budget(std::numeric_limits<double>::infinity()).has_value());
}

TEST(SimClock, NegativeChargeIsAnInternalError) {
  SimClock c;
  EXPECT_DEATH(c.charge(-1), "cost_seconds");
}

// ---- NATS-Bench tabular oracle --------------------------------------------------------

TEST(NatsOracle, Network0EvaluateMatchesTheBenchmark) {
  SKIP_WITHOUT_DATA();
  NatsOracle o(kDir);
  // nats-sss.md section 3: 8:8:8:8:8 gives 66.60 / 66.25 / 66.59 for its three seeds and
  // costs 12 x 3.5481 + 1.2195 = 43.80 s.
  std::set<double> seen;
  for (uint64_t seed = 0; seed < 64; ++seed) {
    auto e = o.evaluate(0, seed);
    ASSERT_TRUE(e.has_value()) << e.status().message();
    const bool known = std::abs(e->accuracy - 66.604) < 1e-3 || std::abs(e->accuracy - 66.248) < 1e-3 ||
                       std::abs(e->accuracy - 66.588) < 1e-3;
    EXPECT_TRUE(known) << e->accuracy << " " << e->detail;
    EXPECT_NEAR(e->cost_seconds, 12 * 3.5481 + 1.2195, 5e-3) << e->detail;
    EXPECT_NE(e->detail.find("cifar10-valid hp=12"), std::string::npos) << e->detail;
    EXPECT_NE(e->detail.find("x-valid@11"), std::string::npos) << e->detail;
    seen.insert(e->accuracy);
  }
  EXPECT_EQ(seen.size(), 3u) << "64 RNG seeds should reach all three recorded trials";
  EXPECT_EQ(o.cached_networks(), 1u);
}

TEST(NatsOracle, DeterministicPerRngSeed) {
  SKIP_WITHOUT_DATA();
  NatsOracle a(kDir), b(kDir);
  for (uint64_t seed : {0ULL, 1ULL, 42ULL, 0xffffffffffffffffULL}) {
    for (int64_t arch : {0, 11, 284}) {
      auto x = a.evaluate(arch, seed);
      auto y = b.evaluate(arch, seed);
      auto z = a.evaluate(arch, seed);
      ASSERT_TRUE(x && y && z) << x.status().message();
      EXPECT_EQ(x->accuracy, y->accuracy);
      EXPECT_EQ(x->accuracy, z->accuracy);
      EXPECT_EQ(x->cost_seconds, y->cost_seconds);
      EXPECT_EQ(x->detail, z->detail);
    }
  }
  EXPECT_EQ(a.cached_networks(), 3u);
}

TEST(NatsOracle, PickSeedIsUniformEnough) {
  int counts[3] = {0, 0, 0};
  for (uint64_t s = 0; s < 3000; ++s) ++counts[nas::nats_pick_seed(s, 3)];
  for (int c : counts) EXPECT_GT(c, 850);
  EXPECT_EQ(nas::nats_pick_seed(12345, 1), 0u);
}

TEST(NatsOracle, FinalAccuracyNetwork0) {
  SKIP_WITHOUT_DATA();
  NatsOracle o(kDir);
  auto f = o.final_accuracy(0);
  ASSERT_TRUE(f.has_value()) << f.status().message();
  EXPECT_NEAR(*f, 79.79, 5e-3);  // nats-sss.md section 3: hp 90, cifar10, ori-test@89
  for (int64_t arch : {11, 284}) {
    auto g = o.final_accuracy(arch);
    ASSERT_TRUE(g.has_value()) << g.status().message();
    EXPECT_GT(*g, 0);
    EXPECT_LE(*g, 100);
  }
}

TEST(NatsOracle, MissingNetworkIsUnavailable) {
  SKIP_WITHOUT_DATA();
  NatsOracle o(kDir);
  auto e = o.evaluate(5, 0);
  ASSERT_FALSE(e.has_value());
  EXPECT_EQ(e.status().code(), StatusCode::kUnavailable);
  const std::string& m = e.status().message();
  EXPECT_NE(m.find("000005.pickle.pbz2"), std::string::npos) << m;
  EXPECT_NE(m.find("8:8:8:8:48"), std::string::npos) << m;
  EXPECT_NE(m.find("1.1 GB"), std::string::npos) << m;
  auto f = o.final_accuracy(5);
  ASSERT_FALSE(f.has_value());
  EXPECT_EQ(f.status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(o.cached_networks(), 0u);
}

TEST(NatsOracle, IndexOutOfRangeIsInvalid) {
  NatsOracle o("/nonexistent");
  for (int64_t bad : {int64_t{-1}, kSssSpaceSize}) {
    auto e = o.evaluate(bad, 0);
    ASSERT_FALSE(e.has_value());
    EXPECT_EQ(e.status().code(), StatusCode::kInvalidInput);
    EXPECT_NE(e.status().message().find("0..32767"), std::string::npos) << e.status().message();
  }
}

TEST(NatsOracle, SearchLoopChargesTheClock) {
  SKIP_WITHOUT_DATA();
  NatsOracle o(kDir);
  auto clock = SimClock::with_budget(100);
  ASSERT_TRUE(clock.has_value());
  int n = 0;
  while (clock->has_time_left()) {
    auto e = nas::evaluate_and_charge(o, *clock, 0, static_cast<uint64_t>(n++));
    ASSERT_TRUE(e.has_value()) << e.status().message();
  }
  EXPECT_EQ(n, 3);  // 43.80, 87.60 (< 100, so one more), 131.40
  EXPECT_NEAR(clock->now(), 3 * 43.80, 0.02);
  auto bad = nas::evaluate_and_charge(o, *clock, 5, 0);
  EXPECT_FALSE(bad.has_value());
  EXPECT_EQ(clock->charges(), 3);  // failures charge nothing
}

TEST(NatsOracle, DescribeSaysTheSemantics) {
  NatsOracle o("/data/nats");
  const std::string d = o.describe();
  for (const char* s : {"/data/nats", "cifar10-valid", "hp 12", "x-valid@11", "hp 90", "ori-test@89"})
    EXPECT_NE(d.find(s), std::string::npos) << s << " in " << d;
}

// ---- CSV oracle -----------------------------------------------------------------------

Expected<std::unique_ptr<CsvOracle>> csv(const std::string& text, double def = CsvOracle::kDefaultCostSeconds) {
  return CsvOracle::parse(text, "acc.csv", def);
}

void expect_invalid(const std::string& text, const std::string& needle1, const std::string& needle2 = "") {
  auto o = csv(text);
  ASSERT_FALSE(o.has_value()) << text;
  EXPECT_EQ(o.status().code(), StatusCode::kInvalidInput);
  EXPECT_NE(o.status().message().find(needle1), std::string::npos) << o.status().message();
  if (!needle2.empty()) {
    EXPECT_NE(o.status().message().find(needle2), std::string::npos) << o.status().message();
  }
}

TEST(CsvOracle, RoundTrip) {
  auto o =
      csv("arch,accuracy,train_seconds,note\n"
          "8:8:8:8:8,66.6,43.8,smallest\n"
          "\n"
          "11,70.25,,index form\n"
          "\"8:8:40:32:40\", 80 ,12.5,quoted\n",
          7.0);
  ASSERT_TRUE(o.has_value()) << o.status().message();
  EXPECT_EQ((*o)->rows().size(), 3u);
  auto e0 = (*o)->evaluate(0, 1);
  ASSERT_TRUE(e0.has_value());
  EXPECT_EQ(e0->accuracy, 66.6);
  EXPECT_EQ(e0->cost_seconds, 43.8);
  EXPECT_EQ(e0->detail, "acc.csv:2");
  auto e11 = (*o)->evaluate(11, 99);
  ASSERT_TRUE(e11.has_value());
  EXPECT_EQ(e11->accuracy, 70.25);
  EXPECT_EQ(e11->cost_seconds, 7.0);  // empty train_seconds -> the default
  EXPECT_EQ(e11->detail, "acc.csv:4 (default cost)");
  auto e284 = (*o)->evaluate(284, 0);
  ASSERT_TRUE(e284.has_value());
  EXPECT_EQ(e284->accuracy, 80);
  EXPECT_EQ(e284->cost_seconds, 12.5);
  auto f = (*o)->final_accuracy(284);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(*f, 80);
  const std::string d = (*o)->describe();
  EXPECT_NE(d.find("acc.csv"), std::string::npos) << d;
  EXPECT_NE(d.find("7 s per evaluation"), std::string::npos) << d;
}

TEST(CsvOracle, NoCostColumnUsesDefault) {
  auto o = csv("Accuracy,ARCH\n93.1,64:64:64:64:64\n");
  ASSERT_TRUE(o.has_value()) << o.status().message();
  auto e = (*o)->evaluate(32767, 0);
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->accuracy, 93.1);
  EXPECT_EQ(e->cost_seconds, CsvOracle::kDefaultCostSeconds);
}

TEST(CsvOracle, MissingArchIsUnavailable) {
  auto o = csv("arch,accuracy\n0,50\n");
  ASSERT_TRUE(o.has_value());
  auto e = (*o)->evaluate(1, 0);
  ASSERT_FALSE(e.has_value());
  EXPECT_EQ(e.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(e.status().message().find("8:8:8:8:16"), std::string::npos) << e.status().message();
  auto bad = (*o)->final_accuracy(-3);
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidInput);
}

TEST(CsvOracle, Errors) {
  expect_invalid("", "acc.csv: empty file");
  expect_invalid("arch,acc\n0,50\n", "acc.csv:1: missing column 'accuracy'", "header is 'arch,acc'");
  expect_invalid("model,accuracy\n0,50\n", "missing column 'arch'");
  expect_invalid("arch,accuracy\n0,50\n8:8:9:8:8,50\n", "acc.csv:3 arch", "9");
  expect_invalid("arch,accuracy\n8:8:8:8,50\n", "acc.csv:2 arch");
  expect_invalid("arch,accuracy\nresnet,50\n", "acc.csv:2 arch: 'resnet'");
  expect_invalid("arch,accuracy\n32768,50\n", "acc.csv:2 arch: index 32768 is outside");
  expect_invalid("arch,accuracy\n0,100.5\n", "acc.csv:2 accuracy: 100.5 is outside 0..100");
  expect_invalid("arch,accuracy\n0,-1\n", "acc.csv:2 accuracy: -1 is outside 0..100");
  expect_invalid("arch,accuracy\n0,nan\n", "acc.csv:2 accuracy");
  expect_invalid("arch,accuracy\n0,high\n", "acc.csv:2 accuracy: 'high' is not a number");
  expect_invalid("arch,accuracy\n0,50\n\n8:8:8:8:8,51\n", "acc.csv:4 arch: network 0 (8:8:8:8:8) is listed twice",
                 "first on line 2");
  expect_invalid("arch,accuracy,train_seconds\n0,50,0\n", "acc.csv:2 train_seconds: '0'");
  expect_invalid("arch,accuracy,train_seconds\n0,50,fast\n", "acc.csv:2 train_seconds: 'fast'");
  expect_invalid("arch,accuracy,train_seconds\n0,50\n", "acc.csv:2: 2 field(s), the header has 3");
  auto d = csv("arch,accuracy\n0,50\n", 0);
  ASSERT_FALSE(d.has_value());
  EXPECT_NE(d.status().message().find("default cost"), std::string::npos) << d.status().message();
}

TEST(CsvOracle, LoadFromFile) {
  const fs::path p = fs::temp_directory_path() / ("rooflens_oracle_test_" + std::to_string(::getpid()) + ".csv");
  std::ofstream(p) << "arch,accuracy,train_seconds\n8:16:24:32:40,91.5,100\n";
  auto o = CsvOracle::load(p.string());
  ASSERT_TRUE(o.has_value()) << o.status().message();
  auto idx = sss_index("8:16:24:32:40");
  ASSERT_TRUE(idx.has_value());
  auto e = (*o)->evaluate(*idx, 0);
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->accuracy, 91.5);
  EXPECT_EQ(e->cost_seconds, 100);
  auto via_spec = nas::make_oracle("csv:" + p.string());
  ASSERT_TRUE(via_spec.has_value()) << via_spec.status().message();
  EXPECT_NE((*via_spec)->describe().find("CSV"), std::string::npos);
  fs::remove(p);
  auto missing = CsvOracle::load(p.string());
  ASSERT_FALSE(missing.has_value());
  EXPECT_NE(missing.status().message().find(p.string()), std::string::npos);
}

// ---- make_oracle ----------------------------------------------------------------------

TEST(MakeOracle, Schemes) {
  auto unknown = nas::make_oracle("sql:db");
  ASSERT_FALSE(unknown.has_value());
  EXPECT_EQ(unknown.status().code(), StatusCode::kInvalidInput);
  EXPECT_NE(unknown.status().message().find("unknown scheme 'sql'"), std::string::npos);
  EXPECT_NE(unknown.status().message().find("nats:DIR"), std::string::npos);
  EXPECT_NE(unknown.status().message().find("csv:FILE"), std::string::npos);

  auto bare = nas::make_oracle("results.csv");
  ASSERT_FALSE(bare.has_value());
  EXPECT_EQ(bare.status().code(), StatusCode::kInvalidInput);

  auto train = nas::make_oracle("train:cifar10");
  ASSERT_FALSE(train.has_value());
  EXPECT_EQ(train.status().code(), StatusCode::kUnsupported);
  // The unit tests do not link rooflens_train, so nothing registered the "train" scheme.
  EXPECT_NE(train.status().message().find("linked without the training oracle"), std::string::npos);

  auto empty = nas::make_oracle("nats:");
  ASSERT_FALSE(empty.has_value());
  EXPECT_EQ(empty.status().code(), StatusCode::kInvalidInput);

  auto nodir = nas::make_oracle("nats:/no/such/dir");
  ASSERT_FALSE(nodir.has_value());
  EXPECT_NE(nodir.status().message().find("/no/such/dir is not a directory"), std::string::npos);
}

TEST(MakeOracle, NatsSpec) {
  SKIP_WITHOUT_DATA();
  auto o = nas::make_oracle("nats:" + kDir);
  ASSERT_TRUE(o.has_value()) << o.status().message();
  auto e = (*o)->evaluate(0, 7);
  ASSERT_TRUE(e.has_value()) << e.status().message();
  EXPECT_NEAR(e->cost_seconds, 43.80, 5e-3);
  EXPECT_NE((*o)->describe().find("NATS-Bench"), std::string::npos);
}

}  // namespace
}  // namespace rooflens
