// Lookup of op kinds by ONNX name.
#include "rooflens/ir/op_table.h"

namespace rooflens {

std::optional<OpKind> op_kind_from_onnx(std::string_view onnx_name) {
  for (const OpInfo& info : kOpTable)
    if (info.onnx_name == onnx_name) return info.kind;
  return std::nullopt;
}

std::string_view op_category_name(OpCategory c) {
  switch (c) {
    case OpCategory::kLinear: return "linear";
    case OpCategory::kNorm: return "norm";
    case OpCategory::kActivation: return "activation";
    case OpCategory::kElementwise: return "elementwise";
    case OpCategory::kPool: return "pool";
    case OpCategory::kReduce: return "reduce";
    case OpCategory::kMove: return "move";
    case OpCategory::kView: return "view";
    case OpCategory::kMeta: return "meta";
  }
  return "?";
}

}  // namespace rooflens
