// The GPU probe: measures one CUDA device's matrix peaks through cuBLAS (fp32 without TF32,
// tf32, fp16 and bf16 with fp32 accumulation), its device-memory bandwidth (a 16-byte vector
// copy kernel and cudaMemcpy device to device), kernel launch overhead (back-to-back
// launches, a CUDA graph, a launch + synchronise round trip) and the pinned host link in
// both directions. Every figure is timed with CUDA events over repeats after warm-ups and
// kept as median, best and spread (SampleStats). Results are data; the CLI formats them.
//
// run_gpu_probe() lives in the rooflens_gpu_probe target: the CUDA build runs it, a build
// without nvcc/cuDNN answers Status::unavailable. The JSON writers and the datasheet match
// are plain C++ and exist in both builds.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "rooflens/device/device.h"
#include "rooflens/microbench/stats.h"
#include "rooflens/util/status.h"

namespace rooflens::microbench {

inline constexpr const char* kGpuProbeSchema = "rooflens.gpu_probe/1";

struct GpuProbeOptions {
  int device = 0;      // CUDA device ordinal
  bool quick = false;  // 4096 GEMMs only, 256 MiB copies, 2000 launches, 64 MiB host copies
  int repeats = 0;     // timed repeats per figure; 0: 15 (quick 10)
  int warmups = 3;     // untimed runs before the timed repeats
  std::function<void(const std::string&)> progress;  // one line per step (the CLI sends them to stderr)
};

// What the CUDA runtime says about the device. 0 / empty = unknown.
struct GpuFacts {
  int ordinal = 0;
  std::string name;        // cudaDeviceProp::name, e.g. "NVIDIA H200"
  std::string pci_bus_id;  // cudaDeviceGetPCIBusId, "0000:18:00.0"
  int sm_count = 0;
  int cc_major = 0, cc_minor = 0;  // compute capability
  double global_mem_bytes = 0;     // totalGlobalMem, bytes
  double l2_bytes = 0;             // bytes
  double clock_hz = 0;             // cudaDevAttrClockRate (peak SM clock), Hz
  double mem_clock_hz = 0;         // cudaDevAttrMemoryClockRate, Hz
  int mem_bus_width_bits = 0;
  int max_threads_per_sm = 0, max_blocks_per_sm = 0;
  int driver_version = 0, runtime_version = 0, cublas_version = 0;  // 13000 = 13.0
  // PCIe link from sysfs (/sys/bus/pci/devices/<bus id>/), read after the host copies:
  // "PCIe 5.0 x16"; empty when sysfs does not show it.
  std::string pcie_link_current, pcie_link_max;

