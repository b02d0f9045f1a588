// The performance model: per fused layer, predicted time and what bounds it; per model,
// throughput, utilization, memory and the largest batch that fits. docs/perf-model.md
// writes down every term and why.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "rooflens/cost/cost.h"
#include "rooflens/device/device.h"
#include "rooflens/perf/engine.h"
#include "rooflens/perf/memory.h"

namespace rooflens {

enum class Bound {
  kCompute,     // at the roof of the unit that runs it
  kMemory,      // at the memory-bandwidth roof
  kStarved,     // too little parallel work to fill the device (waves)
  kMisaligned,  // could use tensor cores, but channel counts are not multiples of the tile
  kCudaCores,   // an op tensor cores cannot run (depthwise, pooling, elementwise)
  kLaunch,      // shorter than the kernel launch overhead
  kNone,        // no work (not costed)
};
std::string_view bound_name(Bound b);

struct PerfOptions {
  std::string dtype = "fp16";
  // Compute roofs from the device's measured peak where it has one (what kernels reach),
  // otherwise from the datasheet.
  bool use_measured_peak = true;
  double l2_reuse_fraction = 0.5;  // a tensor up to this share of L2 stays cached for the next layer
  int tile_m = 128, tile_n = 128;  // output tile of a GEMM/implicit-GEMM thread block
  // Tensor-core GEMMs whose output channels are narrower than tile_n: the engine may pick
  // tiles down to min_tile_n wide, at the lower operand reuse of a narrow tile; a wide tile
  // over few channels computes padding. false gives the old model (full rate at any width).
  bool narrow_tile_efficiency = true;
  int min_tile_n = 32;
  int gemm_blocks_per_sm = 1;        // resident GEMM thread blocks per SM
  int k_tile = 32;                   // K depth of one pipeline stage
  int pipeline_stages = 3;           // stages a GEMM block keeps in flight (cp.async style)
  int max_split_k = 16;              // split-K tactics tried for layers with too few tiles
  int elements_per_thread = 4;       // pointwise kernels: elements in flight per thread
  double memory_latency_s = 600e-9;  // DRAM latency: bytes in flight = bandwidth x latency
  // Share of the datasheet DRAM bandwidth that GPU kernels reach (copy/STREAM-like kernels
  // measure 0.75-0.9 of it; docs/perf-model.md). A device file's efficiency.memory replaces it.
  // 1.0 gives the datasheet roof.
  double gpu_dram_efficiency = 0.8;
  // The execution the prediction describes on a GPU (perf/engine.h): fusions, kernel
  // eligibility, efficiencies, the serialized gap per kernel (calibrated from the intercept
  // of published time-vs-batch measurements; 0 gives the overlap-only model) and host cost
  // per call. Default: the TensorRT-class engine of the seed study. Not used on a CPU.
  EngineProfile engine;
  // CPU devices with a measured kernel table (`probe cpu --kernels`): layer times come from
  // it (perf/kernel_predict.h) instead of the roofline. false uses the roofline anyway.
  bool use_kernel_table = true;
};

struct LayerPrediction {
  std::string name, op;
  int64_t flops = 0;
  int64_t bytes = 0;       // counted traffic (analysis)
  int64_t dram_bytes = 0;  // after L2 reuse between adjacent layers
  double ai = 0;
  ComputeUnit unit = ComputeUnit::kCuda;
  bool tensor_eligible = false;        // op type can run on tensor cores
  bool aligned = true;                 // channel counts meet the tensor-core multiple
  double peak_used = 0;                // FLOP/s of the unit that runs it
  double wave_efficiency = 1;          // useful share of the thread-block slots used
  int split_k = 1;                     // the split-K tactic chosen (GEMM-like layers)
  int tile_n = 0;                      // output-channel tile width chosen (GEMM-like layers on a GPU)
  double tile_efficiency = 1;          // useful share of the tensor rate at that width (padding x reuse)
  std::string kernel_class = "other";  // gemm, depthwise or other (for fitted efficiencies)
  std::string table_class;             // class of the measured kernel table that timed it, if one did
  std::string level_class;             // its in-network level's class (perf/kernel_predict.h), if the table timed it
  double level_position = 0;           // and its position on that class's axis (0: none)
  double level = 1;                    // the in-network level its table time was multiplied by (1: none)
  std::string layer_class;             // perf/layer_class.h: attention, softmax, layernorm, batched_gemm, ...
  int layout_conversions = 0;          // reorders the CPU backend adds before it (kernel table only)
  double bw_efficiency = 1;
  double t_compute = 0, t_memory = 0, t_launch = 0, time_s = 0;
  double t_gap = 0;  // serialized per-kernel cost added to the overlapped max (GPU)
  Bound bound = Bound::kNone;
  double time_share = 0;
  double achieved_flops = 0;
  std::string why;  // one line of evidence for the bound
  // Inefficiencies present whether or not they bind: misaligned, cuda-cores, starved, launch.
  std::vector<std::string> flags;
};

struct Prediction {
  std::string model, device_id, device_name, dtype;
  std::string engine;  // the engine profile's id (GPU); empty on a CPU
  double host_s = 0;   // host time to issue the layers (0 when launches are captured)
  int64_t batch = 1;
  double time_s = 0, throughput = 0;
  double flops_per_image = 0;
  double peak_datasheet = 0;
  std::optional<double> peak_measured;
  double utilization = 0;  // against the datasheet peak
  std::optional<double> utilization_measured;
  double cmr = 0, ai = 0;
  int64_t memory_bytes = 0;  // weights + peak live activations + workspace at this batch
  std::optional<int64_t> max_batch;
  // A folded model (passes/folded_cnn.h) reads f images per input: batch and throughput count
  // folded inputs; images are f times as many. Set by the caller that knows (1: images).
  int images_per_input = 1;
  std::vector<LayerPrediction> layers;
  std::vector<std::string> notes;
};

// Predicts one model (already analysed at its batch, with the analysis dtype matching
// options.dtype) on one device. Errors: the device has no peak for the dtype.
Expected<Prediction> predict(const Graph& g, const ModelAnalysis& m, const DeviceSpec& d, const PerfOptions& o);

// Largest batch whose memory fits the device: exponential then binary search over a
// monotone memory(batch) function (each call analyses the model at that batch).
Expected<int64_t> find_max_batch(const std::function<Expected<int64_t>(int64_t)>& memory_at, double capacity_bytes,
                                 int64_t limit = int64_t{1} << 20);

}  // namespace rooflens
