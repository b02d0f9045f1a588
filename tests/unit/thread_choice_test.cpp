// MeasureOptions::adapt_threads (src/exec/measure.cpp): fewer threads are tried only when the
// trial on the asked threads was contended, and the choice follows the trials' own times.
// The samplers are scripted, so the verdicts do not depend on the load of the machine running
// the test; which thread count is faster does, so the tests check the rule that links the
// two, never a particular outcome.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "rooflens/exec/backend.h"
#include "rooflens/exec/measure.h"
#include "rooflens/ir/graph_builder.h"
#include "test_util.h"

namespace rooflens {
namespace {

// The reference backend, recording the thread count of every prepare: its own in `prepared`,
// its own and those of the fresh backends made from it in `all_prepared`.
class RecordingBackend : public Backend {
 public:
  explicit RecordingBackend(bool has_fresh = true,
                            std::shared_ptr<std::vector<int>> all = std::make_shared<std::vector<int>>())
      : all_prepared(std::move(all)), has_fresh_(has_fresh) {}
  std::vector<int> prepared;
  std::shared_ptr<std::vector<int>> all_prepared;
  std::string name() const override { return "recording"; }
  bool supports(const Graph& g, NodeId n, std::string* why) const override { return inner_->supports(g, n, why); }
  Status prepare(const Graph& g, const ModelAnalysis& f, const ExecOptions& o) override {
    prepared.push_back(o.threads);
    all_prepared->push_back(o.threads);
    return inner_->prepare(g, f, o);
  }
  Status run(const std::vector<Tensor>& in, std::vector<Tensor>* out) override { return inner_->run(in, out); }
  std::unique_ptr<Backend> fresh() const override {
    return has_fresh_ ? std::make_unique<RecordingBackend>(true, all_prepared) : nullptr;
  }

 private:
  bool has_fresh_;
  std::unique_ptr<Backend> inner_ = make_reference_backend();
};

// Every interval between two readings: run-queue wait of `wait_share` x wall x 2 threads.
class ScriptedSampler : public HostSampler {
 public:
  explicit ScriptedSampler(double wait_share) : wait_share_(wait_share) {}
  HostSample sample() override {
    HostSample s;
    s.wall_s = t_;
    s.cpu_s = t_;
    s.run_delay_s = wait_share_ * 2 * t_;
    s.cpus = 2;
    s.has_run_delay = true;
    t_ += 1.0;
    return s;
  }

