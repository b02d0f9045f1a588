// ONNX import: opsets, stripped and external data, shape overrides, error messages.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <filesystem>
#include <fstream>

#include "rooflens/cost/cost.h"
#include "rooflens/onnx/import.h"
#include "rooflens/passes/infer_shapes.h"

namespace rooflens {
namespace {

// A small model: input [batch, 3, H, W] -> Conv 3->8 k3 -> Relu -> Flatten-like Reshape.
struct ModelMaker {
  onnx::ModelProto m;
  onnx::GraphProto* g;
  explicit ModelMaker(int64_t opset) {
    m.set_ir_version(8);
    auto* op = m.add_opset_import();
    op->set_domain("");
    op->set_version(opset);
    g = m.mutable_graph();
    g->set_name("test");
  }
  void input(const std::string& name, std::vector<std::string> dims) {
    auto* in = g->add_input();
    in->set_name(name);
    auto* tt = in->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(onnx::TensorProto::FLOAT);
    for (const auto& d : dims) {
      auto* dim = tt->mutable_shape()->add_dim();
      if (std::isdigit(static_cast<unsigned char>(d[0])))
        dim->set_dim_value(std::stoll(d));
      else
        dim->set_dim_param(d);
    }
  }
  onnx::TensorProto* stripped_weight(const std::string& name, std::vector<int64_t> dims) {
    auto* t = g->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::FLOAT);
    for (auto d : dims) t->add_dims(d);
    t->set_data_location(onnx::TensorProto::EXTERNAL);
    auto* kv = t->add_external_data();
    kv->set_key("location");
    kv->set_value("does-not-exist.bin");
    return t;
  }
  void ints(const std::string& name, std::vector<int64_t> v) {
    auto* t = g->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::INT64);
    t->add_dims(static_cast<int64_t>(v.size()));
    for (auto x : v) t->add_int64_data(x);
  }
  onnx::NodeProto* node(const std::string& op, const std::string& name, std::vector<std::string> ins,
                        std::vector<std::string> outs) {
    auto* n = g->add_node();
    n->set_op_type(op);
    n->set_name(name);
    for (auto& i : ins) n->add_input(i);
    for (auto& o : outs) n->add_output(o);
    return n;
  }
  static void attr_ints(onnx::NodeProto* n, const std::string& name, std::vector<int64_t> v) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INTS);
    for (auto x : v) a->add_ints(x);
  }
  void output(const std::string& name) { g->add_output()->set_name(name); }
  std::string bytes() const { return m.SerializeAsString(); }
};

ModelMaker conv_model(int64_t opset) {
  ModelMaker mm(opset);
  mm.input("image", {"batch", "3", "32", "32"});
  mm.stripped_weight("w", {8, 3, 3, 3});
  auto* c = mm.node("Conv", "conv", {"image", "w"}, {"c"});
  ModelMaker::attr_ints(c, "pads", {1, 1, 1, 1});
  mm.node("Relu", "relu", {"c"}, {"r"});
  mm.output("r");
  return mm;
}

Expected<ModelAnalysis> analyze_bytes(const std::string& bytes, const ImportOptions& io = {},
                                      const std::string& dir = ".") {
  auto g = import_onnx_bytes(bytes, dir, io);
  if (!g) return g.status();
  auto r = infer_shapes(*g);
  if (!r) return r.status();
  return analyze_graph(*g, *r, {});
}

TEST(Import, StrippedWeightsNeedNoData) {
  auto m = analyze_bytes(conv_model(17).bytes());
  ASSERT_TRUE(m) << m.status().message();
  EXPECT_EQ(m->batch, 1);  // symbolic batch defaults to 1
  EXPECT_EQ(m->totals.macs, 8LL * 32 * 32 * 27);
  EXPECT_EQ(m->params, 8 * 27);
}

TEST(Import, BatchAndInputShapeOverrides) {
  ImportOptions io;
  io.batch = 16;
  io.input_shapes.push_back(*parse_input_shape("3x64x64"));
  auto m = analyze_bytes(conv_model(17).bytes(), io);
  ASSERT_TRUE(m) << m.status().message();
  EXPECT_EQ(m->input_shapes[0], (Shape{16, 3, 64, 64}));
  EXPECT_EQ(m->totals.macs, 16LL * 8 * 64 * 64 * 27);

  ImportOptions named;
  named.input_shapes.push_back(*parse_input_shape("image:2x3x16x16"));
  auto m2 = analyze_bytes(conv_model(17).bytes(), named);
  ASSERT_TRUE(m2) << m2.status().message();
  EXPECT_EQ(m2->input_shapes[0], (Shape{2, 3, 16, 16}));

  ImportOptions wrong;
  wrong.input_shapes.push_back(*parse_input_shape("nosuch:1x3x8x8"));
  auto m3 = analyze_bytes(conv_model(17).bytes(), wrong);
  ASSERT_FALSE(m3);
  EXPECT_NE(m3.status().message().find("no input named 'nosuch'"), std::string::npos);

  EXPECT_FALSE(parse_input_shape("3xAx4"));
  EXPECT_FALSE(parse_input_shape("0x3"));
}

