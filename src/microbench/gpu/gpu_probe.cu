// run_gpu_probe() (see gpu_probe.h): device facts, then GEMM peaks (gpu_gemm.cu), device
// memory copies, launch overhead and the pinned host link, each timed with CUDA events.
#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <vector>

#include "gpu_kernels.h"
#include "gpu_probe_internal.h"
#include "rooflens/util/utc_time.h"

namespace rooflens::microbench::gpu {
namespace {

std::string read_line(const std::string& path) {
  std::ifstream f(path);
  std::string s;
  if (f) std::getline(f, s);
  return s;
}

// "PCIe 5.0 x16" from sysfs link speed ("32.0 GT/s PCIe") and width ("16"); empty if unknown.
std::string pcie_link(const std::string& dir, const char* which) {
  const std::string speed = read_line(dir + "/" + which + "_link_speed");
  const std::string width = read_line(dir + "/" + which + "_link_width");
  if (speed.empty() || width.empty()) return "";
  const double gts = std::atof(speed.c_str());
  const char* gen = gts >= 63    ? "6.0"
                    : gts >= 31  ? "5.0"
                    : gts >= 15  ? "4.0"
                    : gts >= 7.9 ? "3.0"
                    : gts >= 4.9 ? "2.0"
                    : gts >= 2.4 ? "1.0"
                                 : nullptr;
  if (!gen) return "";
  return fmt::format("PCIe {} x{}", gen, width);
}

Status read_facts(int dev, GpuFacts& f) {
  cudaDeviceProp p{};
  RL_CUDA(cudaGetDeviceProperties(&p, dev));
  f.ordinal = dev;
  f.name = p.name;
  f.sm_count = p.multiProcessorCount;
  f.cc_major = p.major;
  f.cc_minor = p.minor;
  f.global_mem_bytes = static_cast<double>(p.totalGlobalMem);
  f.l2_bytes = p.l2CacheSize;
  f.mem_bus_width_bits = p.memoryBusWidth;
  f.max_threads_per_sm = p.maxThreadsPerMultiProcessor;
  f.max_blocks_per_sm = p.maxBlocksPerMultiProcessor;
  // cudaDeviceProp::clockRate and memoryClockRate are gone in CUDA 13; the attributes remain (kHz).
  int khz = 0;
  if (cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, dev) == cudaSuccess && khz > 0)
    f.clock_hz = 1e3 * khz;
  else
    (void)cudaGetLastError();
  if (cudaDeviceGetAttribute(&khz, cudaDevAttrMemoryClockRate, dev) == cudaSuccess && khz > 0)
    f.mem_clock_hz = 1e3 * khz;
  else
    (void)cudaGetLastError();
  RL_CUDA(cudaDriverGetVersion(&f.driver_version));
  RL_CUDA(cudaRuntimeGetVersion(&f.runtime_version));
  int major = 0, minor = 0, patch = 0;
  RL_CUBLAS(cublasGetProperty(MAJOR_VERSION, &major));
  RL_CUBLAS(cublasGetProperty(MINOR_VERSION, &minor));
  RL_CUBLAS(cublasGetProperty(PATCH_LEVEL, &patch));
  f.cublas_version = major * 10000 + minor * 100 + patch;
  char bus[64] = {0};
  if (cudaDeviceGetPCIBusId(bus, sizeof bus, dev) == cudaSuccess) {
    unsigned domain = 0, b = 0, d = 0, fn = 0;
    if (std::sscanf(bus, "%x:%x:%x.%x", &domain, &b, &d, &fn) == 4)
      f.pci_bus_id = fmt::format("{:04x}:{:02x}:{:02x}.{:x}", domain, b, d, fn);
    else
      f.pci_bus_id = bus;
  } else {
    (void)cudaGetLastError();
  }
  return Status::ok();
}

// Source and destination of `bytes` each: a copy kernel and cudaMemcpy device to device.
Status measure_copies(const Plan& plan, const GpuFacts& f, cudaStream_t s, size_t bytes,
                      std::vector<CopyMeasurement>* out) {
  DeviceBuffer src, dst;
  ROOFLENS_RETURN_IF_ERROR(src.allocate(bytes).with_context("copy source"));
  ROOFLENS_RETURN_IF_ERROR(dst.allocate(bytes).with_context("copy destination"));
  ROOFLENS_RETURN_IF_ERROR(fill_uniform(src.get(), bytes / 4, FillType::kF32, 3, s));
  RL_CUDA(cudaMemsetAsync(dst.get(), 0, bytes, s));
  // One full wave of 256-thread blocks.
  const int blocks = f.sm_count * std::max(1, f.max_threads_per_sm / 256);
  auto kernel = [&]() { return copy_vec16(src.get(), dst.get(), bytes, blocks, s); };
  auto memcpy_d2d = [&]() -> Status {
    RL_CUDA(cudaMemcpyAsync(dst.get(), src.get(), bytes, cudaMemcpyDeviceToDevice, s));
    return Status::ok();
  };
  // The kernel must copy: compare the first and last MiB of destination and source.
  ROOFLENS_RETURN_IF_ERROR(kernel());
  RL_CUDA(cudaStreamSynchronize(s));
  const size_t chunk = std::min<size_t>(bytes / 2, size_t{1} << 20);
  std::vector<unsigned char> hs(chunk), hd(chunk);
  for (size_t off : {size_t{0}, bytes - chunk}) {
    RL_CUDA(cudaMemcpy(hs.data(), static_cast<unsigned char*>(src.get()) + off, chunk, cudaMemcpyDeviceToHost));
    RL_CUDA(cudaMemcpy(hd.data(), static_cast<unsigned char*>(dst.get()) + off, chunk, cudaMemcpyDeviceToHost));
    if (std::memcmp(hs.data(), hd.data(), chunk) != 0)
      return Status::internal(
          fmt::format("the probe's copy kernel did not copy (bytes {}..{} differ)", off, off + chunk));
  }
  for (const auto& [method, body] : {std::pair<const char*, std::function<Status()>>{"kernel", kernel},
                                     std::pair<const char*, std::function<Status()>>{"cudaMemcpy", memcpy_d2d}}) {
    if (plan.progress)
      plan.progress(
          fmt::format("probe gpu: device memory copy ({}), {} MiB -> {} MiB", method, bytes >> 20, bytes >> 20));
    auto runs = time_runs(s, plan.warmups, plan.repeats, plan.target_repeat_s, 20, body);
    if (!runs) return runs.status().with_context(std::string("device copy ") + method);
    std::vector<double> rates;
    for (double t : runs->seconds_per_run) rates.push_back(2.0 * static_cast<double>(bytes) / t);
    out->push_back({method, static_cast<double>(bytes), runs->per_repeat, summarize(rates, true)});
  }
  return Status::ok();
}

// RAII for a captured graph and its executable.
struct Graph {
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  ~Graph() {
    if (exec) cudaGraphExecDestroy(exec);
    if (graph) cudaGraphDestroy(graph);
  }
};

Status capture_launches(cudaStream_t s, int launches, Graph& g) {
  RL_CUDA(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  Status st;
  for (int i = 0; i < launches && st; ++i) st = launch_empty(s);
  const cudaError_t end = cudaStreamEndCapture(s, &g.graph);  // always leaves capture mode
  ROOFLENS_RETURN_IF_ERROR(st.with_context("capturing the graph"));
  if (end != cudaSuccess) return cuda_status(end, "cudaStreamEndCapture");
  RL_CUDA(cudaGraphInstantiate(&g.exec, g.graph, 0));
  return Status::ok();
}

Status measure_launches(const Plan& plan, cudaStream_t s, int launches, int round_trips,
                        std::vector<LaunchMeasurement>* out) {
  auto add = [&](const char* method, int per_repeat_launches, const std::function<Status()>& body) -> Status {
    if (plan.progress)
      plan.progress(
          fmt::format("probe gpu: launch overhead ({}), {} launches per repeat", method, per_repeat_launches));
    auto runs = time_runs(s, plan.warmups, plan.repeats, 0, 1, body);  // one batch per repeat
    if (!runs) return runs.status().with_context(std::string("launch overhead ") + method);
    std::vector<double> per_launch;
    for (double t : runs->seconds_per_run) per_launch.push_back(t / per_repeat_launches);
    out->push_back({method, per_repeat_launches, summarize(per_launch, false)});
    return Status::ok();
  };
  ROOFLENS_RETURN_IF_ERROR(add("stream", launches, [&]() -> Status {
    for (int i = 0; i < launches; ++i) ROOFLENS_RETURN_IF_ERROR(launch_empty(s));
    return Status::ok();
  }));
  Graph g;
  ROOFLENS_RETURN_IF_ERROR(capture_launches(s, launches, g));
  ROOFLENS_RETURN_IF_ERROR(add("graph", launches, [&]() -> Status {
    RL_CUDA(cudaGraphLaunch(g.exec, s));
    return Status::ok();
  }));
  ROOFLENS_RETURN_IF_ERROR(add("round_trip", round_trips, [&]() -> Status {
    for (int i = 0; i < round_trips; ++i) {
      ROOFLENS_RETURN_IF_ERROR(launch_empty(s));
      RL_CUDA(cudaStreamSynchronize(s));
    }
    return Status::ok();
  }));
  return Status::ok();
}

Status measure_host_link(const Plan& plan, cudaStream_t s, size_t bytes, std::vector<HostCopyMeasurement>* out) {
  PinnedBuffer host;
  DeviceBuffer dev;
  ROOFLENS_RETURN_IF_ERROR(host.allocate(bytes).with_context("pinned host buffer"));
  ROOFLENS_RETURN_IF_ERROR(dev.allocate(bytes).with_context("host-link device buffer"));
  std::memset(host.get(), 0x5a, bytes);  // touch every page
  for (const auto& [direction, kind] :
       {std::pair{"host_to_device", cudaMemcpyHostToDevice}, std::pair{"device_to_host", cudaMemcpyDeviceToHost}}) {
    if (plan.progress) plan.progress(fmt::format("probe gpu: pinned {} copy, {} MiB", direction, bytes >> 20));
    const cudaMemcpyKind k = kind;
    auto runs = time_runs(s, plan.warmups, plan.repeats, plan.target_repeat_s, 10, [&]() -> Status {
      if (k == cudaMemcpyHostToDevice)
        RL_CUDA(cudaMemcpyAsync(dev.get(), host.get(), bytes, k, s));
      else
        RL_CUDA(cudaMemcpyAsync(host.get(), dev.get(), bytes, k, s));
      return Status::ok();
    });
    if (!runs) return runs.status().with_context(std::string("host copy ") + direction);
    std::vector<double> rates;
    for (double t : runs->seconds_per_run) rates.push_back(static_cast<double>(bytes) / t);
    out->push_back({direction, static_cast<double>(bytes), summarize(rates, true)});
  }
  return Status::ok();
}

void add_warnings(GpuProbeResult& r) {
  for (const auto& m : r.gemm) {
    const std::string what = fmt::format("GEMM {} n={}", m.dtype, m.n);
    if (auto w = spread_warning(what, m.flops, "TFLOP/s", 1e12)) r.warnings.push_back(*w);
    if (!m.verified)
      r.warnings.push_back(
          fmt::format("{}: result check failed (largest error {:.3g} on 8 elements against a host dot "
                      "product): the figure may not be a correct GEMM",
                      what, m.max_abs_error));
  }
  for (const auto& m : r.copy)
    if (auto w = spread_warning("device copy " + m.method, m.bytes_per_s, "GB/s", 1e9)) r.warnings.push_back(*w);
  for (const auto& m : r.launch)
    if (auto w = spread_warning("launch " + m.method, m.seconds, "us", 1e-6)) r.warnings.push_back(*w);
  for (const auto& m : r.host_copy)
    if (auto w = spread_warning("host copy " + m.direction, m.bytes_per_s, "GB/s", 1e9)) r.warnings.push_back(*w);
}

Expected<GpuProbeResult> run(const GpuProbeOptions& o) {
  const auto t0 = std::chrono::steady_clock::now();
  if (o.repeats < 0) return Status::invalid(fmt::format("--repeats {}: must be positive", o.repeats));
  if (o.warmups < 0) return Status::invalid(fmt::format("warm-ups {}: must not be negative", o.warmups));
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    int driver = 0, runtime = 0;
    (void)cudaDriverGetVersion(&driver);
    (void)cudaRuntimeGetVersion(&runtime);
    (void)cudaGetLastError();
    const std::string why =
        e != cudaSuccess ? fmt::format("cudaGetDeviceCount failed: {} ({})", cudaGetErrorName(e), cudaGetErrorString(e))
                         : std::string("cudaGetDeviceCount found 0 devices");
    return Status::unavailable(
        fmt::format("no CUDA device: {}; driver supports CUDA {}.{} (0.0: no driver), runtime "
                    "is CUDA {}.{}",
                    why, driver / 1000, driver % 1000 / 10, runtime / 1000, runtime % 1000 / 10));
  }
  if (o.device < 0 || o.device >= count)
    return Status::invalid(fmt::format("--gpu {}: no CUDA device {} (this machine has {}: 0 to {})", o.device, o.device,
                                       count, count - 1));
  RL_CUDA(cudaSetDevice(o.device));

  Plan plan;
  plan.repeats = o.repeats > 0 ? o.repeats : (o.quick ? 10 : 15);
  plan.warmups = o.warmups;
  plan.progress = o.progress;
  GpuProbeResult r;
  r.date = utc_now();
  r.quick = o.quick;
  r.repeats = plan.repeats;
  r.warmups = std::max(plan.warmups, 1);
  ROOFLENS_RETURN_IF_ERROR(read_facts(o.device, r.facts));
  if (plan.progress)
    plan.progress(fmt::format("probe gpu: device {} '{}', compute capability {}, {} SMs", o.device, r.facts.name,
                              r.facts.compute_capability(), r.facts.sm_count));
  Stream stream;
  ROOFLENS_RETURN_IF_ERROR(stream.create());
  cudaStream_t s = stream.get();

  const std::vector<int64_t> sizes = o.quick ? std::vector<int64_t>{4096} : std::vector<int64_t>{8192, 4096};
  ROOFLENS_RETURN_IF_ERROR(measure_gemms(plan, s, sizes, &r.gemm, &r.warnings));

  // Copies of 2 GiB (quick 256 MiB) each way, halved while they do not fit in free memory.
  size_t copy_bytes = o.quick ? size_t{256} << 20 : size_t{2} << 30;
  size_t free_bytes = 0, total_bytes = 0;
  RL_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
  while (copy_bytes > (size_t{64} << 20) && 2 * copy_bytes + (size_t{256} << 20) > free_bytes) copy_bytes /= 2;
  if (copy_bytes < (o.quick ? size_t{256} << 20 : size_t{2} << 30))
    r.warnings.push_back(fmt::format("device copy: only {} MiB free, copied {} MiB buffers instead of the planned size",
                                     free_bytes >> 20, copy_bytes >> 20));
  if (copy_bytes < 4 * static_cast<size_t>(r.facts.l2_bytes))
    r.warnings.push_back("device copy: buffers under 4x the L2 cache; the figure may include L2 hits");
  ROOFLENS_RETURN_IF_ERROR(measure_copies(plan, r.facts, s, copy_bytes, &r.copy));

  ROOFLENS_RETURN_IF_ERROR(measure_launches(plan, s, o.quick ? 2000 : 20000, o.quick ? 200 : 1000, &r.launch));
  ROOFLENS_RETURN_IF_ERROR(measure_host_link(plan, s, o.quick ? size_t{64} << 20 : size_t{256} << 20, &r.host_copy));
  // Read right after the copies: an idle GPU may train its link down to save power.
  if (!r.facts.pci_bus_id.empty()) {
    const std::string dir = "/sys/bus/pci/devices/" + r.facts.pci_bus_id;
    r.facts.pcie_link_current = pcie_link(dir, "current");
    r.facts.pcie_link_max = pcie_link(dir, "max");
  }
  RL_CUDA(cudaDeviceSynchronize());
  RL_CUDA(cudaGetLastError());
  if (r.facts.clock_hz <= 0) r.warnings.push_back("cudaDevAttrClockRate not reported: SM clock unknown");
  add_warnings(r);
  r.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

}  // namespace
}  // namespace rooflens::microbench::gpu

namespace rooflens::microbench {

Expected<GpuProbeResult> run_gpu_probe(const GpuProbeOptions& options) { return gpu::run(options); }

}  // namespace rooflens::microbench
