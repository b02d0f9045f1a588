// GpuProbeResult -> rooflens.gpu_probe/1 and rooflens.device/1 JSON (see gpu_probe.h).
// Serialisation of data, not presentation: the CLI renders tables. Built with or without CUDA.
#include <fmt/format.h>

#include <filesystem>
#include <map>

#include "rooflens/microbench/gpu_probe.h"

namespace rooflens::microbench {
namespace {

using json = nlohmann::ordered_json;

json positive_or_null(double v) { return v > 0 ? json(v) : json(nullptr); }

std::string version(int v) { return fmt::format("{}.{}", v / 1000, v % 1000 / 10); }

std::string repeats_text(const GpuProbeResult& r) {
  return fmt::format("{} timed repeats after {} warm-up(s), CUDA events", r.repeats, r.warmups);
}

json facts_json(const GpuFacts& f) {
  return {{"ordinal", f.ordinal},
          {"name", f.name},
          {"pci_bus_id", f.pci_bus_id},
          {"sm_count", f.sm_count},
          {"compute_capability", f.compute_capability()},
          {"global_mem_bytes", f.global_mem_bytes},
          {"l2_bytes", f.l2_bytes},
          {"clock_hz", positive_or_null(f.clock_hz)},
          {"mem_clock_hz", positive_or_null(f.mem_clock_hz)},
          {"mem_bus_width_bits", f.mem_bus_width_bits},
          {"max_threads_per_sm", f.max_threads_per_sm},
          {"max_blocks_per_sm", f.max_blocks_per_sm},
          {"driver_version", version(f.driver_version)},
          {"runtime_version", version(f.runtime_version)},
          {"cublas_version",
           fmt::format("{}.{}.{}", f.cublas_version / 10000, f.cublas_version / 100 % 100, f.cublas_version % 100)},
          {"pcie_link_current", f.pcie_link_current},
          {"pcie_link_max", f.pcie_link_max}};
}

// Tensor-core channel multiples by compute capability when no datasheet matched: the
// 16-byte rule of NVIDIA's Deep Learning Performance Guide.
std::map<std::string, int> channel_multiples(const GpuFacts& f) {
  const int cc = 10 * f.cc_major + f.cc_minor;
  std::map<std::string, int> m;
  if (cc >= 70) m["fp16"] = 8;
  if (cc >= 72) m["int8"] = 16;
  if (cc >= 80) {
    m["bf16"] = 8;
    m["tf32"] = 4;
  }
  if (cc >= 89) m["fp8"] = 16;
  return m;
}

// What every source line of a probed device says about where it was measured.
struct Context {
  Context(const GpuProbeResult& r, const DeviceSpec* ds) : ds(ds) {
    const GpuFacts& f = r.facts;
    by = fmt::format("measured by rooflens probe gpu {} on '{}' (device {}, {})", r.date, f.name, f.ordinal,
                     f.pci_bus_id.empty() ? "bus unknown" : f.pci_bus_id);
    if (ds)
      ds_text = fmt::format("datasheet device '{}' ({})", ds->id, std::filesystem::path(ds->file).filename().string());
  }
  const DeviceSpec* ds;
  std::string by, ds_text;
};

std::string memory_source(const GpuProbeResult& r, const Context& ctx) {
  const CopyMeasurement* copy = find_copy(r, "kernel");
  const CopyMeasurement* memcpy_d2d = find_copy(r, "cudaMemcpy");
  return fmt::format(
      "bytes: cudaDeviceProp::totalGlobalMem. bandwidth: {}: copy kernel (16-byte vector loads and stores, "
      "grid-stride) "
      "of {} MiB to {} MiB, bytes read + written, best of {} (median {:.4g} B/s, spread {:.0f}%){}. type: {}",
      ctx.by, copy->buffer_bytes / (1 << 20), copy->buffer_bytes / (1 << 20), copy->bytes_per_s.samples.size(),
      copy->bytes_per_s.median, 100 * copy->bytes_per_s.spread,
      memcpy_d2d ? fmt::format("; cudaMemcpy device to device best {:.4g} B/s", memcpy_d2d->bytes_per_s.best) : "",
      ctx.ds ? ctx.ds->mem_type + " (" + ctx.ds_text + ")" : "not visible to the CUDA runtime");
}

std::string launch_source(const GpuProbeResult& r, const Context& ctx) {
  const LaunchMeasurement* stream = find_launch(r, "stream");
  const LaunchMeasurement* graph = find_launch(r, "graph");
  const LaunchMeasurement* rt = find_launch(r, "round_trip");
  std::string s = fmt::format(
      "{}: empty kernel launched {} times back to back on one stream, time per launch, "
      "median of {} (best {:.3g} s)",
      ctx.by, stream->launches, stream->seconds.samples.size(), stream->seconds.best);
  if (graph)
    s += fmt::format("; the same launches replayed as a CUDA graph: {:.3g} s per node (median)", graph->seconds.median);
  if (rt) s += fmt::format("; launch + cudaStreamSynchronize round trip: {:.3g} s (median)", rt->seconds.median);
  return s;
}

std::string host_link_source(const GpuProbeResult& r, const Context& ctx) {
  const GpuFacts& f = r.facts;
  const HostCopyMeasurement* h2d = find_host_copy(r, "host_to_device");
  const HostCopyMeasurement* d2h = find_host_copy(r, "device_to_host");
  std::string s = fmt::format(
      "{}: cudaMemcpyAsync of {} MiB from pinned host memory (cudaMallocHost), best of "
      "{} (median {:.4g} B/s)",
      ctx.by, h2d->bytes / (1 << 20), h2d->bytes_per_s.samples.size(), h2d->bytes_per_s.median);
  if (d2h) s += fmt::format("; device to host best {:.4g} B/s", d2h->bytes_per_s.best);
  s += fmt::format("; link from sysfs: current {}, max {}",
                   f.pcie_link_current.empty() ? "unknown" : f.pcie_link_current,
                   f.pcie_link_max.empty() ? "unknown" : f.pcie_link_max);
  if (ctx.ds && ctx.ds->host_link)
    s += fmt::format("; the datasheet link is {} at {:.4g} B/s per direction", ctx.ds->host_link->name,
                     ctx.ds->host_link->bandwidth_bytes_per_s);
  return s;
}

// Where each figure of the device file comes from.
std::map<std::string, std::string> gpu_sources(const GpuProbeResult& r, const Context& ctx,
                                               const std::string& peaks_src, const std::string& measured_src) {
  const GpuFacts& f = r.facts;
  const DeviceSpec* ds = ctx.ds;
  const std::string residency = fmt::format(
      "cudaDeviceProp maxThreadsPerMultiProcessor {} and "
      "maxBlocksPerMultiProcessor {} (compute capability {})",
      f.max_threads_per_sm, f.max_blocks_per_sm, f.compute_capability());
  return {{"peaks", peaks_src},
          {"measured_peaks",
           measured_src + ". " + repeats_text(r) + "; " +
               (r.warnings.empty() ? std::string("no warnings")
                                   : fmt::format("{} warning(s), first: {}", r.warnings.size(), r.warnings.front()))},
          {"memory", memory_source(r, ctx)},
          {"sm_count", "cudaDeviceProp::multiProcessorCount"},
          {"clock_hz", fmt::format("boost: cudaDevAttrClockRate (peak SM clock) {}; base: {}",
                                   f.clock_hz > 0 ? fmt::format("{:.0f} MHz", f.clock_hz / 1e6) : "not reported",
                                   ds && ds->clock_base_hz > 0 ? "from the " + ctx.ds_text : "unknown")},
          {"l2_bytes", "cudaDeviceProp::l2CacheSize"},
          {"tensor_core",
           ds ? "copied from the " + ctx.ds_text + ": " +
                    (ds->sources.count("tensor_core") ? ds->sources.at("tensor_core") : "")
              : "NVIDIA Deep Learning Performance Guide 16-byte rule by compute capability; not measured"},
          {"launch_overhead_s", launch_source(r, ctx)},
          {"max_threads_per_sm", residency},
          {"max_blocks_per_sm", residency},
          {"workspace_bytes",
           "assumption: 256 MiB of scratch an inference engine (TensorRT/cuDNN workspace) reserves; not a "
           "hardware figure"},
          {"reserved_bytes",
           "assumption: 512 MiB unavailable to the model (CUDA context, cuDNN/cuBLAS handles, driver "
           "reservations); not a hardware figure"},
          {"host_link", host_link_source(r, ctx)}};
}

}  // namespace

json gpu_probe_json(const GpuProbeResult& r, const DeviceSpec* ds) {
  json gemm = json::array();
  for (const auto& m : r.gemm)
    gemm.push_back({{"dtype", m.dtype},
                    {"unit", m.unit},
                    {"accumulator", m.accumulator},
                    {"compute_type", m.compute_type},
                    {"m", m.m},
                    {"n", m.n},
                    {"k", m.k},
                    {"gemms_per_repeat", m.gemms_per_repeat},
                    {"flops", sample_stats_json(m.flops)},
                    {"verified", m.verified},
                    {"max_abs_error", m.max_abs_error}});
  json copy = json::array();
  for (const auto& m : r.copy)
    copy.push_back({{"method", m.method},
                    {"buffer_bytes", m.buffer_bytes},
                    {"copies_per_repeat", m.copies_per_repeat},
                    {"bytes_per_s", sample_stats_json(m.bytes_per_s)}});
  json launch = json::array();
  for (const auto& m : r.launch)
    launch.push_back({{"method", m.method}, {"launches", m.launches}, {"seconds", sample_stats_json(m.seconds)}});
  json host = json::array();
  for (const auto& m : r.host_copy)
    host.push_back({{"direction", m.direction}, {"bytes", m.bytes}, {"bytes_per_s", sample_stats_json(m.bytes_per_s)}});
  json peak = json::object(), peak_median = json::object();
  for (const char* dt : {"fp32", "tf32", "fp16", "bf16"})
    if (const auto* m = best_gemm(r, dt)) {
      peak[dt] = m->flops.best;
      peak_median[dt] = m->flops.median;
    }
  json comparisons = json::array();
  for (const auto& c : compare_with_datasheet(r, ds))
    comparisons.push_back(
        {{"what", c.what},
         {"unit", c.unit},
         {"median", c.measured.median},
         {"best", c.measured.best},
         {"datasheet", positive_or_null(c.datasheet)},
         {"datasheet_note", c.datasheet_note},
         {"median_over_datasheet", c.datasheet > 0 ? json(c.measured.median / c.datasheet) : json()}});
  const auto* kernel = find_copy(r, "kernel");
  const auto* stream = find_launch(r, "stream");
  return {{"schema", kGpuProbeSchema},
          {"date", r.date},
          {"device", facts_json(r.facts)},
          {"datasheet", ds ? json{{"id", ds->id}, {"name", ds->name}, {"file", ds->file}} : json(nullptr)},
          {"quick", r.quick},
          {"repeats", r.repeats},
          {"warmups", r.warmups},
          {"peak_flops", peak},
          {"peak_flops_median", peak_median},
          {"bandwidth", kernel ? json(kernel->bytes_per_s.best) : json(nullptr)},
          {"bandwidth_median", kernel ? json(kernel->bytes_per_s.median) : json(nullptr)},
          {"launch_overhead_s", stream ? json(stream->seconds.median) : json(nullptr)},
          {"gemm", gemm},
          {"copy", copy},
          {"launch", launch},
          {"host_copy", host},
          {"comparisons", comparisons},
          {"warnings", r.warnings},
          {"wall_seconds", r.wall_seconds}};
}

Expected<DeviceSpec> gpu_probe_device_spec(const GpuProbeResult& r, const std::string& id, const DeviceSpec* ds) {
  if (id.empty()) return Status::invalid("--id must not be empty");
  const GpuFacts& f = r.facts;
  const CopyMeasurement* copy = find_copy(r, "kernel");
  const LaunchMeasurement* stream = find_launch(r, "stream");
  const HostCopyMeasurement* h2d = find_host_copy(r, "host_to_device");
  if (r.gemm.empty()) return Status::invalid("the probe measured no GEMM; cannot write a device file");
  if (!copy) return Status::invalid("the probe measured no device copy; cannot write a device file");
  if (!stream) return Status::invalid("the probe measured no launch overhead; cannot write a device file");
  if (!h2d) return Status::invalid("the probe measured no host-to-device copy; cannot write a device file");
  if (!(copy->bytes_per_s.best > 0) || !(stream->seconds.median > 0) || !(h2d->bytes_per_s.best > 0))
    return Status::invalid("the probe's copy, launch or host-copy figure is not positive; cannot write a device file");
  if (!(f.global_mem_bytes > 0) || f.sm_count <= 0 || f.max_threads_per_sm <= 0 || f.max_blocks_per_sm <= 0)
    return Status::invalid("the probe's device facts lack memory size, SM count or residency limits");
  const Context ctx(r, ds);

  DeviceSpec d;
  std::string measured_src;
  for (const char* dt : {"fp32", "tf32", "fp16", "bf16"}) {
    const GemmMeasurement* m = best_gemm(r, dt);
    if (!m || !(m->flops.best > 0)) continue;
    const std::string src =
        fmt::format("{}: cublasGemmEx {}x{}x{} {} ({}), best of {} x {} GEMMs (median {:.4g} FLOP/s, spread {:.0f}%){}",
                    ctx.by, m->m, m->n, m->k, m->dtype, m->compute_type, m->flops.samples.size(), m->gemms_per_repeat,
                    m->flops.median, 100 * m->flops.spread, m->verified ? "" : "; RESULT CHECK FAILED");
    auto unit = compute_unit_from_name(m->unit);
    if (!unit) return Status::internal("GEMM measurement with unknown unit '" + m->unit + "'");
    d.measured_peaks.push_back({m->dtype, *unit, m->accumulator, m->flops.best, src});
    measured_src += (measured_src.empty() ? "" : "; ") + std::string(dt) + ": " + src;
  }
  if (d.measured_peaks.empty())
    return Status::invalid("the probe measured no positive GEMM rate; cannot write a device file");
  std::string peaks_src;
  if (ds) {
    for (const Peak& p : ds->peaks) d.peaks.push_back({p.dtype, p.unit, p.accumulator, p.flops, ""});
    peaks_src = "copied from the " + ctx.ds_text + ": " + (ds->sources.count("peaks") ? ds->sources.at("peaks") : "");
  } else {
    for (const Peak& m : d.measured_peaks) d.peaks.push_back({m.dtype, m.unit, m.accumulator, m.flops, ""});
    peaks_src = "no database device matched '" + f.name +
                "': the measured GEMM peaks (see measured_peaks) stand in "
                "for datasheet peaks";
  }

  d.id = id;
  d.name = fmt::format("{} (device {}), measured by rooflens probe gpu", f.name, f.ordinal);
  d.kind = "gpu";
  d.arch = ds && !ds->arch.empty() ? ds->arch : "compute capability " + f.compute_capability();
  d.compute_capability = f.compute_capability();
  d.sm_count = f.sm_count;
  d.clock_base_hz = ds ? ds->clock_base_hz : 0;
  d.clock_boost_hz = f.clock_hz > 0 ? f.clock_hz : (ds ? ds->clock_boost_hz : 0);
  d.mem_bytes = f.global_mem_bytes;
  d.mem_bandwidth = copy->bytes_per_s.best;
  d.mem_type = ds && !ds->mem_type.empty() ? ds->mem_type : "unknown";
  d.l2_bytes = f.l2_bytes;
  d.tc_channel_multiple = ds && !ds->tc_channel_multiple.empty() ? ds->tc_channel_multiple : channel_multiples(f);
  d.launch_overhead_s = stream->seconds.median;
  d.max_threads_per_sm = f.max_threads_per_sm;
  d.max_blocks_per_sm = f.max_blocks_per_sm;
  d.workspace_bytes = 268435456;
  d.reserved_bytes = 536870912;
  const std::string link = f.pcie_link_current;
  d.host_link = HostLink{"measured pinned host-to-device copy" + (link.empty() ? "" : " over " + link),
                         h2d->bytes_per_s.best, ""};
  d.sources = gpu_sources(r, ctx, peaks_src, measured_src);
  d.host_link->source = d.sources.at("host_link");
  return d;
}

Expected<json> gpu_probe_device_json(const GpuProbeResult& r, const std::string& id, const DeviceSpec* ds) {
  auto d = gpu_probe_device_spec(r, id, ds);
  if (!d) return d.status();
  return device_json(*d);
}

}  // namespace rooflens::microbench
