// The NAS experiment object (nas/experiment.h): planning runs from strategy names, the output
// folder's checks (a fresh run never overwrites a log; --resume refuses a folder that never held
// these runs), running over threads with the same logs as one thread, resuming a finished
// experiment, and the final accuracies it is judged by. FIXTURE oracle of made-up numbers.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <unistd.h>

#include "rooflens/nas/experiment.h"

namespace fs = std::filesystem;
#include "nas_fixture_space.h"

using namespace rooflens;
using namespace rooflens::nas;

namespace {

// Knows the final accuracy of networks below `known` only (all when known = space size).
class FixtureOracle : public AccuracyOracle {
 public:
  explicit FixtureOracle(int64_t known) : known_(known) {}
  Expected<Evaluation> evaluate(int64_t arch, uint64_t seed) override {
    Evaluation e;
    e.accuracy =
        50 + 40 * fixture_space().points[static_cast<size_t>(arch)].utilization + static_cast<double>(seed % 3);
    e.cost_seconds = 10;
    return e;
  }
  Expected<double> final_accuracy(int64_t arch) override {
    if (arch >= known_) return Status::unavailable("not known");
    return 50 + 40 * fixture_space().points[static_cast<size_t>(arch)].utilization;
  }
  std::string describe() const override { return "fixture"; }

 private:
  int64_t known_;
};

struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() /
           ("rooflens-nas-experiment-" + std::to_string(::getpid()) + "-" + std::to_string(counter()++));
    fs::remove_all(path);
  }
  ~TempDir() { fs::remove_all(path); }
  static int& counter() {
    static int n = 0;
    return n;
  }
};

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

ExperimentSpec spec_in(const fs::path& out) {
  register_oracle_scheme("fixture", [](const std::string&) -> Expected<std::unique_ptr<AccuracyOracle>> {
    return std::unique_ptr<AccuracyOracle>(new FixtureOracle(kSssSpaceSize));
  });
  ExperimentSpec s;
  s.strategies = {"random", "rea:2", "reinforce"};
  s.seeds = 2;
  s.seed_base = 5;
  s.out = out.string();
  s.base.budget_seconds = 300;
  return s;
}

TEST(NasExperiment, PlansRunsPerStrategyAndSeed) {
  TempDir d;
  auto x = NasExperiment::plan(spec_in(d.path));
  ASSERT_TRUE(x) << x.status().message();
  ASSERT_EQ(x->runs().size(), 6u);  // random x 2, rea x 2 (its own count), reinforce x 2
  EXPECT_EQ(x->runs()[0].strategy, StrategyKind::kRandom);
  EXPECT_EQ(x->runs()[0].seed, 5u);
  EXPECT_EQ(x->runs()[1].seed, 6u);
  EXPECT_EQ(x->runs()[2].strategy, StrategyKind::kRea);
  EXPECT_EQ(fs::path(x->runs()[5].log), d.path / "reinforce-seed6.jsonl");
}

TEST(NasExperiment, RejectsBadPlans) {
  TempDir d;
  auto bad = [&](auto edit, const std::string& words) {
    ExperimentSpec s = spec_in(d.path);
    edit(s);
    auto x = NasExperiment::plan(s);
    ASSERT_FALSE(x);
    EXPECT_EQ(x.status().code(), StatusCode::kInvalidInput);
    EXPECT_NE(x.status().message().find(words), std::string::npos) << x.status().message();
  };
  bad([](ExperimentSpec& s) { s.seeds = 0; }, "--seeds 0");
  bad([](ExperimentSpec& s) { s.strategies = {"rea", "rea:3"}; }, "given twice");
  bad([](ExperimentSpec& s) { s.strategies = {"rea:x"}; }, "after ':'");
  bad([](ExperimentSpec& s) { s.strategies = {"bayes"}; }, "bayes");
  bad([](ExperimentSpec& s) { s.strategies = {}; }, "none given");
  bad([](ExperimentSpec& s) { s.base.budget_seconds = -1; }, "budget");
}

