// The memory a model needs on a device: stored weights, the activations live at the worst
// point of the fused execution order, and the engine's workspace (perf/model.h's
// Prediction::memory_bytes; the max batch searches over it, perf/max_batch.h).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "rooflens/cost/cost.h"
#include "rooflens/device/device.h"

namespace rooflens {

// Bytes resident at the worst point of the fused execution order: stored weights plus
// the largest set of simultaneously live activations.
struct MemoryEstimate {
  int64_t weights = 0, activations = 0, workspace = 0;
  int64_t total() const { return weights + activations + workspace; }
};
MemoryEstimate estimate_memory(const Graph& g, const ModelAnalysis& m, const DeviceSpec& d);

// The same estimate from its parts, for a caller without a graph (nas/sss_study.cpp):
// stored weight bytes and the activation bytes live at each step.
MemoryEstimate estimate_memory(int64_t weight_bytes, std::span<const int64_t> live_bytes, const DeviceSpec& d);

// Bytes of the float initializers a graph stores (each counted once, at the analysis dtype).
int64_t stored_weight_bytes(const Graph& g, const ModelAnalysis& m);

// Bytes of activations live at each step 0..m.layers.size() of the fused execution order
// (the last step holds the graph outputs); estimate_memory's activations are their maximum.
std::vector<int64_t> live_activation_bytes(const Graph& g, const ModelAnalysis& m);

// The device memory a model may use: its size less what the runtime and the OS keep.
double usable_memory(const DeviceSpec& d);

}  // namespace rooflens
