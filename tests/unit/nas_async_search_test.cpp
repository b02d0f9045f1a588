// The batch-asynchronous driver (nas/async_search.h) on a FIXTURE: the same kind of synthetic
// space table and oracle as nas_search_test.cpp (made-up numbers, not NATS-Bench's). Checks
// that one worker reproduces run_search exactly, the clock of N parallel workers on a case
// computed by hand, the evaluation cap, and lost workers.
#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <unistd.h>

#include "rooflens/nas/async_search.h"
#include "rooflens/nas/search.h"
#include "rooflens/nas/search_log.h"

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

// As in nas_search_test.cpp: throughput falls with one size measure, utilization rises with
// another plus a little hash noise.
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

// Accuracy monotone in utilization plus seed noise; cost grows with size.
class FixtureOracle : public AccuracyOracle {
 public:
  Expected<Evaluation> evaluate(int64_t arch, uint64_t seed) override {
    const SssPoint& p = fixture_space().points[static_cast<size_t>(arch)];
    Evaluation e;
    e.accuracy = 50 + 45 * p.utilization + 0.5 * static_cast<double>(seed % 3);
    e.cost_seconds = 20 + 1e7 / p.throughput / 1000;
    return e;
  }
  Expected<double> final_accuracy(int64_t arch) override { return 50 + 45 * fixture_space().points[arch].utilization; }
  std::string describe() const override { return "fixture oracle (synthetic)"; }
};

SearchConfig config_for(StrategyKind k, uint64_t seed, double budget = 20000) {
  SearchConfig c;
  c.strategy = k;
  c.seed = seed;
  c.budget_seconds = budget;
  return c;
}

std::unique_ptr<ThreadEvalPool> thread_pool(int n) {
  auto p = ThreadEvalPool::create(n, []() -> Expected<std::unique_ptr<AccuracyOracle>> {
    return std::unique_ptr<AccuracyOracle>(new FixtureOracle());
  });
  EXPECT_TRUE(p) << p.status().message();
  return std::move(*p);
}

// A pool that answers from a script: job `ticket` costs costs[ticket] (accuracy 50 + ticket),
// and wait_any returns jobs in the order `arrivals` lists them.
// Worker `lose_worker` dies on its job number `lose_on_job` (1-based).
class ScriptedPool : public EvalPool {
 public:
  ScriptedPool(int workers, std::vector<double> costs, std::vector<int64_t> arrivals)
      : workers_(workers),
        costs_(std::move(costs)),
        arrivals_(arrivals.begin(), arrivals.end()),
        dead_(static_cast<size_t>(workers), false),
        jobs_(static_cast<size_t>(workers), 0) {}
  int workers() const override { return workers_; }
  bool alive(int w) const override { return !dead_[static_cast<size_t>(w)]; }
  Status submit(int w, const PoolJob& job) override {
    EXPECT_FALSE(dead_[static_cast<size_t>(w)]) << "job for a lost worker";
    for (const auto& [t, o] : out_) EXPECT_NE(o.first, w) << "worker " << w << " given a second job";
    out_[job.ticket] = {w, job};
    submitted.push_back(job);
    ++jobs_[static_cast<size_t>(w)];
    return Status::ok();
  }
  Expected<PoolDone> wait_any() override {
    // The next scripted ticket that is out (a script entry never submitted, e.g. after a worker
    // was lost, is skipped); the lowest ticket out once the script is used up.
    int64_t ticket = -1;
    while (!arrivals_.empty() && ticket < 0) {
      if (out_.count(arrivals_.front())) ticket = arrivals_.front();
      arrivals_.pop_front();
    }
    if (ticket < 0 && !out_.empty()) ticket = out_.begin()->first;
    auto it = out_.find(ticket);
    if (it == out_.end()) return Status::internal("script: ticket " + std::to_string(ticket) + " is not out");
    const auto [w, job] = it->second;
    out_.erase(it);
    PoolDone d;
    d.ticket = ticket;
    d.worker = w;
    d.where = "worker " + std::to_string(w);
    if (w == lose_worker && jobs_[static_cast<size_t>(w)] == lose_on_job) {
      dead_[static_cast<size_t>(w)] = true;
      d.worker_lost = true;
      d.reason = "scripted death";
      return d;
    }
    Evaluation e;
    e.accuracy = 50 + static_cast<double>(ticket);
    e.cost_seconds = static_cast<size_t>(ticket) < costs_.size() ? costs_[static_cast<size_t>(ticket)] : 1.0;
    d.evaluation = e;
    return d;
  }
  std::string describe() const override { return "scripted pool"; }

