// Graph construction, lookup and topological order.
#include "rooflens/ir/graph.h"

#include <algorithm>

namespace rooflens {

ValueId Graph::add_value(Value v) {
  auto id = static_cast<ValueId>(values.size());
  by_name_[v.name] = id;
  values.push_back(std::move(v));
  return id;
}

NodeId Graph::add_node(Node n) {
  auto id = static_cast<NodeId>(nodes.size());
  for (ValueId in : n.inputs)
    if (in != kNoValue) values.at(static_cast<size_t>(in)).consumers.push_back(id);
  for (ValueId out : n.outputs)
    if (out != kNoValue) values.at(static_cast<size_t>(out)).producer = id;
  nodes.push_back(std::move(n));
  return id;
}

std::optional<ValueId> Graph::find_value(std::string_view name) const {
  auto it = by_name_.find(name);
  if (it == by_name_.end()) return std::nullopt;
  return it->second;
}

Expected<std::vector<NodeId>> Graph::topo_order() const {
  // Kahn's algorithm, stable with respect to file order: of the ready nodes, the one
  // earliest in the file comes next (a min-heap on node ids).
  std::vector<int> pending(nodes.size(), 0);
  for (size_t i = 0; i < nodes.size(); ++i)
    for (ValueId in : nodes[i].inputs)
      if (in != kNoValue && value(in).producer >= 0) ++pending[i];
  std::vector<NodeId> order;
  order.reserve(nodes.size());
  std::vector<NodeId> ready;  // heap, smallest id on top
  for (size_t i = 0; i < nodes.size(); ++i)
    if (pending[i] == 0) ready.push_back(static_cast<NodeId>(i));  // ascending: already a min-heap
  std::vector<NodeId> cons;  // scratch, reused
  while (!ready.empty()) {
    std::pop_heap(ready.begin(), ready.end(), std::greater<>());
    const NodeId n = ready.back();
    ready.pop_back();
    order.push_back(n);
    for (ValueId out : node(n).outputs) {
      if (out == kNoValue) continue;
      cons.assign(value(out).consumers.begin(), value(out).consumers.end());
      std::sort(cons.begin(), cons.end());
      cons.erase(std::unique(cons.begin(), cons.end()), cons.end());
      for (NodeId c : cons) {
        // A node reading the same value twice was counted once per use above.
        for (ValueId in : node(c).inputs)
          if (in == out && --pending[static_cast<size_t>(c)] == 0) {
            ready.push_back(c);
            std::push_heap(ready.begin(), ready.end(), std::greater<>());
          }
      }
    }
  }
  if (order.size() != nodes.size()) {
    for (size_t i = 0; i < nodes.size(); ++i)
      if (pending[i] > 0)
        return Status::invalid("graph has a cycle through node '" + nodes[i].name + "' (" +
                               nodes[i].op_type + ")");
  }
  return order;
}

std::optional<int64_t> checked_numel(const Shape& s) {
  int64_t n = 1;
  for (int64_t d : s) {
    if (d < 0) return std::nullopt;
    if (__builtin_mul_overflow(n, d, &n)) return std::nullopt;
  }
  return n;
}

std::string shape_str(const Shape& s) {
  if (s.empty()) return "scalar";
  std::string r;
  for (size_t i = 0; i < s.size(); ++i) {
    if (i) r += 'x';
    r += std::to_string(s[i]);
  }
  return r;
}

}  // namespace rooflens
