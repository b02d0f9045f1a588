// Queries over a ProbeResult and the interference classification (see probe.h).
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "rooflens/microbench/probe.h"

namespace rooflens::microbench {

std::string cache_level(double working_set_bytes, int threads, double l1d_bytes, double l2_bytes, double llc_bytes) {
  const double share = working_set_bytes / std::max(1, threads);
  if (l1d_bytes > 0 && share <= l1d_bytes) return "L1";
  if (l2_bytes > 0 && share <= l2_bytes) return "L2";
  if (llc_bytes > 0 && working_set_bytes <= llc_bytes) return "L3";
  return "DRAM";
}

double cache_knee(const std::vector<std::pair<double, double>>& sweep, double factor) {
  if (sweep.size() < 2) return 0;
  const double dram = sweep.back().second;
  double knee = 0;
  for (size_t i = 0; i + 1 < sweep.size(); ++i)
    if (sweep[i].second >= factor * dram) knee = sweep[i].first;
  return knee;
}

int max_threads(const ProbeResult& r) { return r.thread_counts.empty() ? 0 : r.thread_counts.back(); }

const ComputeMeasurement* best_compute(const ProbeResult& r, const std::string& dtype, int threads) {
  const ComputeMeasurement* best = nullptr;
  for (const auto& m : r.compute)
    if (m.dtype == dtype && m.threads == threads && (!best || m.flops.best > best->flops.best)) best = &m;
  return best;
}

double theoretical_peak(const ProbeResult& r, const std::string& dtype, int threads) {
  double t = 0;
  for (const auto& m : r.compute)
    if (m.dtype == dtype && m.threads == threads) t = std::max(t, m.theoretical);
  return t;
}

const BandwidthMeasurement* largest_working_set(const ProbeResult& r, BandwidthKind kind, int threads) {
  const BandwidthMeasurement* out = nullptr;
  for (const auto& m : r.bandwidth)
    if (m.kind == kind && m.threads == threads && (!out || m.working_set_bytes > out->working_set_bytes)) out = &m;
  return out;
}

std::map<std::string, double> level_roofs(const ProbeResult& r, BandwidthKind kind, int threads) {
  std::map<std::string, double> out;
  for (const auto& m : r.bandwidth)
    if (m.kind == kind && m.threads == threads && m.level != "DRAM")
      out[m.level] = std::max(out[m.level], m.bytes_per_s.median);
  if (const auto* m = largest_working_set(r, kind, threads); m && m->level == "DRAM")
    out["DRAM"] = m->bytes_per_s.median;
  return out;
}

std::vector<std::string> measured_dtypes(const ProbeResult& r) {
  std::vector<std::string> out;
  for (const char* d : {"fp32", "bf16", "int8"})
    if (std::any_of(r.compute.begin(), r.compute.end(), [&](const auto& m) { return m.dtype == d; })) out.push_back(d);
  return out;
}

void classify_interference(ProbeResult& r) {
  // Which evidence a warning is: of shared CPUs, of shared memory bandwidth, or neither.
  enum Evidence { kNone, kCpu, kMemory };
  bool cpu_shared = false, memory_shared = false;
  auto warn = [&](const std::string& w, Evidence e) {
    r.warnings.push_back(w);
    cpu_shared = cpu_shared || e == kCpu;
    memory_shared = memory_shared || e == kMemory;
  };
  // Spread across repeats of each compute figure.
  for (const auto& m : r.compute)
    if (auto w = spread_warning(fmt::format("{} {}, {} thread(s)", m.dtype, m.isa, m.threads), m.flops,
                                m.dtype == "int8" ? "GOP/s" : "GFLOP/s", 1e9))
      warn("noisy: " + *w, kCpu);
  // Time slicing inside this machine: the probe's threads were off their CPUs.
  {
    std::string sliced;
    for (const auto& m : r.compute)
      if (!m.on_cpu.samples.empty() && m.on_cpu.median < kOnCpuLimit)
        sliced += fmt::format("{}{} {} {}T {:.0f}%", sliced.empty() ? "" : ", ", m.dtype, m.isa, m.threads,
                              100 * m.on_cpu.median);
    if (!sliced.empty())
      warn(
          "time slicing: the probe's compute threads were on their CPUs only part of the time (thread CPU time / "
          "wall, median of repeats): " +
              sliced + "; other processes of this machine took the CPUs",
          kCpu);
  }
  // Thread scaling of each compute kernel from one thread to the most.
  const int n = max_threads(r);
  std::map<std::pair<std::string, std::string>, std::pair<const ComputeMeasurement*, const ComputeMeasurement*>> ends;
  for (const auto& m : r.compute) {
    auto& e = ends[{m.dtype, m.isa}];
    if (m.threads == 1) e.first = &m;
    if (m.threads == n) e.second = &m;
  }
  for (const auto& [key, e] : ends)
    if (e.first && e.second && e.second->threads > 1)
      if (auto w = scaling_warning(key.first + " " + key.second, e.first->flops.median, e.second->flops.median,
                                   e.second->threads, e.second->cores))
        warn("poor thread scaling: " + *w + " (medians); another process appears to use the other core(s)", kCpu);
  // Time slicing during the bandwidth sweep, summarised over its configurations.
  {
    int sliced = 0;
    double worst = 1;
    for (const auto& m : r.bandwidth)
      if (!m.on_cpu.samples.empty() && m.on_cpu.median < kOnCpuLimit) {
        ++sliced;
        worst = std::min(worst, m.on_cpu.median);
      }
    // A few sliced measurements among many are a passing process: a note, not interference.
    const bool many = sliced > 0.1 * static_cast<double>(r.bandwidth.size());
    if (sliced > 0)
      warn(fmt::format("{}bandwidth sweep: in {} of {} measurements the probe's threads were on a CPU less than "
                       "{:.0f}% of the time (lowest {:.0f}%); other processes of this machine took the CPUs",
                       many ? "" : "note: ", sliced, r.bandwidth.size(), 100 * kOnCpuLimit, 100 * worst),
           many ? kCpu : kNone);
  }
  // Spread of the DRAM triad (the bandwidth the device file records).
  for (int t : r.thread_counts)
    if (const auto* m = largest_working_set(r, BandwidthKind::kTriad, t))
      if (auto w = spread_warning(fmt::format("triad {:.0f} MiB, {} thread(s)", m->working_set_bytes / (1 << 20), t),
                                  m->bytes_per_s, "GB/s", 1e9))
        warn("noisy: " + *w, kMemory);
  if (r.steal_fraction && *r.steal_fraction > 0.02)
    warn(fmt::format("the hypervisor stole {:.1f}% of CPU time during the probe (/proc/stat steal)",
                     100 * *r.steal_fraction),
         kCpu);
  // A hint only: the on-CPU fraction above says whether they took the probe's CPUs.
  if (r.runnable_at_start > 1)
    warn(fmt::format("note: {} other task(s) were runnable when the probe started (/proc/loadavg)",
                     r.runnable_at_start - 1),
         kNone);
  // Not interference: the theoretical figure is wrong if a measurement beats it.
  for (const auto& m : r.compute)
    if (m.theoretical > 0 && m.flops.best > 1.05 * m.theoretical)
      warn(fmt::format("{} {}, {} thread(s): measured {:.1f} G/s is above the theoretical {:.1f} G/s; the clock "
                       "estimate or the FMA-unit assumption is wrong",
                       m.dtype, m.isa, m.threads, m.flops.best / 1e9, m.theoretical / 1e9),
           kNone);
  // One thread far below the theoretical: the core's FMA units or clock are shared (a busy SMT
  // sibling of a virtual CPU, host frequency limits), or the FMA-unit assumption is wrong.
  for (const auto& m : r.compute)
    if (m.threads == 1 && m.theoretical > 0 && m.flops.best < kOneThreadEfficiencyLimit * m.theoretical &&
        (m.on_cpu.samples.empty() || m.on_cpu.median >= kOnCpuLimit))  // time slicing explains it otherwise
      warn(fmt::format("{} {}, 1 thread: best {:.1f} G/s is {:.0f}% of the theoretical {:.1f} G/s at the measured "
                       "clock; the core's FMA units appear shared (busy SMT sibling, host frequency limit) or the "
                       "FMA-unit assumption is wrong",
                       m.dtype, m.isa, m.flops.best / 1e9, 100 * m.flops.best / m.theoretical, m.theoretical / 1e9),
           kNone);
  if (cpu_shared)
    r.warnings.push_back(
        "the machine appears shared: medians are below what an idle machine gives; 'best' is the closer figure, "
        "and the device file records it (rerun on an idle machine to confirm)");
  else if (memory_shared)
    r.warnings.push_back(
        "memory bandwidth varies between repeats while the compute figures are steady: other tenants' memory "
        "traffic (the host's memory is shared) or page placement; the device file records the best");
  r.interference = cpu_shared || memory_shared;
}

}  // namespace rooflens::microbench
