// ProbeResult -> rooflens.probe/1 and rooflens.device/1 JSON (see probe.h). Serialisation of
// data, not presentation: the CLI renders tables.
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "rooflens/microbench/probe.h"

namespace rooflens::microbench {
namespace {

using json = nlohmann::ordered_json;

std::string accumulator_of(const std::string& dtype) { return dtype == "int8" ? "int32" : "fp32"; }

std::string isa_list(const HostCpu& c) {
  std::string s;
  for (const auto& n : c.isa.names()) s += (s.empty() ? "" : " ") + n;
  return s;
}

std::string hex(int v) { return fmt::format("0x{:x}", v); }

json host_json(const ProbeResult& r) {
  const HostCpu& c = r.cpu;
  return {{"vendor", c.vendor},
          {"model_name", c.model_name},
          {"brand", c.brand},
          {"family", hex(c.family)},
          {"model", hex(c.model)},
          {"stepping", c.stepping},
          {"isa", c.isa.names()},
          {"cores", c.cores},
          {"threads", c.threads},
          {"cpu_order", c.cpu_order},
          {"l1d_bytes", c.l1d_bytes},
          {"l2_bytes", c.l2_bytes},
          {"l3_bytes", c.l3_bytes},
          {"cache_source", c.cache_source},
          {"llc_bytes", r.llc_bytes},
          {"llc_source", r.llc_source},
          {"clock_reported_hz", c.clock_reported_hz},
          {"clock_measured_hz", sample_stats_json(r.clock_measured_hz)},
          {"clock_hz", r.clock_hz},
          {"clock_source", r.clock_source},
          {"mem_total_bytes", c.mem_total_bytes},
          {"notes", c.notes}};
}

// Cache roofs for the performance model: the triad plateau of each level, with the largest
// working set it serves on `n` threads (per-core caches scale with the threads).
std::vector<MemoryLevel> cache_levels(const ProbeResult& r, int n) {
  const HostCpu& c = r.cpu;
  const auto plateaus = level_roofs(r, BandwidthKind::kTriad, n);
  const std::pair<const char*, double> sizes[] = {{"L1", c.l1d_bytes * n}, {"L2", c.l2_bytes * n}, {"L3", r.llc_bytes}};
  std::vector<MemoryLevel> levels;
  double last = 0;
  for (const auto& [lvl, bytes] : sizes) {
    auto it = plateaus.find(lvl);
    if (it == plateaus.end() || bytes <= last) continue;
    levels.push_back({lvl, bytes, it->second});
    last = bytes;
  }
  return levels;
}

// Where each figure of the device file comes from.
std::map<std::string, std::string> cpu_sources(const ProbeResult& r, int n, int cores, const std::string& peaks_src,
                                               const std::string& measured_src) {
  const HostCpu& c = r.cpu;
  const SimdPath* widest = r.paths.empty() ? nullptr : &r.paths.front();
  const BandwidthMeasurement* triad = largest_working_set(r, BandwidthKind::kTriad, n);
  const std::string warn_text = r.warnings.empty()
                                    ? std::string("no interference seen")
                                    : fmt::format("{} warning(s), first: {}", r.warnings.size(), r.warnings.front());
  return {
      {"peaks", peaks_src},
      {"measured_peaks", measured_src + ". " + warn_text},
      {"memory",
       fmt::format("bytes: /proc/meminfo MemTotal. bandwidth: measured STREAM triad (a = b + s*c, 12 B per element, "
                   "write-allocate not counted), {:.0f} MiB working set on {} thread(s), best of {} (median {:.4g} "
                   "B/s, spread {:.0f}%), rooflens probe cpu {}. type: not visible to the probe",
                   triad->working_set_bytes / (1 << 20), n, triad->bytes_per_s.samples.size(),
                   triad->bytes_per_s.median, 100 * triad->bytes_per_s.spread, r.date)},
      {"sm_count", "not applicable to a CPU"},
      {"clock_hz", fmt::format("base: /proc/cpuinfo 'cpu MHz' as reported ({:.0f} MHz); boost: {}",
                               c.clock_reported_hz / 1e6, r.clock_source)},
      {"l2_bytes", "top-level l2_bytes holds the CPU's last-level cache (L3): " + r.llc_source},
      {"tensor_core", "not applicable to a CPU"},
      {"launch_overhead_s",
       r.dispatch.empty()
           ? std::string("not measured")
           : fmt::format("measured by rooflens probe cpu {}: fork/join of an almost empty parallel region on {} "
                         "pinned thread(s), median of {} (best {:.3g} s); a oneDNN primitive adds its own cost",
                         r.date, n, r.dispatch.back().seconds.samples.size(), r.dispatch.back().seconds.best)},
      {"max_threads_per_sm", "not applicable to a CPU"},
      {"max_blocks_per_sm", "not applicable to a CPU"},
      {"cpu", fmt::format("rooflens probe cpu {}: cpuid vendor {} family {} model {} ('{}'), /proc/cpuinfo model name "
                          "'{}'; ISA from cpuid/xgetbv at run time: {}; {} core(s) / {} thread(s) measured ({} "
                          "logical CPUs allowed); caches from {}; simd_bits / fma_units: {}",
                          r.date, c.vendor, hex(c.family), hex(c.model), c.brand, c.model_name, isa_list(c), cores, n,
                          c.threads, c.cache_source, widest ? widest->assumption : "no AVX2")},
      {"workspace_bytes", "assumption: 256 MiB of scratch an inference engine reserves; not a hardware figure"},
      {"reserved_bytes", "assumption: 512 MiB unavailable to the model (OS, runtime, other processes)"}};
}

}  // namespace

json probe_json(const ProbeResult& r) {
  const int n = max_threads(r);
  json peak = json::object(), peak_median = json::object(), theo = json::object();
  for (const auto& dt : measured_dtypes(r)) {
    if (const auto* m = best_compute(r, dt, n)) {
      peak[dt] = m->flops.best;
      peak_median[dt] = m->flops.median;
    }
    theo[dt] = theoretical_peak(r, dt, n);
  }
  json bw = json::object(), bw_median = json::object(), cache_bw = json::object();
  for (BandwidthKind k : kBandwidthKinds) {
    if (const auto* m = largest_working_set(r, k, n)) {
      bw[bandwidth_kind_name(k)] = m->bytes_per_s.best;
      bw_median[bandwidth_kind_name(k)] = m->bytes_per_s.median;
    }
    for (const auto& [level, v] : level_roofs(r, k, n)) cache_bw[level][bandwidth_kind_name(k)] = v;
  }
  json compute = json::array();
  for (const auto& m : r.compute)
    compute.push_back({{"dtype", m.dtype},
                       {"isa", m.isa},
                       {"instruction", m.instruction},
                       {"threads", m.threads},
                       {"cores", m.cores},
                       {"flops", sample_stats_json(m.flops)},
                       {"on_cpu_fraction", sample_stats_json(m.on_cpu)},
                       {"theoretical_flops", m.theoretical},
                       {"theoretical_flops_at_reported_clock", m.theoretical_reported_clock},
                       {"efficiency_best", m.theoretical > 0 ? m.flops.best / m.theoretical : 0.0},
                       {"efficiency_median", m.theoretical > 0 ? m.flops.median / m.theoretical : 0.0}});
  json sweep = json::array();
  for (const auto& m : r.bandwidth)
    sweep.push_back({{"kind", bandwidth_kind_name(m.kind)},
                     {"isa", m.isa},
                     {"working_set_bytes", m.working_set_bytes},
                     {"threads", m.threads},
                     {"level", m.level},
                     {"bytes_per_s", sample_stats_json(m.bytes_per_s)},
                     {"on_cpu_fraction", sample_stats_json(m.on_cpu)}});
  json dispatch = json::array();
  for (const auto& m : r.dispatch)
    dispatch.push_back({{"threads", m.threads}, {"seconds", sample_stats_json(m.seconds)}});
  json paths = json::array();
  for (const auto& p : r.paths)
    paths.push_back({{"isa", p.isa},
                     {"vector_bits", p.vector_bits},
                     {"datapath_bits", p.datapath_bits},
                     {"fma_units", p.fma_units},
                     {"fp32_flop_per_cycle_per_core", p.fp32_flop_per_cycle()},
                     {"assumption", p.assumption}});
  json overhead = nullptr;
  if (!r.dispatch.empty()) overhead = r.dispatch.back().seconds.median;
  return {{"schema", kProbeSchema},
          {"date", r.date},
          {"host", host_json(r)},
          {"threads", r.thread_counts},
          {"repeats", r.repeats},
          {"seconds_per_repeat", {{"compute", r.compute_seconds}, {"bandwidth", r.bandwidth_seconds}}},
          {"peak_flops", peak},
          {"peak_flops_median", peak_median},
          {"theoretical_peak_flops", theo},
          {"theoretical_model",
           {{"formula", "cores x FMA units x (datapath bits / 32) x 2 x clock; bf16 x2, int8 x4 per lane"},
            {"clock_hz", r.clock_hz},
            {"clock_source", r.clock_source},
            {"paths", paths}}},
          {"bandwidth", bw},
          {"bandwidth_median", bw_median},
          {"cache_bandwidth", cache_bw},
          {"dispatch_overhead_s", overhead},
          {"dispatch_overhead_note",
           "fork/join of an almost empty parallel region on the probe's pinned thread team (median, all threads); "
           "not a oneDNN primitive's overhead, which the oneDNN executor measures separately"},
          {"compute", compute},
          {"bandwidth_sweep", sweep},
          {"dispatch", dispatch},
          {"interference",
           {{"detected", r.interference},
            {"steal_fraction", r.steal_fraction ? json(*r.steal_fraction) : json(nullptr)},
            {"runnable_at_start", r.runnable_at_start}}},
          {"warnings", r.warnings},
          {"wall_seconds", r.wall_seconds}};
}

Expected<DeviceSpec> probe_device_spec(const ProbeResult& r, const std::string& id) {
  if (id.empty()) return Status::invalid("--id must not be empty");
  const int n = max_threads(r);
  const ComputeMeasurement* fp32 = best_compute(r, "fp32", n);
  const BandwidthMeasurement* triad = largest_working_set(r, BandwidthKind::kTriad, n);
  if (!fp32) return Status::invalid("the probe measured no fp32 peak; cannot write a device file");
  if (!triad) return Status::invalid("the probe measured no triad bandwidth; cannot write a device file");
  const HostCpu& c = r.cpu;
  const SimdPath* widest = r.paths.empty() ? nullptr : &r.paths.front();
  const int cores = fp32->cores;

  DeviceSpec d;
  d.id = id;
  d.name = fmt::format("{} ({}), {} core(s), measured by rooflens probe cpu",
                       c.model_name.empty() ? "CPU" : c.model_name, c.brand.empty() ? c.vendor : c.brand, cores);
  d.kind = "cpu";
  d.arch = fmt::format("{} family {} model {}, {}", c.vendor, hex(c.family), hex(c.model), isa_list(c));
  d.clock_base_hz = c.clock_reported_hz;
  d.clock_boost_hz = r.clock_hz;
  d.mem_bytes = c.mem_total_bytes;
  d.mem_bandwidth = triad->bytes_per_s.best;
  d.mem_type = "unknown";
  d.mem_levels = cache_levels(r, n);
  d.l2_bytes = r.llc_bytes;  // the last-level cache (sources.l2_bytes says so)
  std::string peaks_src, measured_src;
  for (const auto& dt : measured_dtypes(r)) {
    const ComputeMeasurement* m = best_compute(r, dt, n);
    const double theo = theoretical_peak(r, dt, n);
    if (!m || !(theo > 0) || !(m->flops.best > 0)) continue;
    d.peaks.push_back({dt, ComputeUnit::kSimd, accumulator_of(dt), theo, ""});
    const std::string src = fmt::format(
        "rooflens probe cpu {}: {} on {} pinned thread(s), best of {} repeats x {:.2f} s (median {:.4g}, spread "
        "{:.0f}%)",
        r.date, m->instruction, m->threads, m->flops.samples.size(), r.compute_seconds, m->flops.median,
        100 * m->flops.spread);
    d.measured_peaks.push_back({dt, ComputeUnit::kSimd, accumulator_of(dt), m->flops.best, src});
    measured_src += (measured_src.empty() ? "" : "; ") + dt + ": " + src;
  }
  for (const auto& p : r.paths) peaks_src += (peaks_src.empty() ? "" : "; ") + p.isa + ": " + p.assumption;
  peaks_src = fmt::format(
      "computed by rooflens probe cpu: {} core(s) x FMA units x lanes x 2 FLOP x {:.3f} GHz ({}); "
      "bf16 (vdpbf16ps) x2 and int8 (vpdpbusd) x4 per lane, assuming the FP32 FMA issue rate. {}",
      cores, r.clock_hz / 1e9, r.clock_source, peaks_src);
  d.launch_overhead_s = r.dispatch.empty() ? 0 : r.dispatch.back().seconds.median;
  d.cpu = CpuInfo{cores,
                  n,
                  widest ? widest->vector_bits : 128,
                  widest ? widest->fma_units : 2,
                  c.isa.names(),
                  c.l1d_bytes,
                  c.l2_bytes,
                  c.l3_bytes};
  d.workspace_bytes = 268435456;
  d.reserved_bytes = 536870912;
  d.sources = cpu_sources(r, n, cores, peaks_src, measured_src);
  return d;
}

Expected<json> probe_device_json(const ProbeResult& r, const std::string& id) {
  auto d = probe_device_spec(r, id);
  if (!d) return d.status();
  return device_json(*d);
}

}  // namespace rooflens::microbench
