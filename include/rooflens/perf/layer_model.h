// The per-layer part of the performance model (perf/model.h) as plain data in, plain data
// out: one fused layer's work (perf/gemm_view.h) and the bytes it reuses from L2 in, its
// time out. The loop over a model's layers is perf/layer_sequence.h.
#pragma once

#include <cstdint>
#include <optional>

#include "rooflens/cost/cost.h"
#include "rooflens/device/device.h"
#include "rooflens/perf/gemm_view.h"
#include "rooflens/perf/model.h"

namespace rooflens {

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
  // Host time to issue the layer's kernel when the engine's launches are not captured
  // (perf/engine.h); 0 on a CPU, for a captured engine, or an uncosted layer.
  double host_s(const LayerWork& w) const;
  double memory_efficiency() const { return mem_div_; }

  const DeviceSpec& device() const { return *d_; }
  const PerfOptions& options() const { return *o_; }
  const std::optional<Peak>& tensor() const { return tensor_; }
  int channel_multiple() const { return multiple_; }
  double attain() const { return attain_; }
  const Peak& best() const { return best_; }
  const std::optional<double>& peak_measured() const { return peak_measured_; }

 private:
  // The fastest tile width and split-K of a GEMM-like layer computing `flops` at `rate`
  // FLOP/s (tensor-core tiles when tc_unit); reads L.dram_bytes, fills the timing fields.
  void gemm_tactics(const LayerWork& w, double flops, double rate, bool tc_unit, LayerTiming& L) const;

  const DeviceSpec* d_ = nullptr;
  const PerfOptions* o_ = nullptr;
  Peak best_;
  std::optional<double> peak_measured_;
  std::optional<Peak> tensor_, scalar_;
  double attain_ = 1, slots_gemm_ = 1, threads_full_ = 1, eff_gemm_ = 1, eff_depthwise_ = 1, mem_div_ = 1;
  int multiple_ = 8;
  int64_t elem_ = 4;
};

}  // namespace rooflens
