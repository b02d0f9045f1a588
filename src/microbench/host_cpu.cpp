// Host CPU detection for the probe (see host_cpu.h): cpuid/xgetbv, /proc, /sys.
#include "rooflens/microbench/host_cpu.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#define ROOFLENS_X86 1
#endif

namespace rooflens::microbench {
namespace {

std::string read_text(const std::string& path) {
  std::ifstream f(path);
  if (!f) return {};
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return {};
  const auto e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

#ifdef ROOFLENS_X86
struct Regs {
  unsigned a = 0, b = 0, c = 0, d = 0;
};

Regs cpuid(unsigned leaf, unsigned sub = 0) {
  Regs r;
  if (!__get_cpuid_count(leaf, sub, &r.a, &r.b, &r.c, &r.d)) return {};
  return r;
}

unsigned max_leaf(unsigned base) {
  unsigned a = 0, b = 0, c = 0, d = 0;
  __cpuid(base, a, b, c, d);
  return a;
}

unsigned long long xgetbv0() {
  unsigned lo = 0, hi = 0;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return (static_cast<unsigned long long>(hi) << 32) | lo;
}

bool bit(unsigned v, int b) { return (v >> b) & 1u; }
#endif

// Caches from sysfs (cpu 0). Returns false when the directory is missing (some VMs).
bool caches_from_sysfs(HostCpu* h) {
  bool any = false;
  for (int i = 0; i < 16; ++i) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(i) + "/";
    const std::string level = trim(read_text(dir + "level"));
    if (level.empty()) continue;
    const std::string type = trim(read_text(dir + "type"));
    const double bytes = parse_cache_size(trim(read_text(dir + "size")));
    if (bytes <= 0 || type == "Instruction") continue;
    any = true;
    if (level == "1")
      h->l1d_bytes = bytes;
    else if (level == "2")
      h->l2_bytes = bytes;
    else if (level == "3")
      h->l3_bytes = bytes;
  }
  if (any) h->cache_source = "sysfs /sys/devices/system/cpu/cpu0/cache";
  return any;
}

void caches_from_cpuid(HostCpu* h) {
#ifdef ROOFLENS_X86
  if (h->vendor == "AuthenticAMD" || h->vendor == "HygonGenuine") {
    if (max_leaf(0x80000000u) >= 0x80000006u) {
      const Regs l1 = cpuid(0x80000005u), l2 = cpuid(0x80000006u);
      h->l1d_bytes = static_cast<double>(l1.c >> 24) * 1024;
      h->l2_bytes = static_cast<double>(l2.c >> 16) * 1024;
      // AMD APM: L3Size[31:18] x 512 KiB <= L3 size < (L3Size + 1) x 512 KiB; the lower bound.
      h->l3_bytes = static_cast<double>(l2.d >> 18) * 512 * 1024;
      h->cache_source = "cpuid 0x80000005/0x80000006 (L3 is the APM lower bound, in 512 KiB units)";
    }
    return;
  }
  if (max_leaf(0) >= 4) {
    for (unsigned sub = 0; sub < 16; ++sub) {
      const Regs r = cpuid(4, sub);
      const unsigned type = r.a & 0x1f;
      if (type == 0) break;
      if (type == 2) continue;  // instruction cache
      const unsigned level = (r.a >> 5) & 7;
      const double bytes = static_cast<double>(((r.b >> 22) & 0x3ff) + 1) * (((r.b >> 12) & 0x3ff) + 1) *
                           ((r.b & 0xfff) + 1) * (static_cast<double>(r.c) + 1);
      if (level == 1)
        h->l1d_bytes = bytes;
      else if (level == 2)
        h->l2_bytes = bytes;
      else if (level == 3)
        h->l3_bytes = bytes;
    }
    h->cache_source = "cpuid leaf 4";
  }
#else
  (void)h;
#endif
}

}  // namespace

std::vector<std::string> IsaFeatures::names() const {
  std::vector<std::string> n;
  if (avx2) n.push_back("avx2");
  if (fma) n.push_back("fma");
  if (avx512f) n.push_back("avx512f");
  if (avx512bw) n.push_back("avx512bw");
  if (avx512vl) n.push_back("avx512vl");
  if (avx512_bf16) n.push_back("avx512_bf16");
  if (avx512_vnni) n.push_back("avx512_vnni");
  if (avx_vnni) n.push_back("avx_vnni");
  return n;
}

IsaFeatures detect_isa() {
  IsaFeatures f;
#ifdef ROOFLENS_X86
  if (max_leaf(0) < 1) return f;
  const Regs l1 = cpuid(1);
  const bool osxsave = bit(l1.c, 27), avx = bit(l1.c, 28);
  if (!osxsave || !avx) return f;
  const unsigned long long xcr0 = xgetbv0();
  const bool os_avx = (xcr0 & 0x6) == 0x6;                 // XMM and YMM state
  const bool os_avx512 = os_avx && (xcr0 & 0xe0) == 0xe0;  // opmask, ZMM_Hi256, Hi16_ZMM
  if (!os_avx) return f;
  f.fma = bit(l1.c, 12);
  if (max_leaf(0) < 7) return f;
  const Regs l7 = cpuid(7, 0), l71 = cpuid(7, 1);
  f.avx2 = bit(l7.b, 5);
  f.avx_vnni = bit(l71.a, 4);
  if (os_avx512) {
    f.avx512f = bit(l7.b, 16);
    f.avx512bw = bit(l7.b, 30);
    f.avx512vl = bit(l7.b, 31);
    f.avx512_vnni = bit(l7.c, 11);
    f.avx512_bf16 = bit(l71.a, 5);
  }
#endif
  return f;
}

CpuinfoText parse_cpuinfo(const std::string& text) {
  CpuinfoText out;
  std::stringstream ss(text);
  std::string line;
  LogicalCpu cur;
  bool in_block = false;
  auto flush = [&] {
    if (in_block && cur.processor >= 0) out.cpus.push_back(cur);
    cur = LogicalCpu{};
    in_block = false;
  };
  while (std::getline(ss, line)) {
    const auto colon = line.find(':');
    if (trim(line).empty()) {
      flush();
      continue;
    }
    if (colon == std::string::npos) continue;
    const std::string key = trim(line.substr(0, colon)), val = trim(line.substr(colon + 1));
    auto to_int = [&](int fallback) {
      char* end = nullptr;
      long v = std::strtol(val.c_str(), &end, 10);
      return (end != val.c_str()) ? static_cast<int>(v) : fallback;
    };
    if (key == "processor") {
      flush();
      cur.processor = to_int(-1);
      in_block = true;
    } else if (key == "physical id") {
      cur.physical_id = to_int(0);
    } else if (key == "core id") {
      cur.core_id = to_int(-1);
    } else if (key == "model name" && out.model_name.empty()) {
      out.model_name = val;
    } else if (key == "vendor_id" && out.vendor.empty()) {
      out.vendor = val;
    } else if (key == "cpu MHz" && out.mhz == 0) {
      out.mhz = std::strtod(val.c_str(), nullptr);
    } else if (key == "flags" && out.flags.empty()) {
      std::stringstream fs(val);
      std::string f;
      while (fs >> f) out.flags.push_back(f);
    }
  }
  flush();
  return out;
}

double parse_cache_size(const std::string& s) {
  if (s.empty()) return 0;
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (end == s.c_str() || !(v > 0)) return 0;
  const std::string unit = trim(end);
  if (unit.empty()) return v;
  if (unit == "K" || unit == "KB" || unit == "KiB") return v * 1024;
  if (unit == "M" || unit == "MB" || unit == "MiB") return v * 1024 * 1024;
  if (unit == "G" || unit == "GB" || unit == "GiB") return v * 1024 * 1024 * 1024;
  return 0;
}

std::vector<int> pinning_order(const std::vector<LogicalCpu>& cpus, const std::vector<int>& allowed,
                               int* distinct_cores) {
  std::map<int, LogicalCpu> by_id;
  for (const auto& c : cpus) by_id[c.processor] = c;
  // Rank of each allowed CPU among the CPUs of its core (0 = first thread of the core).
  std::map<std::pair<int, int>, int> seen;
  std::vector<std::pair<int, int>> ranked;  // (rank, position in allowed)
  int unknown = 0;
  for (size_t i = 0; i < allowed.size(); ++i) {
    auto it = by_id.find(allowed[i]);
    int rank = 0;
    if (it != by_id.end() && it->second.core_id >= 0) {
      rank = seen[{it->second.physical_id, it->second.core_id}]++;
    } else {
      ++unknown;  // no topology: treat as its own core
    }
    ranked.push_back({rank, static_cast<int>(i)});
  }
  std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<int> order;
  for (const auto& r : ranked) order.push_back(allowed[r.second]);
  if (distinct_cores) *distinct_cores = static_cast<int>(seen.size()) + unknown;
  return order;
}

namespace {

// One item of a CPU list: "N" or "N-M" with N <= M; false when malformed.
bool parse_cpu_item(const std::string& item, std::vector<int>* out) {
  constexpr long kMaxCpu = 65535;
  const auto number = [](const std::string& s, long* v) {
    if (s.empty() || s.size() > 5 || s.find_first_not_of("0123456789") != std::string::npos) return false;
    *v = std::strtol(s.c_str(), nullptr, 10);
    return *v <= kMaxCpu;
  };
  const auto dash = item.find('-');
  long lo = 0, hi = 0;
  if (!number(item.substr(0, dash), &lo)) return false;
  if (dash == std::string::npos)
    hi = lo;
  else if (!number(item.substr(dash + 1), &hi) || hi < lo)
    return false;
  for (long c = lo; c <= hi; ++c) out->push_back(static_cast<int>(c));
  return true;
}

}  // namespace

std::vector<int> parse_cpu_list(const std::string& text) {
  std::string s = text;
  if (!s.empty() && s.back() == '\n') s.pop_back();
  if (s.empty()) return {};
  std::vector<int> cpus;
  size_t begin = 0;
  for (;;) {
    const size_t comma = s.find(',', begin);
    if (!parse_cpu_item(s.substr(begin, comma == std::string::npos ? std::string::npos : comma - begin), &cpus))
      return {};
    if (comma == std::string::npos) break;
    begin = comma + 1;
  }
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  return cpus;
}

std::vector<int> usable_cpus() {
  std::vector<int> cpus = parse_cpu_list(read_text("/sys/fs/cgroup/cpuset.cpus.effective"));
  if (cpus.empty()) cpus = parse_cpu_list(read_text("/sys/devices/system/cpu/online"));
  if (cpus.empty())
    for (long c = 0; c < sysconf(_SC_NPROCESSORS_ONLN); ++c) cpus.push_back(static_cast<int>(c));
  return cpus;
}

std::vector<int> current_thread_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) cpus.push_back(c);
  return cpus;
}

