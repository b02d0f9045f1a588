// The kernel table's in-network level (see network_level.h).
#include "rooflens/analysis/network_level.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>

#include "rooflens/analysis/host_figures.h"
#include "rooflens/calibration/level_networks.h"
#include "rooflens/cost/cost.h"
#include "rooflens/exec/measure.h"
#include "rooflens/exec/timing.h"
#include "rooflens/microbench/stats.h"
#include "rooflens/passes/infer_shapes.h"
#include "rooflens/perf/model.h"

namespace rooflens {
namespace {

// Each table-timed layer's measured time (the profile scaled to the end-to-end time) and
// predicted time at the host's state (`drift`: its speed over the table's), summed by level class.
void add_class_times(const Measurement& meas, const Prediction& p, double drift, NetworkLevelTiming* t) {
  std::map<std::string, const LayerPrediction*> predicted;
  for (const auto& L : p.layers) predicted[L.name] = &L;
  double layers_s = 0;
  for (const auto& L : meas.layers) layers_s += L.time_s;
  if (!(layers_s > 0)) return;
  const double scale = t->measured_s / layers_s;
  for (const auto& L : meas.layers) {
    auto it = predicted.find(L.name);
    if (it == predicted.end() || it->second->level_class.empty() || !(it->second->time_s > 0)) continue;
    const LayerPrediction& p = *it->second;
    if (p.level_class == kStreamLevelClass) {
      t->stream_excess_s.push_back(scale * L.time_s - p.time_s / drift);
      continue;
    }
    std::vector<std::string> keys = {p.level_class};
    if (p.level_position > 0) keys.push_back(level_point_key(p.level_class, p.level_position));
    for (const std::string& key : keys) {
      LevelClassTime& c = t->classes[key];
      c.measured_s += scale * L.time_s;
      c.predicted_s += p.time_s / drift;
      ++c.layers;
    }
  }
}

// One round of one network set against its prediction at the host's state then.
NetworkLevelTiming timing_of(const std::string& network, int64_t batch, int round, const Measurement& meas,
                             const Prediction& p, HostContext& host) {
  const HostFigures f = host_figures(meas, p, host);
  NetworkLevelTiming t;
  t.network = network;
  t.batch = batch;
  t.round = round;
  t.measured_s = static_cast<double>(batch) / meas.throughput;
  t.predicted_s = static_cast<double>(batch) / (f.has_reference ? f.predicted_at_state : p.throughput);
  t.counted = f.same_state;
  add_class_times(meas, p, f.has_reference ? f.drift : 1.0, &t);
  return t;
}

double median_of(std::vector<double> v) { return microbench::summarize(std::move(v), false).median; }

}  // namespace

NetworkLevel network_level_of(const std::vector<NetworkLevelTiming>& timings, int64_t batch) {
  std::map<std::string, bool> any_counted;  // per network at this batch
  for (const auto& t : timings)
    if (t.batch == batch) any_counted[t.network] |= t.counted;
  auto used = [&](const NetworkLevelTiming& t) { return t.batch == batch && (!any_counted[t.network] || t.counted); };
  std::map<std::string, std::vector<double>> per_network;
  for (const auto& t : timings)
    if (used(t)) per_network[t.network].push_back(t.measured_s / t.predicted_s);
  std::vector<double> r;
  for (auto& [name, ratios] : per_network) r.push_back(median_of(ratios));
  NetworkLevel l;
  l.batch = batch;
  l.networks = static_cast<int>(r.size());
  if (r.empty()) return l;
  l.level = median_of(r);
  l.spread = (*std::max_element(r.begin(), r.end()) - *std::min_element(r.begin(), r.end())) / l.level;
  std::map<std::string, LevelClassTime> sum;
  for (const auto& t : timings) {
    if (!used(t)) continue;
    for (const auto& [c, x] : t.classes) {
      sum[c].measured_s += x.measured_s;
      sum[c].predicted_s += x.predicted_s;
      sum[c].layers += x.layers;
    }
  }
  for (const auto& [c, x] : sum)
    if (x.layers >= kMinLevelLayers && x.predicted_s > 0) l.classes[c] = x.measured_s / x.predicted_s;
  std::vector<double> excess;
  for (const auto& t : timings)
    if (used(t)) excess.insert(excess.end(), t.stream_excess_s.begin(), t.stream_excess_s.end());
  if (static_cast<int>(excess.size()) >= kMinLevelLayers) {
    l.stream_layers = static_cast<int>(excess.size());
    l.stream_latency_s = std::max(0.0, median_of(std::move(excess)));
  }
  return l;
}

namespace {

// How many of a network's rounds were read in another dispatch state than the table's, and
// whether they count (network_level_of: all of them do when none was in the table's).
std::string other_state_note(int other_state, size_t rounds) {
  if (other_state == 0) return "";
  return fmt::format(", {} in another dispatch state{}", other_state,
                     static_cast<size_t>(other_state) == rounds ? " (all used: none in the table's)" : " (left out)");
}

// The levels in order of class, then position as a number (pointwise@7 before pointwise@14).
std::vector<std::pair<std::string, double>> by_class_and_position(const std::map<std::string, double>& levels) {
  std::vector<std::pair<std::string, double>> v(levels.begin(), levels.end());
  auto key = [](const std::string& k) {
    const auto p = split_level_key(k).value_or(LevelPoint{k, 0});
    return std::make_pair(p.cls, p.position);
  };
  std::stable_sort(v.begin(), v.end(), [&](const auto& a, const auto& b) { return key(a.first) < key(b.first); });
  return v;
}

}  // namespace

Expected<LevelNetworkRuns> LevelNetworkRuns::make(const NetworkLevelOptions& o) {
  if (o.batches.empty()) return Status::invalid("the in-network level needs at least one batch");
  for (size_t i = 0; i < o.batches.size(); ++i)
    if (o.batches[i] < 1 || (i > 0 && o.batches[i] <= o.batches[i - 1]))
      return Status::invalid("the in-network level's batches must be positive and ascend");
  std::vector<std::string> known;
  for (const auto& n : level_networks(1)) known.push_back(n.name);
  for (const auto& want : o.networks)
    if (std::find(known.begin(), known.end(), want) == known.end())
      return Status::invalid(fmt::format("no generated network '{}' (known: {})", want, fmt::join(known, ", ")));
  LevelNetworkRuns runs;
  runs.options_ = o;
  runs.host_ = make_host_context(true, kDefaultReferenceMaxMove, o.threads, DeviceSpec{});
  for (int64_t batch : o.batches)
    for (LevelNetwork& net : level_networks(batch)) {
      if (!o.networks.empty() && std::find(o.networks.begin(), o.networks.end(), net.name) == o.networks.end())
        continue;
      auto inferred = infer_shapes(net.graph);
      if (!inferred) return inferred.status().with_context("level network " + net.name);
      AnalyzeOptions ao;
      ao.cost.dtype = DType::kF32;
      Run run{net.name, batch, std::move(net.graph), {}, {}};
      run.analysis = analyze_graph(run.graph, *inferred, ao);
      run.analysis.model = "level_" + run.network;
      runs.runs_.push_back(std::move(run));
    }
  return runs;
}

Status LevelNetworkRuns::measure_round(Backend& backend) {
  const auto t0 = std::chrono::steady_clock::now();
  for (Run& run : runs_) {
    MeasureOptions mo;
    mo.exec.threads = options_.threads;
    mo.exec.tactic_cache = options_.tactic_cache;
    mo.timing = model_timing(false, options_.max_seconds);
    attach_host(mo, host_);
    auto meas = measure_model(run.graph, run.analysis, backend, mo);
    if (!meas) return meas.status().with_context("level network " + run.network);
    run.rounds.push_back(std::move(*meas));
  }
  if (options_.progress)
    options_.progress(fmt::format("network level: round {}, {} networks timed in {:.0f} s", rounds(), runs_.size(),
                                  std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()));
  return Status::ok();
}

Expected<NetworkLevelResult> LevelNetworkRuns::levels(const DeviceSpec& dev) const {
  if (!dev.kernel_table) return Status::invalid("the in-network level needs a device with a kernel table");
  if (rounds() == 0) return Status::invalid("the in-network level has no timed round");
  DeviceSpec d = dev;
  d.kernel_table->network_levels.clear();  // the table as fitted: no level of its own
  HostContext host = make_host_context(false, kDefaultReferenceMaxMove, options_.threads, d);
  PerfOptions po;
  po.dtype = "fp32";
  NetworkLevelResult res;
  for (int64_t batch : options_.batches) {
    for (const Run& run : runs_) {
      if (run.batch != batch) continue;
      auto p = predict(run.graph, run.analysis, d, po);
      if (!p) return p.status().with_context("level network " + run.network);
      std::vector<double> measured, predicted;
      int other_state = 0;
      for (size_t r = 0; r < run.rounds.size(); ++r) {
        res.timings.push_back(timing_of(run.network, batch, static_cast<int>(r), run.rounds[r], *p, host));
        measured.push_back(res.timings.back().measured_s);
        predicted.push_back(res.timings.back().predicted_s);
        other_state += res.timings.back().counted ? 0 : 1;
      }
      if (options_.progress)
        options_.progress(fmt::format(
            "network level: {} at batch {}: {:.2f} ms measured, {:.2f} ms predicted ({:.3f}), medians of {} round{}{}",
            run.network, batch, 1e3 * median_of(measured), 1e3 * median_of(predicted),
            median_of(measured) / median_of(predicted), measured.size(), measured.size() == 1 ? "" : "s",
            other_state_note(other_state, measured.size())));
    }
    res.levels.push_back(network_level_of(res.timings, batch));
    if (options_.progress) {
      const NetworkLevel& l = res.levels.back();
      std::string per;
      for (const auto& [c, v] : by_class_and_position(l.classes)) per += fmt::format(" {} {:.3f}", c, v);
      if (l.stream_latency_s)
        per += fmt::format("; heads held at their weights' stream: it and their FLOPs + {:.1f} us (median of {})",
                           1e6 * *l.stream_latency_s, l.stream_layers);
      options_.progress(fmt::format("network level at batch {}: {:.3f} (median of {}, spread {:.0f}%); per class:{}",
                                    batch, l.level, l.networks, 100 * l.spread, per));
    }
  }
  return res;
}

Expected<NetworkLevelResult> measure_network_levels(Backend& backend, const DeviceSpec& dev,
                                                    const NetworkLevelOptions& o) {
  if (!dev.kernel_table) return Status::invalid("the in-network level needs a device with a kernel table");
  auto runs = LevelNetworkRuns::make(o);
  if (!runs) return runs.status();
  for (int r = 0; r < std::max(1, o.rounds); ++r)
    if (Status s = runs->measure_round(backend); !s) return s;
  return runs->levels(dev);
}

Expected<KernelProbeResult> probe_kernels_with_levels(Backend& backend, const DeviceSpec& dev, KernelProbeOptions ko,
                                                      const NetworkLevelOptions& lo, const std::string& backend_name,
                                                      const std::string& host) {
  auto runs = LevelNetworkRuns::make(lo);
  if (!runs) return runs.status();
  ko.after_round = [&](int) { return runs->measure_round(backend); };
  auto kt = probe_kernels(backend, ko, backend_name, host);
  if (!kt) return kt.status();
  DeviceSpec d = dev;
  d.kernel_table = kt->table;
  auto levels = runs->levels(d);
  if (!levels) return levels.status().with_context("the kernel table's network level");
  kt->table.network_levels = levels->levels;
  return kt;
}

}  // namespace rooflens