  std::string compute_capability() const { return std::to_string(cc_major) + "." + std::to_string(cc_minor); }
};

// One cuBLAS GEMM C = A x B, square m = n = k, column major, alpha 1, beta 0.
struct GemmMeasurement {
  std::string dtype;         // fp32, tf32, fp16, bf16 (operands; C has the same type, fp32 for tf32)
  std::string unit;          // "cuda" (fp32 pedantic) or "tensor"
  std::string accumulator;   // "fp32"
  std::string compute_type;  // the cublasComputeType_t used, e.g. "CUBLAS_COMPUTE_32F_PEDANTIC"
  int64_t m = 0, n = 0, k = 0;
  int gemms_per_repeat = 0;  // each timed repeat runs this many GEMMs back to back
  SampleStats flops;         // FLOP/s per repeat, FLOP = 2 m n k per GEMM
  // A few elements of C checked against a host dot product of the same inputs.
  bool verified = false;
  double max_abs_error = 0;  // over the checked elements
};

// A device-to-device copy; bytes counted = bytes read + bytes written (2 x buffer bytes).
struct CopyMeasurement {
  std::string method;       // "kernel" (16-byte vector loads and stores, grid-stride) or "cudaMemcpy"
  double buffer_bytes = 0;  // bytes of the source (= the destination)
  int copies_per_repeat = 0;
  SampleStats bytes_per_s;  // B/s
};

// Kernel launch cost. seconds = per launch (per graph node; per round trip), lower is better.
struct LaunchMeasurement {
  std::string method;  // "stream" (back to back), "graph" (replayed), "round_trip" (launch + cudaStreamSynchronize)
  int launches = 0;    // launches per timed repeat
  SampleStats seconds;
};

// Pinned host memory (cudaMallocHost) <-> device memory.
struct HostCopyMeasurement {
  std::string direction;  // "host_to_device" or "device_to_host"
  double bytes = 0;       // per copy
  SampleStats bytes_per_s;
};

struct GpuProbeResult {
  std::string date;  // UTC, ISO 8601
  GpuFacts facts;
  std::vector<GemmMeasurement> gemm;
  std::vector<CopyMeasurement> copy;
  std::vector<LaunchMeasurement> launch;
  std::vector<HostCopyMeasurement> host_copy;
  std::vector<std::string> warnings;  // spreads above kSpreadLimit, unverified GEMMs
  int repeats = 0, warmups = 0;
  bool quick = false;
  double wall_seconds = 0;
};

// Runs the probe on options.device. Unavailable when the build has no CUDA, when there is no
// CUDA device or driver (the message names the runtime's error), or when device memory runs
// out; invalid for a bad ordinal or repeat count; internal for any other CUDA/cuBLAS error
// (the message names the call and the error).
Expected<GpuProbeResult> run_gpu_probe(const GpuProbeOptions& options);

// The database device a GPU name denotes, or nullopt: the model token of the name ("H200" of
// "NVIDIA H200", "A100" of "NVIDIA A100-SXM4-80GB") must appear in a gpu entry's id, alias or
// name; a PCIe or NVL name only matches an entry of that form factor and a plain name only an
// entry of neither; among several, the memory size nearest `mem_bytes` wins.
std::optional<DeviceSpec> match_datasheet_device(const std::string& gpu_name, double mem_bytes,
                                                 const std::vector<DeviceSpec>& db);

// Measurements picked for the summary and the device file.
const GemmMeasurement* best_gemm(const GpuProbeResult& r, const std::string& dtype);  // highest best FLOP/s
const CopyMeasurement* find_copy(const GpuProbeResult& r, const std::string& method);
const LaunchMeasurement* find_launch(const GpuProbeResult& r, const std::string& method);
const HostCopyMeasurement* find_host_copy(const GpuProbeResult& r, const std::string& direction);

// One figure beside its datasheet counterpart (the table of `probe gpu` and the JSON).
struct GpuComparison {
  std::string what;  // "GEMM fp16 8192^3 (tensor, fp32 acc)", "device copy (kernel)", ...
  std::string unit;  // "FLOP/s", "B/s" or "s"
  SampleStats measured;
  double datasheet = 0;        // same unit; 0: the datasheet has no such figure
  std::string datasheet_note;  // what the datasheet figure is ("dense peak", "assumption", ...)
};
// Every GEMM, copy, launch and host copy measurement in probe order, with the datasheet's
// figure where `datasheet` has one: GEMMs against the peak of the same dtype and unit,
// copies against memory.bandwidth, the back-to-back launch against launch_overhead_s, host
// copies against host_link.
std::vector<GpuComparison> compare_with_datasheet(const GpuProbeResult& r, const DeviceSpec* datasheet);

// rooflens.gpu_probe/1: facts, every measurement (median, best, worst, spread, samples) and
// the warnings; with `datasheet` the matched device's id and figures beside them.
nlohmann::ordered_json gpu_probe_json(const GpuProbeResult& r, const DeviceSpec* datasheet);
// The device a GPU probe measured, kind "gpu": measured_peaks = the best GEMM per dtype; memory.bandwidth =
// the copy kernel's best; launch_overhead_s = the back-to-back median; host_link = the best
// pinned host-to-device rate; peaks = the datasheet's when `datasheet` is given, else the
// measured ones (sources say which). Invalid when the result lacks a GEMM, the copy kernel,
// the stream launch or the host-to-device copy.
Expected<DeviceSpec> gpu_probe_device_spec(const GpuProbeResult& r, const std::string& id, const DeviceSpec* datasheet);
// That device as its rooflens.device/1 file (device_json, device/device.h).
Expected<nlohmann::ordered_json> gpu_probe_device_json(const GpuProbeResult& r, const std::string& id,
                                                       const DeviceSpec* datasheet);

}  // namespace rooflens::microbench
