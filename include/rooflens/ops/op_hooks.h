// The two hooks every op family implements: shape inference and cost.
// Hooks are pure functions of a node and the shapes/constants of its inputs.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rooflens/ir/graph.h"

namespace rooflens {

// Largest tensor (elements) and largest per-node MAC count rooflens accepts, so that
// bytes (x 8) and FLOPs (x 2 plus extras) and their sums over a graph fit in int64.
inline constexpr int64_t kMaxTensorElements = int64_t{1} << 52;
inline constexpr int64_t kMaxNodeMacs = int64_t{1} << 52;

// Inputs to shape inference for one node. Every present input has a shape.
class InferContext {
 public:
  InferContext(Graph& g, NodeId id) : g_(g), id_(id) {}

  const Node& node() const { return g_.node(id_); }
  const Graph& graph() const { return g_; }
  size_t num_inputs() const { return node().inputs.size(); }
  size_t num_outputs() const { return node().outputs.size(); }
  bool has_input(size_t i) const { return i < num_inputs() && node().inputs[i] != kNoValue; }
  const Value& input(size_t i) const { return g_.value(node().inputs.at(i)); }
  const Shape& in_shape(size_t i) const { return *input(i).shape; }
  DType in_dtype(size_t i) const { return input(i).dtype; }
  int64_t in_rank(size_t i) const { return static_cast<int64_t>(in_shape(i).size()); }
  const std::optional<std::vector<int64_t>>& in_ints(size_t i) const { return input(i).ints; }
  const std::optional<std::vector<double>>& in_reals(size_t i) const { return input(i).reals; }

  // Attribute access with type checks. A missing attribute yields `def`, or an error without one.
  Expected<int64_t> attr_int(std::string_view name, std::optional<int64_t> def = std::nullopt) const;
  Expected<double> attr_float(std::string_view name, std::optional<double> def = std::nullopt) const;
  Expected<std::string> attr_string(std::string_view name, std::optional<std::string> def = std::nullopt) const;
  Expected<std::vector<int64_t>> attr_ints(std::string_view name,
                                           std::optional<std::vector<int64_t>> def = std::nullopt) const;
  Expected<std::vector<double>> attr_floats(std::string_view name,
                                            std::optional<std::vector<double>> def = std::nullopt) const;
  const TensorConst* attr_tensor(std::string_view name) const;
  bool has_attr(std::string_view name) const;

  // Errors name the node, its op and the field: "Conv node 'conv1': group=3 does not divide ...".
  Status invalid(std::string_view field, std::string_view message) const;
  Status unsupported(std::string_view field, std::string_view message) const;

  // Checks the number of inputs (present or omitted) and outputs.
  Status require_io(size_t min_in, size_t max_in, size_t min_out = 1, size_t max_out = 1) const;
  Status require_input(size_t i, std::string_view what) const;  // a required input is present
  Status require_rank(size_t i, int64_t rank, std::string_view what) const;
  Status require_float(size_t i, std::string_view what) const;

  // Normalizes an axis against `rank` (negative counts from the end); error names `field`.
  Expected<int64_t> normalize_axis(int64_t axis, int64_t rank, std::string_view field) const;

  // Output setters. Shapes are checked for negative dims and int64 overflow.
  Status set_output(size_t i, DType dtype, Shape shape);
  void set_output_ints(size_t i, std::vector<int64_t> v);
  void set_output_reals(size_t i, std::vector<double> v);
  // Stores the node's resolved parameters (ir/op_desc.h) for every consumer to read.
  void set_desc(OpDesc d) { g_.node(id_).desc = std::move(d); }

 private:
  const AttrValue* find_attr(std::string_view name) const;
  Graph& g_;
  NodeId id_;
};

// How tensors are counted: floating-point tensors take the width of `dtype`
// (the precision the model would be deployed at); integer tensors keep theirs.
struct CostOptions {
  DType dtype = DType::kF32;
};

// Work and traffic of one node (or one fused layer), all for the whole batch.
struct OpCost {
  int64_t macs = 0;           // multiply-accumulates of Conv/Gemm/MatMul
  int64_t flops = 0;          // 2 x macs + every other arithmetic op (see docs/cost-model.md)
  int64_t bytes_in = 0;       // activations read
  int64_t bytes_out = 0;      // activations written
  int64_t bytes_weights = 0;  // parameters and other stored constants read
};

class CostContext {
 public:
  CostContext(const Graph& g, NodeId id, const CostOptions& o) : g_(g), id_(id), opts_(o) {}
  const Node& node() const { return g_.node(id_); }
  const Graph& graph() const { return g_; }
  const CostOptions& options() const { return opts_; }
  bool has_input(size_t i) const { return i < node().inputs.size() && node().inputs[i] != kNoValue; }
  const Value& input(size_t i) const { return g_.value(node().inputs.at(i)); }
  const Value& output(size_t i) const { return g_.value(node().outputs.at(i)); }
  const Shape& in_shape(size_t i) const { return *input(i).shape; }
  const Shape& out_shape(size_t i) const { return *output(i).shape; }
  int64_t in_numel(size_t i) const;
  int64_t out_numel(size_t i) const;
  // Bytes of a value as counted under the options (float width from options().dtype).
  int64_t bytes_of(const Value& v) const;
  int64_t elem_bytes(const Value& v) const;

  // Default traffic: every moving input read once (stored float constants as weights,
  // values known at analysis time not at all), every output written once.
  OpCost default_traffic() const;
  // No traffic: the op only changes the view of a tensor or is folded away.
  OpCost no_traffic() const { return {}; }

 private:
  const Graph& g_;
  NodeId id_;
  const CostOptions& opts_;
};

// Declarations of every hook, generated from the op table.
#define ROOFLENS_X(kind, name, family, cat) \
  Status infer_##kind(InferContext& ctx);   \
  OpCost cost_##kind(const CostContext& ctx);
ROOFLENS_OP_LIST(ROOFLENS_X)
#undef ROOFLENS_X

// Dispatch through the op table (kind must not be kUnknown).
Status infer_node(OpKind kind, InferContext& ctx);
OpCost cost_node(OpKind kind, const CostContext& ctx);

}  // namespace rooflens
