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

// The reference backend, recording the thread count of every prepare.
class RecordingBackend : public Backend {
 public:
  std::vector<int> prepared;
  std::string name() const override { return "recording"; }
  bool supports(const Graph& g, NodeId n, std::string* why) const override { return inner_->supports(g, n, why); }
  Status prepare(const Graph& g, const ModelAnalysis& f, const ExecOptions& o) override {
    prepared.push_back(o.threads);
    return inner_->prepare(g, f, o);
  }
  Status run(const std::vector<Tensor>& in, std::vector<Tensor>* out) override { return inner_->run(in, out); }
  std::unique_ptr<Backend> fresh() const override { return make_reference_backend(); }

 private:
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

// At batch 1 the trial tries half the threads; from batch 2 also the batch as streams.
TEST(ThreadChoice, ContendedTrialTriesHalfThenStreamsAndKeepsTheFaster) {
  for (int64_t batch : {1, 2}) {
    SCOPED_TRACE("batch " + std::to_string(batch));
    Model md = small_model(batch);
    RecordingBackend be;
    ScriptedSampler busy(0.5);
    auto r = measure_model(md.g, md.m, be, options(&busy));
    ASSERT_TRUE(r) << r.status().message();
    ASSERT_TRUE(r->thread_choice);
    const ThreadChoice& c = *r->thread_choice;
    EXPECT_TRUE(c.tried);
    EXPECT_EQ(c.asked, 2);
    ASSERT_GE(be.prepared.size(), 2u);
    EXPECT_EQ(be.prepared[1], 1);
    // A tie goes to the fewer threads: the asked ones are kept only when clearly faster.
    const bool fewer_won = c.fewer_seconds < kKeepAskedThreadsGain * c.asked_seconds;
    const int threads_kept = fewer_won ? 1 : 2;
    EXPECT_EQ(be.prepared.back(), threads_kept);  // left prepared on the count it kept
    EXPECT_EQ(c.streams, batch == 1 ? 0 : 2);
    // Streams are kept only when clearly faster than the thread count kept.
    const double in_use = fewer_won ? c.fewer_seconds : c.asked_seconds;
    EXPECT_EQ(c.kept_streams, c.streams > 0 && c.streams_seconds * kKeepAskedThreadsGain < in_use);
    EXPECT_EQ(r->streams, c.kept_streams ? 2 : 1);
    EXPECT_EQ(c.used, c.kept_streams ? 2 : threads_kept);
    EXPECT_EQ(r->threads, c.used);
    if (c.streams > 0)
      EXPECT_NE(c.summary.find(c.kept_streams ? "streams of one thread each" : "batch streams ran"), std::string::npos)
          << c.summary;
  }
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
