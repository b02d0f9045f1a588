// The performance model (docs/perf-model.md).
#include "rooflens/perf/model.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>

#include "rooflens/ir/patterns.h"
#include "rooflens/perf/kernel_predict.h"
#include "rooflens/perf/layer_model.h"

namespace rooflens {
namespace {

// A BatchNormalization + ReLU layer that the oneDNN backend runs inside the channel Concat
// before it (ir/patterns.h).
bool runs_inside_concat(const Graph& g, const LayerReport& r) {
  if (r.nodes.size() != 2) return false;
  const Node& bn = g.node(r.nodes[0]);
  if (bn.kind != OpKind::kBatchNormalization || bn.inputs.empty() || bn.inputs[0] == kNoValue) return false;
  const NodeId producer = g.value(bn.inputs[0]).producer;
  return producer >= 0 && concat_feeding_norm_relu(g, producer) == r.nodes[0] &&
         g.value(bn.outputs[0]).consumers[0] == r.nodes[1];
}

int64_t attr_int(const Node& n, const char* name, int64_t def) {
  auto it = n.attrs.find(name);
  if (it == n.attrs.end()) return def;
  const auto* v = std::get_if<int64_t>(&it->second);
  return v ? *v : def;
}

int64_t ceil_div(int64_t a, int64_t b) { return b > 0 ? (a + b - 1) / b : 0; }

}  // namespace

GemmShape gemm_shape(const Graph& g, const Node& n) {
  GemmShape s;
  if (n.kind == OpKind::kConv) {
    const Shape& x = *g.value(n.inputs[0]).shape;
    const Shape& w = *g.value(n.inputs[1]).shape;
    const Shape& y = *g.value(n.outputs[0]).shape;
    s.groups = attr_int(n, "group", 1);
    const int64_t cin_g = x[1] / s.groups, cout_g = y[1] / s.groups;
    int64_t spatial = 1;
    for (size_t i = 2; i < y.size(); ++i) spatial *= y[i];
    int64_t kernel = 1;
    for (size_t i = 2; i < w.size(); ++i) kernel *= w[i];
    s.rows = y[0] * spatial;
    s.cols = cout_g;
    s.k = cin_g * kernel;
    s.align_in = cin_g;
    s.align_out = cout_g;
    s.depthwise = cin_g == 1 && s.groups > 1;
    s.valid = true;
  } else if (n.kind == OpKind::kGemm || n.kind == OpKind::kMatMul) {
    const Shape& y = *g.value(n.outputs[0]).shape;
    const Shape& a = *g.value(n.inputs[0]).shape;
    if (y.empty()) return s;
    s.cols = y.back();
    s.rows = 1;
    for (size_t i = 0; i + 1 < y.size(); ++i) s.rows *= y[i];
    const bool ta = n.kind == OpKind::kGemm && attr_int(n, "transA", 0) != 0;
    s.k = ta ? a[0] : a.back();
    s.align_in = s.k;
    s.align_out = s.cols;
    s.valid = true;
  }
  return s;
}

LayerWork layer_work(const Graph& g, const LayerReport& r) {
  LayerWork w;
  w.flops = r.cost.flops;
  w.bytes = r.cost.bytes_in + r.cost.bytes_out + r.cost.bytes_weights;
  w.costed = r.status == LayerStatus::kOk && !(w.flops == 0 && w.bytes == 0);
  if (!w.costed) return w;
  w.gemm = gemm_shape(g, g.node(r.nodes.front()));
  for (const auto& sh : r.out_shapes) w.out_elems += checked_numel(sh).value_or(0);
  return w;
}

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
        const int64_t b = checked_numel(*v.shape).value_or(0) * (dtype_is_float(v.dtype) ? elem_ : dtype_bytes(v.dtype));
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

std::vector<std::vector<L2Input>> layer_l2_inputs(const Graph& g, const ModelAnalysis& m) {
  L2Sources sources(g, m);
  std::vector<std::vector<L2Input>> out(m.layers.size());
  for (size_t i = 0; i < m.layers.size(); ++i) sources.inputs(i, out[i]);
  return out;
}

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
  lm.eff_depthwise_ = eff("depthwise");
  // Memory-bound kernels reach a share of the datasheet DRAM bandwidth (GPU: the achievable
  // fraction unless the device file has a measured or fitted one; CPU: the device's bandwidth
  // is already a measured STREAM triad).
  const bool has_mem_eff = d.efficiency.count("memory") > 0;
  lm.mem_div_ = has_mem_eff ? eff("memory") : (d.is_gpu() ? o.gpu_dram_efficiency : 1.0);
  return lm;
}

