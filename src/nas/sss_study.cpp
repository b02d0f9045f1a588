// Predicting the NATS-Bench size search space on a device (nas/sss_study.h): the full path
// (one IR graph per network) and the assembled one (networks from cached segments).
#include "rooflens/nas/sss_study.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <mutex>
#include <optional>
#include <set>
#include <thread>
#include <utility>

#include "rooflens/cost/cost.h"
#include "rooflens/passes/infer_shapes.h"
#include "rooflens/perf/layer_model.h"
#include "rooflens/perf/layer_sequence.h"
#include "rooflens/perf/max_batch.h"
#include "rooflens/perf/memory.h"
#include "rooflens/util/parallel.h"
#include "rooflens/util/pareto.h"

namespace rooflens {
namespace {

constexpr int kSegments = 5;

struct Analysed {
  Graph graph;
  ModelAnalysis analysis;
};

Expected<Analysed> build_analysed(const SssWidths& widths, const SssNetInput& input, DType dtype, int64_t batch) {
  auto g = build_sss_network(widths, input, batch);
  if (!g) return g.status();
  auto inferred = infer_shapes(*g);
  if (!inferred) return inferred.status().with_context("NATS-SSS network " + sss_arch_string(widths));
  AnalyzeOptions ao;
  ao.cost.dtype = dtype;
  ModelAnalysis m = analyze_graph(*g, *inferred, ao);
  m.model = sss_arch_string(widths);
  if (!m.unknown_nodes.empty())  // an internal invariant: the builder emits only known ops
    return Status::internal("NATS-SSS network " + m.model + ": unknown op node " + m.unknown_nodes[0]);
  return Analysed{std::move(*g), std::move(m)};
}

// ---------------------------------------------------------------------------------------
// The assembled path (SssMethod::kAssembled).

// The five segments of a network, by node name: 0 stem + L0 cell (c0), 1 L1 (c0->c1), 2 L2
// (c1->c2), 3 L3 (c2->c3), 4 L4 cell + head (c3->c4); -1 for any other name.
int segment_of(const std::string& name) {
  auto starts = [&](const char* p) { return name.rfind(p, 0) == 0; };
  if (starts("stem.") || starts("L0.")) return 0;
  if (starts("L1.")) return 1;
  if (starts("L2.")) return 2;
  if (starts("L3.")) return 3;
  if (starts("L4.") || starts("head.")) return 4;
  return -1;
}

// An integer affine in the batch n: at1 + (n - 1) x slope, from its values at n = 1, 2, 3.
struct Affine {
  int64_t at1 = 0, slope = 0;
  int64_t at(int64_t n) const { return at1 + (n - 1) * slope; }
};

bool make_affine(const int64_t (&v)[3], Affine& out) {
  out = Affine{v[0], v[1] - v[0]};
  return v[2] == out.at(3);
}

// An earlier-layer input of a segment layer: src is a layer of the same segment, or -1 for
// the layer writing the previous segment's output.
struct SegInput {
  int src = 0;
  Affine bytes;
};

struct SegLayer {
  LayerWork work;  // at batch 1; flops, bytes, gemm.rows and out_elems scale with `n` below
  Affine flops, macs, bytes, bytes_out, rows, out_elems;
  std::vector<SegInput> inputs;
  int id = -1;  // position among all the table's layers (the per-batch timing memo)
};

struct Segment {
  bool ready = false;
  std::vector<SegLayer> layers;
  int out_layer = -1;        // the layer writing the output the next segment reads
  std::vector<Affine> live;  // activation bytes live at each step (the last segment: + final)
  int64_t params = 0, weight_bytes = 0;
};

// One representative network's segments at batches 1, 2, 3.
struct Cut {
  std::array<Segment, kSegments> seg;
};

// Segments keyed by position and widths: [k][cin position * 8 + cout position].
struct SegmentTable {
  int n_layers = 0;  // layers of all segments (SegLayer::id is 0..n_layers-1)
  std::array<std::array<Segment, kSssNumChoices * kSssNumChoices>, kSegments> seg;
  const Segment& at(int k, int64_t cin, int64_t cout) const {
    return seg[static_cast<size_t>(k)][static_cast<size_t>(width_pos(cin) * kSssNumChoices + width_pos(cout))];
  }
  Segment& at(int k, int64_t cin, int64_t cout) {
    return seg[static_cast<size_t>(k)][static_cast<size_t>(width_pos(cin) * kSssNumChoices + width_pos(cout))];
  }
  static int width_pos(int64_t w) { return static_cast<int>(w / 8 - 1); }
};

// The segment widths (cin, cout) of network `w` (segment 0: c0, c0).
std::pair<int64_t, int64_t> seg_widths(const SssWidths& w, int k) {
  return k == 0 ? std::pair{w[0], w[0]} : std::pair{w[static_cast<size_t>(k - 1)], w[static_cast<size_t>(k)]};
}

Status cut_error(const SssWidths& w, const std::string& what) {
  return Status::internal("NATS-SSS segments of " + sss_arch_string(w) + ": " + what);
}

// Cuts the analysed network `w` into segments, at batches 1, 2 and 3.
Expected<Cut> cut_network(const SssWidths& w, const SssNetInput& input, DType dtype, const DeviceSpec& device) {
  struct AtBatch {
    std::vector<int> seg_of_layer;
    LayerSequence seq;
    std::vector<OpCost> cost;
    std::vector<int64_t> live;
    std::array<int64_t, kSegments> params{}, weight_bytes{};
  };
  AtBatch at[3];
  for (int bi = 0; bi < 3; ++bi) {
    auto a = build_analysed(w, input, dtype, bi + 1);
    if (!a) return a.status();
    const Graph& g = a->graph;
    const ModelAnalysis& m = a->analysis;
    AtBatch& x = at[bi];
    for (const LayerReport& r : m.layers) {
      const int k = segment_of(g.node(r.nodes.front()).name);
      for (NodeId n : r.nodes)
        if (segment_of(g.node(n).name) != k) return cut_error(w, "layer " + r.name + " spans segments");
      if (k < 0 || (!x.seg_of_layer.empty() && k < x.seg_of_layer.back()))
        return cut_error(w, "layer " + r.name + " out of segment order");
      x.seg_of_layer.push_back(k);
      x.cost.push_back(r.cost);
    }
    x.seq = graph_layer_sequence(g, m);
    x.live = live_activation_bytes(g, m);
    // Params and stored weights per segment, as count_params and estimate_memory count them
    // (checked against their totals below).
    std::set<ValueId> counted, stored;
    for (const Node& n : g.nodes) {
      const int k = segment_of(n.name);
      if (k < 0) return cut_error(w, "node " + n.name + " outside the segments");
      for (size_t i = 0; i < n.inputs.size(); ++i) {
        const ValueId v = n.inputs[i];
        if (v == kNoValue) continue;
        const Value& val = g.value(v);
        if (val.kind != ValueKind::kInitializer || !dtype_is_float(val.dtype) || !val.shape) continue;
        const int64_t numel = checked_numel(*val.shape).value_or(0);
        if (stored.insert(v).second) x.weight_bytes[static_cast<size_t>(k)] += numel * dtype_bytes(m.dtype);
        if (n.kind == OpKind::kBatchNormalization && (i == 3 || i == 4)) continue;
        if (numel <= 1) continue;
        if (counted.insert(v).second) x.params[static_cast<size_t>(k)] += numel;
      }
    }
    int64_t params = 0, weight_bytes = 0;
    for (int k = 0; k < kSegments; ++k)
      params += x.params[static_cast<size_t>(k)], weight_bytes += x.weight_bytes[static_cast<size_t>(k)];
    if (params != m.params || weight_bytes != estimate_memory(g, m, device).weights)
      return cut_error(w, "params or weights do not add up by segment");
  }

  const AtBatch& b1 = at[0];
  const size_t n_layers = b1.seg_of_layer.size();
  for (int bi = 1; bi < 3; ++bi)
    if (at[bi].seg_of_layer != b1.seg_of_layer || at[bi].live.size() != b1.live.size() || at[bi].params != b1.params ||
        at[bi].weight_bytes != b1.weight_bytes)
      return cut_error(w, "the layers change with the batch");
  std::array<size_t, kSegments + 1> start{};
  {
    size_t i = 0;
    for (int k = 0; k < kSegments; ++k) {
      start[static_cast<size_t>(k)] = i;
      while (i < n_layers && b1.seg_of_layer[i] == k) ++i;
      if (i == start[static_cast<size_t>(k)]) return cut_error(w, "segment " + std::to_string(k) + " has no layer");
    }
    start[kSegments] = i;
  }

  Cut cut;
  for (int k = 0; k < kSegments; ++k) {
    Segment& s = cut.seg[static_cast<size_t>(k)];
    s.params = b1.params[static_cast<size_t>(k)];
    s.weight_bytes = b1.weight_bytes[static_cast<size_t>(k)];
    const size_t lo = start[static_cast<size_t>(k)], hi = start[static_cast<size_t>(k) + 1];
    for (size_t i = lo; i < hi; ++i) {
      SegLayer L;
      L.work = b1.seq.work(i);
      for (int bi = 1; bi < 3; ++bi) {
        const LayerWork& o = at[bi].seq.work(i);
        const GemmShape &g0 = L.work.gemm, &g1 = o.gemm;
        if (o.costed != L.work.costed || g1.valid != g0.valid || g1.depthwise != g0.depthwise ||
            g1.groups != g0.groups || g1.cols != g0.cols || g1.k != g0.k || g1.align_in != g0.align_in ||
            g1.align_out != g0.align_out || at[bi].seq.inputs(i).size() != b1.seq.inputs(i).size())
          return cut_error(w, "layer " + std::to_string(i) + " changes with the batch");
      }
      auto affine = [&](auto get, Affine& out) {
        const int64_t v[3] = {get(0), get(1), get(2)};
        return make_affine(v, out);
      };
      bool ok = affine([&](int bi) { return at[bi].cost[i].flops; }, L.flops) &&
                affine([&](int bi) { return at[bi].cost[i].macs; }, L.macs) &&
                affine([&](int bi) { return at[bi].seq.work(i).bytes; }, L.bytes) &&
                affine([&](int bi) { return at[bi].cost[i].bytes_out; }, L.bytes_out) &&
                affine([&](int bi) { return at[bi].seq.work(i).gemm.rows; }, L.rows) &&
                affine([&](int bi) { return at[bi].seq.work(i).out_elems; }, L.out_elems);
      for (size_t j = 0; ok && j < b1.seq.inputs(i).size(); ++j) {
        const size_t src = b1.seq.inputs(i)[j].src;
        for (int bi = 1; bi < 3; ++bi) ok &= at[bi].seq.inputs(i)[j].src == src;
        SegInput in;
        if (src >= lo) {
          in.src = static_cast<int>(src - lo);
        } else {
          // Written by the previous segment: must be its output layer.
          if (k == 0) return cut_error(w, "segment 0 reads an earlier layer");
          Segment& prev = cut.seg[static_cast<size_t>(k - 1)];
          const int local = static_cast<int>(src - start[static_cast<size_t>(k - 1)]);
          if (src < start[static_cast<size_t>(k - 1)] || (prev.out_layer >= 0 && prev.out_layer != local))
            return cut_error(w, "layer " + std::to_string(i) + " reads beyond the previous segment's output");
          prev.out_layer = local;
          in.src = -1;
        }
        ok &= affine([&](int bi) { return at[bi].seq.inputs(i)[j].bytes; }, in.bytes);
        L.inputs.push_back(in);
      }
      if (!ok) return cut_error(w, "layer " + std::to_string(i) + " is not affine in the batch");
      s.layers.push_back(std::move(L));
    }
    const size_t live_hi = k == kSegments - 1 ? b1.live.size() : hi;
    for (size_t i = lo; i < live_hi; ++i) {
      Affine a;
      const int64_t v[3] = {at[0].live[i], at[1].live[i], at[2].live[i]};
      if (!make_affine(v, a)) return cut_error(w, "live activations not affine in the batch");
      s.live.push_back(a);
    }
    s.ready = true;
  }
  return cut;
}

// The 8 + 4 x 64 segments of the space, from the 64 networks a:b:a:b:a (each pair of widths
// appears there at every position).
Expected<SegmentTable> build_segments(const SssNetInput& input, DType dtype, const DeviceSpec& device, int jobs) {
  constexpr int kReps = kSssNumChoices * kSssNumChoices;
  std::vector<Expected<Cut>> cuts(kReps, Status::internal("not cut"));
  parallel_for(kReps, jobs, [&](size_t r) {
    const int64_t a = kSssWidthChoices[r / kSssNumChoices];
    const int64_t b = kSssWidthChoices[r % kSssNumChoices];
    cuts[r] = cut_network(SssWidths{a, b, a, b, a}, input, dtype, device);
  });

  SegmentTable table;
  for (int r = 0; r < kReps; ++r) {
    Expected<Cut>& c = cuts[static_cast<size_t>(r)];
    if (!c) return c.status();
    const int64_t a = kSssWidthChoices[static_cast<size_t>(r / kSssNumChoices)];
    const int64_t b = kSssWidthChoices[static_cast<size_t>(r % kSssNumChoices)];
    const SssWidths w{a, b, a, b, a};
    for (int k = 0; k < kSegments; ++k) {
      auto [cin, cout] = seg_widths(w, k);
      Segment& dst = table.at(k, cin, cout);
      Segment& src = c->seg[static_cast<size_t>(k)];
      if (!dst.ready) {
        dst = std::move(src);
      } else if (dst.out_layer != src.out_layer || dst.layers.size() != src.layers.size()) {
        return cut_error(w, "segment " + std::to_string(k) + " differs between networks");
      }
    }
  }
  for (int k = 0; k < kSegments; ++k)
    for (int64_t cin : kSssWidthChoices)
      for (int64_t cout : kSssWidthChoices) {
        if (k == 0 && cin != cout) continue;
        const Segment& s = table.at(k, cin, cout);
        if (!s.ready || (k + 1 < kSegments && s.out_layer < 0))
          return Status::internal("NATS-SSS segment " + std::to_string(k) + " " + std::to_string(cin) + "->" +
                                  std::to_string(cout) + " missing");
      }
  for (auto& position : table.seg)
    for (Segment& s : position)
      for (SegLayer& L : s.layers) L.id = table.n_layers++;
  return table;
}

// Predicts network `index` from the segments; the numbers predict_sss_network gives.
class Assembler {
 public:
  Assembler(const SegmentTable& t, const LayerModel& lm, int64_t classes) : t_(t), lm_(lm), classes_(classes) {}