 private:
  double wait_share_;
  double t_ = 0;
};

struct Model {
  Graph g;
  ModelAnalysis m;
};
Model small_model(int64_t batch = 1) {
  GraphBuilder b;
  ValueId x = b.input("x", {batch, 3, 8, 8});
  b.output(b.add1("Relu", "relu1", {b.conv("conv1", x, 3, 4, 3)}));
  Model r{b.finish(), {}};
  r.m = test::analyze(r.g);
  return r;
}

MeasureOptions options(HostSampler* sampler) {
  MeasureOptions o;
  o.exec.threads = 2;
  o.timing.max_seconds = 0.05;
  o.host_sampler = sampler;
  o.adapt_threads = true;
  return o;
}

// measure_model beside a sampler that reads every interval as contended.
Expected<Measurement> measure_contended(const Model& md, Backend& be) {
  ScriptedSampler busy(0.5);
  return measure_model(md.g, md.m, be, options(&busy));
}

TEST(ThreadChoice, QuietTrialKeepsTheAskedThreads) {
  Model md = small_model();
  RecordingBackend be;
  ScriptedSampler quiet(0.0);
  auto r = measure_model(md.g, md.m, be, options(&quiet));
  ASSERT_TRUE(r) << r.status().message();
  ASSERT_TRUE(r->thread_choice);
  EXPECT_FALSE(r->thread_choice->tried);
  EXPECT_EQ(r->threads, 2);
  EXPECT_EQ(be.prepared, (std::vector<int>{2}));
}

// At batch 1 the trial tries half the threads, on a second backend timed in turns with the
// first; from batch 2 also the batch as streams.
TEST(ThreadChoice, ContendedTrialTriesHalfThenStreamsAndKeepsTheFaster) {
  for (int64_t batch : {1, 2}) {
    SCOPED_TRACE("batch " + std::to_string(batch));
    Model md = small_model(batch);
    RecordingBackend be;
    auto r = measure_contended(md, be);
    ASSERT_TRUE(r) << r.status().message();
    ASSERT_TRUE(r->thread_choice);
    const ThreadChoice& c = *r->thread_choice;
    EXPECT_TRUE(c.tried);
    EXPECT_TRUE(c.alternated);
    EXPECT_EQ(c.asked, 2);
    EXPECT_GT(c.asked_seconds, 0);
    EXPECT_GT(c.fewer_seconds, 0);
    // The caller's backend stays on the asked threads; the fewer run on a fresh one.
    EXPECT_EQ(be.prepared, (std::vector<int>{2}));
    ASSERT_GE(be.all_prepared->size(), 2u);
    EXPECT_EQ((*be.all_prepared)[1], 1);
    // A tie goes to the fewer threads: the asked ones are kept only when clearly faster.
    const bool fewer_won = c.fewer_seconds < kKeepAskedThreadsGain * c.asked_seconds;
    const int threads_kept = fewer_won ? 1 : 2;
    EXPECT_EQ(c.team, threads_kept);
    EXPECT_EQ(c.streams, batch == 1 ? 0 : 2);
    // Streams are kept only when clearly faster than the thread count kept, timed in turns.
    if (c.streams > 0) {
      EXPECT_GT(c.team_beside_streams_seconds, 0);
    }
    EXPECT_EQ(c.kept_streams,
              c.streams > 0 && c.streams_seconds * kKeepAskedThreadsGain < c.team_beside_streams_seconds);
    EXPECT_EQ(r->streams, c.kept_streams ? 2 : 1);
    EXPECT_EQ(c.used, c.kept_streams ? 2 : threads_kept);
    EXPECT_EQ(r->threads, c.used);
    EXPECT_NE(c.summary.find(fewer_won ? "in trials alternating with it" : "alternating with them"), std::string::npos)
        << c.summary;
    if (c.streams > 0) {
      EXPECT_NE(c.summary.find(c.kept_streams ? "streams of one thread each" : "batch streams ran"), std::string::npos)
          << c.summary;
    }
  }
}

// A backend kind without fresh backends is tried on fewer threads after the asked ones, on
// itself, and left prepared on the count it kept.
TEST(ThreadChoice, WithoutFreshBackendsTheTrialsRunInSequence) {
  Model md = small_model();
  RecordingBackend be(/*has_fresh=*/false);
  auto r = measure_contended(md, be);
  ASSERT_TRUE(r) << r.status().message();
  ASSERT_TRUE(r->thread_choice);
  const ThreadChoice& c = *r->thread_choice;
  EXPECT_TRUE(c.tried);
  EXPECT_FALSE(c.alternated);
  ASSERT_GE(be.prepared.size(), 2u);
  EXPECT_EQ(be.prepared[1], 1);
  const int threads_kept = c.fewer_seconds < kKeepAskedThreadsGain * c.asked_seconds ? 1 : 2;
  EXPECT_EQ(be.prepared.back(), threads_kept);
  EXPECT_EQ(r->threads, threads_kept);
}

TEST(ThreadChoice, OffOrOneThreadNeverTries) {
  Model md = small_model();
  RecordingBackend be;
  ScriptedSampler busy(0.5);
  MeasureOptions o = options(&busy);
  o.adapt_threads = false;
  auto r = measure_model(md.g, md.m, be, o);
  ASSERT_TRUE(r) << r.status().message();
  EXPECT_FALSE(r->thread_choice);
  o.adapt_threads = true;
  o.exec.threads = 1;
  r = measure_model(md.g, md.m, be, o);
  ASSERT_TRUE(r) << r.status().message();
  EXPECT_FALSE(r->thread_choice);
  EXPECT_EQ(be.prepared, (std::vector<int>{2, 1}));
}

}  // namespace
}  // namespace rooflens
