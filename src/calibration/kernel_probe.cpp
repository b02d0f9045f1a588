// Measures the kernel table (see kernel_probe.h).
#include "rooflens/calibration/kernel_probe.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <thread>

#include "rooflens/cost/cost.h"
#include "rooflens/exec/dispatch_probe.h"
#include "rooflens/exec/measure.h"
#include "rooflens/microbench/host_reference.h"
#include "rooflens/microbench/stats.h"
#include "rooflens/passes/infer_shapes.h"
#include "rooflens/util/utc_time.h"

namespace rooflens {
namespace {

// Layout conversions: timed directly, both directions, over activation sizes of CNNs.
Expected<std::vector<KernelSample>> reorder_samples(const KernelProbeOptions& o) {
  const std::vector<int64_t> batches = {1, 2, 8, 32}, spatial = {7, 14, 28, 56, 112},
                             channels = {3, 16, 32, 64, 128, 256, 512, 1024};
  const int count = o.quick ? 12 : 32;
  std::vector<KernelSample> out;
  uint64_t s = o.seed * 2654435761u + 7;
  for (int i = 0; i < count; ++i) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    const int64_t n = batches[(s >> 33) % batches.size()], hw = spatial[(s >> 40) % spatial.size()],
                  c = channels[(s >> 47) % channels.size()];
    if (static_cast<double>(n * c * hw * hw) > 4e7) {
      --i;
      continue;
    }
    const bool to_rowmajor = i % 2 == 0;
    auto t = time_onednn_reorder(n, c, hw, hw, to_rowmajor, o.threads, o.quick ? 0.03 : 0.1);
    if (!t) return t.status();
    out.push_back({reorder_features(n * c * hw * hw * 4, to_rowmajor), *t,
                   fmt::format("mb{}ic{}ih{}iw{} {}", n, c, hw, hw, to_rowmajor ? "acdb->abcd" : "abcd->acdb")});
  }
  return out;
}

// The sampled problem: oneDNN's descriptor where the cost model writes one (convolutions,
// matrix products), else the layer's ops and shapes ("Mul [8,96,14,14] [8,96,1,1] -> [8,96,14,14]").
std::string problem_of(const LayerReport& r) {
  if (!r.desc.empty()) return r.desc;
  auto shapes = [](const std::vector<Shape>& v) {
    std::string s;
    for (const Shape& x : v) s += fmt::format(" [{}]", fmt::join(x, ","));
    return s;
  };
  return r.op + shapes(r.in_shapes) + " ->" + shapes(r.out_shapes);
}

// The probed layer's kernel time (its conversions removed), warm and cold.
struct CaseTimes {
  KernelSample warm, cold;
  double dispatch_s = 0;  // the executor's dispatch just before (0: not read)
};

Expected<CaseTimes> run_case(Backend& backend, KernelCase& kc, const KernelTable& table, const KernelProbeOptions& o,
                             std::vector<char>* flush) {
  auto inferred = infer_shapes(kc.graph);
  if (!inferred) return inferred.status().with_context("kernel probe case " + kc.cls);
  const ModelAnalysis m = analyze_graph(kc.graph, *inferred, AnalyzeOptions{});
  size_t idx = m.layers.size();
  for (size_t i = 0; i < m.layers.size(); ++i)
    if (m.layers[i].name == kc.layer) idx = i;
  if (idx == m.layers.size()) return Status::internal("kernel probe: layer '" + kc.layer + "' not found after fusion");
  auto k = classify_layer(kc.graph, m.layers[idx], table.simd_lanes);
  if (!k || k->cls != kc.cls)
    return Status::internal("kernel probe: a " + kc.cls + " case classified as " + (k ? k->cls : "nothing") + " (" +
                            m.layers[idx].op + ")");
  const double conv = conversions_seconds(table, layout_conversions(kc.graph, m)[idx]);
  CaseTimes out;
  if (auto d = measure_onednn_dispatch(o.threads)) out.dispatch_s = d->median_s;
  for (bool cold : {false, true}) {
    MeasureOptions mo;
    mo.exec.threads = o.threads;
    mo.exec.tactic_cache = o.tactic_cache;
    mo.timing.warmup = 2;
    mo.timing.min_repeats = 5;
    mo.timing.max_seconds = o.quick ? 0.06 : 0.2;
    if (cold && !flush->empty())
      mo.before_run = [flush] {
        for (size_t i = 0; i < flush->size(); i += 64) (*flush)[i] = static_cast<char>((*flush)[i] + 1);
      };
    auto meas = measure_model(kc.graph, m, backend, mo);
    if (!meas) return meas.status().with_context("kernel probe case " + kc.cls + " " + m.layers[idx].desc);
    const double t = meas->layers[idx].time_s;
    (cold ? out.cold : out.warm) = KernelSample{k->x, std::max(t - conv, 0.25 * t), problem_of(m.layers[idx])};
  }
  return out;
}

// Every case of every class timed `o.rounds` times: each round runs the classes' cases
// interleaved (one case of each class in turn), so that a slow window of the host (seconds
// to minutes on a shared VM) falls on a few cases of every class rather than on one whole
// class, and the median over rounds drops it. times[class][case][round]. After each round the
// reference's convolutions are timed once more into `kernels` (the table's level), and at batch 8
// into `kernels8`.
using CaseRounds = std::vector<CaseTimes>;
Expected<std::vector<std::vector<CaseRounds>>> time_cases_in_rounds(
    Backend& backend, std::vector<std::pair<std::string, std::vector<KernelCase>>>& classes, const KernelTable& table,
    const KernelProbeOptions& o, std::vector<char>* flush, std::chrono::steady_clock::time_point t0,
    std::vector<double>* kernels, std::vector<double>* kernels8) {
  std::vector<std::vector<CaseRounds>> times;
  size_t longest = 0, total = 0;
  for (const auto& [cls, cases] : classes) {
    times.emplace_back(cases.size());
    longest = std::max(longest, cases.size());
    total += cases.size();
  }
  const int rounds = std::max(1, o.rounds);
  for (int r = 0; r < rounds; ++r) {
    for (size_t i = 0; i < longest; ++i)
      for (size_t c = 0; c < classes.size(); ++c) {
        if (i >= classes[c].second.size()) continue;
        auto s = run_case(backend, classes[c].second[i], table, o, flush);
        if (!s) return s.status();
        times[c][i].push_back(std::move(*s));
      }
    if (auto k = measure_onednn_reference_kernels(o.threads)) kernels->push_back(*k);
    if (auto k = measure_onednn_reference_kernels(o.threads, microbench::kReferenceBatch)) kernels8->push_back(*k);
    if (o.progress)
      o.progress(fmt::format("kernels: round {}/{}, {} shapes in {} classes; {:.0f} s so far", r + 1, rounds, total,
                             classes.size(),
                             std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()));
    if (o.after_round)
      if (Status s = o.after_round(r); !s) return s;
  }
  return times;
}

// The dispatch state the table describes (microbench::cases_dispatch_level over every case's rounds).
double table_dispatch(const std::vector<std::vector<CaseRounds>>& times) {
  std::vector<std::vector<double>> per_case;
  for (const auto& cls : times)
    for (const auto& rounds : cls) {
      per_case.emplace_back();
      for (const auto& r : rounds) per_case.back().push_back(r.dispatch_s);
    }
  return microbench::cases_dispatch_level(per_case);
}

// A case's sample: its features and the median of its rounds' times (warm or cold), over the
// rounds read in the dispatch state `level` (table_dispatch), or all when none was.
KernelSample median_sample(const CaseRounds& rounds, bool cold, double level) {
  std::vector<double> s, dispatch;
  for (const auto& r : rounds) {
    s.push_back((cold ? r.cold : r.warm).seconds);
    dispatch.push_back(r.dispatch_s);
  }
  s = microbench::values_at_dispatch_level(s, dispatch, level);
  return KernelSample{rounds.front().warm.x, microbench::summarize(std::move(s), false).median,
                      rounds.front().warm.desc};
}

}  // namespace