  std::vector<PoolJob> submitted;
  int lose_worker = -1;
  int lose_on_job = 0;

 private:
  int workers_;
  std::vector<double> costs_;
  std::deque<int64_t> arrivals_;
  std::vector<bool> dead_;
  std::vector<int> jobs_;
  std::map<int64_t, std::pair<int, PoolJob>> out_;
};

void expect_same_run(const SearchResult& a, const SearchResult& b, const std::string& what) {
  ASSERT_EQ(a.evaluations.size(), b.evaluations.size()) << what;
  for (size_t i = 0; i < a.evaluations.size(); ++i) {
    const EvalRecord& x = a.evaluations[i];
    const EvalRecord& y = b.evaluations[i];
    EXPECT_EQ(search_log_line(x), search_log_line(y)) << what << " step " << i;  // every logged field, exactly
  }
  EXPECT_EQ(a.clock_seconds, b.clock_seconds) << what;
  EXPECT_EQ(a.best_arch, b.best_arch) << what;
  EXPECT_EQ(a.best_reward, b.best_reward) << what;
  EXPECT_EQ(a.frontier, b.frontier) << what;
  EXPECT_EQ(a.filter_candidates, b.filter_candidates) << what;
  EXPECT_EQ(search_log_done(a), search_log_done(b)) << what;
}

}  // namespace

TEST(AsyncSearch, OneWorkerReproducesRunSearch) {
  for (auto k : {StrategyKind::kRandom, StrategyKind::kRea, StrategyKind::kFilter, StrategyKind::kReinforce})
    for (uint64_t seed : {0, 7}) {
      SearchConfig c = config_for(k, seed, 6000);
      if (k == StrategyKind::kFilter && seed == 7) c.filter_space_cost_seconds = 1234.5;
      FixtureOracle o;
      auto seq = run_search(c, fixture_space(), oracle_source(o));
      ASSERT_TRUE(seq) << seq.status().message();
      auto pool = thread_pool(1);
      auto async = run_async_search(c, fixture_space(), *pool);
      ASSERT_TRUE(async) << async.status().message();
      const std::string what = std::string(strategy_kind_name(k)) + " seed " + std::to_string(seed);
      EXPECT_GT(seq->evaluations.size(), 10u) << what;
      expect_same_run(*seq, *async, what);
    }
}

TEST(AsyncSearch, EvaluationCapAppliesToBothDrivers) {
  for (auto k : {StrategyKind::kRandom, StrategyKind::kRea, StrategyKind::kFilter}) {
    SearchConfig c = config_for(k, 3, 1e9);
    c.max_evaluations = 7;
    FixtureOracle o;
    auto seq = run_search(c, fixture_space(), oracle_source(o));
    ASSERT_TRUE(seq);
    EXPECT_EQ(seq->evaluations.size(), 7u) << strategy_kind_name(k);
    auto pool = thread_pool(1);
    auto async = run_async_search(c, fixture_space(), *pool);
    ASSERT_TRUE(async);
    expect_same_run(*seq, *async, strategy_kind_name(k));
  }
  SearchConfig bad = config_for(StrategyKind::kRandom, 0);
  bad.max_evaluations = -1;
  EXPECT_FALSE(validate_config(bad));
}