  Expected<SssPoint> point(int64_t index, SssBatch batch) {
    const SssWidths w = sss_widths(index);
    std::array<const Segment*, kSegments> seg{};
    for (int k = 0; k < kSegments; ++k) {
      auto [cin, cout] = seg_widths(w, k);
      seg[static_cast<size_t>(k)] = &t_.at(k, cin, cout);
    }
    const DeviceSpec& device = lm_.device();
    int64_t b = batch.size;
    if (batch.max) {
      int64_t weights = 0;
      for (const Segment* s : seg) weights += s->weight_bytes;
      auto memory_at = [&](int64_t n) -> Expected<int64_t> {
        live_.clear();
        for (const Segment* s : seg)
          for (const Affine& a : s->live) live_.push_back(a.at(n));
        return estimate_memory(weights, live_, device).total();
      };
      auto mb = find_max_batch_affine(memory_at, usable_memory(device));
      if (!mb) return mb.status().with_context("NATS-SSS network " + sss_arch_string(w) + " on " + device.id);
      b = *mb;
    }

    // The network's layers at batch b, for the layer loop of predict().
    seq_.clear();
    layers_.clear();
    std::array<size_t, kSegments> start{};
    int64_t macs = 0, flops = 0, bytes = 0, params = 0;
    for (int k = 0; k < kSegments; ++k) {
      const Segment& s = *seg[static_cast<size_t>(k)];
      start[static_cast<size_t>(k)] = seq_.size();
      params += s.params;
      for (const SegLayer& L : s.layers) {
        LayerWork work = L.work;
        work.flops = L.flops.at(b);
        work.bytes = L.bytes.at(b);
        work.gemm.rows = L.rows.at(b);
        work.out_elems = L.out_elems.at(b);
        macs += L.macs.at(b);
        flops += work.flops;
        bytes += work.bytes;
        seq_.add_layer(work, L.bytes_out.at(b));
        for (const SegInput& in : L.inputs) {
          const size_t src = in.src >= 0 ? start[static_cast<size_t>(k)] + static_cast<size_t>(in.src)
                                         : start[static_cast<size_t>(k) - 1] +
                                               static_cast<size_t>(seg[static_cast<size_t>(k) - 1]->out_layer);
          seq_.add_input({src, in.bytes.at(b)});
        }
        layers_.push_back(&L);
      }
    }
    const double time_s = time_layers(lm_, seq_, [&](size_t i, int64_t reused) {
      return seq_.work(i).costed ? layer_time(*layers_[i], seq_.work(i), reused, b, !batch.max) : 0.0;
    });

    SssPoint pt;
    pt.index = index;
    pt.arch = sss_arch_string(w);
    pt.macs = macs / b;
    pt.flop_benchmark = pt.macs + classes_;
    pt.flops = flops / b;
    pt.params = params;
    pt.ai = bytes > 0 ? static_cast<double>(flops) / static_cast<double>(bytes) : 0;
    const double flops_per_image = static_cast<double>(flops) / static_cast<double>(b);
    pt.throughput = time_s > 0 ? static_cast<double>(b) / time_s : 0;
    pt.utilization = pt.throughput * flops_per_image / lm_.best().flops;
    pt.batch = b;
    return pt;
  }

