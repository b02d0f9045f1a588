// The nine checklist items of the doctor (doctor.h). Each reads the baseline prediction and
// takes its remedies' gains from predictions of changed models or settings.
#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "doctor_items.h"

namespace rooflens::doctor {
namespace {

Finding make(int item, std::string key, std::string title) {
  Finding f;
  f.item = item;
  f.key = std::move(key);
  f.title = std::move(title);
  return f;
}

std::string pct(double share) { return fmt::format("{:.1f}%", 100 * share); }
std::string us(double s) { return fmt::format("{:.1f} us", 1e6 * s); }

bool has_flag(const LayerPrediction& l, std::string_view flag) {
  return std::find(l.flags.begin(), l.flags.end(), flag) != l.flags.end();
}

bool fits(const WhatIfRow& r) { return r.ok && r.note.rfind("does not fit", 0) != 0; }

void add_batch_remedies(const Context& c, Finding& f) {
  for (const WhatIfRow& r : c.rows)
    if (r.group == "batch" && fits(r) && r.batch > c.rows.front().batch)
      f.remedies.push_back(remedy_from_row(c.rows.front(), r, r.variant, "predicted at that batch"));
}

void add_fold_remedies(const Context& c, Finding& f) {
  for (const WhatIfRow& r : c.rows)
    if (r.group == "fold" && r.ok)
      f.remedies.push_back(remedy_from_row(c.rows.front(), r, r.variant, "predicted on the folded graph (FoldedCNN)"));
}

void add_dtype_remedies(const Context& c, Finding& f) {
  auto base = parse_dtype(c.rows.front().dtype);
  for (const WhatIfRow& r : c.rows) {
    if (r.group != "dtype" || !r.ok) continue;
    auto d = parse_dtype(r.dtype);
    if (base && d && dtype_bytes(*d) < dtype_bytes(*base))
      f.remedies.push_back(remedy_from_row(c.rows.front(), r, "run in " + r.dtype, "predicted at " + r.dtype));
  }
}

void add_pad_remedy(const Context& c, Finding& f) {
  for (const WhatIfRow& r : c.rows)
    if (r.group == "pad")
      f.remedies.push_back(remedy_from_row(c.rows.front(), r, r.variant, "predicted on the padded graph"));
}

// The fastest other device of the database at the same dtype (at the baseline's batch, or
// its own largest batch with --batch max), when it beats the baseline.
void add_device_remedy(const Context& c, Finding& f) {
  const WhatIfRow* best = nullptr;
  for (const WhatIfRow& r : c.rows)
    if (r.group == "device" && r.ok && r.throughput > c.rows.front().throughput &&
        (!best || r.throughput > best->throughput))
      best = &r;
  if (!best) return;
  Remedy m = remedy_from_row(c.rows.front(), *best, "another device: " + best->device_id,
                             fmt::format("predicted on {} at batch {}", best->device_id, best->batch));
  m.other_device = true;
  m.note = "another device: listed for comparison, not counted when findings are ranked";
  f.remedies.push_back(m);
}

void verdict_by_share(const Context& c, Finding& f) {
  f.verdict = f.layers_total > 0 && f.time_share >= c.o.min_time_share ? Verdict::kApplies : Verdict::kDoesNotApply;
}

// Bytes of the graph inputs per image, at the dtype the graph carries them in.
double input_bytes_per_image(const Context& c) {
  const Graph& g = c.model.graph;
  double bytes = 0;
  for (ValueId v : g.inputs) {
    const Value& val = g.value(v);
    if (!val.shape) continue;
    auto n = checked_numel(*val.shape);
    if (n) bytes += static_cast<double>(*n) * dtype_bytes(val.dtype == DType::kUnknown ? DType::kF32 : val.dtype);
  }
  const double batch = static_cast<double>(std::max<int64_t>(1, c.model.analysis.batch));
  return bytes / batch;
}

double input_elements_per_image(const Context& c) {
  const Graph& g = c.model.graph;
  double n_all = 0;
  for (ValueId v : g.inputs)
    if (g.value(v).shape)
      if (auto n = checked_numel(*g.value(v).shape)) n_all += static_cast<double>(*n);
  return n_all / static_cast<double>(std::max<int64_t>(1, c.model.analysis.batch));
}

Remedy capped_remedy(std::string name, std::string how, double thr, double cap_before, double cap_after,
                     double util_per_thr) {
  Remedy r;
  r.name = std::move(name);
  r.how = std::move(how);
  r.throughput_before = std::min(thr, cap_before);
  r.throughput_after = std::min(thr, cap_after);
  r.utilization_before = r.throughput_before * util_per_thr;
  r.utilization_after = r.throughput_after * util_per_thr;
  r.speedup = r.throughput_before > 0 ? r.throughput_after / r.throughput_before : 1;
  return r;
}

}  // namespace

Finding memory_bound(const Context& c) {
  Finding f = make(1, "memory-bound", "Memory-bound layers");
  collect_layers(
      f, c.p,
      [&](const LayerPrediction& l) -> std::optional<std::string> {
        if (l.bound != Bound::kMemory) return std::nullopt;
        return fmt::format("{}AI {:.1f} FLOP/B below the ridge {:.1f}; memory {} vs compute {}",
                           l.kernel_class == "depthwise" ? "depthwise; " : "", l.ai, c.p.cmr, us(l.t_memory),
                           us(l.t_compute));
      },
      c.o.max_layers);
  verdict_by_share(c, f);
  f.summary = fmt::format(
      "{} layers holding {} of the time are bound by memory bandwidth (arithmetic intensity "
      "below the device's compute-to-memory ratio {:.1f} FLOP/B; model AI {:.1f})",
      f.layers_total, pct(f.time_share), c.p.cmr, c.p.ai);
  add_fold_remedies(c, f);
  add_dtype_remedies(c, f);
  add_batch_remedies(c, f);
  add_device_remedy(c, f);
  return f;
}

Finding starvation(const Context& c) {
  Finding f = make(2, "starvation", "Work starvation");
  const DeviceSpec& d = c.o.whatif.device;
  collect_layers(
      f, c.p,
      [&](const LayerPrediction& l) -> std::optional<std::string> {
        if (l.bound != Bound::kStarved && !has_flag(l, "starved")) return std::nullopt;
        return fmt::format("wave efficiency {:.0f}% of {} {}{}", 100 * l.wave_efficiency, d.is_gpu() ? d.sm_count : 1,
                           d.is_gpu() ? "SMs" : "core groups",
                           l.split_k > 1 ? fmt::format(", split-K {}", l.split_k) : "");
      },
      c.o.max_layers);
  verdict_by_share(c, f);
  f.summary = fmt::format(
      "{} layers holding {} of the time have too little parallel work to fill the device at "
      "batch {}",
      f.layers_total, pct(f.time_share), c.p.batch);
  add_batch_remedies(c, f);
  add_fold_remedies(c, f);
  return f;
}

Finding input_loading(const Context& c) {
  Finding f = make(3, "input", "Waiting for input");
  const double bpi = input_bytes_per_image(c);
  const double need = c.p.throughput * bpi;
  const double util_per_thr = c.p.throughput > 0 ? c.p.utilization / c.p.throughput : 0;
  f.evidence.push_back(
      fmt::format("input {:.0f} bytes per image; at the predicted {:.0f} img/s the device needs "
                  "{:.2f} GB/s of input",
                  bpi, c.p.throughput, need / 1e9));
  bool applies = false;
  bool known = false;
  double cap = std::numeric_limits<double>::infinity();
  if (c.o.whatif.device.is_gpu() && c.o.host_link_bytes_per_s) {
    known = true;
    const double link = *c.o.host_link_bytes_per_s;
    cap = link / bpi;
    f.evidence.push_back(
        fmt::format("host link {}: {:.2f} GB/s per direction = {:.0f} img/s at most ({} of the link "
                    "needed)",
                    c.o.host_link_name, link / 1e9, cap, pct(need / link)));
    if (cap < c.p.throughput) applies = true;
    const double elems = input_elements_per_image(c);
    if (elems > 0 && bpi / elems > 1)
      f.remedies.push_back(capped_remedy("send uint8 images, convert on the device",
                                         "link-capped throughput with 1 byte per input element", c.p.throughput, cap,
                                         link / elems, util_per_thr));
    f.remedies.push_back(capped_remedy("a host link twice as fast (next PCIe generation)",
                                       "link-capped throughput with twice the bandwidth", c.p.throughput, cap, 2 * cap,
                                       util_per_thr));
  }
  if (c.o.jpeg_images_per_s_per_core) {
    known = true;
    const double rate = *c.o.jpeg_images_per_s_per_core;
    const double cores = c.p.throughput / rate;
    f.evidence.push_back(fmt::format(
        "JPEG decoding measured on this machine: {:.0f} img/s per core, so {:.0f} img/s "
        "needs {:.1f} cores{}",
        rate, c.p.throughput, cores, c.o.host_cores > 0 ? fmt::format(" (this machine has {})", c.o.host_cores) : ""));
    if (c.o.host_cores > 0 && cores > c.o.host_cores) {
      applies = true;
      const double dec_cap = rate * c.o.host_cores;
      f.evidence.push_back(
          fmt::format("decoding on {} cores caps the pipeline at {:.0f} img/s", c.o.host_cores, dec_cap));
      f.remedies.push_back(capped_remedy(fmt::format("decode on {:.0f} cores (or on the device)", std::ceil(cores)),
                                         "decode-capped throughput with enough cores", c.p.throughput,
                                         std::min(cap, dec_cap), cap, util_per_thr));
    }
  }
  if (!known) {
    f.verdict = Verdict::kCannotTell;
    f.measurement_needed =
        "the device's host link (host_link in its device file) and this machine's JPEG decode "
        "rate (rooflens probe jpeg)";
    f.summary = "input needs are known but neither the host link nor the decode rate is";
    return f;
  }
  f.verdict = applies ? Verdict::kApplies : Verdict::kDoesNotApply;
  f.time_share = applies && c.p.throughput > 0 ? 1 - std::min(cap, c.p.throughput) / c.p.throughput : 0;
  f.summary = applies ? "the input pipeline cannot deliver images as fast as the device computes them"
                      : "the input pipeline keeps up with the predicted throughput";
  return f;
}

Finding copy_overlap(const Context& c) {
  Finding f = make(4, "overlap", "Overlap of copies and compute");
  if (!c.o.whatif.device.is_gpu()) {
    f.verdict = Verdict::kDoesNotApply;
    f.summary = "the model runs on the host: no host-to-device copies";
    return f;
  }
  if (!c.o.host_link_bytes_per_s) {
    f.verdict = Verdict::kCannotTell;
    f.measurement_needed = "the device's host link bandwidth (host_link in its device file)";
    f.summary = "the copy time of a batch needs the host link";
    return f;
  }
  const double batch = static_cast<double>(c.p.batch);
  const double copy = batch * input_bytes_per_image(c) / *c.o.host_link_bytes_per_s;
  const double compute = c.p.time_s;
  f.evidence.push_back(fmt::format("copy of a batch of {} over {}: {}; its compute: {}", c.p.batch, c.o.host_link_name,
                                   us(copy), us(compute)));
  f.time_share = copy / (copy + compute);
  f.verdict = f.time_share >= c.o.min_time_share ? Verdict::kApplies : Verdict::kDoesNotApply;
  f.summary = fmt::format("copying inputs serially with compute would take {} of each step", pct(f.time_share));
  Remedy r;
  r.name = "overlap copies with compute (pinned memory, a second stream)";
  r.how = "serial copy + compute against max(copy, compute) per batch";
  r.throughput_before = batch / (copy + compute);
  r.throughput_after = batch / std::max(copy, compute);
  const double util_per_thr = c.p.throughput > 0 ? c.p.utilization / c.p.throughput : 0;
  r.utilization_before = r.throughput_before * util_per_thr;
  r.utilization_after = r.throughput_after * util_per_thr;
  r.speedup = r.throughput_after / r.throughput_before;
  r.note = "the baseline prediction assumes copies are overlapped; this is the gain over a serial loop";
  f.remedies.push_back(r);
  return f;
}

Finding specialized_units(const Context& c) {
  Finding f = make(5, "tensor-cores", "Specialized units (tensor cores)");
  const DeviceSpec& d = c.o.whatif.device;
  if (!d.is_gpu()) {
    f.verdict = Verdict::kDoesNotApply;
    f.summary = "no separate matrix unit is modelled for this device";
    return f;
  }
  const bool dtype_has_tc = d.unit_peak(c.p.dtype, ComputeUnit::kTensor).has_value();
  collect_layers(
      f, c.p,
      [&](const LayerPrediction& l) -> std::optional<std::string> {
        if (l.unit != ComputeUnit::kCuda || l.flops == 0) return std::nullopt;
        if (!l.tensor_eligible) {
          if (l.kernel_class == "depthwise") return std::string("depthwise convolution: no tensor-core kernel");
          return std::nullopt;  // pooling, elementwise: no matrix work to move
        }
        if (!dtype_has_tc) return fmt::format("{} has no tensor-core rate on {}", c.p.dtype, d.id);
        if (!l.aligned)
          return fmt::format("channels not multiples of {} (tensor-core tile)",
                             d.tc_channel_multiple.count(c.p.dtype) ? d.tc_channel_multiple.at(c.p.dtype) : 8);
        return std::string("runs on CUDA cores");
      },
      c.o.max_layers);
  verdict_by_share(c, f);
  f.summary = fmt::format("{} layers holding {} of the time run on CUDA cores", f.layers_total, pct(f.time_share));
  add_pad_remedy(c, f);
  if (!dtype_has_tc)
    for (const WhatIfRow& r : c.rows)
      if (r.group == "dtype" && r.ok && d.unit_peak(r.dtype, ComputeUnit::kTensor))
        f.remedies.push_back(remedy_from_row(c.rows.front(), r, "run in " + r.dtype, "predicted at " + r.dtype));
  return f;
}

Finding unoptimized_code(const Context& c) {
  Finding f = make(6, "unoptimized", "Unoptimized code");
  if (!c.o.measured) {
    f.verdict = Verdict::kCannotTell;
    f.measurement_needed = "a measured run with per-layer times (on this CPU: --measured with the probe's device file)";
    f.summary = "needs measured layer times to compare with their roofline bounds";
    return f;
  }
  std::map<std::string, const LayerPrediction*> by_name;
  for (const LayerPrediction& l : c.p.layers) by_name[l.name] = &l;
  double total = 0, excess = 0, share = 0;
  for (const MeasuredLayer& m : *c.o.measured) total += m.time_s;
  std::vector<DoctorLayer> all;
  for (const MeasuredLayer& m : *c.o.measured) {
    auto it = by_name.find(m.name);
    if (it == by_name.end() || it->second->time_s <= 0) continue;
    const double ratio = m.time_s / it->second->time_s;
    if (ratio <= c.o.unoptimized_factor) continue;
    excess += m.time_s - it->second->time_s;
    share += total > 0 ? m.time_s / total : 0;
    all.push_back({m.name, it->second->op, total > 0 ? m.time_s / total : 0,
                   fmt::format("measured {} vs bound {} ({:.1f}x){}", us(m.time_s), us(it->second->time_s), ratio,
                               m.implementation.empty() ? "" : ", " + m.implementation)});
  }
  std::stable_sort(all.begin(), all.end(),
                   [](const DoctorLayer& a, const DoctorLayer& b) { return a.time_share > b.time_share; });
  f.layers_total = static_cast<int64_t>(all.size());
  if (all.size() > c.o.max_layers) all.resize(c.o.max_layers);
  f.layers = std::move(all);
  f.time_share = share;
  verdict_by_share(c, f);
  f.summary = fmt::format("{} layers, {} of the measured time, run more than {:.0f}x above their predicted bound",
                          f.layers_total, pct(share), c.o.unoptimized_factor);
  if (f.layers_total > 0 && total > 0) {
    Remedy r;
    r.name = "these layers at their bound (a better kernel or backend)";
    r.how = "measured total minus these layers' excess over their predicted bound";
    const double batch = static_cast<double>(c.p.batch);
    r.throughput_before = batch / total;
    r.throughput_after = batch / (total - excess);
    r.speedup = r.throughput_after / r.throughput_before;
    const double util_per_thr = c.p.throughput > 0 ? c.p.utilization / c.p.throughput : 0;
    r.utilization_before = r.throughput_before * util_per_thr;
    r.utilization_after = r.throughput_after * util_per_thr;
    f.remedies.push_back(r);
  }
  return f;
}

Finding thermal(const Context& c) {
  Finding f = make(7, "thermal", "Thermal and power envelope");
  const DeviceSpec& d = c.o.whatif.device;
  const double reference = d.clock_boost_hz > 0 ? d.clock_boost_hz : d.clock_base_hz;
  if (c.o.clock_measured_hz && reference > 0 && !d.is_gpu()) {
    const double ratio = *c.o.clock_measured_hz / reference;
    f.evidence.push_back(
        fmt::format("core clock right after the sustained run: {:.2f} GHz (dependent-add chain); the "
                    "device file's clock: {:.2f} GHz",
                    *c.o.clock_measured_hz / 1e9, reference / 1e9));
    f.verdict = ratio < c.o.throttle_factor ? Verdict::kApplies : Verdict::kDoesNotApply;
    f.time_share = ratio < 1 ? 1 - ratio : 0;
    f.summary =
        ratio < c.o.throttle_factor
            ? fmt::format("the cores ran at {:.0f}% of the device file's clock after sustained load", 100 * ratio)
            : fmt::format("the cores held {:.0f}% of the device file's clock under sustained load", 100 * ratio);
    return f;
  }
  f.verdict = Verdict::kCannotTell;
  f.summary = "the clock under sustained load is not measured";
  f.measurement_needed = c.o.whatif.device.is_gpu()
                             ? "the SM clock during a sustained run (nvidia-smi --query-gpu=clocks.sm) against the "
                               "boost clock of the datasheet"
                             : "this CPU's clock during a sustained run against the probe's clock (--measured)";
  return f;
}

Finding heterogeneity(const Context& c) {
  Finding f = make(8, "heterogeneity", "Heterogeneity of compute units");
  std::map<ComputeUnit, double> share;
  for (const LayerPrediction& l : c.p.layers) share[l.unit] += l.time_share;
  auto best = c.o.whatif.device.best_peak(c.p.dtype);
  const ComputeUnit peak_unit = best ? best->unit : ComputeUnit::kCuda;
  std::string parts;
  for (const auto& [unit, s] : share)
    parts += fmt::format("{}{}: {}", parts.empty() ? "" : ", ", compute_unit_name(unit), pct(s));
  f.evidence.push_back("time by unit: " + parts);
  f.time_share = 1 - share[peak_unit];
  f.verdict = f.time_share >= c.o.min_time_share && share.size() > 1 ? Verdict::kApplies : Verdict::kDoesNotApply;
  f.summary = fmt::format(
      "{} of the time runs on units other than the one the {} peak counts ({}); that time "
      "cannot approach the peak",
      pct(f.time_share), c.p.dtype, compute_unit_name(peak_unit));
  if (f.verdict == Verdict::kApplies) f.evidence.push_back("remedies: see specialized units (item 5)");
  return f;
}

Finding launch_overhead(const Context& c) {
  Finding f = make(9, "launch", "Kernel launch overhead");
  const DeviceSpec& d = c.o.whatif.device;
  int64_t kernels = 0;
  double gaps = 0;
  for (const LayerPrediction& l : c.p.layers)
    if (l.time_s > 0) ++kernels, gaps += l.t_gap;
  const double launches = static_cast<double>(kernels) * d.launch_overhead_s;
  collect_layers(
      f, c.p,
      [&](const LayerPrediction& l) -> std::optional<std::string> {
        if (l.bound != Bound::kLaunch && !has_flag(l, "launch")) return std::nullopt;
        return fmt::format("work {} shorter than the launch overhead {}", us(std::max(l.t_compute, l.t_memory)),
                           us(l.t_launch));
      },
      c.o.max_layers);
  f.evidence.push_back(
      fmt::format("{} kernels x {} launch = {} against {} per batch ({}); serialized gaps between "
                  "dependent kernels {}",
                  kernels, us(d.launch_overhead_s), us(launches), us(c.p.time_s),
                  pct(c.p.time_s > 0 ? launches / c.p.time_s : 0), us(gaps)));
  verdict_by_share(c, f);
  f.summary = fmt::format("{} layers holding {} of the time are shorter than a kernel launch", f.layers_total,
                          pct(f.time_share));
  // An engine that issues each call from the host (PyTorch eager, rooflens-cuda without
  // --graph) loses its per-call host cost under capture; otherwise only the launch floor goes.
  const EngineProfile& engine = c.o.whatif.perf.engine;
  const bool host_cost = !engine.captured && (engine.host_library_call_s > 0 || engine.host_kernel_call_s > 0);
  if (d.launch_overhead_s > 0 || host_cost) {
    DeviceSpec captured = d;
    captured.launch_overhead_s = 0;
    PerfOptions po = c.o.whatif.perf;
    po.dtype = c.p.dtype;
    po.engine.captured = true;
    auto p2 = predict(c.model.graph, c.model.analysis, captured, po);
    Remedy r;
    r.name = "graph capture (CUDA graphs)";
    r.how = host_cost ? fmt::format(
                            "predicted with the engine's host cost per call ({:.0f} us per library call, "
                            "{:.0f} us per kernel; {:.2f} ms per batch) and the launch overhead removed",
                            engine.host_library_call_s * 1e6, engine.host_kernel_call_s * 1e6, c.p.host_s * 1e3)
                      : "predicted with the host launch overhead removed (the serialized GPU-side gap per kernel kept)";
    r.throughput_before = c.p.throughput;
    r.utilization_before = c.p.utilization;
    if (p2) {
      r.throughput_after = p2->throughput;
      r.utilization_after = p2->utilization;
      r.speedup = c.p.throughput > 0 ? p2->throughput / c.p.throughput : 1;
    } else {
      r.ok = false;
      r.note = p2.status().message();
    }
    f.remedies.push_back(r);
  }
  add_batch_remedies(c, f);
  return f;
}

}  // namespace rooflens::doctor
