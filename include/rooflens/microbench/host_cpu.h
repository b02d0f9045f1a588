// What the CPU probe knows about the machine it runs on: instruction sets (detected at run
// time with cpuid/xgetbv, never assumed from the build), topology, caches, the reported
// clock and memory size; and the per-core vector FMA resources assumed for the theoretical
// peak (cores x FMA units x lanes x 2 x clock). Sources: cpuid, /proc/cpuinfo,
// /proc/meminfo, /sys/devices/system/cpu; every figure records where it came from.
#pragma once

#include <string>
#include <vector>

#include "rooflens/device/device.h"
#include "rooflens/util/status.h"

namespace rooflens::microbench {

// Instruction-set extensions the probe has kernels for. A flag is set only when the CPU
// reports it AND the OS saves the register state (XCR0), as __builtin_cpu_supports does.
struct IsaFeatures {
  bool avx2 = false, fma = false;
  bool avx512f = false, avx512bw = false, avx512vl = false, avx512_bf16 = false, avx512_vnni = false;
  bool avx_vnni = false;

  // The names of the present extensions, in the fixed order above (/proc/cpuinfo spelling).
  std::vector<std::string> names() const;
  bool has_avx2_fma() const { return avx2 && fma; }
  // AVX-512 as the probe's 512-bit kernels need it (F + BW + VL).
  bool has_avx512() const { return avx512f && avx512bw && avx512vl; }
};

// cpuid + xgetbv on x86-64; all false elsewhere.
IsaFeatures detect_isa();

// One logical CPU as /proc/cpuinfo describes it.
struct LogicalCpu {
  int processor = -1, physical_id = 0, core_id = -1;
};

// The fields of /proc/cpuinfo the probe uses. Pure: parses `text`.
struct CpuinfoText {
  std::string model_name, vendor;
  double mhz = 0;  // first "cpu MHz" line (MHz, as reported by the kernel)
  std::vector<LogicalCpu> cpus;
  std::vector<std::string> flags;  // first "flags" line
};
CpuinfoText parse_cpuinfo(const std::string& text);

// "48K", "1024K", "32M", "1G" (sysfs cache size) -> bytes; 0 when malformed.
double parse_cache_size(const std::string& s);

// A kernel CPU list ("0-3,8,10-11": sysfs `online`, cgroup `cpuset.cpus.effective`; one
// trailing newline allowed) -> its CPUs in increasing order without repeats; empty when the
// text is empty or malformed (a stray character, an empty item, a descending range, a CPU
// number of 65536 or more). Pure.
std::vector<int> parse_cpu_list(const std::string& text);

// The logical CPUs this process may run on whatever its threads' affinity masks say: the
// cgroup's /sys/fs/cgroup/cpuset.cpus.effective when readable, else the online CPUs
// (/sys/devices/system/cpu/online, else 0 .. sysconf(_SC_NPROCESSORS_ONLN) - 1).
std::vector<int> usable_cpus();

// The calling thread's affinity mask (sched_getaffinity), increasing; empty when unreadable.
std::vector<int> current_thread_cpus();

// Orders logical CPUs for pinning: one per distinct (physical id, core id) first, then the
// SMT siblings, restricted to `allowed` (the process affinity mask) in its order when the
// topology is unknown. Returns the order and the number of distinct cores in it.
std::vector<int> pinning_order(const std::vector<LogicalCpu>& cpus, const std::vector<int>& allowed,
                               int* distinct_cores);

struct HostCpu {
  std::string vendor;                       // "AuthenticAMD", "GenuineIntel" (cpuid)
  std::string model_name;                   // /proc/cpuinfo "model name"
  std::string brand;                        // cpuid brand string (may differ under virtualisation)
  int family = 0, model = 0, stepping = 0;  // cpuid display family / model
  IsaFeatures isa;
  int cores = 0;                       // distinct physical cores this process may run on
  int threads = 0;                     // logical CPUs this process may run on (affinity mask)
  std::vector<int> cpu_order;          // logical CPU ids in pinning order (see pinning_order)
  double l1d_bytes = 0, l2_bytes = 0;  // per core
  double l3_bytes = 0;                 // last-level cache as seen by cpu 0 (shared)
  std::string cache_source;
  double clock_reported_hz = 0;    // /proc/cpuinfo "cpu MHz": what the kernel reports, often nominal
  double mem_total_bytes = 0;      // /proc/meminfo MemTotal
  std::vector<std::string> notes;  // what could not be read, and what was used instead
};

// Reads cpuid, /proc and /sys. Unavailable when the process may run on no CPU.
Expected<HostCpu> detect_host_cpu();

// Why a CPU device file does not describe `host`, in one clause ("" when its instruction sets
// and cores match as far as the file says): a file of a 256-bit AVX2 CPU gives a peak that
// an AVX-512 host exceeds, so utilization over it passes 100%. For a note beside measurements
// taken on the host with that file's peaks and predictions.
std::string cpu_device_mismatch(const DeviceSpec& dev, const HostCpu& host);

// Vector FMA resources of one core for one instruction-set path, as assumed for the
// theoretical peak. 512-bit instructions on a 256-bit datapath (Zen 4) are double-pumped:
// datapath_bits < vector_bits and the per-cycle rate is that of the datapath.
struct SimdPath {
  std::string isa;         // "avx512" or "avx2"
  int vector_bits = 0;     // instruction width
  int datapath_bits = 0;   // FMA unit width
  int fma_units = 0;       // FMA pipes per core
  std::string assumption;  // where fma_units / datapath_bits come from

  // FP32 FLOP per cycle per core: units x (datapath / 32 lanes) x 2 (FMA = 2 FLOP).
  double fp32_flop_per_cycle() const { return fma_units * (datapath_bits / 32.0) * 2.0; }
};

// The paths the CPU has, widest first (empty without AVX2+FMA).
std::vector<SimdPath> simd_paths(const HostCpu& cpu);

// Ops per 32-bit lane per instruction relative to an FP32 FMA (2 FLOP): bf16 vdpbf16ps does
// 2 products (x2), int8 vpdpbusd 4 (x4). Assumes the same issue rate as the FP32 FMA.
double dtype_rate_multiplier(const std::string& dtype);

}  // namespace rooflens::microbench
