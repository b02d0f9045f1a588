// The op table is complete and consistent; every op validates its inputs.
#include <gtest/gtest.h>

#include <set>

#include "rooflens/ir/graph_builder.h"
#include "rooflens/passes/infer_shapes.h"

namespace rooflens {
namespace {

TEST(OpTable, NamesAreUniqueAndRoundTrip) {
  std::set<std::string_view> names;
  for (const OpInfo& info : kOpTable) {
    EXPECT_TRUE(names.insert(info.onnx_name).second) << info.onnx_name;
    EXPECT_EQ(op_kind_from_onnx(info.onnx_name), info.kind);
    EXPECT_FALSE(info.family.empty());
  }
  EXPECT_EQ(names.size(), kOpCount);
  EXPECT_FALSE(op_kind_from_onnx("FrobnicateOp").has_value());
}

TEST(OpTable, CoversTheOpsTheIssueNames) {
  for (const char* op : {"Conv",
                         "Gemm",
                         "MatMul",
                         "BatchNormalization",
                         "LayerNormalization",
                         "Relu",
                         "Clip",
                         "Sigmoid",
                         "HardSigmoid",
                         "HardSwish",
                         "Tanh",
                         "Erf",
                         "Gelu",
                         "Add",
                         "Sub",
                         "Mul",
                         "Div",
                         "MaxPool",
                         "AveragePool",
                         "GlobalAveragePool",
                         "ReduceMean",
                         "Concat",
                         "Split",
                         "Slice",
                         "Pad",
                         "Flatten",
                         "Reshape",
                         "Transpose",
                         "Squeeze",
                         "Unsqueeze",
                         "Gather",
                         "Shape",
                         "Constant",
                         "ConstantOfShape",
                         "Expand",
                         "Softmax",
                         "Dropout",
                         "Resize",
                         "Identity"})
    EXPECT_TRUE(op_kind_from_onnx(op).has_value()) << op;
}

// Every op, given a node with no inputs at all (or, for Constant, no value), must return
// an invalid/unsupported status naming the node, never crash.
TEST(OpTable, EveryOpRejectsAnEmptyNode) {
  for (const OpInfo& info : kOpTable) {
    GraphBuilder b;
    b.input("x", {1, 3, 8, 8});
    ValueId y = b.add1(std::string(info.onnx_name), "probe", {});
    b.output(y);
    Graph g = b.finish();
    auto r = infer_shapes(g);
    ASSERT_FALSE(r.has_value()) << info.onnx_name << " accepted a node with no inputs";
    EXPECT_NE(r.status().code(), StatusCode::kInternal) << info.onnx_name;
    EXPECT_NE(r.status().message().find("'probe'"), std::string::npos)
        << info.onnx_name << ": " << r.status().message();
  }
}

}  // namespace
}  // namespace rooflens
