// The per-layer part of the performance model (perf/model.h) as plain data in, plain data
// out: predict() reads a fused layer's work and L2 reuse from the graph and calls this; a
// caller that knows its layers without a graph (nas/sss_study.cpp assembles NATS-SSS
// networks from cached blocks) calls it too and gets the same numbers, bit for bit.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "rooflens/cost/cost.h"
#include "rooflens/device/device.h"
#include "rooflens/perf/model.h"

namespace rooflens {

// GEMM view of a linear layer's anchor: rows x cols output tiles per group, K, and the
// channel counts tensor cores need aligned. valid = false for other ops.
struct GemmShape {
  bool valid = false;
  bool depthwise = false;
  int64_t groups = 1, rows = 0, cols = 0, k = 0;
  int64_t align_in = 0, align_out = 0;  // channels that must be multiples of the tile
};
GemmShape gemm_shape(const Graph& g, const Node& n);

// What the per-layer model reads of a fused layer (units: FLOPs, bytes, elements).
struct LayerWork {
  bool costed = false;    // status ok and the layer computes or moves something
  int64_t flops = 0;
  int64_t bytes = 0;      // counted traffic: bytes_in + bytes_out + bytes_weights
  GemmShape gemm;         // of the anchor
  int64_t out_elems = 0;  // elements of the layer's out_shapes (pointwise kernels' threads)
};
LayerWork layer_work(const Graph& g, const LayerReport& r);

// One activation input of a layer that an earlier layer wrote: that layer's index and the
// tensor's bytes (the candidates for L2 reuse).
struct L2Input {
  size_t src = 0;
  int64_t bytes = 0;
};

// The earlier-layer inputs of every layer of an analysed graph (views followed back to
// their producing layer), in the order predict() visits them.
std::vector<std::vector<L2Input>> layer_l2_inputs(const Graph& g, const ModelAnalysis& m);

// The numbers predict() puts in a LayerPrediction besides names, bound and flags.
struct LayerTiming {
  ComputeUnit unit = ComputeUnit::kCuda;
  bool tensor_eligible = false, aligned = true;
  double peak_used = 0, wave_efficiency = 1, tile_efficiency = 1, bw_efficiency = 1;
  int split_k = 1, tile_n = 0;
  int64_t dram_bytes = 0;
  double t_compute = 0, t_memory = 0, t_launch = 0, t_gap = 0, time_s = 0;
};

// Device and options resolved once for a dtype; cheap to call per layer, no allocation.
// `elem_dtype` is the analysis dtype (element size of activations).
class LayerModel {
 public:
  // Errors: the device has no peak for options.dtype (the message predict() gives).
  static Expected<LayerModel> make(const DeviceSpec& d, const PerfOptions& o, DType elem_dtype);

  // L2 reuse applies at all (the device has an L2).
  bool l2_enabled() const { return d_->l2_bytes > 0; }
  // A tensor written `distance` bytes ago (itself plus everything written since) is still in L2.
  bool stays_in_l2(double distance) const { return distance <= o_->l2_reuse_fraction * d_->l2_bytes; }

  // Times a costed layer whose activation inputs of `reused` bytes come from L2.
  LayerTiming time(const LayerWork& w, int64_t reused) const;

  const DeviceSpec& device() const { return *d_; }
  const PerfOptions& options() const { return *o_; }
  const std::optional<Peak>& tensor() const { return tensor_; }
  int channel_multiple() const { return multiple_; }
  double attain() const { return attain_; }
  const Peak& best() const { return best_; }
  const std::optional<double>& peak_measured() const { return peak_measured_; }

 private:
  const DeviceSpec* d_ = nullptr;
  const PerfOptions* o_ = nullptr;
  Peak best_;
  std::optional<double> peak_measured_;
  std::optional<Peak> tensor_, scalar_;
  double attain_ = 1, slots_gemm_ = 1, threads_full_ = 1, eff_gemm_ = 1, eff_depthwise_ = 1, mem_div_ = 1;
  int multiple_ = 8;
  int64_t elem_ = 4;
};

// Bytes of activations live at each step 0..m.layers.size() of the fused execution order
// (the last step holds the graph outputs); estimate_memory's activations are their maximum.
std::vector<int64_t> live_activation_bytes(const Graph& g, const ModelAnalysis& m);

}  // namespace rooflens