 private:
  // At a fixed batch a layer's time depends only on the bytes it reuses from L2, which take
  // a few values per layer: remembered per thread, the same double as computing it again.
  struct Memo {
    int n = 0;
    std::array<int64_t, 4> reused{};
    std::array<double, 4> time{};
  };

  double layer_time(const SegLayer& L, const LayerWork& work, int64_t reused, int64_t b, bool memoize) {
    Memo* m = nullptr;
    if (memoize) {
      if (memo_batch_ != b) {
        memo_.assign(static_cast<size_t>(t_.n_layers), Memo{});
        memo_batch_ = b;
      }
      m = &memo_[static_cast<size_t>(L.id)];
      for (int j = 0; j < m->n; ++j)
        if (m->reused[static_cast<size_t>(j)] == reused) return m->time[static_cast<size_t>(j)];
    }
    const double t = lm_.time(work, reused).time_s;
    if (m && m->n < 4) {
      m->reused[static_cast<size_t>(m->n)] = reused;
      m->time[static_cast<size_t>(m->n)] = t;
      ++m->n;
    }
    return t;
  }

  std::vector<Memo> memo_;
  int64_t memo_batch_ = -1;
  const SegmentTable& t_;
  const LayerModel& lm_;
  int64_t classes_;
  LayerSequence seq_;                    // the network being predicted
  std::vector<const SegLayer*> layers_;  // its segment layer at each position of seq_
  std::vector<int64_t> live_;            // its live activation bytes at one batch
};

}  // namespace

Expected<SssPoint> predict_sss_network(const SssWidths& widths, const SssNetInput& input, const DeviceSpec& device,
                                       const PerfOptions& options, SssBatch batch, Prediction* detail) {
  auto index = sss_index(widths);
  if (!index) return index.status();
  auto dtype = parse_dtype(options.dtype);
  if (!dtype) return Status::invalid("dtype '" + options.dtype + "': expected fp32, fp16, bf16, int8 or fp8");
  if (!device.best_peak(options.dtype)) return Status::unsupported(device.no_peak_message(options.dtype));
  if (!batch.max && batch.size < 1)
    return Status::invalid("NATS-SSS batch " + std::to_string(batch.size) + " must be at least 1");

  int64_t b = batch.size;
  if (batch.max) {
    auto mb = max_batch_for(device, [&](int64_t n) { return build_analysed(widths, input, *dtype, n); });
    if (!mb) return mb.status().with_context("NATS-SSS network " + sss_arch_string(widths) + " on " + device.id);
    b = *mb;
  }
  auto a = build_analysed(widths, input, *dtype, b);
  if (!a) return a.status();
  auto p = predict(a->graph, a->analysis, device, options);
  if (!p) return p.status();
  if (batch.max) p->max_batch = b;

  SssPoint pt;
  pt.index = *index;
  pt.arch = a->analysis.model;
  pt.macs = a->analysis.totals.macs / b;
  pt.flop_benchmark = pt.macs + input.classes;
  pt.flops = a->analysis.totals.flops / b;
  pt.params = a->analysis.params;
  pt.ai = a->analysis.ai;
  pt.throughput = p->throughput;
  pt.utilization = p->utilization;
  pt.batch = b;
  if (detail) *detail = std::move(*p);
  return pt;
}

Expected<std::vector<SssPoint>> predict_sss_indices(const std::vector<int64_t>& indices, const SssNetInput& input,
                                                    const DeviceSpec& device, const PerfOptions& options,
                                                    SssBatch batch, int jobs, const SssProgress& progress) {
  return predict_sss_indices(indices, input, device, options, batch, jobs, progress, SssMethod::kAuto);
}

Expected<std::vector<SssPoint>> predict_sss_indices(const std::vector<int64_t>& indices, const SssNetInput& input,
                                                    const DeviceSpec& device, const PerfOptions& options,
                                                    SssBatch batch, int jobs, const SssProgress& progress,
                                                    SssMethod method) {
  for (size_t i = 0; i < indices.size(); ++i)
    if (!sss_index_valid(indices[i]))
      return Status::invalid("NATS-SSS index " + std::to_string(indices[i]) + " (position " + std::to_string(i) +
                             ") is outside 0.." + std::to_string(kSssSpaceSize - 1));
  const int64_t total = static_cast<int64_t>(indices.size());
  if (jobs <= 0) jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  jobs = static_cast<int>(std::min<int64_t>(jobs, std::max<int64_t>(total, 1)));

  // Taking the segments costs about as much as 200 networks by the full path.
  constexpr int64_t kAssembleFrom = 512;
  std::optional<SegmentTable> table;
  std::optional<LayerModel> model;
  if (total > 0 && (method == SssMethod::kAssembled || (method == SssMethod::kAuto && total >= kAssembleFrom))) {
    // The checks predict_sss_network makes before anything else, with its messages.
    auto dtype = parse_dtype(options.dtype);
    if (!dtype) return Status::invalid("dtype '" + options.dtype + "': expected fp32, fp16, bf16, int8 or fp8");
    if (!device.best_peak(options.dtype)) return Status::unsupported(device.no_peak_message(options.dtype));
    if (!batch.max && batch.size < 1)
      return Status::invalid("NATS-SSS batch " + std::to_string(batch.size) + " must be at least 1");
    auto t = build_segments(input, *dtype, device, jobs);
    auto m = LayerModel::make(device, options, *dtype);
    if (t && m) {
      table.emplace(std::move(*t));
      model.emplace(std::move(*m));
    } else if (method == SssMethod::kAssembled) {
      return t ? m.status() : t.status();
    }  // kAuto: the full path gives the same numbers
  }

  std::vector<SssPoint> out(indices.size());
  std::vector<Status> errors(indices.size(), Status::ok());
  std::atomic<int64_t> next{0}, done{0};
  std::atomic<bool> failed{false};
  std::mutex progress_mu;
  int64_t reported = 0;           // guarded by progress_mu
  constexpr int64_t kChunk = 64;  // networks claimed at once: little contention, good balance
  auto work = [&] {
    std::optional<Assembler> assembler;
    if (table) assembler.emplace(*table, *model, input.classes);
    for (;;) {
      const int64_t begin = next.fetch_add(kChunk);
      if (begin >= total || failed.load(std::memory_order_relaxed)) return;
      const int64_t end = std::min(total, begin + kChunk);
      for (int64_t i = begin; i < end; ++i) {
        auto pt = assembler ? assembler->point(indices[i], batch)
                            : predict_sss_network(sss_widths(indices[i]), input, device, options, batch);
        if (!pt) {
          errors[i] = pt.status();
          failed = true;
          return;
        }
        out[i] = std::move(*pt);
      }
      const int64_t before = done.fetch_add(end - begin);
      const int64_t after = before + (end - begin);
      if (progress && (after / 1024 != before / 1024 || after == total)) {
        // Threads reach the lock in any order: report only counts above the last one, so
        // that progress never goes backwards (and the final count, the largest, always shows).
        std::lock_guard<std::mutex> lock(progress_mu);
        if (after > reported) {
          reported = after;
          progress(after, total);
        }
      }
    }
  };
  run_on_threads(jobs, work);
  if (failed)
    for (const Status& s : errors)
      if (!s) return s;
  return out;
}

Expected<std::vector<SssPoint>> predict_sss_space(const SssNetInput& input, const DeviceSpec& device,
                                                  const PerfOptions& options, SssBatch batch, int jobs,
                                                  const SssProgress& progress) {
  std::vector<int64_t> all(static_cast<size_t>(kSssSpaceSize));
  for (int64_t i = 0; i < kSssSpaceSize; ++i) all[static_cast<size_t>(i)] = i;
  return predict_sss_indices(all, input, device, options, batch, jobs, progress);
}

Expected<std::vector<size_t>> sss_frontier(const std::vector<SssPoint>& points) {
  std::vector<Point2> pts;
  pts.reserve(points.size());
  for (const SssPoint& p : points) pts.push_back({p.throughput, p.utilization});
  return pareto_front_2d(pts);
}

}  // namespace rooflens
