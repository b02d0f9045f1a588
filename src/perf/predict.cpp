// predict(): a model's time on a device, layer by layer, with what bounds each layer
// (perf/model.h; docs/perf-model.md).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <optional>
#include <set>

#include "rooflens/ir/patterns.h"
#include "rooflens/passes/infer_shapes.h"
#include "rooflens/perf/kernel_predict.h"
#include "rooflens/perf/layer_class.h"
#include "rooflens/perf/layer_model.h"
#include "rooflens/perf/layer_sequence.h"
#include "rooflens/perf/model.h"

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

// Notes on the roofs every layer is held to.
void add_roof_notes(Prediction& p, const LayerModel& lm) {
  const DeviceSpec& d = lm.device();
  const PerfOptions& o = lm.options();
  const double attain = lm.attain();
  if (attain != 1.0)
    p.notes.push_back(fmt::format("compute roofs scaled by the measured/datasheet peak ratio {:.2f}", attain));
  if (d.is_gpu()) {
    const double mem_eff = lm.memory_efficiency();
    if (mem_eff != 1.0)
      p.notes.push_back("memory roofs at " + std::to_string(static_cast<int>(std::lround(100 * mem_eff))) +
                        "% of the datasheet bandwidth (achievable share)");
    if (o.engine.kernel_gap_s > 0)
      p.notes.push_back("each kernel adds a serialized " +
                        std::to_string(static_cast<int>(std::lround(o.engine.kernel_gap_s * 1e6))) +
                        " us gap to its overlapped time");
  }
}

// The roofline numbers of a costed layer, its bound with one line of evidence, and its flags.
void set_roofline(LayerPrediction& L, const LayerWork& w, const LayerTiming& t, const LayerModel& lm) {
  const DeviceSpec& d = lm.device();
  const GemmShape& gs = w.gemm;
  const bool tensor = lm.tensor().has_value();
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
      L.why =
          "fills " + std::to_string(static_cast<int>(100 * L.wave_efficiency)) + "% of the device's thread-block slots";
    } else if (L.tensor_eligible && !L.aligned) {
      L.bound = Bound::kMisaligned;
      L.why = "channels " + std::to_string(gs.align_in) + "->" + std::to_string(gs.align_out) +
              " are not multiples of " + std::to_string(lm.channel_multiple()) + ": no tensor cores";
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
}

// The bytes that keep a network's weights from one run to the next: the private (L2) caches
// of the threads the table was measured with, where the device file knows them, and never more
// than the table's cache. A last-level cache shared with other tenants does not keep them: on
// the Xeon VM of 2026-12-05 (480 MiB L3 shared, 2 MiB L2 per core) EfficientNet-B1's classifier
// head (5.1 MB of weights, 31 MB in the network) read its weights at 24 GB/s, the DRAM's rate,
// at batch 1 (docs/validation.md, "The weights' stream at batch 1").
double retained_cache_bytes(const KernelTable& t, const DeviceSpec& d) {
  if (!d.cpu || d.cpu->l2_bytes <= 0 || t.threads <= 0) return t.cache_bytes;
  return std::min(t.cache_bytes, d.cpu->l2_bytes * t.threads);
}

// The share of a convolution's weight stream that its kernel does not hide, from the ratio of
// its warm-cache time to the stream's time (the reuse of each weight read): all of it at or
// below kStreamExposedRatio, none at or above kStreamHiddenRatio, log-linear between. Measured
// on ResNet-50 at batch 1 (the same VM): the 7x7 stage (ratio 2.1-2.3) ran its warm fit plus
// its weights at 22-29 GB/s; the 14x14 stage's 3x3 convolutions (ratio 8.5) ran their fit.
constexpr double kStreamExposedRatio = 3, kStreamHiddenRatio = 10;
double exposed_stream_share(double kernel_over_stream) {
  if (kernel_over_stream <= kStreamExposedRatio) return 1;
  if (kernel_over_stream >= kStreamHiddenRatio) return 0;
  return std::log(kStreamHiddenRatio / kernel_over_stream) / std::log(kStreamHiddenRatio / kStreamExposedRatio);
}

