// The kernel table's in-network level (see network_level.h).
#include "rooflens/analysis/network_level.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

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

// One network measured and predicted at the host's state.
Expected<NetworkLevelTiming> time_network(Backend& backend, const DeviceSpec& dev, LevelNetwork& net, int64_t batch,
                                          const NetworkLevelOptions& o, HostContext& host) {
  auto inferred = infer_shapes(net.graph);
  if (!inferred) return inferred.status().with_context("level network " + net.name);
  AnalyzeOptions ao;
  ao.cost.dtype = DType::kF32;
  ModelAnalysis m = analyze_graph(net.graph, *inferred, ao);
  m.model = "level_" + net.name;
  MeasureOptions mo;
  mo.exec.threads = o.threads;
  mo.exec.tactic_cache = o.tactic_cache;
  mo.timing = model_timing(false, o.max_seconds);
  attach_host(mo, host);
  auto meas = measure_model(net.graph, m, backend, mo);
  if (!meas) return meas.status().with_context("level network " + net.name);
  PerfOptions po;
  po.dtype = "fp32";
  auto p = predict(net.graph, m, dev, po);
  if (!p) return p.status().with_context("level network " + net.name);
  const HostFigures f = host_figures(*meas, *p, host);
  NetworkLevelTiming t;
  t.network = net.name;
  t.batch = batch;
  t.measured_s = static_cast<double>(batch) / meas->throughput;
  t.predicted_s = static_cast<double>(batch) / (f.has_reference ? f.predicted_at_state : p->throughput);
  t.counted = f.same_state;
  add_class_times(*meas, *p, f.has_reference ? f.drift : 1.0, &t);
  return t;
}

// The level of one batch: the median ratio over the networks read in the table's dispatch
// state (all of them when none was).
NetworkLevel level_of(const std::vector<NetworkLevelTiming>& timings, int64_t batch) {
  std::vector<double> counted, all;
  for (const auto& t : timings) {
    if (t.batch != batch) continue;
    all.push_back(t.measured_s / t.predicted_s);
    if (t.counted) counted.push_back(all.back());
  }
  const std::vector<double>& r = counted.empty() ? all : counted;
  NetworkLevel l;
  l.batch = batch;
  l.networks = static_cast<int>(r.size());
  l.level = microbench::summarize(r, false).median;
  l.spread = (*std::max_element(r.begin(), r.end()) - *std::min_element(r.begin(), r.end())) / l.level;
  std::map<std::string, LevelClassTime> sum;
  for (const auto& t : timings) {
    if (t.batch != batch || (!counted.empty() && !t.counted)) continue;
    for (const auto& [c, x] : t.classes) {
      sum[c].measured_s += x.measured_s;
      sum[c].predicted_s += x.predicted_s;
      sum[c].layers += x.layers;
    }
  }
  for (const auto& [c, x] : sum)
    if (x.layers >= kMinLevelLayers && x.predicted_s > 0) l.classes[c] = x.measured_s / x.predicted_s;
  return l;
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

Expected<NetworkLevelResult> measure_network_levels(Backend& backend, const DeviceSpec& dev,
                                                    const NetworkLevelOptions& o) {
  if (!dev.kernel_table) return Status::invalid("the in-network level needs a device with a kernel table");
  if (o.batches.empty()) return Status::invalid("the in-network level needs at least one batch");
  for (size_t i = 0; i < o.batches.size(); ++i)
    if (o.batches[i] < 1 || (i > 0 && o.batches[i] <= o.batches[i - 1]))
      return Status::invalid("the in-network level's batches must be positive and ascend");
  DeviceSpec d = dev;
  d.kernel_table->network_levels.clear();  // the table as fitted: no level of its own
  std::vector<std::string> known;
  for (const auto& n : level_networks(1)) known.push_back(n.name);
  for (const auto& want : o.networks)
    if (std::find(known.begin(), known.end(), want) == known.end())
      return Status::invalid(fmt::format("no generated network '{}' (known: {})", want, fmt::join(known, ", ")));
  HostContext host = make_host_context(true, kDefaultReferenceMaxMove, o.threads, d);
  NetworkLevelResult res;
  for (int64_t batch : o.batches) {
    for (LevelNetwork& net : level_networks(batch)) {
      if (!o.networks.empty() && std::find(o.networks.begin(), o.networks.end(), net.name) == o.networks.end())
        continue;
      auto t = time_network(backend, d, net, batch, o, host);
      if (!t) return t.status();
      if (o.progress)
        o.progress(fmt::format("network level: {} at batch {}: {:.2f} ms measured, {:.2f} ms predicted ({:.3f}){}",
                               t->network, batch, 1e3 * t->measured_s, 1e3 * t->predicted_s,
                               t->measured_s / t->predicted_s, t->counted ? "" : ", another dispatch state"));
      res.timings.push_back(*t);
    }
    res.levels.push_back(level_of(res.timings, batch));
    if (o.progress) {
      std::string per;
      for (const auto& [c, v] : by_class_and_position(res.levels.back().classes))
        per += fmt::format(" {} {:.3f}", c, v);
      o.progress(fmt::format("network level at batch {}: {:.3f} (median of {}, spread {:.0f}%); per class:{}", batch,
                             res.levels.back().level, res.levels.back().networks, 100 * res.levels.back().spread, per));
    }
  }
  return res;
}

}  // namespace rooflens
