// The IR: a graph of nodes and values with static shapes and dtypes.
// One Graph carries a model from import to report; every consumer reads it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>  // kept for includers that relied on it
#include <variant>
#include <vector>

#include "rooflens/ir/attr_map.h"
#include "rooflens/ir/dtype.h"
#include "rooflens/ir/op_desc.h"
#include "rooflens/ir/op_table.h"
#include "rooflens/util/status.h"

namespace rooflens {

using ValueId = int32_t;
using NodeId = int32_t;
inline constexpr ValueId kNoValue = -1;

// Where a value comes from.
enum class ValueKind {
  kActivation,   // produced by a node
  kInput,        // a graph input (fed at run time)
  kInitializer,  // a stored constant (weights, shape constants); data may be absent (stripped)
};

struct Value {
  std::string name;
  ValueKind kind = ValueKind::kActivation;
  DType dtype = DType::kUnknown;
  std::optional<Shape> shape;  // set by import for inputs/initializers, by inference otherwise
  NodeId producer = -1;
  std::vector<NodeId> consumers;
  // Known contents, when small and known at analysis time (shape arithmetic, constant folding).
  std::optional<std::vector<int64_t>> ints;
  std::optional<std::vector<double>> reals;
  bool has_data = false;  // an initializer whose element data was present in the file
  // Stored data: an initializer, or what shape inference finds computed from stored data and
  // known contents alone (a view of a weight; exporters alias shared weights with Identity).
  bool is_stored = false;
  // Shape from the file's value_info (symbolic dims resolved), used only for unknown ops.
  std::optional<Shape> hint_shape;
};

struct Node {
  std::string name;
  std::string op_type;  // as written in the file (kept for unknown ops)
  std::string domain;
  OpKind kind = OpKind::kUnknown;
  std::vector<ValueId> inputs;  // kNoValue for an omitted optional input
  std::vector<ValueId> outputs;
  AttrMap attrs;  // sorted by name; read by name only in ops/ (shape inference)
  OpDesc desc;    // the attributes parsed and resolved by shape inference (ir/op_desc.h)
  // All outputs known at analysis time, or computed from stored data alone when the model
  // loads (infer_shapes): no work at inference.
  bool folded = false;
};

class Graph {
 public:
  std::string name;
  int64_t opset = 0;
  std::vector<Value> values;
  std::vector<Node> nodes;
  std::vector<ValueId> inputs;  // graph inputs fed at run time (not initializers)
  std::vector<ValueId> outputs;

  ValueId add_value(Value v);
  NodeId add_node(Node n);  // wires producer/consumers of its values
  std::optional<ValueId> find_value(std::string_view name) const;
  bool is_output(ValueId v) const { return std::find(outputs.begin(), outputs.end(), v) != outputs.end(); }

  const Value& value(ValueId id) const { return values.at(static_cast<size_t>(id)); }
  Value& value(ValueId id) { return values.at(static_cast<size_t>(id)); }
  const Node& node(NodeId id) const { return nodes.at(static_cast<size_t>(id)); }
  Node& node(NodeId id) { return nodes.at(static_cast<size_t>(id)); }

  // Nodes in an order where every producer comes before its consumers.
  // Invalid input if the graph has a cycle (names a node on it).
  Expected<std::vector<NodeId>> topo_order() const;

 private:
  // Value names -> ids: an open-addressing table of ids; the names themselves are read from
  // `values`, so the table holds no strings. A name added twice maps to its last value.
  struct NameSlot {
    uint32_t hash = 0;
    ValueId id = kNoValue;  // kNoValue: empty
  };
  static uint32_t name_hash(std::string_view s);
  void index_name(ValueId id);
  std::vector<NameSlot> by_name_;  // size 0 or a power of two, at most half full
  size_t named_ = 0;
};

// Product of dims; nullopt on negative dims or int64 overflow.
std::optional<int64_t> checked_numel(const Shape& s);
std::string shape_str(const Shape& s);  // "1x3x224x224"

}  // namespace rooflens