// Random and filter dispatch a fixed sequence: with 3 threads and a cap, the same networks with
// the same oracle seeds and accuracies as the sequential run, whatever order they arrive in.
TEST(AsyncSearch, ThreeThreadsEvaluateTheSameNetworksAsOne) {
  for (auto k : {StrategyKind::kRandom, StrategyKind::kFilter}) {
    SearchConfig c = config_for(k, 11, 1e9);
    c.max_evaluations = 25;
    FixtureOracle o;
    auto seq = run_search(c, fixture_space(), oracle_source(o));
    ASSERT_TRUE(seq);
    auto pool = thread_pool(3);
    auto async = run_async_search(c, fixture_space(), *pool);
    ASSERT_TRUE(async) << async.status().message();
    auto key = [](const EvalRecord& r) { return std::make_tuple(r.arch, r.oracle_seed, r.accuracy, r.cost_seconds); };
    std::multiset<std::tuple<int64_t, uint64_t, double, double>> a, b;
    for (const auto& r : seq->evaluations) a.insert(key(r));
    for (const auto& r : async->evaluations) b.insert(key(r));
    EXPECT_EQ(a, b) << strategy_kind_name(k);
    std::set<std::string> where;
    for (const auto& r : async->evaluations) where.insert(r.where);
    EXPECT_GE(where.size(), 1u);
  }
}

// Three workers, random search, budget 12 s; job costs by dispatch order and the order results
// arrive in are scripted. By hand:
//   t0 w0 0->10, t1 w1 0->4, t2 w2 0->7            (all start at 0)
//   t1 arrives (4):  w1 gets t3 at 4 -> 7
//   t2 arrives (7):  w2 gets t4 at 7 -> 13
//   t3 arrives (7):  w1 gets t5 at 7 -> 9
//   t5 arrives (9):  w1 gets t6 at 9 -> 14
//   t0 arrives (10): w0 gets t7 at 10 -> 11
//   t7 arrives (11): w0 gets t8 at 11 -> 15
//   t4 (13), t6 (14), t8 (15) arrive: each worker would start at >= 12: nothing more.
// 9 evaluations; the clock is the latest completion, 15.
TEST(AsyncSearch, ClockOfThreeParallelWorkersByHand) {
  ScriptedPool pool(3, {10, 4, 7, 3, 6, 2, 5, 1, 4}, {1, 2, 3, 5, 0, 7, 4, 6, 8});
  auto r = run_async_search(config_for(StrategyKind::kRandom, 4, 12), fixture_space(), pool);
  ASSERT_TRUE(r) << r.status().message();
  ASSERT_EQ(r->evaluations.size(), 9u);
  const std::vector<double> clock = {4, 7, 7, 9, 10, 11, 13, 14, 15};
  const std::vector<double> acc = {51, 52, 53, 55, 50, 57, 54, 56, 58};  // 50 + ticket, in arrival order
  for (size_t i = 0; i < 9; ++i) {
    EXPECT_EQ(r->evaluations[i].clock_seconds, clock[i]) << "arrival " << i;
    EXPECT_EQ(r->evaluations[i].accuracy, acc[i]) << "arrival " << i;
    EXPECT_EQ(r->evaluations[i].step, static_cast<int64_t>(i));
  }
  EXPECT_EQ(r->clock_seconds, 15);
  ASSERT_EQ(pool.submitted.size(), 9u);
  // The dispatched sequence is the sequential run's: same networks, same oracle seeds.
  FixtureOracle o;
  SearchConfig capped = config_for(StrategyKind::kRandom, 4, 1e9);
  capped.max_evaluations = 9;
  auto seq = run_search(capped, fixture_space(), oracle_source(o));
  ASSERT_TRUE(seq);
  for (size_t i = 0; i < 9; ++i) {
    EXPECT_EQ(pool.submitted[i].arch, seq->evaluations[i].arch) << i;
    EXPECT_EQ(pool.submitted[i].oracle_seed, seq->evaluations[i].oracle_seed) << i;
  }
}

