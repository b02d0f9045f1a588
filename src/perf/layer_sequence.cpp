// The layer sequence and the per-layer loop of the performance model (perf/layer_sequence.h).
#include "rooflens/perf/layer_sequence.h"

#include <algorithm>

#include <map>
#include <optional>
#include <set>

namespace rooflens {
namespace {

// Which layer produced each value (through views), for L2 reuse between layers.
class L2Sources {
 public:
  L2Sources(const Graph& g, const ModelAnalysis& m) : g_(g), m_(m), elem_(dtype_bytes(m.dtype)) {
    for (size_t i = 0; i < m.layers.size(); ++i)
      for (NodeId n : m.layers[i].nodes) layer_of_[n] = i;
  }

  // Activation inputs of layer i written by an earlier layer.
  void inputs(size_t i, std::vector<L2Input>& out) const {
    out.clear();
    const LayerReport& r = m_.layers[i];
    std::set<ValueId> seen;
    std::set<NodeId> in_layer(r.nodes.begin(), r.nodes.end());
    for (NodeId n : r.nodes)
      for (ValueId in : g_.node(n).inputs) {
        if (in == kNoValue || !seen.insert(in).second) continue;
        const Value& v = g_.value(in);
        if (v.is_stored || v.ints || v.reals || !v.shape) continue;
        if (v.producer >= 0 && in_layer.count(v.producer)) continue;
        auto src = source_layer(in);
        if (!src || *src >= i) continue;
        const int64_t b =
            checked_numel(*v.shape).value_or(0) * (dtype_is_float(v.dtype) ? elem_ : dtype_bytes(v.dtype));
        out.push_back({*src, b});
      }
  }

 private:
  std::optional<size_t> source_layer(ValueId v) const {
    // Follow views back to the producing layer.
    for (int hops = 0; hops < 16 && v != kNoValue; ++hops) {
      const Value& val = g_.value(v);
      if (val.producer < 0) return std::nullopt;
      auto it = layer_of_.find(val.producer);
      if (it != layer_of_.end()) return it->second;
      const Node& prod = g_.node(val.producer);
      if (prod.inputs.empty()) return std::nullopt;
      v = prod.inputs[0];
    }
    return std::nullopt;
  }

  const Graph& g_;
  const ModelAnalysis& m_;
  int64_t elem_;
  std::map<NodeId, size_t> layer_of_;
};

}  // namespace

void LayerSequence::clear() {
  work_.clear();
  bytes_out_.clear();
  first_input_.clear();
  inputs_.clear();
}

void LayerSequence::add_layer(const LayerWork& work, int64_t bytes_out) {
  work_.push_back(work);
  bytes_out_.push_back(bytes_out);
  first_input_.push_back(inputs_.size());
}

void LayerSequence::add_input(const L2Input& in) { inputs_.push_back(in); }

std::span<const L2Input> LayerSequence::inputs(size_t i) const {
  const size_t end = i + 1 < first_input_.size() ? first_input_[i + 1] : inputs_.size();
  return std::span<const L2Input>(inputs_).subspan(first_input_[i], end - first_input_[i]);
}

LayerSequence graph_layer_sequence(const Graph& g, const ModelAnalysis& m) {
  L2Sources sources(g, m);
  LayerSequence s;
  std::vector<L2Input> inputs;
  for (size_t i = 0; i < m.layers.size(); ++i) {
    const LayerReport& r = m.layers[i];
    s.add_layer(layer_work(g, r), r.cost.bytes_out);
    sources.inputs(i, inputs);
    for (const L2Input& in : inputs) s.add_input(in);
  }
  return s;
}

double time_layers(const LayerModel& lm, const LayerSequence& s,
                   const std::function<double(size_t i, int64_t reused)>& layer, double* host_total) {
  // The device finishes layer i at max(its end of layer i-1, the host's issue of layer i)
  // plus the layer's time; with no host cost (captured launches) that is the plain sum.
  double total = 0, host = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const bool costed = s.work(i).costed;
    int64_t reused = 0;
    if (costed && i > 0 && lm.l2_enabled())
      for (const L2Input& in : s.inputs(i)) {
        // Summed as doubles in this order: the distances, and so the answers, stay as they were.
        double distance = static_cast<double>(in.bytes);
        for (size_t j = in.src + 1; j < i; ++j) distance += static_cast<double>(s.bytes_out(j));
        if (lm.stays_in_l2(distance)) reused += in.bytes;
      }
    const double t = layer(i, reused);
    if (!costed) continue;
    host += lm.host_s(s.work(i));
    total = std::max(total, host) + t;
  }
  if (host_total) *host_total = host;
  return total;
}

}  // namespace rooflens
