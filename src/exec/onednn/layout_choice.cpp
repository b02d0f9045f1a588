// ActivationLayout::kAuto (see onednn_backend.h): time the network in each layout, then
// choose a layout per layer by minimum cut (exec/layout_plan.h).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "onednn_backend.h"
#include "rooflens/exec/layout_plan.h"
#include "tactic_cache.h"
#include "tactics.h"

namespace rooflens::onednn {

namespace {

std::vector<Tensor> constant_inputs(const Graph& g) {
  std::vector<Tensor> inputs;
  for (ValueId in : g.inputs) {
    Tensor t = Tensor::zeros(*g.value(in).shape);
    std::fill(t.data.begin(), t.data.end(), 0.5f);
    inputs.push_back(std::move(t));
  }
  return inputs;
}

// Each layer's least time, and the least whole run, over the runs so far.
struct RunTimes {
  std::vector<double> layer_s;
  double total_s = std::numeric_limits<double>::infinity();
};

// One more run of `b` folded into `t`.
Status one_run(OneDnnBackend& b, const std::vector<Tensor>& inputs, RunTimes* t) {
  std::vector<Tensor> outputs;
  ROOFLENS_RETURN_IF_ERROR(b.run(inputs, &outputs));
  const auto layers = b.layer_timings();
  if (t->layer_s.empty()) t->layer_s.assign(layers.size(), std::numeric_limits<double>::infinity());
  double total = 0;
  for (size_t i = 0; i < layers.size() && i < t->layer_s.size(); ++i) {
    t->layer_s[i] = std::min(t->layer_s[i], layers[i].time_s);
    total += layers[i].time_s;
  }
  t->total_s = std::min(t->total_s, total);
  return Status::ok();
}

double since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Backends run in turn (a slow spell of a shared machine hits each alike): a warm-up each,
// then rounds until three are done and 1 s has passed (at most 20 rounds).
Expected<std::vector<RunTimes>> alternate(const std::vector<OneDnnBackend*>& bs, const std::vector<Tensor>& inputs) {
  std::vector<Tensor> outputs;
  for (OneDnnBackend* b : bs) ROOFLENS_RETURN_IF_ERROR(b->run(inputs, &outputs));
  std::vector<RunTimes> t(bs.size());
  const auto t0 = std::chrono::steady_clock::now();
  for (int r = 0; r < 20 && (r < 3 || since(t0) < 1.0); ++r)
    for (size_t i = 0; i < bs.size(); ++i) ROOFLENS_RETURN_IF_ERROR(one_run(*bs[i], inputs, &t[i]));
  return t;
}

// The tactic-cache key of a model's choice: each layer's op and its anchor's operand and
// result shapes (weights included), and the options that change the timings.
std::string choice_key(const Graph& g, const ModelAnalysis& fused, const ExecOptions& o) {
  std::string s = "reuse" + std::to_string(o.reuse_buffers) + " tune" + std::to_string(o.tune);
  for (const LayerReport& L : fused.layers) {
    s += "|" + L.op;
    const Node& a = g.node(L.nodes[0]);
    for (const auto* vs : {&a.inputs, &a.outputs})
      for (ValueId v : *vs) {
        s += ";";
        if (v != kNoValue && g.value(v).shape)
          for (int64_t d : *g.value(v).shape) s += std::to_string(d) + "x";
      }
  }
  return fmt::format("layouts of {} layers {:016x}", fused.layers.size(), std::hash<std::string>{}(s));
}

// Remembers the choice as "<one 0/1 per layer>|<summary>".
void remember(const std::string& path, const std::string& key, const LayoutChoice& c) {
  std::string v;
  for (char b : c.blocked) v += b ? '1' : '0';
  remember_tactic(path, key, v + "|" + c.summary);
}

}  // namespace

Expected<LayoutChoice> choose_layer_layouts(const Graph& g, const ModelAnalysis& fused, const ExecOptions& o) {
  const std::string key = choice_key(g, fused, o);
  if (auto hit = cached_tactic(o.tactic_cache, key);
      hit && hit->size() > fused.layers.size() && (*hit)[fused.layers.size()] == '|') {
    LayoutChoice c;
    for (size_t i = 0; i < fused.layers.size(); ++i) c.blocked.push_back((*hit)[i] == '1' ? 1 : 0);
    c.summary = hit->substr(fused.layers.size() + 1) + "; replayed from the tactic cache";
    return c;
  }
  const auto t0 = std::chrono::steady_clock::now();
  ExecOptions oc = o, ob = o;
  oc.blocked_layers.clear();
  ob.blocked_layers.clear();
  oc.layout = ActivationLayout::kChannelsLast;
  ob.layout = ActivationLayout::kBlocked;
  OneDnnBackend cb;
  ROOFLENS_RETURN_IF_ERROR(cb.prepare(g, fused, oc).with_context("timing the channels-last layout"));
  const std::vector<Tensor> inputs = constant_inputs(g);
  RunTimes ct, bt;
  {
    OneDnnBackend bb;
    ROOFLENS_RETURN_IF_ERROR(bb.prepare(g, fused, ob).with_context("timing the blocked layout"));
    auto t = alternate({&cb, &bb}, inputs);
    if (!t) return t.status();
    ct = (*t)[0];
    bt = (*t)[1];
  }
  const size_t n = fused.layers.size();
  if (ct.layer_s.size() != n || bt.layer_s.size() != n)
    return Status::internal("layer timings do not match the fused layers");
  LayoutProblem p;
  for (size_t i = 0; i < n; ++i) p.cost_s.push_back({ct.layer_s[i], bt.layer_s[i]});

  // A value from one layer read by another, of a shape both layouts hold: a reorder when
  // the two layers differ, timed once per shape in each direction.
  dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  dnnl::stream strm(eng);
  std::map<Shape, std::pair<double, double>> reorder_s;
  auto reorder_times = [&](const Shape& s) {
    auto it = reorder_s.find(s);
    if (it != reorder_s.end()) return it->second;
    dnnl::memory a = scratch_memory(md_channels_last(s), eng), b = scratch_memory(md_blocked16(s), eng);
    const double to_b = time_primitive(dnnl::reorder(a, b), {{DNNL_ARG_FROM, a}, {DNNL_ARG_TO, b}}, strm, 3);
    const double to_cl = time_primitive(dnnl::reorder(b, a), {{DNNL_ARG_FROM, b}, {DNNL_ARG_TO, a}}, strm, 3);
    return reorder_s[s] = {to_b, to_cl};
  };
  std::set<std::tuple<int, int, ValueId>> seen;
  for (size_t c = 0; c < n; ++c)
    for (NodeId id : fused.layers[c].nodes)
      for (ValueId v : g.node(id).inputs) {
        if (v == kNoValue) continue;
        const Value& val = g.value(v);
        if (val.is_stored || val.producer < 0 || !val.shape) continue;
        const int from = cb.layer_index(val.producer);
        const Shape& s = *val.shape;
        if (from < 0 || from == static_cast<int>(c) || s.size() != 4 || s[1] % 16 != 0) continue;
        if (!seen.insert({from, static_cast<int>(c), v}).second) continue;
        const auto [to_b, to_cl] = reorder_times(s);
        p.edges.push_back({from, static_cast<int>(c), to_b, to_cl});
      }

  const std::vector<int> x = choose_layouts(p);
  const double chosen = layout_cost(p, x), all_cl = layout_cost(p, std::vector<int>(n, 0));
  const double predicted = all_cl > 0 ? 1 - chosen / all_cl : 0;
  LayoutChoice out;
  out.blocked.assign(n, 0);
  const size_t count = static_cast<size_t>(std::count(x.begin(), x.end(), 1));
  if (count == 0 || predicted < 0.01) {
    out.summary = fmt::format("channels-last (auto: blocking layers was predicted to save {:.1f}%; chosen in {:.1f} s)",
                              100 * predicted, since(t0));
    remember(o.tactic_cache, key, out);
    return out;
  }
  // The mix, run in turn with channels-last: kept only when its best run is 1% faster.
  std::vector<char> mix(n);
  for (size_t i = 0; i < n; ++i) mix[i] = static_cast<char>(x[i]);
  ExecOptions om = o;
  om.blocked_layers = mix;
  OneDnnBackend mb;
  ROOFLENS_RETURN_IF_ERROR(mb.prepare(g, fused, om).with_context("timing the chosen mix of layouts"));
  auto t = alternate({&cb, &mb}, inputs);
  if (!t) return t.status();
  const double gain = 1 - (*t)[1].total_s / (*t)[0].total_s;
  if (gain < 0.01) {
    out.summary = fmt::format(
        "channels-last (auto: {} of {} layers blocked ran {:.1f}% {} than channels-last, "
        "{:.1f}% faster predicted; not kept; chosen in {:.1f} s)",
        count, n, 100 * std::abs(gain), gain < 0 ? "slower" : "faster", 100 * predicted, since(t0));
    remember(o.tactic_cache, key, out);
    return out;
  }
  out.blocked = std::move(mix);
  out.summary = fmt::format(
      "auto: {} of {} layers blocked (nChw16c), {:.1f}% faster than channels-last when chosen "
      "({:.1f}% predicted; chosen in {:.1f} s)",
      count, n, 100 * gain, 100 * predicted, since(t0));
  remember(o.tactic_cache, key, out);
  return out;
}

}  // namespace rooflens::onednn