Expected<KernelProbeResult> probe_kernels(Backend& backend, const KernelProbeOptions& o,
                                          const std::string& backend_name, const std::string& host) {
  const auto t0 = std::chrono::steady_clock::now();
  KernelProbeResult res;
  KernelTable& t = res.table;
  t.backend = backend_name;
  t.host = host;
  t.measured = utc_now();
  t.threads = o.threads;
  t.dispatch_s = o.dispatch_s;
  t.simd_lanes = onednn_fp32_lanes();
  t.cache_bytes = o.flush_bytes / 3;
  auto wanted = [&](const std::string& c) {
    return o.classes.empty() || std::find(o.classes.begin(), o.classes.end(), c) != o.classes.end();
  };
  // The host-state reference before and after: the machine state the table describes.
  microbench::HostReferenceProbe reference(
      o.threads > 0 ? o.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
  const microbench::HostReference ref0 = reference_reading(reference, o.threads, microbench::kReferenceBatch);
  std::vector<char> flush(static_cast<size_t>(std::max(0.0, o.flush_bytes)), 0);
  // Conversions first: every other class has them removed before its fit.
  auto ro = reorder_samples(o);
  if (!ro) return ro.status();
  auto rf = fit_kernel_class("reorder", *ro, o.dispatch_s);
  if (!rf) return rf.status();
  t.classes["reorder"] = *rf;
  res.samples["reorder"] = std::move(*ro);
  if (o.progress)
    o.progress(fmt::format("kernels: reorder, {} samples, fit median |error| {:.1f}%", rf->samples,
                           100 * rf->median_abs_error));
  // Shapes per class, and of them layers of 3-30 GFLOP (heavy_kernel_cases), where a fit of
  // smaller ones extrapolates (batch 8 of VGG, the large models).
  struct Planned {
    std::string cls;
    int count, heavy;
  };
  const std::vector<Planned> plan = {{"conv", o.quick ? 15 : 50, o.quick ? 0 : 10},
                                     {"stem", o.quick ? 6 : 16, 0},
                                     {"pointwise", o.quick ? 12 : 40, o.quick ? 0 : 8},
                                     {"depthwise", o.quick ? 10 : 30, 0},
                                     {"gemm", o.quick ? 10 : 32, 0},
                                     {"gemm_skinny", o.quick ? 8 : 24, 0},
                                     {"attention", o.quick ? 8 : 24, 0},
                                     {"pool", o.quick ? 12 : 36, 0},
                                     {"eltwise", o.quick ? 9 : 24, 0},
                                     {"move", o.quick ? 9 : 27, 0}};
  std::vector<std::pair<std::string, std::vector<KernelCase>>> classes;
  for (const Planned& p : plan) {
    if (!wanted(p.cls)) continue;
    classes.emplace_back(p.cls, kernel_cases(p.cls, p.count, o.seed));
    for (KernelCase& kc : heavy_kernel_cases(p.cls, p.heavy, o.seed)) classes.back().second.push_back(std::move(kc));
  }
  std::vector<double> kernels;   // the reference's convolutions, read before, between rounds and after
  std::vector<double> kernels8;  // the same at batch 8
  if (ref0.kernels_s > 0) kernels.push_back(ref0.kernels_s);
  if (ref0.kernels8_s > 0) kernels8.push_back(ref0.kernels8_s);
  auto times = time_cases_in_rounds(backend, classes, t, o, &flush, t0, &kernels, &kernels8);
  if (!times) return times.status();
  // A shared VM's dispatch has two levels that last minutes (HostReference::dispatch_s): the
  // table describes the faster one where at least half the shapes were read in it, else the
  // other; each shape from its rounds read in that one.
  const double level = table_dispatch(*times);
  std::vector<double> level_readings;
  int left_out = 0, timings = 0;
  for (const auto& cls : *times)
    for (const auto& rounds : cls)
      for (const auto& r : rounds) {
        ++timings;
        if (microbench::same_dispatch_level(r.dispatch_s, level))
          level_readings.push_back(r.dispatch_s);
        else
          ++left_out;
      }
  if (o.progress && left_out > 0)
    o.progress(
        fmt::format("kernels: {} of {} shape timings read another dispatch state than the table's ({:.2f} us) and "
                    "are left out where the shape has one in it",
                    left_out, timings, level * 1e6));
  // Each case is fitted in its own class: the conv draws' stems are stems.
  std::map<std::string, std::pair<std::vector<KernelSample>, std::vector<KernelSample>>> by_class;
  for (size_t c = 0; c < classes.size(); ++c)
    for (size_t i = 0; i < classes[c].second.size(); ++i) {
      const std::string& cls = classes[c].second[i].cls;
      if (!wanted(cls)) continue;
      by_class[cls].first.push_back(median_sample((*times)[c][i], false, level));
      by_class[cls].second.push_back(median_sample((*times)[c][i], true, level));
    }
  for (const Planned& p : plan) {
    const std::string& cls = p.cls;
    if (!by_class.count(cls)) continue;
    auto& [warm, cold] = by_class[cls];
    auto f = fit_kernel_class(cls, warm, o.dispatch_s);
    if (!f) return f.status();
    t.classes[cls] = *f;
    if (!flush.empty()) {
      auto fc = fit_kernel_class(cls, cold, o.dispatch_s);
      if (!fc) return fc.status();
      t.cold[cls] = *fc;
    }
    if (o.progress)
      o.progress(fmt::format("kernels: {}, {} shapes, fit median |error| warm {:.1f}% (max {:.0f}%), cold {:.1f}%", cls,
                             f->samples, 100 * f->median_abs_error, 100 * f->max_abs_error,
                             t.cold.count(cls) ? 100 * t.cold.at(cls).median_abs_error : 0.0));
    res.samples[cls] = std::move(warm);
    if (!flush.empty()) res.samples[cls + ".cold"] = std::move(cold);
  }
  const microbench::HostReference ref1 = reference_reading(reference, o.threads, microbench::kReferenceBatch);
  t.host_gemm_flops = 0.5 * (ref0.gemm_flops + ref1.gemm_flops);
  t.host_stream_bytes = 0.5 * (ref0.stream_bytes + ref1.stream_bytes);
  if (ref0.clock_hz > 0 && ref1.clock_hz > 0) t.host_clock_hz = 0.5 * (ref0.clock_hz + ref1.clock_hz);
  if (ref0.fma_flops > 0 && ref1.fma_flops > 0) t.host_fma_flops = 0.5 * (ref0.fma_flops + ref1.fma_flops);
  if (ref1.kernels_s > 0) kernels.push_back(ref1.kernels_s);
  if (!kernels.empty()) t.host_kernels_s = microbench::summarize(kernels, false).median;
  if (ref1.kernels8_s > 0) kernels8.push_back(ref1.kernels8_s);
  if (!kernels8.empty()) t.host_kernels8_s = microbench::summarize(kernels8, false).median;
  // The state the fits describe: the dispatch of the level the shapes were read in.
  if (!level_readings.empty()) t.host_dispatch_s = microbench::summarize(level_readings, false).median;
  if (!level_readings.empty() && 2 * left_out > timings)
    res.warnings.push_back(fmt::format(
        "{} of {} shape timings read another dispatch state than the table's: most shapes rest on one round or on "
        "rounds in the other state; probe again when the host is quieter",
        left_out, timings));
  res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return res;
}

std::string kernel_samples_json(const KernelProbeResult& r) {
  nlohmann::ordered_json j;
  j["schema"] = "rooflens.kernel_samples/1";
  // Which table the samples were fitted into, as the table's own writer words it.
  const auto table = nlohmann::ordered_json::parse(kernel_table_json(r.table));
  for (const char* k : {"backend", "host", "measured", "threads", "dispatch_s", "simd_lanes"})
    if (table.contains(k)) j[k] = table[k];
  j["seconds"] = "warm_s and cold_s: the shape's median over rounds, its layout conversions removed, dispatch included";
  nlohmann::ordered_json classes = nlohmann::ordered_json::object();
  for (const auto& [cls, warm] : r.samples) {
    if (cls.find('.') != std::string::npos) continue;  // "<class>.cold", joined below
    auto cold = r.samples.find(cls + ".cold");
    nlohmann::ordered_json c;
    c["features"] = kernel_class_features().at(cls);
    c["samples"] = nlohmann::ordered_json::array();
    for (size_t i = 0; i < warm.size(); ++i) {
      nlohmann::ordered_json s;
      s["desc"] = warm[i].desc;
      s["x"] = warm[i].x;
      s["warm_s"] = warm[i].seconds;
      if (cold != r.samples.end() && i < cold->second.size()) s["cold_s"] = cold->second[i].seconds;
      c["samples"].push_back(std::move(s));
    }
    classes[cls] = std::move(c);
  }
  j["classes"] = std::move(classes);
  return j.dump(1) + "\n";
}

}  // namespace rooflens
