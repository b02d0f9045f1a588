// Device specifications (data/devices/*.json, schema rooflens.device/1), lookup by id or
// alias, user files and inline custom devices.
#pragma once

#include <map>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rooflens/device/kernel_table.h"
#include "rooflens/util/status.h"

namespace rooflens {

enum class ComputeUnit { kCuda, kTensor, kSimd };
std::string_view compute_unit_name(ComputeUnit u);
// The unit a device file names ("cuda", "tensor", "simd"), if it is one.
std::optional<ComputeUnit> compute_unit_from_name(std::string_view name);

// One dense peak: a dtype on a unit with an accumulator ("fp16 on tensor cores, fp32 acc").
struct Peak {
  std::string dtype;  // fp32, tf32, fp16, bf16, int8, fp8
  ComputeUnit unit = ComputeUnit::kCuda;
  std::string accumulator;  // fp32, fp16, int32
  double flops = 0;         // FLOP/s (dense)
  std::string source;       // for measured peaks
#if ROOFLENS_FIELDWISE_EQUALITY
  bool operator==(const Peak&) const = default;
#endif
};

// A level of the memory hierarchy with the bandwidth measured for working sets up to its
// size (a cache roof). Optional; a probe writes them.
struct MemoryLevel {
  std::string name;      // L1, L2, L3, DRAM
  double bytes = 0;      // largest working set served at this bandwidth
  double bandwidth = 0;  // B/s
#if ROOFLENS_FIELDWISE_EQUALITY
  bool operator==(const MemoryLevel&) const = default;
#endif
};

// The link a GPU attaches to its host with (PCIe), through which its inputs arrive.
// bandwidth_bytes_per_s is the theoretical rate in ONE direction (host to device), after line
// coding: PCIe 3.0 x16 = 8 GT/s x 16 lanes x 128/130 / 8 = 15.75e9 B/s. Datasheets quote the
// bidirectional sum ("PCIe Gen4: 64 GB/s"); that is twice this figure.
struct HostLink {
  std::string name;                  // "PCIe 4.0 x16"
  double bandwidth_bytes_per_s = 0;  // B/s, one direction
  std::string source;                // sources.host_link of the device file
#if ROOFLENS_FIELDWISE_EQUALITY
  bool operator==(const HostLink&) const = default;
#endif
};

// Theoretical per-direction bandwidth (B/s) of a link named "PCIe <gen> x<lanes>" (gen 1.0 to
// 6.0, lanes 1, 2, 4, 8, 16 or 32): lanes x transfer rate x encoding efficiency / 8 (8b/10b
// for 1.0 and 2.0, 128b/130b for 3.0 to 5.0, 6.0 at its raw 64 GT/s before FLIT overhead).
// Invalid when the name is not of that form.
Expected<double> pcie_bandwidth(const std::string& name);

struct CpuInfo {
  int cores = 0, threads = 0, simd_bits = 0, fma_units = 0;
  std::vector<std::string> isa;
  double l1d_bytes = 0, l2_bytes = 0, l3_bytes = 0;
#if ROOFLENS_FIELDWISE_EQUALITY
  bool operator==(const CpuInfo&) const = default;
#endif
};

struct DeviceSpec {
  std::string id, name, kind, arch, compute_capability;
  std::vector<std::string> aliases;
  int sm_count = 0;
  double clock_base_hz = 0, clock_boost_hz = 0;
  double mem_bytes = 0, mem_bandwidth = 0;
  std::string mem_type;
  double l2_bytes = 0;
  std::vector<MemoryLevel> mem_levels;  // ascending size; empty when unknown
  std::vector<Peak> peaks, measured_peaks;
  std::map<std::string, int> tc_channel_multiple;  // dtype -> channel multiple
  double launch_overhead_s = 0;
  int max_threads_per_sm = 0, max_blocks_per_sm = 0;
  std::optional<CpuInfo> cpu;
  std::optional<HostLink> host_link;  // GPUs; none for a CPU (its inputs are already in host memory)
  double workspace_bytes = 0, reserved_bytes = 0;
  // Fitted kernel efficiencies (share of the roof real kernels reach) per class: "gemm"
  // (convolutions and matrix products), "depthwise", "memory" (bandwidth-bound work).
  // Optional; `rooflens validate --fit` measures them. Missing classes count as 1.
  std::map<std::string, double> efficiency;
  // Measured kernel table (`rooflens probe cpu --kernels`); when present, predict times CPU
  // layers from it instead of the roofline (perf/kernel_predict.h).
  std::optional<KernelTable> kernel_table;
  std::map<std::string, std::string> sources;
  std::string file;  // where it was loaded from ("inline" for custom)

#if ROOFLENS_FIELDWISE_EQUALITY
  bool operator==(const DeviceSpec&) const = default;
#endif

  bool is_gpu() const { return kind == "gpu"; }
  // Best dense peak for a dtype over all units (the utilization denominator), if any, with
  // the accumulator inference engines use (fp32 for float dtypes, int32 for int8).
  std::optional<Peak> best_peak(const std::string& dtype) const;
  // "device 'ID' has no fp16 peak (its peaks: fp32, bf16, int8)": the refusal of a dtype the
  // device has no peak for, naming those it has (a probed CPU has fp32 and what its ISA adds).
  std::string no_peak_message(const std::string& dtype) const;
  std::optional<Peak> best_measured_peak(const std::string& dtype) const;
  // Peak of a specific unit for a dtype, if the device has one.
  std::optional<Peak> unit_peak(const std::string& dtype, ComputeUnit unit) const;
  // Compute-to-memory ratio (FLOP/byte) for a dtype using best_peak.
  double cmr(const std::string& dtype) const;
  // Bandwidth for a working set of `bytes`: the smallest memory level that holds it, else
  // the memory bandwidth.
  double bandwidth_for(double bytes) const;
};

// Parses one device file's JSON text. Errors name the file and field.
Expected<DeviceSpec> parse_device_json(const std::string& text, const std::string& file);
Expected<DeviceSpec> load_device_file(const std::string& path);
// The device file of a spec (rooflens.device/1), the one writer of the schema: the probes
// write through it. parse_device_json of its dump gives `d` back (all but `file`). Zero,
// empty and absent fields are written as null (sm_count, compute_capability, clock_hz.*,
// memory.bytes and .type, l2_bytes, tensor_core, launch_overhead_s, max_*_per_sm, cpu,
// cpu.threads and cpu.*_bytes) or left out (memory.levels, accumulator and source of a peak,
// host_link, efficiency, kernel_table); sources come in the order of the fields they are for.
nlohmann::ordered_json device_json(const DeviceSpec& d);
// All devices of a directory (*.json), sorted by id; errors name the bad file.
Expected<std::vector<DeviceSpec>> load_device_dir(const std::string& dir);
// Resolves `--device`: an id or alias from `db`, a path to a JSON file, or
// "custom:fp16=125e12,bw=900e9,mem=16e9[,fp32=...,sms=80,launch=5e-6,name=...]".
Expected<DeviceSpec> resolve_device(const std::string& spec, const std::vector<DeviceSpec>& db);
// The GPU entry of `db` whose name starts with `gpu_name`, what the driver calls the GPU
// ("NVIDIA H200"); the last such entry (by id) when several do. Invalid input naming the GPU
// when none does.
Expected<DeviceSpec> find_gpu_by_name(const std::string& gpu_name, const std::vector<DeviceSpec>& db);

}  // namespace rooflens
