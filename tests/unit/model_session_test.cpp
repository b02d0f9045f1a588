// The model session: one import, rebatched and retyped on demand, equals a fresh import at
// each batch and dtype; failures are named and kept; unknown ops are refused by model() and
// listed by analysis().
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <thread>

#include "rooflens/ir/graph_builder.h"
#include "rooflens/session/model_session.h"

namespace rooflens {
namespace {

const std::string kModels = std::string(ROOFLENS_SOURCE_DIR) + "/models";
const std::string kResnet18 = kModels + "/resnet18.onnx";

void expect_same(const LoadedModel& a, const LoadedModel& b) {
  EXPECT_EQ(a.analysis.model, b.analysis.model);
  EXPECT_EQ(a.analysis.batch, b.analysis.batch);
  EXPECT_EQ(a.analysis.dtype, b.analysis.dtype);
  EXPECT_EQ(a.analysis.input_shapes, b.analysis.input_shapes);
  EXPECT_EQ(a.analysis.totals.flops, b.analysis.totals.flops);
  EXPECT_EQ(a.analysis.totals.bytes_in + a.analysis.totals.bytes_out,
            b.analysis.totals.bytes_in + b.analysis.totals.bytes_out);
  EXPECT_EQ(a.analysis.totals.bytes_weights, b.analysis.totals.bytes_weights);
  ASSERT_EQ(a.analysis.layers.size(), b.analysis.layers.size());
  for (size_t i = 0; i < a.analysis.layers.size(); ++i) {
    EXPECT_EQ(a.analysis.layers[i].name, b.analysis.layers[i].name);
    EXPECT_EQ(a.analysis.layers[i].cost.flops, b.analysis.layers[i].cost.flops);
  }
  EXPECT_EQ(a.graph.nodes.size(), b.graph.nodes.size());
}

// A CNN of `width` channels.
Graph cnn(int64_t batch, int64_t width) {
  GraphBuilder b("cnn");
  ValueId x = b.input("x", {batch, 3, 16, 16});
  x = b.add1("Relu", "relu", {b.conv("conv0", x, 3, width, 3)});
  x = b.add1("Relu", "relu1", {b.conv("conv1", x, width, width, 3)});
  b.output(x);
  return b.finish();
}

TEST(ModelSession, RebatchedAndRetypedEqualsAFreshImport) {
  const ModelSession s = ModelSession::from_file(kResnet18);
  EXPECT_EQ(s.name(), "resnet18");
  for (auto [batch, dtype] :
       {std::pair<int64_t, DType>{1, DType::kF16}, {8, DType::kF16}, {8, DType::kF32}, {3, DType::kI8}}) {
    auto got = s.model(batch, dtype);
    auto fresh = load_model(kResnet18, {}, dtype, batch);
    ASSERT_TRUE(got) << got.status().message();
    ASSERT_TRUE(fresh) << fresh.status().message();
    EXPECT_EQ(got->analysis.batch, batch);
    expect_same(*got, *fresh);
  }
}

TEST(ModelSession, BytesAndFileGiveTheSameModel) {
  std::ifstream f(kResnet18, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  const ModelSession from_bytes = ModelSession::from_bytes(ss.str(), "r18", kModels);
  auto a = from_bytes.model(2, DType::kF16);
  auto b = ModelSession::from_file(kResnet18).model(2, DType::kF16);
  ASSERT_TRUE(a) << a.status().message();
  ASSERT_TRUE(b) << b.status().message();
  EXPECT_EQ(a->analysis.model, "r18");
  a->analysis.model = b->analysis.model;
  expect_same(*a, *b);
}

TEST(ModelSession, NoBatchIsTheImportedOne) {
  const ModelSession s = ModelSession::from_file(kResnet18, {InputShapeOverride{"", {3, 64, 64}}});
  auto first = s.model(std::nullopt, DType::kF32);
  ASSERT_TRUE(first) << first.status().message();
  EXPECT_EQ(first->analysis.batch, 1);  // the file's
  EXPECT_EQ(first->analysis.input_shapes[0], (Shape{1, 3, 64, 64}));
  auto at4 = s.model(4, DType::kF32);
  ASSERT_TRUE(at4) << at4.status().message();
  EXPECT_EQ(at4->analysis.input_shapes[0], (Shape{4, 3, 64, 64}));  // the override kept
  AnalyzeOptions unfused;
  unfused.fusion = FusionMode::kNone;
  auto a = s.analysis(std::nullopt, unfused);
  ASSERT_TRUE(a) << a.status().message();
  EXPECT_EQ(a->batch, 1);
  EXPECT_FALSE(a->fused);
  EXPECT_GT(a->layers.size(), first->analysis.layers.size());
}

TEST(ModelSession, FailuresNameTheFileAndStay) {
  const ModelSession s = ModelSession::from_file("no/such/model.onnx");
  auto a = s.model(1, DType::kF16);
  ASSERT_FALSE(a);
  EXPECT_EQ(a.status().code(), StatusCode::kInvalidInput);
  EXPECT_NE(a.status().message().find("no/such/model.onnx"), std::string::npos) << a.status().message();
  auto b = s.model(8, DType::kF32);
  ASSERT_FALSE(b);
  EXPECT_EQ(b.status().message(), a.status().message());
  EXPECT_FALSE(s.model(0, DType::kF16));  // no batch 0 either
}

TEST(ModelSession, UnknownOpsAreRefusedByModelAndListedByAnalysis) {
  GraphBuilder b("odd");
  ValueId x = b.input("x", {1, 3, 8, 8});
  x = b.add1("Relu", "relu", {x});
  b.output(b.add1("FrobnicateOp", "frob", {x}));
  const ModelSession s = ModelSession::from_graph(b.finish(), "odd");
  auto m = s.model(std::nullopt, DType::kF32);
  ASSERT_FALSE(m);
  EXPECT_EQ(m.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(m.status().message().find("odd: 1 unknown op node(s): FrobnicateOp x1 (frob)"), std::string::npos)
      << m.status().message();
  auto a = s.analysis(std::nullopt, {});
  ASSERT_TRUE(a) << a.status().message();
  EXPECT_EQ(a->unknown_nodes, std::vector<std::string>{"frob (FrobnicateOp)"});
}

TEST(ModelSession, LoadersAndThreadsShareOneImport) {
  const ModelSession s = ModelSession::from_graph(cnn(2, 8), "cnn");
  const ModelLoader load = s.loader(DType::kF16);
  const TypedLoader typed = s.typed_loader();
  std::vector<std::optional<Expected<LoadedModel>>> got(6);
  std::vector<std::thread> threads;
  for (size_t i = 0; i < got.size(); ++i)
    threads.emplace_back([&, i] { got[i].emplace(i % 2 ? load(int64_t(i + 1)) : typed(int64_t(i + 1), DType::kF32)); });
  for (auto& t : threads) t.join();
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_TRUE(*got[i]) << got[i]->status().message();
    const LoadedModel& l = got[i]->value();
    EXPECT_EQ(l.analysis.batch, int64_t(i + 1));
    EXPECT_EQ(l.analysis.dtype, i % 2 ? DType::kF16 : DType::kF32);
    auto fresh = analyse_loaded_graph(cnn(int64_t(i + 1), 8), "cnn", l.analysis.dtype);
    ASSERT_TRUE(fresh) << fresh.status().message();
    expect_same(l, *fresh);
  }
}

TEST(ModelSession, FoldAndPadAnalyseTheTransformedModel) {
  auto base = analyse_loaded_graph(cnn(8, 6), "cnn", DType::kF16);
  ASSERT_TRUE(base) << base.status().message();
  auto folded = fold_model(*base, 4);
  ASSERT_TRUE(folded) << folded.status().message();
  EXPECT_EQ(folded->analysis.batch, 2);
  EXPECT_EQ(folded->analysis.dtype, DType::kF16);
  EXPECT_EQ(folded->analysis.model, "cnn");
  auto padded = pad_model_channels(*base, 8);
  ASSERT_TRUE(padded) << padded.status().message();
  EXPECT_GT(padded->analysis.totals.flops, base->analysis.totals.flops);  // 6 -> 8 channels
  EXPECT_FALSE(fold_model(*base, 3));                                     // 3 does not divide the batch 8
}

}  // namespace
}  // namespace rooflens
