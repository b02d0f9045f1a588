// Graph construction, lookup and topological order.
#include "rooflens/ir/graph.h"

#include <algorithm>
#include <cstring>

namespace rooflens {

// Word-at-a-time multiply-xorshift hash; names are file paths of a few dozen bytes.
uint32_t Graph::name_hash(std::string_view s) {
  uint64_t h = 0x9E3779B97F4A7C15ull ^ s.size();
  size_t i = 0;
  for (; i + 8 <= s.size(); i += 8) {
    uint64_t w;
    std::memcpy(&w, s.data() + i, 8);
    h = (h ^ w) * 0xFF51AFD7ED558CCDull;
    h ^= h >> 32;
  }
  uint64_t w = 0;
  if (i < s.size()) std::memcpy(&w, s.data() + i, s.size() - i);
  h = (h ^ w) * 0xC4CEB9FE1A85EC53ull;
  h ^= h >> 29;
  h *= 0x9E3779B97F4A7C15ull;
  return static_cast<uint32_t>(h >> 32);
}

void Graph::index_name(ValueId id) {
  if (2 * (named_ + 1) > by_name_.size()) {  // grow: re-place the slots by their stored hashes
    std::vector<NameSlot> old = std::move(by_name_);
    by_name_.assign(std::max<size_t>(64, old.size() * 2), NameSlot{});
    const size_t mask = by_name_.size() - 1;
    for (const NameSlot& e : old) {
      if (e.id == kNoValue) continue;
      size_t i = e.hash & mask;
      while (by_name_[i].id != kNoValue) i = (i + 1) & mask;
      by_name_[i] = e;
    }
  }
  const std::string& name = values[static_cast<size_t>(id)].name;
  const uint32_t h = name_hash(name);
  const size_t mask = by_name_.size() - 1;
  size_t i = h & mask;
  for (; by_name_[i].id != kNoValue; i = (i + 1) & mask) {
    if (by_name_[i].hash == h && values[static_cast<size_t>(by_name_[i].id)].name == name) {
      by_name_[i].id = id;  // a name added again: the newest value wins
      return;
    }
  }
  by_name_[i] = NameSlot{h, id};
  ++named_;
}

ValueId Graph::add_value(Value v) {
  auto id = static_cast<ValueId>(values.size());
  values.push_back(std::move(v));
  index_name(id);
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
  if (by_name_.empty()) return std::nullopt;
  const uint32_t h = name_hash(name);
  const size_t mask = by_name_.size() - 1;
  for (size_t i = h & mask; by_name_[i].id != kNoValue; i = (i + 1) & mask)
    if (by_name_[i].hash == h && values[static_cast<size_t>(by_name_[i].id)].name == name) return by_name_[i].id;
  return std::nullopt;
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
  std::vector<NodeId> cons;                                        // scratch, reused
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
        return Status::invalid("graph has a cycle through node '" + nodes[i].name + "' (" + nodes[i].op_type + ")");
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