// What the in-network level multiplied the table's times by at `batch`.
std::string level_note(const KernelTable& t, int64_t batch) {
  std::set<std::string> classes;
  std::map<std::string, std::set<int>> positioned;  // class -> its positions, ascending
  for (const NetworkLevel& l : t.network_levels)
    for (const auto& [c, v] : l.classes) {
      const auto p = split_level_key(c);
      if (!p) continue;
      if (p->position > 0)
        positioned[p->cls].insert(p->position);
      else if (c != kGroupedLevelClass)
        classes.insert(c);
    }
  std::string per;
  for (const std::string& c : classes)
    per += fmt::format("{}{} {:.3f}", per.empty() ? "" : ", ", c, network_level_at(t, batch, c));
  std::string by;
  for (const auto& [c, ns] : positioned)
    by += fmt::format("{}{} at {} {} ({})", by.empty() ? "" : ", ", c,
                      c == kGroupedLevelClass ? "channels per group" : "output sides", fmt::join(ns, "/"),
                      c == kGroupedLevelClass ? "interpolated" : "interpolated, in place of the class's");
  return fmt::format(
      "table times x {:.3f}, the table's level inside whole networks at batch {}{}{}: measured on generated networks "
      "when it was probed (kernel_table.network_levels)",
      network_level_at(t, batch), batch, per.empty() ? "" : " (per class: " + per + "; other classes the overall)",
      by.empty() ? "" : "; by position: " + by);
}

// A CPU with a measured kernel table: layer times from the table (bounds and flags still
// from the roofline terms, which say why a layer takes its time), and what the note says.
class TableTiming {
 public:
  TableTiming(const Graph& g, const ModelAnalysis& m, const DeviceSpec& d, const PerfOptions& o,
              const MemoryEstimate& memory)
      : g_(g), d_(d), memory_(memory) {
    if (d.is_gpu() || !d.kernel_table || !o.use_kernel_table || o.dtype != d.kernel_table->dtype) return;
    table_ = &*d.kernel_table;
    conversions_ = layout_conversions(g, m);
    for (const auto& r : m.layers) weight_bytes_ += static_cast<double>(r.cost.bytes_weights);
    // The warm-cache fits (table->classes), always. Weights stay in cache from one run to
    // the next only when they and the largest set of live activations fit it together; when
    // they do not, each layer takes at least the time to stream its weights from memory, a
    // matrix product over tokens or pixels takes it on top of its own, and a convolution the
    // share its reuse does not hide (below). This replaced the cold-cache fits, which
    // over-predicted: caches evicted before every sample are colder than a network's layers
    // ever are (docs/validation.md, 2026-12-01 rerun).
    retained_bytes_ = retained_cache_bytes(*table_, d);
    weights_stream_ = retained_bytes_ > 0 && d.mem_bandwidth > 0 &&
                      weight_bytes_ + static_cast<double>(memory.activations) > retained_bytes_;
    gemm_adds_stream_ = table_->classes.count("gemm_skinny") > 0;
    batch_ = m.batch;
    stream_latency_ = stream_latency_at(*table_, batch_);
  }

  bool active() const { return table_ != nullptr; }