Expected<HostCpu> detect_host_cpu() {
  HostCpu h;
  h.isa = detect_isa();
#ifdef ROOFLENS_X86
  {
    const Regs v = cpuid(0);
    char vendor[13] = {};
    std::copy_n(reinterpret_cast<const char*>(&v.b), 4, vendor);
    std::copy_n(reinterpret_cast<const char*>(&v.d), 4, vendor + 4);
    std::copy_n(reinterpret_cast<const char*>(&v.c), 4, vendor + 8);
    h.vendor = vendor;
    const Regs l1 = cpuid(1);
    const unsigned base_family = (l1.a >> 8) & 0xf, base_model = (l1.a >> 4) & 0xf;
    h.stepping = static_cast<int>(l1.a & 0xf);
    h.family = static_cast<int>(base_family == 0xf ? base_family + ((l1.a >> 20) & 0xff) : base_family);
    h.model = static_cast<int>((base_family == 0x6 || base_family == 0xf) ? (((l1.a >> 16) & 0xf) << 4) | base_model
                                                                          : base_model);
    if (max_leaf(0x80000000u) >= 0x80000004u) {
      char brand[49] = {};
      for (unsigned i = 0; i < 3; ++i) {
        const Regs r = cpuid(0x80000002u + i);
        const unsigned w[4] = {r.a, r.b, r.c, r.d};
        std::copy_n(reinterpret_cast<const char*>(w), 16, brand + 16 * i);
      }
      h.brand = trim(brand);
    }
  }
#endif
  const CpuinfoText ci = parse_cpuinfo(read_text("/proc/cpuinfo"));
  h.model_name = ci.model_name.empty() ? h.brand : ci.model_name;
  if (h.vendor.empty()) h.vendor = ci.vendor;
  h.clock_reported_hz = ci.mhz * 1e6;
  if (ci.mhz <= 0) h.notes.push_back("/proc/cpuinfo has no 'cpu MHz'; no reported clock");

  const std::vector<int> allowed = current_thread_cpus();
  if (allowed.empty()) return Status::unavailable("cannot read this process's CPU affinity (sched_getaffinity)");
  h.threads = static_cast<int>(allowed.size());
  h.cpu_order = pinning_order(ci.cpus, allowed, &h.cores);
  if (ci.cpus.empty()) h.notes.push_back("/proc/cpuinfo lists no processors; every allowed CPU counted as a core");

  if (!caches_from_sysfs(&h)) {
    caches_from_cpuid(&h);
    h.notes.push_back("no /sys/devices/system/cpu/cpu0/cache; cache sizes from " +
                      (h.cache_source.empty() ? std::string("nowhere (unknown)") : h.cache_source));
  }

  for (const std::string& line : [&] {
         std::vector<std::string> v;
         std::stringstream ss(read_text("/proc/meminfo"));
         for (std::string l; std::getline(ss, l);) v.push_back(l);
         return v;
       }()) {
    if (line.rfind("MemTotal:", 0) == 0) {
      h.mem_total_bytes = std::strtod(line.c_str() + 9, nullptr) * 1024;  // "kB" = KiB
      break;
    }
  }
  if (h.mem_total_bytes <= 0) h.notes.push_back("/proc/meminfo has no MemTotal");
  return h;
}

