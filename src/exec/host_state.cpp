// Contention of the host while measuring (see host_state.h).
#include "rooflens/exec/host_state.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace rooflens {

double parse_schedstat_wait(const std::string& text) {
  std::istringstream in(text);
  long long run_ns = 0, wait_ns = 0;
  if (!(in >> run_ns >> wait_ns) || wait_ns < 0) return -1;
  return static_cast<double>(wait_ns) * 1e-9;
}

bool parse_proc_stat(const std::string& text, double ticks_per_s, double* steal_s, int* procs_running) {
  std::istringstream in(text);
  std::string line;
  bool found = false;
  *procs_running = 0;
  while (std::getline(in, line)) {
    if (line.rfind("cpu ", 0) == 0) {
      std::istringstream f(line.substr(4));
      double v[8] = {};
      int n = 0;
      while (n < 8 && (f >> v[n])) ++n;
      if (n < 8) return false;  // user nice system idle iowait irq softirq steal
      *steal_s = v[7] / ticks_per_s;
      found = true;
    } else if (line.rfind("procs_running ", 0) == 0) {
      *procs_running = std::atoi(line.c_str() + 14);
    }
  }
  return found;
}

ContentionReport assess_contention(const HostSample& before, const HostSample& after, int threads,
                                   const ContentionOptions& o) {
  ContentionReport r;
  r.wall_s = after.wall_s - before.wall_s;
  const int t = std::max(1, threads);
  if (r.wall_s <= 0) {
    r.summary = "no interval to assess";
    return r;
  }
  r.cpu_share = (after.cpu_s - before.cpu_s) / (r.wall_s * t);
  if (before.has_run_delay && after.has_run_delay)
    r.wait_share = std::max(0.0, after.run_delay_s - before.run_delay_s) / (r.wall_s * t);
  const int cpus = std::max(1, after.cpus);
  if (before.has_steal && after.has_steal)
    r.steal_share = std::max(0.0, after.steal_s - before.steal_s) / (r.wall_s * cpus);
  r.other_runnable = std::max(0, after.procs_running - 1);
  std::string why;
  if (r.wait_share > o.max_wait_share) {
    char b[160];
    std::snprintf(b, sizeof b, "the measuring threads waited for a CPU %.0f%% of the time (limit %.0f%%)",
                  100 * r.wait_share, 100 * o.max_wait_share);
    why = b;
  }
  if (r.steal_share > o.max_steal_share) {
    char b[160];
    std::snprintf(b, sizeof b, "the hypervisor stole %.0f%% of the CPUs (limit %.0f%%)", 100 * r.steal_share,
                  100 * o.max_steal_share);
    why += (why.empty() ? "" : "; ") + std::string(b);
  }
  r.contended = !why.empty();
  char b[200];
  std::snprintf(b, sizeof b,
                "waited for a CPU %.1f%%, CPU time %.0f%% of %d thread(s) x wall, steal %.1f%%, %d other runnable",
                100 * r.wait_share, 100 * r.cpu_share, t, 100 * r.steal_share, r.other_runnable);
  r.summary = r.contended ? "contended: " + why + " (" + b + ")" : std::string("quiet (") + b + ")";
  return r;
}

namespace {

std::string slurp(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

class ProcHostSampler final : public HostSampler {
 public:
  HostSample sample() override {
    HostSample s;
    s.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
    timespec ts{};
    if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) == 0)
      s.cpu_s = static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
    std::error_code ec;
    bool any = false;
    for (const auto& e : std::filesystem::directory_iterator("/proc/self/task", ec)) {
      const double w = parse_schedstat_wait(slurp(e.path().string() + "/schedstat"));
      if (w < 0) continue;
      s.run_delay_s += w;
      any = true;
    }
    s.has_run_delay = any;
    const long hz = sysconf(_SC_CLK_TCK);
    s.has_steal =
        parse_proc_stat(slurp("/proc/stat"), hz > 0 ? static_cast<double>(hz) : 100.0, &s.steal_s, &s.procs_running);
    s.cpus = static_cast<int>(std::max(1L, sysconf(_SC_NPROCESSORS_ONLN)));
    return s;
  }
};

}  // namespace

std::unique_ptr<HostSampler> make_proc_host_sampler() { return std::make_unique<ProcHostSampler>(); }

}  // namespace rooflens