  // Replaces the roofline time of costed layer i (report r) by the table's, where it has one.
  void time(size_t i, const LayerReport& r, LayerPrediction& L) {
    const KernelTable& table = *table_;
    if (runs_inside_concat(g_, r)) {
      // The oneDNN backend applies this normalisation and ReLU while copying the concat
      // before it (ir/patterns.h): no pass of its own.
      L.time_s = 0;
      L.table_class = "in-concat";
      ++table_layers_;
      return;
    }
    const auto classified = classify_layer(g_, r, table.simd_lanes);
    const auto k = classified ? std::optional<LayerKernel>(timed_kernel(table.classes, *classified)) : std::nullopt;
    auto t_table = k ? table_layer_seconds(table, table.classes, *k, conversions_[i]) : std::nullopt;
    bool held_head = false;  // a gemm_skinny layer held at its weights' stream
    if (t_table && weights_stream_) {
      const double stream_s = static_cast<double>(r.cost.bytes_weights) / d_.mem_bandwidth;
      if (classified->cls == "gemm" && gemm_adds_stream_) {
        // A matrix product over tokens or pixels does not hide its weights' stream behind
        // its FLOPs: measured on ViT-B/32 (Zen 5, batch 1), fc1 took 0.71 ms = the warm
        // fit's 0.52 + 9.4 MB at 48 GB/s (0.20); the max of the two missed the zoo's
        // transformers by up to 27% (docs/validation.md, 2026-12-04). Tables probed before
        // gemm_skinny existed fitted heads and tokens with one gemm power law, which took in
        // part of the stream: they keep the max, and predict as they did.
        *t_table += stream_s;
        ++stream_added_;
      } else if (classified->cls == "gemm_skinny" && gemm_adds_stream_) {
        // A classifier head whose weights come from memory streams them and multiplies them
        // one after the other (the backend packs the weights first): its stream plus its
        // FLOPs at the attainable peak. Its warm fit does not describe it: the fit's largest
        // samples did not fit the cache either, and extrapolated AlexNet's and VGG's first
        // classifier layers to 3x and 5x their measured time at batch 8 (Zen 4, 2026-12-07;
        // docs/perf-model.md, "The head's FLOPs after its stream").
        *t_table = stream_s + L.t_compute;
        ++stream_bound_;
        held_head = true;
      } else if (stream_s > *t_table) {
        *t_table = stream_s;
        ++stream_bound_;
        held_head = classified->cls == "gemm_skinny";
      } else if (classified->cls == "conv" || classified->cls == "pointwise") {
        const double share = exposed_stream_share(*t_table / stream_s);
        *t_table += share * stream_s;
        if (share > 0) ++stream_exposed_;
      }
    }
    if (!t_table) {
      ++roofline_layers_;
      return;
    }
    // The table's level inside a network, on the whole layer time, weights' stream included
    // (on the fit's time alone, before the stream: 76% of the zoo within +-10% at batch 1
    // against 80%, the same 80% at batch 8; docs/generated/validate-cpu-2026-12-06).
    LevelKey lk = level_key(g_, r, *k);
    if (held_head && (stream_latency_ || table.network_levels.empty())) {
      // Its stream plus the networks' latency (kStreamLevelClass); a table being levelled (no
      // levels yet) keys it so that the level networks measure that latency.
      lk = {kStreamLevelClass, 0};
      L.level = 1;
      *t_table += stream_latency_.value_or(0);
      ++stream_latency_layers_;
    } else {
      L.level = network_level_at(table, batch_, lk.cls, lk.position);
      *t_table *= L.level;
    }
    // A power law extrapolated past its samples can promise more than the machine has:
    // no layer is predicted faster than its FLOPs at the unit's attainable peak.
    const double floor_s = L.peak_used > 0 ? static_cast<double>(L.flops) / L.peak_used : 0;
    if (floor_s > *t_table) {
      ++table_floored_;
      floor_peak_ = L.peak_used;
    }
    L.time_s = std::max(*t_table, floor_s);
    L.table_class = k->cls;
    L.level_class = lk.cls;
    L.level_position = lk.position;
    L.layout_conversions = static_cast<int>(conversions_[i].size());
    ++table_layers_;
  }

  void add_notes(Prediction& p) const {
    const KernelTable& table = *table_;
    p.notes.push_back(
        "layer times from the measured kernel table in " + d_.file + " (" + table.backend + ", " +
        std::to_string(table.threads) + " thread(s), measured " + table.measured + "; " + "warm-cache fits; weights " +
        fmt::format("{:.1f} MiB + live activations {:.1f} MiB ", weight_bytes_ / (1 << 20),
                    static_cast<double>(memory_.activations) / (1 << 20)) +
        (weights_stream_ ? "exceed " : "fit ") +
        fmt::format("the {:.0f} MiB of cache that keeps them between runs", retained_bytes_ / (1 << 20)) +
        (weights_stream_ ? fmt::format(", so each layer takes at least its weights at {:.0f} GB/s ({} held there"
                                       "; {} matrix product(s) over tokens or pixels take it on top of their time"
                                       "; {} convolution(s) with few rows per weight take the share they do not hide)",
                                       d_.mem_bandwidth / 1e9, stream_bound_, stream_added_, stream_exposed_)
                         : std::string()) +
        ") for " + std::to_string(table_layers_) + " layer(s)" +
        (roofline_layers_ ? ", the roofline for " + std::to_string(roofline_layers_) + " of classes it lacks" : ""));
    if (!table.network_levels.empty()) p.notes.push_back(level_note(table, p.batch));
    if (stream_latency_ && stream_latency_layers_ > 0)
      p.notes.push_back(fmt::format(
          "{} classifier head(s) held at their weights' stream take it and their FLOPs at the attainable peak, plus "
          "{:.1f} us, the latency such heads "
          "showed inside the generated networks (kernel_table.network_levels.stream_latency_s), in place of a level",
          stream_latency_layers_, 1e6 * *stream_latency_));
    if (table_floored_)
      p.notes.push_back(std::to_string(table_floored_) +
                        " layer(s) the kernel table put faster than the attainable peak " +
                        fmt::format("({:.0f} GFLOP/s)", floor_peak_ / 1e9) + " were held at it");
  }