TEST(NasExperiment, ResumeRefusesAFolderThatNeverHeldTheseRuns) {
  TempDir d;
  auto x = NasExperiment::plan(spec_in(d.path));
  ASSERT_TRUE(x);
  // Missing.
  Status missing = x->prepare_output(true);
  EXPECT_EQ(missing.code(), StatusCode::kInvalidInput);
  EXPECT_NE(missing.message().find("nothing to resume"), std::string::npos) << missing.message();
  EXPECT_FALSE(fs::exists(d.path)) << "a refused resume creates nothing";
  // Empty, then unrelated.
  fs::create_directories(d.path);
  EXPECT_FALSE(x->prepare_output(true).is_ok());
  std::ofstream(d.path / "notes.txt") << "x\n";
  EXPECT_FALSE(x->prepare_output(true).is_ok());
  // One of its logs: resumable.
  std::ofstream(d.path / "rea-seed6.jsonl") << "";
  EXPECT_TRUE(x->prepare_output(true).is_ok());
  // A fresh run never overwrites a log.
  Status fresh = x->prepare_output(false);
  EXPECT_EQ(fresh.code(), StatusCode::kInvalidInput);
  EXPECT_NE(fresh.message().find("rea-seed6.jsonl exists"), std::string::npos) << fresh.message();
}

TEST(NasExperiment, ThreadsDoNotChangeTheLogsAndAFinishedRunResumes) {
  TempDir one, four;
  std::vector<std::string> logs_one;
  for (auto [dir, threads] : {std::pair{&one, 1}, std::pair{&four, 4}}) {
    auto x = NasExperiment::plan(spec_in(dir->path));
    ASSERT_TRUE(x);
    ASSERT_TRUE(x->prepare_output(false).is_ok());
    ExperimentOptions o;
    o.threads = threads;
    size_t done = 0;
    o.on_run_done = [&](size_t, const Expected<LoggedSearch>& r, double) { done += r.has_value(); };
    auto r = x->run(fixture_space(), "fixture:", "fixture", o);
    ASSERT_TRUE(r) << r.status().message();
    EXPECT_EQ(done, x->runs().size());
    ASSERT_EQ(r->size(), x->runs().size());
    for (size_t i = 0; i < x->runs().size(); ++i) {
      const std::string log = slurp(x->runs()[i].log);
      EXPECT_FALSE(log.empty());
      if (threads == 1)
        logs_one.push_back(log);
      else
        EXPECT_EQ(log, logs_one[i]) << x->runs()[i].log;
    }
  }
  auto x = NasExperiment::plan(spec_in(one.path));
  ASSERT_TRUE(x->prepare_output(true).is_ok());
  ExperimentOptions o;
  o.resume = true;
  auto r = x->run(fixture_space(), "fixture:", "fixture", o);
  ASSERT_TRUE(r) << r.status().message();
  for (const LoggedSearch& l : *r) EXPECT_TRUE(l.was_complete);
  for (size_t i = 0; i < x->runs().size(); ++i) EXPECT_EQ(slurp(x->runs()[i].log), logs_one[i]);
}

TEST(NasExperiment, FinalAccuraciesSayWhyTheyAreMissing) {
  SearchResult run;
  EvalRecord e;
  e.arch = 20000;
  run.evaluations.push_back(e);
  std::string why;
  FixtureOracle all(kSssSpaceSize);
  int64_t calls = 0;
  auto acc = NasExperiment::final_accuracies(all, {run}, why, [&](int64_t, int64_t) { ++calls; });
  ASSERT_EQ(acc.size(), static_cast<size_t>(kSssSpaceSize));
  EXPECT_EQ(calls, kSssSpaceSize / 1024);
  FixtureOracle some(10000);  // knows networks below 10000; the run evaluated 20000
  EXPECT_TRUE(NasExperiment::final_accuracies(some, {run}, why).empty());
  EXPECT_NE(why.find("network 20000"), std::string::npos) << why;
  run.evaluations[0].arch = 5;
  auto partial = NasExperiment::final_accuracies(some, {run}, why);
  ASSERT_EQ(partial.size(), static_cast<size_t>(kSssSpaceSize));
  EXPECT_TRUE(std::isnan(partial[20000]));
  FixtureOracle none(0);
  EXPECT_TRUE(NasExperiment::final_accuracies(none, {run}, why).empty());
}

}  // namespace