TEST(Import, OpsetRange) {
  for (int64_t opset : {7, 11, 13, 17, 18}) {
    auto m = analyze_bytes(conv_model(opset).bytes());
    EXPECT_TRUE(m) << "opset " << opset << ": " << m.status().message();
  }
  for (int64_t opset : {6, 19}) {
    auto m = analyze_bytes(conv_model(opset).bytes());
    ASSERT_FALSE(m);
    EXPECT_EQ(m.status().code(), StatusCode::kUnsupported);
  }
}

TEST(Import, Opset7AttributesAndOpset18Inputs) {
  // Opset 7: Unsqueeze/Squeeze axes and Slice bounds as attributes.
  ModelMaker a(7);
  a.input("x", {"1", "4", "6"});
  auto* u = a.node("Unsqueeze", "u", {"x"}, {"xu"});
  ModelMaker::attr_ints(u, "axes", {0});
  auto* s = a.node("Slice", "s", {"xu"}, {"xs"});
  ModelMaker::attr_ints(s, "starts", {1});
  ModelMaker::attr_ints(s, "ends", {3});
  ModelMaker::attr_ints(s, "axes", {2});
  a.output("xs");
  auto ga = import_onnx_bytes(a.bytes(), ".", {});
  ASSERT_TRUE(ga);
  ASSERT_TRUE(infer_shapes(*ga));
  EXPECT_EQ(*ga->value(*ga->find_value("xs")).shape, (Shape{1, 1, 2, 6}));

  // Opset 18: ReduceMean axes as an input.
  ModelMaker b(18);
  b.input("x", {"2", "8", "5", "5"});
  b.ints("axes", {2, 3});
  b.node("ReduceMean", "rm", {"x", "axes"}, {"y"});
  b.output("y");
  auto gb = import_onnx_bytes(b.bytes(), ".", {});
  ASSERT_TRUE(gb);
  ASSERT_TRUE(infer_shapes(*gb));
  EXPECT_EQ(*gb->value(*gb->find_value("y")).shape, (Shape{2, 8, 1, 1}));
}

TEST(Import, ExternalDataThatExistsIsRead) {
  // A Reshape target stored as external data in a file beside the model.
  auto dir = std::filesystem::temp_directory_path() / "rooflens_import_test";
  std::filesystem::create_directories(dir);
  const int64_t target[2] = {4, 6};
  {
    std::ofstream f(dir / "shape.bin", std::ios::binary);
    f.write(reinterpret_cast<const char*>(target), sizeof target);
  }
  ModelMaker mm(17);
  mm.input("x", {"2", "12"});
  auto* t = mm.g->add_initializer();
  t->set_name("target");
  t->set_data_type(onnx::TensorProto::INT64);
  t->add_dims(2);
  t->set_data_location(onnx::TensorProto::EXTERNAL);
  auto* kv = t->add_external_data();
  kv->set_key("location");
  kv->set_value("shape.bin");
  mm.node("Reshape", "r", {"x", "target"}, {"y"});
  mm.output("y");
  auto g = import_onnx_bytes(mm.bytes(), dir.string(), {});
  ASSERT_TRUE(g) << g.status().message();
  ASSERT_TRUE(infer_shapes(*g));
  EXPECT_EQ(*g->value(*g->find_value("y")).shape, (Shape{4, 6}));
  std::filesystem::remove_all(dir);
}

TEST(Import, ClearErrors) {
  {
    ModelMaker mm(17);
    mm.input("x", {"1", "3", "h", "w"});
    mm.node("Relu", "relu", {"x"}, {"y"});
    mm.output("y");
    auto g = import_onnx_bytes(mm.bytes(), ".", {});
    ASSERT_FALSE(g);
    EXPECT_NE(g.status().message().find("symbolic ('h')"), std::string::npos) << g.status().message();
  }
  {
    ModelMaker mm(17);
    mm.input("x", {"1", "3"});
    mm.node("Add", "add", {"x", "missing_bias"}, {"y"});
    mm.output("y");
    auto g = import_onnx_bytes(mm.bytes(), ".", {});
    ASSERT_FALSE(g);
    EXPECT_NE(g.status().message().find("Add node 'add': input 'missing_bias'"), std::string::npos)
        << g.status().message();
  }
  {
    auto g = import_onnx_bytes("this is not a protobuf at all \x01\x02", ".", {});
    ASSERT_FALSE(g);
    EXPECT_EQ(g.status().code(), StatusCode::kInvalidInput);
  }
  {
    ImportOptions io;
    io.batch = 0;
    auto g = import_onnx_bytes(conv_model(17).bytes(), ".", io);
    ASSERT_FALSE(g);
    EXPECT_NE(g.status().message().find("batch"), std::string::npos);
  }
}

TEST(Import, UnknownOpIsReportedNotFatal) {
  ModelMaker mm = conv_model(17);
  mm.node("FrobnicateOp", "frob", {"r"}, {"f"});
  mm.node("Relu", "after", {"f"}, {"z"});
  mm.output("z");
  auto m = analyze_bytes(mm.bytes());
  ASSERT_TRUE(m) << m.status().message();
  ASSERT_EQ(m->unknown_nodes.size(), 1u);
  EXPECT_EQ(m->unknown_nodes[0], "frob (FrobnicateOp)");
  EXPECT_EQ(m->unresolved_nodes.size(), 1u);      // 'after' has no input shape
  EXPECT_EQ(m->totals.macs, 8LL * 32 * 32 * 27);  // the rest is still costed
}

}  // namespace
}  // namespace rooflens
