// The op table: the single source of truth for every op rooflens understands.
//
// Each entry is X(Kind, "OnnxName", family, category). For every entry the op
// family file src/ops/<family>.cpp must define
//   Status infer_<Kind>(InferContext&);      // attribute checks + shape inference
//   OpCost cost_<Kind>(const CostContext&);  // MACs, FLOPs, bytes
// A missing hook is a link error; tests/unit/op_table_test.cpp checks the rest.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string_view>

namespace rooflens {

// What an op does to memory and compute; drives fusion and reporting.
enum class OpCategory {
  kLinear,       // Conv, Gemm, MatMul, Einsum: MACs
  kNorm,         // BatchNormalization, LayerNormalization
  kActivation,   // unary pointwise
  kElementwise,  // binary pointwise with broadcasting
  kPool,         // windowed or global reductions over space
  kReduce,       // ReduceMean, Softmax
  kMove,         // copies data: Concat, Split, Slice, Pad, Transpose, Gather, Expand, Resize
  kView,         // changes only the view of a tensor: Reshape, Flatten, Squeeze, Unsqueeze, Identity, Dropout
  kMeta,         // produces shapes/constants: Shape, Constant, ConstantOfShape
};

#define ROOFLENS_OP_LIST(X)                                \
  X(Conv, "Conv", conv, kLinear)                           \
  X(Gemm, "Gemm", gemm, kLinear)                           \
  X(MatMul, "MatMul", gemm, kLinear)                       \
  X(Einsum, "Einsum", einsum, kLinear)                     \
  X(BatchNormalization, "BatchNormalization", norm, kNorm) \
  X(LayerNormalization, "LayerNormalization", norm, kNorm) \
  X(Relu, "Relu", activation, kActivation)                 \
  X(LeakyRelu, "LeakyRelu", activation, kActivation)       \
  X(Clip, "Clip", activation, kActivation)                 \
  X(Sigmoid, "Sigmoid", activation, kActivation)           \
  X(HardSigmoid, "HardSigmoid", activation, kActivation)   \
  X(HardSwish, "HardSwish", activation, kActivation)       \
  X(Tanh, "Tanh", activation, kActivation)                 \
  X(Erf, "Erf", activation, kActivation)                   \
  X(Gelu, "Gelu", activation, kActivation)                 \
  X(Sqrt, "Sqrt", activation, kActivation)                 \
  X(Neg, "Neg", activation, kActivation)                   \
  X(Exp, "Exp", activation, kActivation)                   \
  X(Not, "Not", activation, kActivation)                   \
  X(Cast, "Cast", activation, kActivation)                 \
  X(Add, "Add", elementwise, kElementwise)                 \
  X(Sub, "Sub", elementwise, kElementwise)                 \
  X(Mul, "Mul", elementwise, kElementwise)                 \
  X(Div, "Div", elementwise, kElementwise)                 \
  X(Pow, "Pow", elementwise, kElementwise)                 \
  X(Mod, "Mod", elementwise, kElementwise)                 \
  X(Equal, "Equal", elementwise, kElementwise)             \
  X(Less, "Less", elementwise, kElementwise)               \
  X(Greater, "Greater", elementwise, kElementwise)         \
  X(And, "And", elementwise, kElementwise)                 \
  X(Or, "Or", elementwise, kElementwise)                   \
  X(Where, "Where", elementwise, kElementwise)             \
  X(MaxPool, "MaxPool", pool, kPool)                       \
  X(AveragePool, "AveragePool", pool, kPool)               \
  X(GlobalAveragePool, "GlobalAveragePool", pool, kPool)   \
  X(GlobalMaxPool, "GlobalMaxPool", pool, kPool)           \
  X(ReduceMean, "ReduceMean", reduce, kReduce)             \
  X(ReduceL2, "ReduceL2", reduce, kReduce)                 \
  X(Softmax, "Softmax", reduce, kReduce)                   \
  X(Concat, "Concat", layout, kMove)                       \
  X(Split, "Split", layout, kMove)                         \
  X(Slice, "Slice", layout, kMove)                         \
  X(Pad, "Pad", layout, kMove)                             \
  X(Transpose, "Transpose", layout, kMove)                 \
  X(Gather, "Gather", layout, kMove)                       \
  X(Expand, "Expand", layout, kMove)                       \
  X(ScatterND, "ScatterND", index, kMove)                  \
  X(Resize, "Resize", resize, kMove)                       \
  X(Flatten, "Flatten", view, kView)                       \
  X(Reshape, "Reshape", view, kView)                       \
  X(Squeeze, "Squeeze", view, kView)                       \
  X(Unsqueeze, "Unsqueeze", view, kView)                   \
  X(Identity, "Identity", view, kView)                     \
  X(Dropout, "Dropout", view, kView)                       \
  X(Shape, "Shape", meta, kMeta)                           \
  X(Constant, "Constant", meta, kMeta)                     \
  X(ConstantOfShape, "ConstantOfShape", meta, kMeta)       \
  X(Range, "Range", index, kMeta)

enum class OpKind : int {
#define ROOFLENS_X(kind, name, family, cat) k##kind,
  ROOFLENS_OP_LIST(ROOFLENS_X)
#undef ROOFLENS_X
      kUnknown,
};

inline constexpr std::size_t kOpCount = static_cast<std::size_t>(OpKind::kUnknown);

struct OpInfo {
  OpKind kind;
  std::string_view onnx_name;
  std::string_view family;
  OpCategory category;
};

inline constexpr std::array<OpInfo, kOpCount> kOpTable = {{
#define ROOFLENS_X(kind, name, family, cat) {OpKind::k##kind, name, #family, OpCategory::cat},
    ROOFLENS_OP_LIST(ROOFLENS_X)
#undef ROOFLENS_X
}};

// The table is indexed by OpKind; this fails the build if an entry is out of order.
consteval bool op_table_is_ordered() {
  for (std::size_t i = 0; i < kOpCount; ++i)
    if (static_cast<std::size_t>(kOpTable[i].kind) != i) return false;
  return true;
}
static_assert(op_table_is_ordered(), "kOpTable must be indexed by OpKind");

inline const OpInfo& op_info(OpKind k) { return kOpTable[static_cast<std::size_t>(k)]; }
// Whether an op only changes the view of a tensor (false for ops outside the table).
inline bool is_view_op(OpKind k) { return k != OpKind::kUnknown && op_info(k).category == OpCategory::kView; }
std::optional<OpKind> op_kind_from_onnx(std::string_view onnx_name);
std::string_view op_category_name(OpCategory c);

}  // namespace rooflens
