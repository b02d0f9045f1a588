// BatchStreams (src/exec/batch_streams.cpp): a batch split into parts, each prepared on a
// backend of its own and run on a thread of its own, all at once. The parts together must
// compute what the whole batch computes, on the oneDNN backend where it is built (instances
// side by side on threads of their own), else on the reference backend.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <vector>

#include "rooflens/exec/backend.h"
#include "rooflens/exec/batch_streams.h"
#include "rooflens/exec/weights.h"
#include "rooflens/ir/graph_builder.h"
#include "test_util.h"

namespace rooflens {
namespace {

struct Model {
  Graph g;
  ModelAnalysis m;
};
Model model_at(int64_t batch) {
  GraphBuilder b;
  ValueId x = b.input("x", {batch, 3, 9, 9});
  ValueId c1 = b.add1("Relu", "relu1", {b.conv("conv1", x, 3, 8, 3)});
  b.output(b.add1("Relu", "relu2", {b.conv("conv2", c1, 8, 16, 3)}));
  Model r{b.finish(), {}};
  r.m = test::analyze(r.g);
  return r;
}

std::unique_ptr<Backend> kind() {
  auto be = make_onednn_backend();
  return be ? std::move(be) : make_reference_backend();
}

// The tensors of every stream, one after another along the batch (dim 0).
Tensor concat(const BatchStreams& bs, bool outputs) {
  Tensor t;
  for (int i = 0; i < bs.streams(); ++i) {
    const Tensor& part = (outputs ? bs.outputs(i) : bs.inputs(i)).front();
    if (i == 0)
      t.shape = part.shape;
    else
      t.shape[0] += part.shape[0];
    t.data.insert(t.data.end(), part.data.begin(), part.data.end());
  }
  return t;
}

TEST(BatchStreams, PartsAreEvenTheLargerFirst) {
  EXPECT_EQ(stream_batches(32, 2), (std::vector<int64_t>{16, 16}));
  EXPECT_EQ(stream_batches(5, 2), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(stream_batches(7, 3), (std::vector<int64_t>{3, 2, 2}));
  EXPECT_EQ(stream_batches(3, 3), (std::vector<int64_t>{1, 1, 1}));
}

TEST(BatchStreams, PartsTogetherComputeTheWholeBatch) {
  Model md = model_at(5);
  auto k = kind();
  auto bs = BatchStreams::start(md.g, md.m, *k, ExecOptions{}, 2, 7);
  ASSERT_TRUE(bs) << bs.status().message();
  EXPECT_EQ((*bs)->batches(), (std::vector<int64_t>{3, 2}));
  Tensor whole_in = concat(**bs, false);
  ASSERT_EQ(whole_in.shape, (Shape{5, 3, 9, 9}));
  auto whole = k->fresh();
  ExecOptions o;
  o.threads = 1;
  ASSERT_TRUE(whole->prepare(md.g, md.m, o).ok());
  std::vector<Tensor> want;
  ASSERT_TRUE(whole->run({whole_in}, &want).ok());
  for (int rep = 0; rep < 3; ++rep) {  // the threads serve run after run
    ASSERT_TRUE((*bs)->run().ok());
    Tensor got = concat(**bs, true);
    ASSERT_EQ(got.shape, want.front().shape);
    double num = 0, den = 0;
    for (size_t i = 0; i < got.data.size(); ++i) {
      const double d = static_cast<double>(got.data[i]) - want.front().data[i];
      num += d * d;
      den += static_cast<double>(want.front().data[i]) * want.front().data[i];
    }
    ASSERT_GT(den, 0);
    EXPECT_LT(std::sqrt(num / den), 1e-5) << "run " << rep;
  }
  for (const LayerTiming& t : (*bs)->layer_timings()) {
    EXPECT_GE(t.time_s, 0);
    bool known = false;
    for (const auto& L : md.m.layers) known |= L.name == t.name;
    EXPECT_TRUE(known) << t.name;
  }
}

// oneDNN counts the primitives holding its shared scratchpad per thread: streams whose
// primitives were destroyed on the caller's thread released the caller's scratchpad under the
// caller's own backend (VGG-16 at batch 32 crashed in its next run). The caller's backend must
// run as before once streams have come and gone.
// A small VGG: 3x3 convolutions of 64 channels (Winograd in the blocked layout) and a
// classifier, layers whose oneDNN implementations use the shared scratchpad.
Model small_vgg(int64_t batch) {
  GraphBuilder b;
  ValueId x = b.input("x", {batch, 3, 32, 32});
  x = b.add1("Relu", "relu1", {b.conv("conv1", x, 3, 64, 3)});
  x = b.add1("Relu", "relu2", {b.conv("conv2", x, 64, 64, 3)});
  x = b.add1("MaxPool", "pool", {x},
             {{"kernel_shape", std::vector<int64_t>{2, 2}}, {"strides", std::vector<int64_t>{2, 2}}});
  x = b.add1("Relu", "relu3", {b.conv("conv3", x, 64, 128, 3)});
  x = b.add1("Flatten", "flat", {x});
  b.output(b.add1("Gemm", "fc", {x, b.weight("fc.weight", {100, 128 * 16 * 16})}, {{"transB", int64_t{1}}}));
  Model r{b.finish(), {}};
  r.m = test::analyze(r.g);
  return r;
}

TEST(BatchStreams, CallersBackendRunsAfterStreamsEnd) {
  Model md = small_vgg(4);
  auto k = kind();
  auto mine = k->fresh();
  ExecOptions blocked;
  blocked.layout = ActivationLayout::kBlocked;
  ASSERT_TRUE(mine->prepare(md.g, md.m, blocked).ok());
  std::vector<Tensor> in = {random_input(md.g, md.g.inputs[0], 3)}, before, after;
  ASSERT_TRUE(mine->run(in, &before).ok());
  for (int round = 0; round < 2; ++round) {
    auto bs = BatchStreams::start(md.g, md.m, *k, blocked, 2, 7);
    ASSERT_TRUE(bs) << bs.status().message();
    ASSERT_TRUE((*bs)->run().ok());
  }
  ASSERT_TRUE(mine->run(in, &after).ok());
  EXPECT_EQ(after.front().data, before.front().data);
}

// The reference backend without Backend::fresh: it cannot run part of a batch.
class NoFresh : public Backend {
 public:
  std::string name() const override { return "no-fresh"; }
  bool supports(const Graph&, NodeId, std::string*) const override { return true; }
  Status prepare(const Graph&, const ModelAnalysis&, const ExecOptions&) override { return Status::ok(); }
  Status run(const std::vector<Tensor>&, std::vector<Tensor>*) override { return Status::ok(); }
};

TEST(BatchStreams, RefusesWhatCannotBeSplit) {
  Model md = model_at(5);
  auto k = kind();
  auto one = BatchStreams::start(md.g, md.m, *k, ExecOptions{}, 1, 7);
  ASSERT_FALSE(one);
  EXPECT_NE(one.status().message().find("2 to the batch"), std::string::npos) << one.status().message();
  EXPECT_FALSE(BatchStreams::start(md.g, md.m, *k, ExecOptions{}, 6, 7));
  NoFresh nf;
  auto none = BatchStreams::start(md.g, md.m, nf, ExecOptions{}, 2, 7);
  ASSERT_FALSE(none);
  EXPECT_NE(none.status().message().find("no-fresh backend cannot run a part"), std::string::npos)
      << none.status().message();
}

}  // namespace
}  // namespace rooflens