std::vector<SimdPath> simd_paths(const HostCpu& cpu) {
  std::vector<SimdPath> out;
  if (!cpu.isa.has_avx2_fma()) return out;
  const bool amd = cpu.vendor == "AuthenticAMD" || cpu.vendor == "HygonGenuine";
  const std::string fam = "family 0x" + [&] {
    std::stringstream s;
    s << std::hex << cpu.family << " model 0x" << cpu.model;
    return s.str();
  }();
  if (cpu.isa.has_avx512()) {
    SimdPath p{"avx512", 512, 512, 2, ""};
    if (amd && cpu.family == 0x19) {
      p.datapath_bits = 256;
      p.assumption = "AMD " + fam +
                     " (Zen 4): 2 FMA pipes of 256 bits; 512-bit FMAs are double-pumped, "
                     "so AVX-512 has the same FLOP/cycle as AVX2";
    } else if (amd && cpu.family == 0x1a &&
               ((cpu.model >= 0x20 && cpu.model <= 0x2f) || (cpu.model >= 0x60 && cpu.model <= 0x7f))) {
      p.datapath_bits = 256;
      p.assumption = "AMD " + fam + " (Zen 5 mobile): assumed 256-bit datapath, 512-bit FMAs double-pumped";
    } else if (amd && cpu.family >= 0x1a) {
      p.assumption = "AMD " + fam + " (Zen 5 server/desktop): 2 FMA pipes with a full 512-bit datapath";
    } else if (amd) {
      p.assumption = "AMD " + fam + ": unknown AVX-512 core; assumed 2 x 512-bit FMA pipes";
    } else {
      p.assumption = cpu.vendor + " " + fam +
                     ": assumed 2 x 512-bit FMA pipes (Xeon Gold/Platinum, Sapphire Rapids and later; some parts "
                     "have 1, and AVX-512 may run below the measured scalar clock)";
    }
    out.push_back(p);
  }
  SimdPath p{"avx2", 256, 256, 2, ""};
  p.assumption = (amd ? "AMD " : cpu.vendor + " ") + fam +
                 ": 2 x 256-bit FMA pipes (Zen 1 has 2 x 128 and would be over-estimated 2x)";
  if (amd && cpu.family == 0x17 && cpu.model < 0x30) {
    p.datapath_bits = 128;
    p.assumption = "AMD " + fam + " (Zen 1/Zen+): 2 x 128-bit FMA pipes, 256-bit ops double-pumped";
  }
  out.push_back(p);
  return out;
}

double dtype_rate_multiplier(const std::string& dtype) {
  if (dtype == "bf16") return 2.0;
  if (dtype == "int8") return 4.0;
  return 1.0;
}

std::string cpu_device_mismatch(const DeviceSpec& dev, const HostCpu& host) {
  if (dev.is_gpu() || !dev.cpu) return "";
  std::vector<std::string> missing;
  for (const std::string& ext : host.isa.names())
    if (std::find(dev.cpu->isa.begin(), dev.cpu->isa.end(), ext) == dev.cpu->isa.end()) missing.push_back(ext);
  std::string why;
  if (!missing.empty()) {
    why = "this CPU has " + missing.front();
    for (size_t i = 1; i < missing.size(); ++i) why += (i + 1 == missing.size() ? " and " : ", ") + missing[i];
    why += ", which " + dev.id + " does not list";
  }
  if (dev.cpu->cores > 0 && host.cores > 0 && host.cores != dev.cpu->cores)
    why += (why.empty() ? "" : "; ") + std::string("this process may run on ") + std::to_string(host.cores) +
           " core(s), " + dev.id + " has " + std::to_string(dev.cpu->cores);
  return why;
}

}  // namespace rooflens::microbench
