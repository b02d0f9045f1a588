// The memory a model needs on a device (perf/memory.h).
#include "rooflens/perf/memory.h"

#include <algorithm>
#include <map>
#include <set>

namespace rooflens {

std::vector<int64_t> live_activation_bytes(const Graph& g, const ModelAnalysis& m) {
  const int64_t elem = dtype_bytes(m.dtype);
  auto bytes_of = [&](const Value& v) {
    if (!v.shape) return int64_t{0};
    return checked_numel(*v.shape).value_or(0) * (dtype_is_float(v.dtype) ? elem : dtype_bytes(v.dtype));
  };
  // Layer index of every node; views and folded nodes take the index of their reader.
  std::map<NodeId, size_t> layer_of;
  for (size_t i = 0; i < m.layers.size(); ++i)
    for (NodeId n : m.layers[i].nodes) layer_of[n] = i;
  const size_t end = m.layers.size();
  // Root of a value through views (a view shares its input's memory).
  auto root = [&](ValueId v) {
    for (int hops = 0; hops < 32; ++hops) {
      const Value& val = g.value(v);
      if (val.producer < 0) break;
      const Node& prod = g.node(val.producer);
      if (prod.kind == OpKind::kUnknown || op_info(prod.kind).category != OpCategory::kView || prod.inputs.empty())
        break;
      v = prod.inputs[0];
    }
    return v;
  };
  std::map<ValueId, std::pair<size_t, size_t>> live;  // root value -> [first, last] layer
  auto touch = [&](ValueId v, size_t at) {
    ValueId r = root(v);
    const Value& val = g.value(r);
    if (val.is_stored || val.ints || val.reals) return;
    auto it = live.find(r);
    if (it == live.end())
      live[r] = {at, at};
    else {
      it->second.first = std::min(it->second.first, at);
      it->second.second = std::max(it->second.second, at);
    }
  };
  for (const auto& [node, at] : layer_of) {
    for (ValueId in : g.node(node).inputs)
      if (in != kNoValue) touch(in, at);
    for (ValueId out : g.node(node).outputs)
      if (out != kNoValue) touch(out, at);
  }
  for (ValueId in : g.inputs) touch(in, 0);
  for (ValueId out : g.outputs) touch(out, end);
  std::vector<int64_t> at_step(end + 1, 0);
  for (const auto& [v, range] : live) {
    // A tensor made and consumed inside one fused layer never reaches memory.
    const Value& val = g.value(v);
    if (range.first == range.second && val.producer >= 0 && layer_of.count(val.producer) &&
        layer_of.at(val.producer) == range.first)
      continue;
    const int64_t b = bytes_of(val);
    for (size_t s = range.first; s <= range.second && s <= end; ++s) at_step[s] += b;
  }
  return at_step;
}

int64_t stored_weight_bytes(const Graph& g, const ModelAnalysis& m) {
  const int64_t elem = dtype_bytes(m.dtype);
  auto bytes_of = [&](const Value& v) {
    if (!v.shape) return int64_t{0};
    return checked_numel(*v.shape).value_or(0) * (dtype_is_float(v.dtype) ? elem : dtype_bytes(v.dtype));
  };
  std::set<ValueId> weights;
  for (const auto& n : g.nodes)
    for (ValueId in : n.inputs)
      if (in != kNoValue && g.value(in).kind == ValueKind::kInitializer && dtype_is_float(g.value(in).dtype))
        weights.insert(in);
  int64_t total = 0;
  for (ValueId w : weights) total += bytes_of(g.value(w));
  return total;
}

MemoryEstimate estimate_memory(int64_t weight_bytes, std::span<const int64_t> live_bytes, const DeviceSpec& d) {
  MemoryEstimate e;
  e.weights = weight_bytes;
  e.workspace = static_cast<int64_t>(d.workspace_bytes);
  for (int64_t b : live_bytes) e.activations = std::max(e.activations, b);
  return e;
}

MemoryEstimate estimate_memory(const Graph& g, const ModelAnalysis& m, const DeviceSpec& d) {
  return estimate_memory(stored_weight_bytes(g, m), live_activation_bytes(g, m), d);
}

double usable_memory(const DeviceSpec& d) { return d.mem_bytes - d.reserved_bytes; }

}  // namespace rooflens
