// A model as the per-layer loop of the performance model reads it, and that loop. predict()
// (perf/model.h) fills a sequence from an analysed graph; nas/sss_study.cpp fills one from
// cached NATS-SSS segments without a graph. Both run time_layers over it, so both get the
// same numbers, summed in the same order, bit for bit.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "rooflens/cost/cost.h"
#include "rooflens/perf/gemm_view.h"
#include "rooflens/perf/layer_model.h"

namespace rooflens {

// One activation input of a layer that an earlier layer wrote: that layer's index and the
// tensor's bytes (the candidates for L2 reuse).
struct L2Input {
  size_t src = 0;
  int64_t bytes = 0;
};

// Fused layers in execution order: each one's work, the bytes it writes, and its activation
// inputs written by earlier layers. clear() keeps the storage for the next model.
class LayerSequence {
 public:
  void clear();
  // Appends layer size(); add_input then adds inputs to it (src < its index).
  void add_layer(const LayerWork& work, int64_t bytes_out);
  void add_input(const L2Input& in);

  size_t size() const { return work_.size(); }
  const LayerWork& work(size_t i) const { return work_[i]; }
  int64_t bytes_out(size_t i) const { return bytes_out_[i]; }
  std::span<const L2Input> inputs(size_t i) const;

 private:
  std::vector<LayerWork> work_;
  std::vector<int64_t> bytes_out_;
  std::vector<size_t> first_input_;  // inputs of layer i: [first_input_[i], first_input_[i + 1])
  std::vector<L2Input> inputs_;
};

// The sequence of an analysed graph: layer_work of every fused layer, its cost.bytes_out, and
// its activation inputs (views followed back to their producing layer).
LayerSequence graph_layer_sequence(const Graph& g, const ModelAnalysis& m);

// The per-layer loop of the performance model. For every layer i in order it calls
// layer(i, reused), where `reused` is the bytes of layer i's activation inputs still in L2
// (LRU reuse distance: the tensor plus everything the layers in between wrote fits the
// reusable share of L2; 0 when the layer is not costed or the device has no L2). It returns
// the sum, in layer order, of what `layer` returns for the costed layers (seconds), or, when
// the engine's launches are not captured (LayerModel::host_s), the time the device finishes
// when each layer starts no earlier than the host has issued it; `host_total` (if given)
// receives the host's issue time.
double time_layers(const LayerModel& lm, const LayerSequence& s,
                   const std::function<double(size_t i, int64_t reused)>& layer, double* host_total = nullptr);

}  // namespace rooflens
