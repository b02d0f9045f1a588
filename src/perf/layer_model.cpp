// The per-layer performance model (perf/layer_model.h): device and options resolved once,
// then one fused layer's time and what bounds it.
#include "rooflens/perf/layer_model.h"

#include <algorithm>
#include <cmath>

namespace rooflens {
namespace {

int64_t ceil_div(int64_t a, int64_t b) { return b > 0 ? (a + b - 1) / b : 0; }

}  // namespace

Expected<LayerModel> LayerModel::make(const DeviceSpec& d, const PerfOptions& o, DType elem_dtype) {
  auto best = d.best_peak(o.dtype);
  if (!best)
    return Status::unsupported("device '" + d.id + "' has no peak for dtype " + o.dtype + " (see " + d.file + ")");
  LayerModel lm;
  lm.d_ = &d;
  lm.o_ = &o;
  lm.best_ = *best;
  if (auto mp = d.best_measured_peak(o.dtype)) lm.peak_measured_ = mp->flops;
  // Scale factor from datasheet to attainable compute (applies to every unit).
  lm.attain_ = (o.use_measured_peak && lm.peak_measured_) ? *lm.peak_measured_ / lm.best_.flops : 1.0;
  // Peaks per unit for this dtype.
  lm.tensor_ = d.unit_peak(o.dtype, ComputeUnit::kTensor);
  lm.scalar_ = d.is_gpu() ? d.unit_peak(o.dtype, ComputeUnit::kCuda) : d.unit_peak(o.dtype, ComputeUnit::kSimd);
  if (!lm.scalar_)
    lm.scalar_ = d.is_gpu() ? d.unit_peak("fp32", ComputeUnit::kCuda) : d.unit_peak("fp32", ComputeUnit::kSimd);
  if (!lm.scalar_) lm.scalar_ = best;  // a custom device with only one figure
  // cuDNN's PSEUDO_HALF: fp16/bf16 CUDA-core kernels compute in fp32, at the fp32 rate.
  if (d.is_gpu() && o.engine.pseudo_half && (o.dtype == "fp16" || o.dtype == "bf16"))
    if (auto f32 = d.unit_peak("fp32", ComputeUnit::kCuda)) lm.scalar_ = f32;
  lm.multiple_ = d.tc_channel_multiple.count(o.dtype) ? d.tc_channel_multiple.at(o.dtype) : 8;
  lm.slots_gemm_ = d.is_gpu() ? static_cast<double>(d.sm_count) * o.gemm_blocks_per_sm : 1.0;
  lm.threads_full_ = d.is_gpu() ? static_cast<double>(d.sm_count) * d.max_threads_per_sm : 1.0;
  lm.elem_ = dtype_bytes(elem_dtype);
  // Fitted kernel efficiencies, where the device file has them (validate --fit).
  auto eff = [&](const char* cls) {
    auto it = d.efficiency.find(cls);
    return it == d.efficiency.end() ? 1.0 : it->second;
  };
  lm.eff_gemm_ = eff("gemm");
  lm.eff_depthwise_ = eff("depthwise") * (d.is_gpu() ? o.engine.depthwise_efficiency : 1.0);
  // Memory-bound kernels reach a share of the datasheet DRAM bandwidth (GPU: the achievable
  // fraction unless the device file has a measured or fitted one; CPU: the device's bandwidth
  // is already a measured STREAM triad).
  const bool has_mem_eff = d.efficiency.count("memory") > 0;
  const double gpu_mem = o.engine.memory_efficiency > 0 ? o.engine.memory_efficiency : o.gpu_dram_efficiency;
  lm.mem_div_ = has_mem_eff ? eff("memory") : (d.is_gpu() ? gpu_mem : 1.0);
  return lm;
}

namespace {

int64_t round_up(int64_t v, int64_t m) { return m > 0 ? ceil_div(v, m) * m : v; }

}  // namespace

void LayerModel::gemm_tactics(const LayerWork& w, double flops, double rate, bool tc_unit, LayerTiming& L) const {
  const DeviceSpec& d = *d_;
  const PerfOptions& o = *o_;
  const GemmShape& gs = w.gemm;
  const double base_dram = static_cast<double>(L.dram_bytes);
  const double in_flight_needed = d.mem_bandwidth * o.memory_latency_s;
  // Tile widths the engine can pick for the output channels (a tactic). On tensor cores a
  // tile narrower than tile_n reuses each loaded operand over fewer outputs, so the SM's
  // operand path (shared-memory fill and reads per MMA) caps its rate below the wide
  // tile's: relative rate = reuse(tile_m, w) / reuse(tile_m, tile_n), reuse(a, b) = ab/(a+b).
  // A tile wider than the channels computes padding (tile quantization). CUDA-core kernels
  // keep the wide-tile model (docs/perf-model.md, "Narrow GEMMs on tensor cores").
  const bool narrow = tc_unit && o.narrow_tile_efficiency;
  auto reuse = [](double a, double b) { return a * b / (a + b); };
  // The engine picks the fastest tile width (tile_n, then halves down to min_tile_n on
  // tensor cores) and split of K (tactics); partial sums travel as fp32.
  double best_t = -1;
  for (int width = o.tile_n;;) {
    const double n_tiles = static_cast<double>(ceil_div(gs.cols, width));
    const double tiles = static_cast<double>(gs.groups) * static_cast<double>(ceil_div(gs.rows, o.tile_m)) * n_tiles;
    const double cta_bytes = static_cast<double>(o.pipeline_stages) * (o.tile_m + width) * o.k_tile * elem_;
    const double tile_eff = narrow ? static_cast<double>(gs.cols) / (n_tiles * width) *
                                         std::min(1.0, reuse(o.tile_m, width) / reuse(o.tile_m, o.tile_n))
                                   : 1.0;
    for (int split = 1; split <= o.max_split_k; split *= 2) {
      if (split > 1 && (tiles * split > 2 * slots_gemm_ || gs.k / split < o.k_tile * 4)) break;
      const double ctas = tiles * split;
      const double waves = std::ceil(ctas / slots_gemm_);
      const double wave_eff = std::max(ctas / (waves * slots_gemm_), 1e-6);
      const double bw_eff = std::max(std::min(1.0, ctas * cta_bytes / in_flight_needed), 1e-6);
      const double partials = split > 1 ? 2.0 * split * static_cast<double>(gs.rows * gs.cols * gs.groups) * 4 : 0;
      const double tc = flops / (rate * wave_eff * tile_eff);
      const double tm = (base_dram + partials) / (d.mem_bandwidth * bw_eff);
      if (best_t < 0 || std::max(tc, tm) < best_t) {
        best_t = std::max(tc, tm);
        L.split_k = split;
        L.tile_n = width;
        L.tile_efficiency = tile_eff;
        L.wave_efficiency = wave_eff;
        L.bw_efficiency = bw_eff;
        L.dram_bytes = static_cast<int64_t>(base_dram + partials);
        L.t_compute = tc;
        L.t_memory = tm;
      }
    }
    if (!narrow) break;
    width /= 2;
    if (width < o.min_tile_n) break;
  }
}

LayerTiming LayerModel::time(const LayerWork& w, int64_t reused) const {
  const DeviceSpec& d = *d_;
  const PerfOptions& o = *o_;
  const GemmShape& gs = w.gemm;
  const EngineProfile& e = o.engine;
  LayerTiming L;
  L.dram_bytes = std::max<int64_t>(0, w.bytes - reused);

  // Unit: tensor cores for eligible linear layers with aligned channels; misaligned ones as
  // the engine's tactic for them says (perf/engine.h).
  L.tensor_eligible = gs.valid && !gs.depthwise && tensor_.has_value();
  L.aligned = !gs.valid || (gs.align_in % multiple_ == 0 && gs.align_out % multiple_ == 0);
  const bool gpu = d.is_gpu();
  if (L.tensor_eligible && L.aligned) {
    L.unit = ComputeUnit::kTensor;
    L.peak_used = tensor_->flops * attain_;
  } else {
    L.unit = scalar_->unit;
    L.peak_used = scalar_->flops * attain_;
  }
  const double base_dram = static_cast<double>(L.dram_bytes);
  if (gpu && gs.valid) {
    // Tensor-core convolutions over few input channels gather operands tap by tap.
    const int64_t cin_padded = round_up(gs.align_in, multiple_);
    const double gather = e.tc_full_rate_channels > 0 && gs.k > gs.align_in
                              ? std::min(1.0, static_cast<double>(cin_padded) / e.tc_full_rate_channels)
                              : 1.0;
    double rate = L.peak_used;
    if (L.unit == ComputeUnit::kTensor) rate *= gather;
    // Direct CUDA-core convolutions over fewer channels than the tensor-core multiple.
    // Other CUDA-core GEMM-like layers (fp32 without TF32, a device without tensor cores).
    if (L.unit != ComputeUnit::kTensor && !gs.depthwise)
      rate *= gs.align_in < multiple_ ? e.small_channel_efficiency : e.cuda_core_efficiency;
    gemm_tactics(w, static_cast<double>(w.flops), rate, L.unit == ComputeUnit::kTensor, L);
    const bool padded_allowed =
        L.tensor_eligible && !L.aligned &&
        (e.misaligned == MisalignedTactic::kFastest || (e.misaligned == MisalignedTactic::kHeuristic &&
                                                        gs.rows >= e.padded_rows_min && gs.rows <= e.padded_rows_max));
    if (padded_allowed) {
      // A tensor-core kernel on channels padded to the multiple: more FLOPs at the tensor rate.
      const double pad = static_cast<double>(cin_padded * round_up(gs.align_out, multiple_)) /
                         static_cast<double>(std::max<int64_t>(1, gs.align_in * gs.align_out));
      LayerTiming P = L;
      P.dram_bytes = static_cast<int64_t>(base_dram);
      P.unit = ComputeUnit::kTensor;
      P.peak_used = tensor_->flops * attain_;
      gemm_tactics(w, static_cast<double>(w.flops) * pad, P.peak_used * gather, true, P);
      const bool take = e.misaligned == MisalignedTactic::kHeuristic ||
                        std::max(P.t_compute, P.t_memory) < std::max(L.t_compute, L.t_memory);
      if (take) L = P;
    }
  } else if (gpu) {
    const double in_flight_needed = d.mem_bandwidth * o.memory_latency_s;
    const double threads = std::ceil(static_cast<double>(w.out_elems) / o.elements_per_thread);
    L.wave_efficiency = std::max(std::min(1.0, threads / threads_full_), 1e-6);
    const double thread_bytes = static_cast<double>(o.elements_per_thread) * elem_;
    L.bw_efficiency = std::max(std::min(1.0, threads * thread_bytes / in_flight_needed), 1e-6);
    L.t_compute = static_cast<double>(w.flops) / (L.peak_used * L.wave_efficiency);
    L.t_memory = base_dram / (d.mem_bandwidth * L.bw_efficiency);
  } else {
    // CPU: the working set decides which cache roof applies (the probe measures them).
    L.t_compute = static_cast<double>(w.flops) / L.peak_used;
    L.t_memory = base_dram / d.bandwidth_for(static_cast<double>(w.bytes));
  }
  L.t_compute /= gs.valid ? (gs.depthwise ? eff_depthwise_ : eff_gemm_) : 1.0;
  // The engine's tensor-core kernels reach its share of the modelled rate (CUDA-core
  // convolutions are held by small_channel_efficiency instead).
  if (gpu && gs.valid && L.unit == ComputeUnit::kTensor) L.t_compute /= e.gemm_efficiency;
  L.t_memory /= mem_div_;
  L.t_launch = d.launch_overhead_s;
  L.t_gap = gpu ? e.kernel_gap_s : 0.0;
  // A GPU overlaps the next launch with this kernel's execution, so a kernel costs at least
  // one launch interval, plus the serialized drain/ramp gap between dependent kernels; a CPU
  // primitive's dispatch runs on the same cores, before its work.
  L.time_s =
      gpu ? std::max({L.t_compute, L.t_memory, L.t_launch}) + L.t_gap : L.t_launch + std::max(L.t_compute, L.t_memory);
  return L;
}

double LayerModel::host_s(const LayerWork& w) const {
  const EngineProfile& e = o_->engine;
  if (!d_->is_gpu() || e.captured || !w.costed) return 0;
  return w.gemm.valid ? e.host_library_call_s : e.host_kernel_call_s;
}

}  // namespace rooflens