LayerTiming LayerModel::time(const LayerWork& w, int64_t reused) const {
  const DeviceSpec& d = *d_;
  const PerfOptions& o = *o_;
  const GemmShape& gs = w.gemm;
  LayerTiming L;
  L.dram_bytes = std::max<int64_t>(0, w.bytes - reused);

  // Unit: tensor cores for eligible linear layers with aligned channels.
  L.tensor_eligible = gs.valid && !gs.depthwise && tensor_.has_value();
  L.aligned = !gs.valid || (gs.align_in % multiple_ == 0 && gs.align_out % multiple_ == 0);
  if (L.tensor_eligible && L.aligned) {
    L.unit = ComputeUnit::kTensor;
    L.peak_used = tensor_->flops * attain_;
  } else {
    L.unit = scalar_->unit;
    L.peak_used = scalar_->flops * attain_;
  }

  // Parallel work: GEMM tiles in waves (with split-K tactics); otherwise threads over
  // output elements. Bandwidth needs enough bytes in flight (Little's law).
  const double base_dram = static_cast<double>(L.dram_bytes);
  const int64_t elem = elem_;
  if (d.is_gpu()) {
    const double in_flight_needed = d.mem_bandwidth * o.memory_latency_s;
    if (gs.valid) {
      // Tile widths the engine can pick for the output channels (a tactic). On tensor cores a
      // tile narrower than tile_n reuses each loaded operand over fewer outputs, so the SM's
      // operand path (shared-memory fill and reads per MMA) caps its rate below the wide
      // tile's: relative rate = reuse(tile_m, w) / reuse(tile_m, tile_n), reuse(a, b) = ab/(a+b).
      // A tile wider than the channels computes padding (tile quantization). CUDA-core kernels
      // keep the wide-tile model (docs/perf-model.md, "Narrow GEMMs on tensor cores").
      const bool tc_unit = L.unit == ComputeUnit::kTensor && o.narrow_tile_efficiency;
      auto reuse = [](double a, double b) { return a * b / (a + b); };
      // The engine picks the fastest tile width (tile_n, then halves down to min_tile_n on
      // tensor cores) and split of K (tactics); partial sums travel as fp32.
      double best_t = -1;
      for (int width = o.tile_n;;) {
        const double n_tiles = static_cast<double>(ceil_div(gs.cols, width));
        const double tiles = static_cast<double>(gs.groups) * static_cast<double>(ceil_div(gs.rows, o.tile_m)) * n_tiles;
        const double cta_bytes = static_cast<double>(o.pipeline_stages) * (o.tile_m + width) * o.k_tile * elem;
        const double tile_eff = tc_unit ? static_cast<double>(gs.cols) / (n_tiles * width) *
                                              std::min(1.0, reuse(o.tile_m, width) / reuse(o.tile_m, o.tile_n))
                                        : 1.0;
        for (int split = 1; split <= o.max_split_k; split *= 2) {
          if (split > 1 && (tiles * split > 2 * slots_gemm_ || gs.k / split < o.k_tile * 4)) break;
          const double ctas = tiles * split;
          const double waves = std::ceil(ctas / slots_gemm_);
          const double wave_eff = std::max(ctas / (waves * slots_gemm_), 1e-6);
          const double bw_eff = std::max(std::min(1.0, ctas * cta_bytes / in_flight_needed), 1e-6);
          const double partials = split > 1 ? 2.0 * split * static_cast<double>(gs.rows * gs.cols * gs.groups) * 4 : 0;
          const double tc = static_cast<double>(w.flops) / (L.peak_used * wave_eff * tile_eff);
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
        if (!tc_unit) break;
        width /= 2;
        if (width < o.min_tile_n) break;
      }
    } else {
      const double threads = std::ceil(static_cast<double>(w.out_elems) / o.elements_per_thread);
      L.wave_efficiency = std::max(std::min(1.0, threads / threads_full_), 1e-6);
      const double thread_bytes = static_cast<double>(o.elements_per_thread) * elem;
      L.bw_efficiency = std::max(std::min(1.0, threads * thread_bytes / in_flight_needed), 1e-6);
      L.t_compute = static_cast<double>(w.flops) / (L.peak_used * L.wave_efficiency);
      L.t_memory = base_dram / (d.mem_bandwidth * L.bw_efficiency);
    }
  } else {
    // CPU: the working set decides which cache roof applies (the probe measures them).
    L.t_compute = static_cast<double>(w.flops) / L.peak_used;
    L.t_memory = base_dram / d.bandwidth_for(static_cast<double>(w.bytes));
  }
  L.t_compute /= gs.valid ? (gs.depthwise ? eff_depthwise_ : eff_gemm_) : 1.0;
  L.t_memory /= mem_div_;
  L.t_launch = d.launch_overhead_s;
  L.t_gap = d.is_gpu() ? o.kernel_gap_s : 0.0;
  // A GPU overlaps the next launch with this kernel's execution, so a kernel costs at least
  // one launch interval, plus the serialized drain/ramp gap between dependent kernels; a CPU
  // primitive's dispatch runs on the same cores, before its work.
  L.time_s = d.is_gpu() ? std::max({L.t_compute, L.t_memory, L.t_launch}) + L.t_gap
                        : L.t_launch + std::max(L.t_compute, L.t_memory);
  return L;
}
std::string_view bound_name(Bound b) {
  switch (b) {
    case Bound::kCompute: return "compute";
    case Bound::kMemory: return "memory";
    case Bound::kStarved: return "starved";
    case Bound::kMisaligned: return "misaligned";
    case Bound::kCudaCores: return "cuda-cores";
    case Bound::kLaunch: return "launch";
    case Bound::kNone: return "none";
  }
  return "?";
}

Expected<Prediction> predict(const Graph& g, const ModelAnalysis& m, const DeviceSpec& d,
                             const PerfOptions& o) {
  Prediction p;
  p.model = m.model;
  p.device_id = d.id;
  p.device_name = d.name;
  p.dtype = o.dtype;
  p.batch = m.batch;
  auto lm = LayerModel::make(d, o, m.dtype);
  if (!lm) return lm.status();
  p.peak_datasheet = lm->best().flops;
  p.peak_measured = lm->peak_measured();
  p.cmr = lm->best().flops / d.mem_bandwidth;
  p.ai = m.ai;
  const double attain = lm->attain();
  if (attain != 1.0)
    p.notes.push_back(fmt::format("compute roofs scaled by the measured/datasheet peak ratio {:.2f}", attain));
  if (d.is_gpu()) {
    const double mem_eff = d.efficiency.count("memory") ? d.efficiency.at("memory") : o.gpu_dram_efficiency;
    if (mem_eff != 1.0)
      p.notes.push_back("memory roofs at " + std::to_string(static_cast<int>(std::lround(100 * mem_eff))) +
                        "% of the datasheet bandwidth (achievable share)");
    if (o.kernel_gap_s > 0)
      p.notes.push_back("each kernel adds a serialized " + std::to_string(static_cast<int>(std::lround(o.kernel_gap_s * 1e6))) +
                        " us gap to its overlapped time");
  }
  const std::optional<Peak>& tensor = lm->tensor();
  const int multiple = lm->channel_multiple();

  L2Sources sources(g, m);
  std::vector<L2Input> l2_inputs;
  // A CPU with a measured kernel table: layer times from the table (bounds and flags still
  // from the roofline terms, which say why a layer takes its time).
  const KernelTable* table = (!d.is_gpu() && d.kernel_table && o.use_kernel_table && o.dtype == d.kernel_table->dtype)
                                 ? &*d.kernel_table : nullptr;
  std::vector<std::vector<LayoutConversion>> conversions;
  int table_layers = 0, roofline_layers = 0, table_floored = 0;
  double floor_peak = 0;  // FLOP/s a floored layer was held at
  const MemoryEstimate memory = estimate_memory(g, m, d);
  double weight_bytes = 0;
  bool weights_stream = false;  // weights exceed the cache: read from memory every run
  int stream_bound = 0;         // layers held at their weights' streaming time
  if (table) {
    conversions = layout_conversions(g, m);
    for (const auto& r : m.layers) weight_bytes += static_cast<double>(r.cost.bytes_weights);
    // The warm-cache fits (table->classes), always. Weights stay in cache from one run to
    // the next only when they and the largest set of live activations fit it together; when
    // they do not, each
    // layer takes at least the time to stream its weights from memory (below). This replaced
    // the cold-cache fits, which over-predicted: caches evicted before every sample are
    // colder than a network's layers ever are (docs/validation.md, 2026-12-01 rerun).
    weights_stream = table->cache_bytes > 0 && d.mem_bandwidth > 0 &&
                     weight_bytes + static_cast<double>(memory.activations) > table->cache_bytes;
  }
  for (size_t i = 0; i < m.layers.size(); ++i) {
    const LayerReport& r = m.layers[i];
    LayerPrediction L;
    L.name = r.name;
    L.op = r.op;
    const LayerWork w = layer_work(g, r);
    L.flops = w.flops;
    L.bytes = w.bytes;
    L.ai = r.ai;
    if (!w.costed) {
      L.bound = Bound::kNone;
      p.layers.push_back(L);
      continue;
    }
    const GemmShape& gs = w.gemm;

    // L2 reuse: activation inputs written by an earlier layer that are still in L2 are read
    // from it: still in L2 if it, plus everything the layers in between wrote, fits the
    // reusable share of L2 (LRU reuse distance; the adjacent layer is the case with nothing
    // between).
    int64_t reused = 0;
    if (i > 0 && lm->l2_enabled()) {
      sources.inputs(i, l2_inputs);
      for (const L2Input& in : l2_inputs) {
        double distance = static_cast<double>(in.bytes);
        for (size_t j = in.src + 1; j < i; ++j) distance += static_cast<double>(m.layers[j].cost.bytes_out);
        if (lm->stays_in_l2(distance)) reused += in.bytes;
      }
    }
    const LayerTiming t = lm->time(w, reused);
    L.dram_bytes = t.dram_bytes;
    L.unit = t.unit;
    L.tensor_eligible = t.tensor_eligible;
    L.aligned = t.aligned;
    L.peak_used = t.peak_used;
    L.wave_efficiency = t.wave_efficiency;
    L.split_k = t.split_k;
    L.tile_n = t.tile_n;
    L.tile_efficiency = t.tile_efficiency;
    L.bw_efficiency = t.bw_efficiency;
    L.t_compute = t.t_compute;
    L.t_memory = t.t_memory;
    L.t_launch = t.t_launch;
    L.t_gap = t.t_gap;
    L.time_s = t.time_s;
    L.kernel_class = gs.valid ? (gs.depthwise ? "depthwise" : "gemm") : "other";

    if (L.t_launch > std::max(L.t_compute, L.t_memory)) {
      L.bound = Bound::kLaunch;
      L.why = "kernel work shorter than the launch overhead";
    } else if (L.t_compute >= L.t_memory) {
      if (L.wave_efficiency < 0.5) {
        L.bound = Bound::kStarved;
        L.why = "fills " + std::to_string(static_cast<int>(100 * L.wave_efficiency)) + "% of the device's thread-block slots";
      } else if (L.tensor_eligible && !L.aligned) {
        L.bound = Bound::kMisaligned;
        L.why = "channels " + std::to_string(gs.align_in) + "->" + std::to_string(gs.align_out) +
                " are not multiples of " + std::to_string(multiple) + ": no tensor cores";
      } else if (tensor && L.unit != ComputeUnit::kTensor && d.is_gpu()) {
        L.bound = Bound::kCudaCores;
        L.why = gs.depthwise ? "depthwise convolution runs on CUDA cores" : "op runs on CUDA cores";
      } else {
        L.bound = Bound::kCompute;
        L.why = "AI " + std::to_string(static_cast<int>(L.ai)) + " above the unit's ridge";
      }
    } else {
      if (L.bw_efficiency < 0.5) {
        L.bound = Bound::kStarved;
        L.why = "too few threads in flight to saturate memory bandwidth";
      } else {
        L.bound = Bound::kMemory;
        L.why = "AI " + std::to_string(L.ai).substr(0, 5) + " below the ridge " +
                std::to_string(static_cast<int>(L.peak_used / d.mem_bandwidth));
      }
    }
    if (L.tensor_eligible && !L.aligned) L.flags.push_back("misaligned");
    if (tensor && d.is_gpu() && !L.tensor_eligible) L.flags.push_back("cuda-cores");
    if (L.wave_efficiency < 0.5 || L.bw_efficiency < 0.5) L.flags.push_back("starved");
    if (L.t_launch > std::max(L.t_compute, L.t_memory)) L.flags.push_back("launch");
    if (table && runs_inside_concat(g, r)) {
      // The oneDNN backend applies this normalisation and ReLU while copying the concat
      // before it (ir/patterns.h): no pass of its own.
      L.time_s = 0;
      L.table_class = "in-concat";
      ++table_layers;
    } else if (table) {
      const auto k = classify_layer(g, r);
      auto t_table = k ? table_layer_seconds(*table, table->classes, *k, conversions[i]) : std::nullopt;
      if (t_table && weights_stream) {
        const double stream_s = static_cast<double>(r.cost.bytes_weights) / d.mem_bandwidth;
        if (stream_s > *t_table) {
          *t_table = stream_s;
          ++stream_bound;
        }
      }
      if (t_table) {
        // A power law extrapolated past its samples can promise more than the machine has:
        // no layer is predicted faster than its FLOPs at the unit's attainable peak.
        const double floor_s = L.peak_used > 0 ? static_cast<double>(L.flops) / L.peak_used : 0;
        if (floor_s > *t_table) {
          ++table_floored;
          floor_peak = L.peak_used;
        }
        L.time_s = std::max(*t_table, floor_s);
        L.table_class = k->cls;
        L.layout_conversions = static_cast<int>(conversions[i].size());
        ++table_layers;
      } else {
        ++roofline_layers;
      }
    }
    L.achieved_flops = L.time_s > 0 ? static_cast<double>(L.flops) / L.time_s : 0;
    p.time_s += L.time_s;
    p.layers.push_back(L);
  }
  if (table) {
    p.notes.push_back("layer times from the measured kernel table in " + d.file + " (" + table->backend + ", " +
                      std::to_string(table->threads) + " thread(s), measured " + table->measured + "; " +
                      "warm-cache fits; weights " +
                      fmt::format("{:.1f} MiB + live activations {:.1f} MiB ", weight_bytes / (1 << 20),
                                  static_cast<double>(memory.activations) / (1 << 20)) +
                      (weights_stream ? "exceed " : "fit ") + fmt::format("the {:.0f} MiB cache", table->cache_bytes / (1 << 20)) +
                      (weights_stream ? fmt::format(", so each layer takes at least its weights at {:.0f} GB/s ({} held there)",
                                                    d.mem_bandwidth / 1e9, stream_bound)
                                      : std::string()) +
                      ") for " +
                      std::to_string(table_layers) + " layer(s)" +
                      (roofline_layers ? ", the roofline for " + std::to_string(roofline_layers) + " of classes it lacks" : ""));
    if (table_floored)
      p.notes.push_back(std::to_string(table_floored) + " layer(s) the kernel table put faster than the attainable peak " +
                        fmt::format("({:.0f} GFLOP/s)", floor_peak / 1e9) + " were held at it");
  }
  for (auto& L : p.layers) L.time_share = p.time_s > 0 ? L.time_s / p.time_s : 0;
  p.flops_per_image = static_cast<double>(m.totals.flops) / static_cast<double>(m.batch);
  p.throughput = p.time_s > 0 ? static_cast<double>(m.batch) / p.time_s : 0;
  p.utilization = p.throughput * p.flops_per_image / p.peak_datasheet;
  if (p.peak_measured) p.utilization_measured = p.throughput * p.flops_per_image / *p.peak_measured;
  p.memory_bytes = memory.total();
  return p;
}

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
      if (prod.kind == OpKind::kUnknown || op_info(prod.kind).category != OpCategory::kView || prod.inputs.empty()) break;
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
    if (it == live.end()) live[r] = {at, at};
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

MemoryEstimate estimate_memory(const Graph& g, const ModelAnalysis& m, const DeviceSpec& d) {
  MemoryEstimate e;
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
  for (ValueId w : weights) e.weights += bytes_of(g.value(w));
  e.workspace = static_cast<int64_t>(d.workspace_bytes);
  for (int64_t b : live_activation_bytes(g, m)) e.activations = std::max(e.activations, b);
  return e;
}

Expected<int64_t> find_max_batch(const std::function<Expected<int64_t>(int64_t)>& memory_at,
                                 double capacity_bytes, int64_t limit) {
  auto fits = [&](int64_t b) -> Expected<bool> {
    auto mem = memory_at(b);
    if (!mem) return mem.status();
    return static_cast<double>(*mem) <= capacity_bytes;
  };
  auto one = fits(1);
  if (!one) return one.status();
  if (!*one) return Status::invalid("the model does not fit the device's memory even at batch 1");
  int64_t lo = 1, hi = 2;
  while (hi <= limit) {
    auto f = fits(hi);
    if (!f) return f.status();
    if (!*f) break;
    lo = hi;
    hi *= 2;
  }
  if (hi > limit) return lo;
  while (hi - lo > 1) {  // lo fits, hi does not
    const int64_t mid = lo + (hi - lo) / 2;
    auto f = fits(mid);
    if (!f) return f.status();
    (*f ? lo : hi) = mid;
  }
  return lo;
}

}  // namespace rooflens
