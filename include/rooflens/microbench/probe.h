// The CPU probe: measures this machine's compute peaks (FP32 FMA; BF16 and INT8 dot products
// where the ISA has them) per thread count, memory bandwidth (read, write, non-temporal write,
// triad) over working sets from L1 to far beyond the last cache, and the fork/join dispatch
// overhead of a parallel region; repeats each figure, keeps median and best, and says when
// the spread or the thread scaling shows that the machine is shared. Results are data; the
// CLI formats them. probe_json() is the rooflens.probe/1 object, probe_device_json() a
// rooflens.device/1 file that `predict --device` accepts.
#pragma once

#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "rooflens/device/device.h"
#include "rooflens/microbench/host_cpu.h"
#include "rooflens/microbench/kernels.h"
#include "rooflens/microbench/stats.h"
#include "rooflens/util/status.h"

namespace rooflens::microbench {

inline constexpr const char* kProbeSchema = "rooflens.probe/1";

struct ProbeOptions {
  int max_threads = 0;           // 0: every CPU this process may run on
  bool quick = false;            // shorter repeats, fewer working sets (tests, demos); fields below win when set
  int repeats = 0;               // per figure; 0: 7 (quick 3)
  double compute_seconds = 0;    // per compute repeat; 0: 0.2 s (quick 0.04 s)
  double bandwidth_seconds = 0;  // per bandwidth repeat; 0: 0.04 s (quick 0.01 s)
  double dispatch_seconds = 0;   // per dispatch repeat; 0: 0.02 s (quick 0.005 s)
  double min_working_set = 16.0 * 1024;  // bytes, all arrays of all threads
  // bytes; 0: sweep_max_working_set's choice (past any cache the CPU reports)
  double max_working_set = 0;
  double working_set_step = 0;  // geometric factor between sizes; 0: 2 (quick 4)
  // Widest instruction set to use: "auto" (all the CPU has), "avx2" (what AVX2-only code such
  // as oneDNN's jit:avx2 gets; AVX-512 ignored), "avx512" (unsupported when absent).
  std::string isa = "auto";
  bool run_compute = true, run_bandwidth = true, run_dispatch = true;
  std::function<void(const std::string&)> progress;  // one line per step (the CLI sends them to stderr)
};

// One compute kernel at one thread count.
struct ComputeMeasurement {
  std::string dtype, isa, instruction;
  int threads = 0, cores = 0;  // cores: distinct physical cores the threads ran on
  SampleStats flops;           // FLOP/s (OP/s for int8) per repeat
  // Per repeat: thread CPU time / (threads x wall time). Below 1 when other processes of this
  // machine took the probe's CPUs (in-guest time slicing; hypervisor steal is separate).
  SampleStats on_cpu;
  double theoretical = 0;                 // cores x FMA units x lanes x 2 x (dtype factor) x clock_hz
  double theoretical_reported_clock = 0;  // the same at the /proc/cpuinfo clock
};

// One bandwidth kernel at one working set and thread count.
struct BandwidthMeasurement {
  BandwidthKind kind = BandwidthKind::kRead;
  std::string isa;
  double working_set_bytes = 0;  // all arrays of all threads
  int threads = 0;
  std::string level;        // L1, L2, L3, DRAM: the smallest cache holding it (see cache_level)
  SampleStats bytes_per_s;  // B/s, STREAM counting (bandwidth_bytes)
  SampleStats on_cpu;       // as ComputeMeasurement::on_cpu
};

// Fork/join of an (almost) empty parallel region on `threads` pinned threads.
struct DispatchMeasurement {
  int threads = 0;
  SampleStats seconds;  // per region; lower is better
};

struct ProbeResult {
  std::string date;  // UTC, ISO 8601
  HostCpu cpu;
  std::vector<SimdPath> paths;
  std::vector<int> thread_counts;
  double clock_hz = 0;  // the clock of the theoretical peaks
  std::string clock_source;
  SampleStats clock_measured_hz;  // dependent-add chain on one thread, sampled around each compute kernel
  // Last-level cache used for the level labels and the device file: cpuid/sysfs, unless the
  // bandwidth sweep shows DRAM-level bandwidth far below it (a virtual CPU reporting the whole
  // package's L3); llc_source says which.
  double llc_bytes = 0;
  std::string llc_source;
  std::vector<ComputeMeasurement> compute;
  std::vector<BandwidthMeasurement> bandwidth;
  std::vector<DispatchMeasurement> dispatch;
  std::optional<double> steal_fraction;  // hypervisor steal time over the probe (/proc/stat)
  int runnable_at_start = 0;             // /proc/loadavg running tasks when the probe started, itself included
  bool interference = false;             // some warning says the machine appears shared
  std::vector<std::string> warnings;
  double wall_seconds = 0;
  int repeats = 0;
  double compute_seconds = 0, bandwidth_seconds = 0;
};

// Runs the probe. Unsupported without AVX2+FMA (no compute kernel); unavailable when
// threads cannot be pinned or memory for the largest working set cannot be allocated.
Expected<ProbeResult> run_cpu_probe(const ProbeOptions& options);

// The clock one core runs at now, Hz: the best of `repeats` dependent-add chains of about
// `seconds` each on the calling thread (the probe's own clock method). For the doctor's
// thermal item: sampled right after a sustained run.
Expected<double> measure_core_clock_hz(int repeats = 5, double seconds = 0.02);

// The level a working set falls in: the per-core share (working set / threads, as each
// thread sweeps its own arrays) against L1d and L2, the whole set against the last-level
// cache; "DRAM" beyond. Unknown cache sizes (0) are skipped.
std::string cache_level(double working_set_bytes, int threads, double l1d_bytes, double l2_bytes, double llc_bytes);

// The knee of a one-thread bandwidth sweep ((working set, B/s), ascending working sets): the
// largest working set whose rate is at least `factor` x the rate at the largest one. 0 when
// no size reaches that (the sweep never left the caches, or never entered DRAM).
double cache_knee(const std::vector<std::pair<double, double>>& sweep, double factor = 1.5);

// The largest working set of the bandwidth sweep: `asked` when set (> 0); else 256 MiB, or
// twice the last-level cache the CPU reports (`l3_bytes`) when that is larger, so that the
// sweep's largest set, whose triad is the device's memory bandwidth, lies beyond every cache:
// on a 2-vCPU VM that reports 480 MiB of L3 (a package's, shared with other tenants) a 256 MiB
// set read 31-39 GB/s from probe to probe as the tenants left more or less of it, and the
// weights' stream of every prediction followed (docs/performance.md, "Issue 30, twenty-third
// pass"). At most 2 GiB and an eighth of `mem_total_bytes` (when known); `quick` keeps 256 MiB.
// Pure.
double sweep_max_working_set(double asked, bool quick, double l3_bytes, double mem_total_bytes);

// Adds the interference warnings (spread across repeats, thread scaling, steal time, other
// runnable tasks) to r.warnings and sets r.interference. Pure; run_cpu_probe calls it.
void classify_interference(ProbeResult& r);

// Highest thread count measured.
int max_threads(const ProbeResult& r);
// Measurement with the highest best rate for a dtype at a thread count (over ISA paths).
const ComputeMeasurement* best_compute(const ProbeResult& r, const std::string& dtype, int threads);
// Highest theoretical peak for a dtype at a thread count (widest path).
double theoretical_peak(const ProbeResult& r, const std::string& dtype, int threads);
// The largest working set of a kind at a thread count (the DRAM figure).
const BandwidthMeasurement* largest_working_set(const ProbeResult& r, BandwidthKind kind, int threads);
// The roof of each level for a kind at a thread count (B/s, medians): the highest median of
// the level's working sets for the caches; the largest working set for DRAM (smaller DRAM-
// labelled sets still hit the cache in part).
std::map<std::string, double> level_roofs(const ProbeResult& r, BandwidthKind kind, int threads);
// Dtypes measured, in the order fp32, bf16, int8.
std::vector<std::string> measured_dtypes(const ProbeResult& r);

// rooflens.probe/1: peak_flops, theoretical_peak_flops, bandwidth (largest working set, best,
// all threads), cache_bandwidth per level, dispatch_overhead_s, every measurement and warning.
nlohmann::ordered_json probe_json(const ProbeResult& r);
// The device a CPU probe measured, kind "cpu": theoretical peaks, measured peaks (best at all
// threads), measured triad bandwidth, cache sizes and roofs, dispatch overhead and sources.
// Invalid when the probe measured no fp32 peak or no triad bandwidth.
Expected<DeviceSpec> probe_device_spec(const ProbeResult& r, const std::string& id);
// That device as its rooflens.device/1 file (device_json, device/device.h).
Expected<nlohmann::ordered_json> probe_device_json(const ProbeResult& r, const std::string& id);

}  // namespace rooflens::microbench
