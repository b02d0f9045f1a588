// Waiting for the kernel table's dispatch state before a block of runs
// (MeasureOptions::state_wait_s, HostContext's suspension of it). Only bounds that hold on any
// machine are checked: a wait for a level no host reads runs out after at least its cap, and
// no wait happens where the level does not apply.
#include <gtest/gtest.h>

#include "rooflens/analysis/host_figures.h"
#include "rooflens/exec/backend.h"
#include "rooflens/exec/dispatch_probe.h"
#include "rooflens/exec/measure.h"
#include "rooflens/ir/graph_builder.h"
#include "rooflens/microbench/host_reference.h"
#include "test_util.h"

namespace rooflens {
namespace {

struct Model {
  Graph g;
  ModelAnalysis m;
};
Model small_model() {
  GraphBuilder b;
  ValueId x = b.input("x", {1, 3, 8, 8});
  b.output(b.add1("Relu", "relu1", {b.conv("conv1", x, 3, 4, 3)}));
  Model r{b.finish(), {}};
  r.m = test::analyze(r.g);
  return r;
}

MeasureOptions waiting_options(microbench::HostReferenceProbe* ref, double level, int level_threads) {
  MeasureOptions o;
  o.exec.threads = 2;
  o.timing.max_seconds = 0.02;
  o.reference = ref;
  o.reference_retries = 0;
  o.state_level_s = level;
  o.state_level_threads = level_threads;
  o.state_wait_s = 0.4;
  return o;
}

TEST(StateWait, AWaitForALevelNoHostReadsRunsOutAfterItsCap) {
  if (!measure_onednn_dispatch(2)) GTEST_SKIP() << "built without oneDNN: no dispatch to read";
  Model md = small_model();
  auto be = make_reference_backend();
  microbench::HostReferenceProbe ref(2);
  auto r = measure_model(md.g, md.m, *be, waiting_options(&ref, 1e-12, 2));
  ASSERT_TRUE(r) << r.status().message();
  ASSERT_TRUE(r->host);
  EXPECT_TRUE(r->host->state_wait_ran_out);
  EXPECT_GE(r->host->state_waited_s, 0.4);
  EXPECT_GT(r->throughput, 0);
}

TEST(StateWait, NoWaitOnAnotherThreadCountOrWithoutALevel) {
  if (!measure_onednn_dispatch(2)) GTEST_SKIP() << "built without oneDNN: no dispatch to read";
  Model md = small_model();
  auto be = make_reference_backend();
  microbench::HostReferenceProbe ref(2);
  for (auto [level, threads] : {std::pair{1e-12, 1}, std::pair{0.0, 2}}) {
    auto r = measure_model(md.g, md.m, *be, waiting_options(&ref, level, threads));
    ASSERT_TRUE(r) << r.status().message();
    ASSERT_TRUE(r->host);
    EXPECT_FALSE(r->host->state_wait_ran_out);
    EXPECT_EQ(r->host->state_waited_s, 0.0);
  }
}

// A wait that ran out suspends the context's waits; a measurement read in the table's state
// resumes them.
TEST(StateWait, ARunOutWaitSuspendsTheContextUntilAReadingInTheState) {
  HostContext ctx;
  ctx.baseline = {100e9, 40e9, 4.0e9, 500e9, 0.8e-6};
  ctx.baseline_threads = 2;
  ctx.state_wait_s = 60;
  ctx.state_level_s = 0.8e-6;
  ctx.state_level_threads = 2;
  MeasureOptions mo;
  attach_host(mo, ctx);
  EXPECT_EQ(mo.state_wait_s, 60);
  EXPECT_EQ(mo.state_level_s, 0.8e-6);
  EXPECT_EQ(mo.state_level_threads, 2);

  Measurement m;
  m.throughput = 100;
  m.threads = 2;
  m.host = HostStateReading{};
  m.host->before = m.host->after = {100e9, 40e9, 4.0e9, 500e9, 2.0e-6};
  m.host->state_wait_ran_out = true;
  m.host->state_waited_s = 60.1;
  const Prediction p;
  EXPECT_EQ(host_figures(m, p, ctx).state_waited_s, 60.1);
  EXPECT_TRUE(ctx.state_wait_suspended);
  attach_host(mo, ctx);
  EXPECT_EQ(mo.state_wait_s, 0);

  m.host->state_wait_ran_out = false;
  m.host->state_waited_s = 0;
  host_figures(m, p, ctx);  // still in the other state: stays suspended
  EXPECT_TRUE(ctx.state_wait_suspended);
  m.host->before.dispatch_s = 0.85e-6;
  host_figures(m, p, ctx);
  EXPECT_FALSE(ctx.state_wait_suspended);
  attach_host(mo, ctx);
  EXPECT_EQ(mo.state_wait_s, 60);
}

}  // namespace
}  // namespace rooflens