 private:
  const Graph& g_;
  const DeviceSpec& d_;
  const MemoryEstimate& memory_;
  const KernelTable* table_ = nullptr;
  std::vector<std::vector<LayoutConversion>> conversions_;
  double weight_bytes_ = 0;
  double retained_bytes_ = 0;    // cache that keeps the weights between runs (retained_cache_bytes)
  bool weights_stream_ = false;  // weights exceed it: read from memory every run
  // A gemm layer adds its stream rather than taking the max: tables that have gemm_skinny.
  bool gemm_adds_stream_ = false;
  int table_layers_ = 0, roofline_layers_ = 0, table_floored_ = 0;
  int stream_bound_ = 0;                  // layers held at their weights' streaming time
  int stream_added_ = 0;                  // gemm layers that take their weights' streaming time on top
  int stream_exposed_ = 0;                // convolutions that take a share of it on top
  int stream_latency_layers_ = 0;         // heads held at their stream that take its latency on top
  double floor_peak_ = 0;                 // FLOP/s a floored layer was held at
  int64_t batch_ = 1;                     // the model's: the in-network level's batch
  std::optional<double> stream_latency_;  // stream_latency_at the model's batch
};

}  // namespace

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

Expected<Prediction> predict(const Graph& g, const ModelAnalysis& m_in, const DeviceSpec& d, const PerfOptions& o) {
  // An engine that fuses otherwise (PyTorch eager runs BatchNorm and activations as their own
  // kernels) sees the graph's layers as passes/fuse.h groups them for it.
  std::optional<ModelAnalysis> engine_view;
  if (d.is_gpu() && o.engine.fusion != FusionMode::kEngine && m_in.fused) {
    auto order = g.topo_order();
    if (!order) return order.status();
    InferResult ir;
    ir.order = *order;
    AnalyzeOptions ao;
    ao.cost.dtype = m_in.dtype;
    ao.fusion = o.engine.fusion;
    engine_view = analyze_graph(g, ir, ao);
    engine_view->model = m_in.model;
  }
  const ModelAnalysis& m = engine_view ? *engine_view : m_in;
  Prediction p;
  if (d.is_gpu()) p.engine = o.engine.id;
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
  if (d.is_gpu()) p.notes.push_back(o.engine.describe());
  add_roof_notes(p, *lm);

  const MemoryEstimate memory = estimate_memory(g, m, d);
  TableTiming table(g, m, d, o, memory);
  const LayerSequence seq = graph_layer_sequence(g, m);
  p.time_s = time_layers(
      *lm, seq,
      [&](size_t i, int64_t reused) {
        const LayerReport& r = m.layers[i];
        const LayerWork& w = seq.work(i);
        LayerPrediction L;
        L.name = r.name;
        L.op = r.op;
        L.flops = w.flops;
        L.bytes = w.bytes;
        L.ai = r.ai;
        L.layer_class = std::string(layer_class_name(layer_class(g, r)));
        if (!w.costed) {
          L.bound = Bound::kNone;
          p.layers.push_back(std::move(L));
          return 0.0;
        }
        set_roofline(L, w, lm->time(w, reused), *lm);
        if (table.active()) table.time(i, r, L);
        L.achieved_flops = L.time_s > 0 ? static_cast<double>(L.flops) / L.time_s : 0;
        const double t = L.time_s;
        p.layers.push_back(std::move(L));
        return t;
      },
      &p.host_s);
  if (table.active()) table.add_notes(p);
  if (p.host_s > 0)
    p.notes.push_back(fmt::format("host issue time {:.3f} ms against {:.3f} ms of kernels: {}", p.host_s * 1e3,
                                  std::accumulate(p.layers.begin(), p.layers.end(), 0.0,
                                                  [](double a, const LayerPrediction& L) { return a + L.time_s; }) *
                                      1e3,
                                  p.host_s >= p.time_s * 0.9 ? "host-bound (graph capture removes it)"
                                                             : "partly hidden behind the kernels"));
  for (auto& L : p.layers) L.time_share = p.time_s > 0 ? L.time_s / p.time_s : 0;
  p.flops_per_image = static_cast<double>(m.totals.flops) / static_cast<double>(m.batch);
  p.throughput = p.time_s > 0 ? static_cast<double>(m.batch) / p.time_s : 0;
  p.utilization = p.throughput * p.flops_per_image / p.peak_datasheet;
  if (p.peak_measured) p.utilization_measured = p.throughput * p.flops_per_image / *p.peak_measured;
  p.memory_bytes = memory.total();
  return p;
}

}  // namespace rooflens