// Worker 1 dies on its second job: that network is lost (nothing charged), worker 1 gets no more
// work, the run finishes on the other two; the log records the loss.
TEST(AsyncSearch, LostWorkerLosesOnlyItsNetwork) {
  ScriptedPool pool(3, {10, 4, 7, 3, 6, 2, 5, 1, 4}, {1, 2, 3, 5, 0, 7, 4, 6, 8});
  pool.lose_worker = 1;
  pool.lose_on_job = 2;  // t3
  const fs::path dir = fs::temp_directory_path() / ("rooflens_async_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string log = (dir / "random-seed4.jsonl").string();
  fs::remove(log);
  std::vector<LostEvaluation> seen;
  auto r = run_logged_async_search(config_for(StrategyKind::kRandom, 4, 12), fixture_space(), pool, "fixture", log, {},
                                   [&](const LostEvaluation& l) {
                                     seen.push_back(l);
                                     return Status::ok();
                                   });
  ASSERT_TRUE(r) << r.status().message();
  ASSERT_EQ(r->lost.size(), 1u);
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(r->lost[0].arch, pool.submitted[3].arch);
  EXPECT_EQ(r->lost[0].worker, 1);
  EXPECT_EQ(r->lost[0].start_seconds, 4);
  // By hand: t1 (4), t2 (7), t3 lost, t0 (10; w0 gets t5 at 10 -> 12), t4 (13), t5 (12); w1 gets no more.
  std::vector<double> acc;
  for (const auto& e : r->evaluations) acc.push_back(e.accuracy);
  EXPECT_EQ(acc, (std::vector<double>{51, 52, 50, 54, 55}));
  EXPECT_EQ(r->clock_seconds, 13);
  ASSERT_EQ(pool.submitted.size(), 6u);
  auto read = read_search_log(log);
  ASSERT_TRUE(read) << read.status().message();
  EXPECT_EQ(read->lost_lines.size(), 1u);
  EXPECT_TRUE(read->done);
  EXPECT_NE(read->done_line.find("\"lost\":["), std::string::npos) << read->done_line;
  EXPECT_EQ(read->evaluations.size(), r->evaluations.size());
  fs::remove_all(dir);
}

TEST(AsyncSearch, EveryWorkerLostIsAnError) {
  ScriptedPool pool(1, {5, 5, 5}, {});
  pool.lose_worker = 0;
  pool.lose_on_job = 1;
  auto r = run_async_search(config_for(StrategyKind::kRandom, 1, 100), fixture_space(), pool);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(r.status().message().find("every worker"), std::string::npos) << r.status().message();
}

// REA with three threads: asynchronous tournaments run to the budget; the first ten networks
// of the sequential run's initial population are all evaluated (drawn before any result is known).
TEST(AsyncSearch, ReaWithThreeWorkersRunsToTheBudget) {
  auto pool = thread_pool(3);
  SearchConfig c = config_for(StrategyKind::kRea, 2, 6000);
  auto r = run_async_search(c, fixture_space(), *pool);
  ASSERT_TRUE(r) << r.status().message();
  FixtureOracle o;
  auto seq = run_search(c, fixture_space(), oracle_source(o));
  ASSERT_TRUE(seq);
  EXPECT_GT(r->evaluations.size(), seq->evaluations.size()) << "three workers do more in the same budget";
  std::multiset<int64_t> initial_seq, initial_async;
  for (size_t i = 0; i < 10; ++i) initial_seq.insert(seq->evaluations[i].arch);
  for (const auto& e : r->evaluations) initial_async.insert(e.arch);
  for (int64_t a : initial_seq) EXPECT_TRUE(initial_async.count(a)) << "initial network " << a;
  EXPECT_GE(r->clock_seconds, c.budget_seconds);
}
