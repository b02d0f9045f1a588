// The GPU probe's result read back as data (see gpu_probe.h): which database device a GPU
// name denotes, the figures the summary and the device file use, and each measurement beside
// its datasheet counterpart. Plain C++, built with or without CUDA.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>
#include <sstream>

#include "rooflens/microbench/gpu_probe.h"

namespace rooflens::microbench {
namespace {

// Lower-case alphanumeric tokens, vendor words dropped: "NVIDIA A100-SXM4-80GB" -> a100 sxm4 80gb.
std::vector<std::string> name_tokens(const std::string& s) {
  static const std::set<std::string> kVendor = {"nvidia", "tesla", "geforce", "quadro"};
  std::string t;
  for (char c : s) t += std::isalnum(static_cast<unsigned char>(c)) ? static_cast<char>(std::tolower(c)) : ' ';
  std::stringstream ss(t);
  std::vector<std::string> out;
  for (std::string w; ss >> w;)
    if (!kVendor.count(w)) out.push_back(w);
  return out;
}

bool has_digit(const std::string& w) {
  return std::any_of(w.begin(), w.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

bool contains(const std::vector<std::string>& v, const std::string& w) {
  return std::find(v.begin(), v.end(), w) != v.end();
}

}  // namespace

std::optional<DeviceSpec> match_datasheet_device(const std::string& gpu_name, double mem_bytes,
                                                 const std::vector<DeviceSpec>& db) {
  const std::vector<std::string> name = name_tokens(gpu_name);
  auto model = std::find_if(name.begin(), name.end(), has_digit);
  if (model == name.end()) return std::nullopt;
  const bool pcie = contains(name, "pcie"), nvl = contains(name, "nvl");
  const DeviceSpec* best = nullptr;
  for (const DeviceSpec& d : db) {
    if (!d.is_gpu()) continue;
    std::vector<std::string> tokens = name_tokens(d.name);
    for (const std::string& alias : d.aliases)
      for (const auto& w : name_tokens(alias)) tokens.push_back(w);
    for (const auto& w : name_tokens(d.id)) tokens.push_back(w);
    if (!contains(tokens, *model)) continue;
    if (contains(tokens, "pcie") != pcie || contains(tokens, "nvl") != nvl) continue;
    if (!best || std::fabs(d.mem_bytes - mem_bytes) < std::fabs(best->mem_bytes - mem_bytes)) best = &d;
  }
  if (!best) return std::nullopt;
  return *best;
}

const GemmMeasurement* best_gemm(const GpuProbeResult& r, const std::string& dtype) {
  const GemmMeasurement* best = nullptr;
  for (const auto& m : r.gemm)
    if (m.dtype == dtype && (!best || m.flops.best > best->flops.best)) best = &m;
  return best;
}

const CopyMeasurement* find_copy(const GpuProbeResult& r, const std::string& method) {
  for (const auto& m : r.copy)
    if (m.method == method) return &m;
  return nullptr;
}

const LaunchMeasurement* find_launch(const GpuProbeResult& r, const std::string& method) {
  for (const auto& m : r.launch)
    if (m.method == method) return &m;
  return nullptr;
}

const HostCopyMeasurement* find_host_copy(const GpuProbeResult& r, const std::string& direction) {
  for (const auto& m : r.host_copy)
    if (m.direction == direction) return &m;
  return nullptr;
}

std::vector<GpuComparison> compare_with_datasheet(const GpuProbeResult& r, const DeviceSpec* ds) {
  std::vector<GpuComparison> out;
  for (const auto& m : r.gemm) {
    GpuComparison c{fmt::format("GEMM {} {}^3 ({}, {} acc)", m.dtype, m.n, m.unit, m.accumulator), "FLOP/s", m.flops, 0,
                    ""};
    if (ds) {
      const ComputeUnit unit = m.unit == "tensor" ? ComputeUnit::kTensor : ComputeUnit::kCuda;
      if (auto p = ds->unit_peak(m.dtype, unit)) {
        c.datasheet = p->flops;
        c.datasheet_note = fmt::format("dense {} peak, {} acc", compute_unit_name(p->unit), p->accumulator);
      }
    }
    out.push_back(std::move(c));
  }
  for (const auto& m : r.copy) {
    GpuComparison c{fmt::format("device copy ({}, {} MiB each way)", m.method, m.buffer_bytes / (1 << 20)), "B/s",
                    m.bytes_per_s, 0, ""};
    if (ds && ds->mem_bandwidth > 0) {
      c.datasheet = ds->mem_bandwidth;
      c.datasheet_note = "memory bandwidth";
    }
    out.push_back(std::move(c));
  }
  for (const auto& m : r.launch) {
    const char* what = m.method == "stream"  ? "kernel launch, back to back"
                       : m.method == "graph" ? "kernel launch, CUDA graph node"
                                             : "kernel launch + cudaStreamSynchronize";
    GpuComparison c{what, "s", m.seconds, 0, ""};
    if (ds && m.method == "stream" && ds->launch_overhead_s > 0) {
      c.datasheet = ds->launch_overhead_s;
      c.datasheet_note = "launch_overhead_s (an assumption in the database)";
    }
    out.push_back(std::move(c));
  }
  for (const auto& m : r.host_copy) {
    GpuComparison c{fmt::format("pinned {} ({} MiB)",
                                m.direction == "host_to_device" ? "host to device" : "device to host",
                                m.bytes / (1 << 20)),
                    "B/s", m.bytes_per_s, 0, ""};
    if (ds && ds->host_link) {
      c.datasheet = ds->host_link->bandwidth_bytes_per_s;
      c.datasheet_note = ds->host_link->name + ", one direction";
    }
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace rooflens::microbench
