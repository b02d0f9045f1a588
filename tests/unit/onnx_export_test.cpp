// IR -> ONNX export (onnx/export.h): round trips through the importer, weight modes, and
// atomic writes.
#include <onnx/onnx_pb.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "rooflens/ir/builtin_game_cnn.h"
#include "rooflens/onnx/export.h"
#include "rooflens/onnx/import.h"
#include "test_util.h"

namespace rooflens {
namespace {

Graph load(const std::string& name, int64_t batch) {
  ImportOptions io;
  io.batch = batch;
  auto g = import_onnx_file(std::string(ROOFLENS_SOURCE_DIR) + "/models/" + name + ".onnx", io);
  EXPECT_TRUE(g.has_value()) << g.status().message();
  return g.has_value() ? std::move(*g) : Graph{};
}

Graph inferred_game() {
  Graph g = build_game_cnn(4);
  EXPECT_TRUE(infer_shapes(g).has_value());
  return g;
}

onnx::ModelProto parse(const std::string& bytes) {
  onnx::ModelProto m;
  EXPECT_TRUE(m.ParseFromString(bytes));
  return m;
}

TEST(OnnxExport, ZooRoundTripKeepsTheAnalysis) {
  for (const char* name : {"resnet50", "mobilenet_v2"}) {
    Graph g = load(name, 2);
    ModelAnalysis a = test::analyze(g, DType::kF16);
    const std::string path = testing::TempDir() + "/" + name + "_rt.onnx";
    Status s = export_onnx_file(g, path, {});
    ASSERT_TRUE(s) << s.message();
    auto back = import_onnx_file(path, {});
    ASSERT_TRUE(back.has_value()) << back.status().message();
    ModelAnalysis b = test::analyze(*back, DType::kF16);
    EXPECT_EQ(b.totals.flops, a.totals.flops) << name;
    EXPECT_EQ(b.totals.macs, a.totals.macs) << name;
    EXPECT_EQ(b.totals.bytes_in + b.totals.bytes_out + b.totals.bytes_weights,
              a.totals.bytes_in + a.totals.bytes_out + a.totals.bytes_weights)
        << name;
    EXPECT_EQ(b.params, a.params) << name;
    EXPECT_EQ(b.layers.size(), a.layers.size()) << name;
    EXPECT_EQ(back->opset, g.opset);
    EXPECT_EQ(back->nodes.size(), g.nodes.size());
    std::filesystem::remove(path);
  }
}

TEST(OnnxExport, StrippedWeightsPointAtAMissingFile) {
  Graph g = load("mobilenet_v2", 1);
  auto bytes = export_onnx_bytes(g, {});
  ASSERT_TRUE(bytes.has_value()) << bytes.status().message();
  onnx::ModelProto m = parse(*bytes);
  int external = 0, with_data = 0;
  int64_t next_offset = 0;
  for (const auto& t : m.graph().initializer()) {
    if (t.data_location() == onnx::TensorProto::EXTERNAL) {
      ++external;
      EXPECT_EQ(t.raw_data().size(), 0u);
      std::map<std::string, std::string> kv;
      for (const auto& e : t.external_data()) kv[e.key()] = e.value();
      EXPECT_EQ(kv["location"], kStrippedLocation);
      EXPECT_EQ(std::stoll(kv["offset"]), next_offset);  // contiguous, as export_zoo.py
      next_offset += std::stoll(kv["length"]);
    } else {
      ++with_data;  // small integer constants (shapes) keep their data
      EXPECT_NE(t.data_type(), onnx::TensorProto::FLOAT) << t.name();
    }
  }
  EXPECT_GT(external, 100);
  EXPECT_EQ(m.opset_import(0).version(), g.opset);
  EXPECT_EQ(m.graph().node_size(), static_cast<int>(g.nodes.size()));
  EXPECT_EQ(m.graph().input(0).type().tensor_type().shape().dim(1).dim_value(), 3);
}

TEST(OnnxExport, RandomWeightsAreStoredAndDeterministic) {
  Graph g = inferred_game();
  ExportOptions o;
  o.weights = ExportWeights::kRandom;
  auto a = export_onnx_bytes(g, o), b = export_onnx_bytes(g, o);
  ASSERT_TRUE(a.has_value() && b.has_value());
  EXPECT_EQ(*a, *b);
  onnx::ModelProto m = parse(*a);
  for (const auto& t : m.graph().initializer()) {
    EXPECT_NE(t.data_location(), onnx::TensorProto::EXTERNAL);
    int64_t numel = 1;
    for (int64_t d : t.dims()) numel *= d;
    EXPECT_EQ(static_cast<int64_t>(t.raw_data().size()), numel * 4) << t.name();
  }
  auto back = import_onnx_bytes(*a, "", {});
  ASSERT_TRUE(back.has_value()) << back.status().message();
  for (const Value& v : back->values) {
    if (v.kind == ValueKind::kInitializer) {
      EXPECT_TRUE(v.has_data) << v.name;
    }
  }
}

// A value whose dtype the graph does not know is written UNDEFINED, not as another type (it
// was written UINT16, the first ONNX type the IR lacks, which ONNX's shape inference refused).
TEST(OnnxExport, AnUnknownDtypeIsWrittenUndefined) {
  Graph g = inferred_game();
  ASSERT_FALSE(g.outputs.empty());
  g.value(g.outputs[0]).dtype = DType::kUnknown;
  auto bytes = export_onnx_bytes(g, {});
  ASSERT_TRUE(bytes.has_value()) << bytes.status().message();
  onnx::ModelProto m = parse(*bytes);
  ASSERT_GT(m.graph().output_size(), 0);
  EXPECT_EQ(m.graph().output(0).type().tensor_type().elem_type(), onnx::TensorProto::UNDEFINED);
  EXPECT_EQ(m.graph().input(0).type().tensor_type().elem_type(), onnx::TensorProto::FLOAT);
}

TEST(OnnxExport, FailureLeavesNoFile) {
  Graph g = inferred_game();
  const std::string dir = testing::TempDir() + "/no_such_dir_for_export";
  std::filesystem::remove_all(dir);
  Status s = export_onnx_file(g, dir + "/out.onnx", {});
  EXPECT_FALSE(s);
  EXPECT_FALSE(std::filesystem::exists(dir));
  // An existing file is replaced whole.
  const std::string path = testing::TempDir() + "/game_export.onnx";
  { std::ofstream(path) << "old"; }
  ASSERT_TRUE(export_onnx_file(g, path, {}));
  auto back = import_onnx_file(path, {});
  ASSERT_TRUE(back.has_value()) << back.status().message();
  EXPECT_EQ(back->nodes.size(), g.nodes.size());
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace rooflens
