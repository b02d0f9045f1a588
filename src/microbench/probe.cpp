// The CPU probe's measurement loops (see probe.h): clock, compute peaks, bandwidth sweep,
// dispatch overhead. Every figure is the rate of one pinned fork/join region, repeated.
#include "rooflens/microbench/probe.h"

#include <sys/mman.h>

#include <fmt/format.h>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <memory>
#include <sstream>

#include "rooflens/microbench/thread_team.h"
#include "rooflens/util/utc_time.h"

namespace rooflens::microbench {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// The shortest of `tries` timed calls: calibration must not be fooled by one preemption
// (a shared machine deschedules a thread for milliseconds).
template <typename F>
double min_time(int tries, F&& f) {
  double best = 1e30;
  for (int i = 0; i < tries; ++i) {
    const auto t0 = Clock::now();
    f();
    best = std::min(best, seconds_since(t0));
  }
  return best;
}

// CPU time of the calling thread (s): what it ran, not what the wall clock saw.
double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

std::string read_text(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  if (f) ss << f.rdbuf();
  return ss.str();
}

// 64-byte (2 MiB for large blocks, with transparent huge pages requested) aligned memory.
struct AlignedFree {
  void operator()(void* p) const { std::free(p); }
};
using Buffer = std::unique_ptr<float[], AlignedFree>;

Buffer allocate(size_t bytes) {
  constexpr size_t kHuge = size_t{2} << 20;
  const size_t align = bytes >= 4 * kHuge ? kHuge : 64;
  const size_t rounded = (bytes + align - 1) / align * align;
  void* p = std::aligned_alloc(align, rounded);
  if (p && align == kHuge) madvise(p, rounded, MADV_HUGEPAGE);  // a hint; failure is harmless
  return Buffer(static_cast<float*>(p));
}

std::vector<int> thread_counts_for(int max_threads) {
  std::vector<int> v;
  for (int t = 1; t < max_threads; t *= 2) v.push_back(t);
  v.push_back(max_threads);
  return v;
}

class Prober {
 public:
  Prober(const ProbeOptions& o, ProbeResult& r) : o_(o), r_(r) {}

  Status run();

 private:
  void say(const std::string& s) const {
    if (o_.progress) o_.progress(s);
  }
  std::vector<int> cpus(int threads) const { return {r_.cpu.cpu_order.begin(), r_.cpu.cpu_order.begin() + threads}; }
  int cores_of(int threads) const { return std::min(threads, r_.cpu.cores); }
  Status sample_clock(int repeats, double seconds);
  void settle_clock();
  Status measure_compute();
  Status measure_bandwidth();
  void settle_llc();
  Status measure_dispatch();

  const ProbeOptions& o_;
  ProbeResult& r_;
  int repeats_ = 0;
  double compute_s_ = 0, bandwidth_s_ = 0, dispatch_s_ = 0, step_ = 0;
  double max_ws_ = 0;  // the sweep's largest working set (sweep_max_working_set)
  std::vector<double> clock_samples_;
};

// Samples the core clock with the dependent-add chain on one pinned thread: `repeats` runs of
// about `seconds` each, appended to clock_samples_. The first call also ramps the clock up.
Status Prober::sample_clock(int repeats, double seconds) {
  auto team = ThreadTeam::create(cpus(1));
  if (!team) return team.status();
  uint64_t iters = 1 << 14;
  volatile uint64_t sink = 0;
  for (int i = 0; i < 40; ++i) {
    const double t = min_time(2, [&] { sink = dependent_add_chain(iters); });
    if (t > 0.005) {
      iters = static_cast<uint64_t>(static_cast<double>(iters) * seconds / t) + 1;
      break;
    }
    iters *= 2;
  }
  for (int rep = 0; rep < repeats; ++rep) {
    const auto t0 = Clock::now();
    sink = dependent_add_chain(iters);
    clock_samples_.push_back(static_cast<double>(iters) * kAddsPerChainIter / seconds_since(t0));
  }
  (void)sink;
  return Status::ok();
}

// The clock of the theoretical peaks: the best add-chain sample of the whole probe (the
// clock the cores reached; dips below it show up as lower measured/theoretical).
void Prober::settle_clock() {
  r_.clock_measured_hz = summarize(clock_samples_);
  const double c = r_.clock_measured_hz.best;
  if (c > 2e8 && c < 8e9) {
    r_.clock_hz = c;
    r_.clock_source = fmt::format(
        "measured: {} dependent register adds per iteration on one pinned thread (1 add per cycle), best of {} "
        "samples taken before and after each compute kernel ({:.3f} GHz, median {:.3f}); /proc/cpuinfo reports {:.3f} "
        "GHz",
        kAddsPerChainIter, clock_samples_.size(), c / 1e9, r_.clock_measured_hz.median / 1e9,
        r_.cpu.clock_reported_hz / 1e9);
  } else {
    r_.clock_hz = r_.cpu.clock_reported_hz;
    r_.clock_source = fmt::format(
        "as reported by /proc/cpuinfo 'cpu MHz' (the add-chain estimate {:.3f} GHz is "
        "implausible)",
        c / 1e9);
  }
  for (auto& m : r_.compute) {
    const SimdPath* path = nullptr;
    for (const auto& p : r_.paths)
      if (p.isa == m.isa) path = &p;
    if (!path) continue;
    const double per_cycle = m.cores * path->fp32_flop_per_cycle() * dtype_rate_multiplier(m.dtype);
    m.theoretical = per_cycle * r_.clock_hz;
    m.theoretical_reported_clock = per_cycle * r_.cpu.clock_reported_hz;
  }
}

Status Prober::measure_compute() {
  const std::vector<ComputeKernel> kernels = compute_kernels(r_.cpu.isa);
  if (kernels.empty())
    return Status::unsupported("the CPU probe needs AVX2 and FMA (cpuid reports: " + [&] {
      std::string s;
      for (const auto& n : r_.cpu.isa.names()) s += (s.empty() ? "" : " ") + n;
      return s.empty() ? std::string("neither") : s;
    }() + ")");
  for (const ComputeKernel& k : kernels) {
    ROOFLENS_RETURN_IF_ERROR(sample_clock(3, o_.quick ? 0.005 : 0.01));
    // Calibrate on one thread: iterations for compute_s_ per repeat.
    uint64_t iters = 1 << 12;
    {
      auto team = ThreadTeam::create(cpus(1));
      if (!team) return team.status();
      alignas(64) int32_t acc[kMaxAccumulators * 16] = {};
      for (int i = 0; i < 40; ++i) {
        const double t = min_time(2, [&] { k.run(iters, acc); });
        if (t > 0.01) {
          iters = static_cast<uint64_t>(static_cast<double>(iters) * compute_s_ / t) + 1;
          break;
        }
        iters *= 2;
      }
    }
    for (int threads : r_.thread_counts) {
      auto team = ThreadTeam::create(cpus(threads));
      if (!team) return team.status();
      struct alignas(64) Acc {
        int32_t v[kMaxAccumulators * 16] = {};
      };
      std::vector<Acc> accs(threads);
      std::vector<double> cpu_s(threads * 8);  // one cache line per member
      uint64_t run_iters = iters / 8;          // warm-up: clocks up, pages in
      auto region = [&](int m) {
        const double c0 = thread_cpu_seconds();
        k.run(run_iters, accs[m].v);
        cpu_s[m * 8] = thread_cpu_seconds() - c0;
      };
      (*team)->run(region);
      run_iters = iters;
      std::vector<double> rates, on_cpu;
      for (int rep = 0; rep < repeats_; ++rep) {
        const auto t0 = Clock::now();
        (*team)->run(region);
        const double wall = seconds_since(t0);
        rates.push_back(threads * k.ops(iters) / wall);
        double cpu = 0;
        for (int m = 0; m < threads; ++m) cpu += cpu_s[m * 8];
        on_cpu.push_back(std::min(1.0, cpu / (threads * wall)));
      }
      ComputeMeasurement m;
      m.dtype = k.dtype;
      m.isa = k.isa;
      m.instruction = k.instruction;
      m.threads = threads;
      m.cores = cores_of(threads);
      m.flops = summarize(rates);
      m.on_cpu = summarize(on_cpu);
      say(fmt::format("probe: {} {} ({}), {} thread(s): median {:.1f}, best {:.1f} G{}/s", k.dtype, k.isa,
                      k.instruction, threads, m.flops.median / 1e9, m.flops.best / 1e9,
                      k.dtype == "int8" ? "OP" : "FLOP"));
      r_.compute.push_back(std::move(m));
    }
    ROOFLENS_RETURN_IF_ERROR(sample_clock(3, o_.quick ? 0.005 : 0.01));
  }
  return Status::ok();
}

Status Prober::measure_bandwidth() {
  const BandwidthKernels bk = bandwidth_kernels(r_.cpu.isa);
  std::vector<double> sizes;
  for (double ws = o_.min_working_set; ws <= max_ws_ * 1.0001; ws *= step_) sizes.push_back(ws);
  for (int threads : r_.thread_counts) {
    auto team = ThreadTeam::create(cpus(threads));
    if (!team) return team.status();
    // Each member owns one block of max_working_set / threads bytes, allocated and first
    // touched by that member (NUMA-local); triad splits it into three arrays.
    constexpr size_t kUnit = 3 * kBandwidthBlockFloats;
    const size_t block_floats =
        (static_cast<size_t>(std::ceil(max_ws_ / threads / sizeof(float))) + kUnit - 1) / kUnit * kUnit;
    std::vector<Buffer> blocks(threads);
    std::vector<double> cpu_s(threads * 8);  // thread CPU seconds of the last region, one cache line each
    std::vector<float> sinks(threads * 16);
    bool alloc_failed = false;
    auto alloc = [&](int m) {
      blocks[m] = allocate(block_floats * sizeof(float));
      if (!blocks[m]) {
        alloc_failed = true;
        return;
      }
      float* p = blocks[m].get();
      const size_t third = block_floats / 3;
      for (size_t i = 0; i < block_floats; ++i) p[i] = i < third ? 0.0f : (i < 2 * third ? 1.0f : 2.0f);
    };
    (*team)->run(alloc);
    if (alloc_failed)
      return Status::unavailable(
          fmt::format("cannot allocate {:.0f} MiB for the bandwidth sweep", max_ws_ / (1 << 20)));
    for (BandwidthKind kind : kBandwidthKinds) {
      const int arrays = bandwidth_arrays(kind);
      for (double ws : sizes) {
        size_t n =
            static_cast<size_t>(ws / threads / arrays / sizeof(float)) / kBandwidthBlockFloats * kBandwidthBlockFloats;
        n = std::max(n, kBandwidthBlockFloats);
        n = std::min(n, arrays == 3 ? block_floats / 3 : block_floats);
        int passes = 1;
        auto region = [&](int m) {
          const double c0 = thread_cpu_seconds();
          float* p = blocks[m].get();
          const size_t third = block_floats / 3;
          switch (kind) {
            case BandwidthKind::kRead: sinks[m * 16] += bk.read(p, n, passes); break;
            case BandwidthKind::kWrite: bk.write(p, n, 1.0f, passes); break;
            case BandwidthKind::kWriteNontemporal: bk.write_nt(p, n, 1.0f, passes); break;
            case BandwidthKind::kTriad: bk.triad(p, p + third, p + 2 * third, 0.5f, n, passes); break;
          }
          cpu_s[m * 8] = thread_cpu_seconds() - c0;
        };
        // Calibrate passes so a repeat lasts bandwidth_s_ (and at least 1 ms per probe).
        for (int i = 0; i < 40; ++i) {
          const double t = min_time(3, [&] { (*team)->run(region); });
          if (t > 2e-3 || passes >= (1 << 24)) {
            passes = std::max(1, static_cast<int>(passes * bandwidth_s_ / t));
            break;
          }
          passes *= 4;
        }
        std::vector<double> rates, on_cpu;
        for (int rep = 0; rep < repeats_; ++rep) {
          const auto t0 = Clock::now();
          (*team)->run(region);
          const double wall = seconds_since(t0);
          rates.push_back(threads * bandwidth_bytes(kind, n, passes) / wall);
          double cpu = 0;
          for (int m = 0; m < threads; ++m) cpu += cpu_s[m * 8];
          on_cpu.push_back(std::min(1.0, cpu / (threads * wall)));
        }
        BandwidthMeasurement m;
        m.kind = kind;
        m.isa = bk.isa;
        m.working_set_bytes = static_cast<double>(n) * arrays * sizeof(float) * threads;
        m.threads = threads;
        m.bytes_per_s = summarize(rates);
        m.on_cpu = summarize(on_cpu);
        r_.bandwidth.push_back(std::move(m));
      }
      const BandwidthMeasurement& last = r_.bandwidth.back();
      say(
          fmt::format("probe: {} bandwidth, {} thread(s): {} working sets, {:.0f} KiB .. {:.0f} MiB (at the "
                      "largest: median {:.1f}, best {:.1f} GB/s)",
                      bandwidth_kind_name(kind), threads, sizes.size(), o_.min_working_set / 1024,
                      last.working_set_bytes / (1 << 20), last.bytes_per_s.median / 1e9, last.bytes_per_s.best / 1e9));
    }
  }
  return Status::ok();
}

// The last-level cache for labels and the device file: cpuid/sysfs unless the one-thread read
// sweep reaches DRAM-level bandwidth at a working set far (4x) below it; then the sweep's knee.
void Prober::settle_llc() {
  std::vector<std::pair<double, double>> sweep;
  for (const auto& m : r_.bandwidth)
    if (m.kind == BandwidthKind::kRead && m.threads == 1) sweep.push_back({m.working_set_bytes, m.bytes_per_s.best});
  const double knee = cache_knee(sweep);
  const double reported = r_.cpu.l3_bytes;
  auto mib = [](double b) { return b / (1 << 20); };
  if (knee > 0 && (reported <= 0 || reported > 4 * knee)) {
    r_.llc_bytes = knee;
    r_.llc_source = reported > 0 ? fmt::format(
                                       "measured: one-thread read bandwidth falls to the DRAM level beyond {:g} MiB, "
                                       "while {} reports {:g} MiB of L3 (likely the whole package's L3, seen from a "
                                       "virtual CPU); the knee of the sweep is used",
                                       mib(knee), r_.cpu.cache_source, mib(reported))
                                 : fmt::format(
                                       "measured: one-thread read bandwidth falls to the DRAM level beyond {:g} MiB "
                                       "(no L3 size reported)",
                                       mib(knee));
    say("probe: " + r_.llc_source);
  } else {
    r_.llc_bytes = reported;
    r_.llc_source = r_.cpu.cache_source + (knee > 0 ? fmt::format(" (the read sweep's knee, {:g} MiB, agrees within "
                                                                  "4x)",
                                                                  mib(knee))
                                                    : std::string());
  }
  for (auto& m : r_.bandwidth)
    m.level = cache_level(m.working_set_bytes, m.threads, r_.cpu.l1d_bytes, r_.cpu.l2_bytes, r_.llc_bytes);
}

Status Prober::measure_dispatch() {
  for (int threads : r_.thread_counts) {
    if (threads < 2) continue;  // one thread: a plain call, nothing to dispatch
    auto team = ThreadTeam::create(cpus(threads));
    if (!team) return team.status();
    struct alignas(64) Counter {
      uint64_t v = 0;
    };
    std::vector<Counter> counters(threads);
    auto region = [&](int m) { ++counters[m].v; };  // the "trivial task"
    uint64_t regions = 64;
    for (int i = 0; i < 40; ++i) {
      const double t = min_time(3, [&] {
        for (uint64_t j = 0; j < regions; ++j) (*team)->run(region);
      });
      if (t > 2e-3) {
        regions = std::max<uint64_t>(16, static_cast<uint64_t>(static_cast<double>(regions) * dispatch_s_ / t));
        break;
      }
      regions *= 4;
    }
    std::vector<double> per_region;
    for (int rep = 0; rep < repeats_; ++rep) {
      const auto t0 = Clock::now();
      for (uint64_t j = 0; j < regions; ++j) (*team)->run(region);
      per_region.push_back(seconds_since(t0) / static_cast<double>(regions));
    }
    DispatchMeasurement m;
    m.threads = threads;
    m.seconds = summarize(per_region, /*higher_is_better=*/false);
    say(fmt::format("probe: dispatch overhead, {} thread(s): median {:.2f} us, best {:.2f} us", threads,
                    m.seconds.median * 1e6, m.seconds.best * 1e6));
    r_.dispatch.push_back(std::move(m));
  }
  return Status::ok();
}

Status Prober::run() {
  repeats_ = o_.repeats > 0 ? o_.repeats : (o_.quick ? 3 : 7);
  compute_s_ = o_.compute_seconds > 0 ? o_.compute_seconds : (o_.quick ? 0.04 : 0.2);
  bandwidth_s_ = o_.bandwidth_seconds > 0 ? o_.bandwidth_seconds : (o_.quick ? 0.01 : 0.04);
  dispatch_s_ = o_.dispatch_seconds > 0 ? o_.dispatch_seconds : (o_.quick ? 0.005 : 0.02);
  step_ = o_.working_set_step > 1 ? o_.working_set_step : (o_.quick ? 4.0 : 2.0);
  max_ws_ = sweep_max_working_set(o_.max_working_set, o_.quick, r_.cpu.l3_bytes, r_.cpu.mem_total_bytes);
  if (!(o_.min_working_set > 0) || max_ws_ < o_.min_working_set)
    return Status::invalid("probe working sets: need 0 < min <= max");
  r_.repeats = repeats_;
  r_.llc_bytes = r_.cpu.l3_bytes;
  r_.llc_source = r_.cpu.cache_source;
  r_.compute_seconds = compute_s_;
  r_.bandwidth_seconds = bandwidth_s_;

  ROOFLENS_RETURN_IF_ERROR(sample_clock(5, o_.quick ? 0.01 : 0.02));
  if (o_.run_compute) ROOFLENS_RETURN_IF_ERROR(measure_compute());
  settle_clock();
  say(fmt::format("probe: clock {:.3f} GHz ({})", r_.clock_hz / 1e9,
                  r_.clock_hz == r_.cpu.clock_reported_hz ? "reported" : "measured, best sample"));
  if (o_.run_bandwidth) {
    ROOFLENS_RETURN_IF_ERROR(measure_bandwidth());
    settle_llc();
  }
  if (o_.run_dispatch) ROOFLENS_RETURN_IF_ERROR(measure_dispatch());
  return Status::ok();
}

}  // namespace

double sweep_max_working_set(double asked, bool quick, double l3_bytes, double mem_total_bytes) {
  if (asked > 0) return asked;
  constexpr double kMiB = 1 << 20, kDefault = 256 * kMiB, kCap = 2048 * kMiB;
  if (quick) return kDefault;
  double ws = std::clamp(2 * l3_bytes, kDefault, kCap);
  if (mem_total_bytes > 0) ws = std::min(ws, std::max(kDefault, mem_total_bytes / 8));
  // A power-of-two multiple of the smallest default step, so the sweep ends on it.
  return std::exp2(std::ceil(std::log2(ws / kMiB))) * kMiB;
}

Expected<ProbeResult> run_cpu_probe(const ProbeOptions& options) {
  const auto t0 = Clock::now();
  ProbeResult r;
  r.date = utc_now();
  {
    std::stringstream ss(read_text("/proc/loadavg"));
    double l1 = 0, l5 = 0, l15 = 0;
    std::string running;
    if (ss >> l1 >> l5 >> l15 >> running) r.runnable_at_start = std::atoi(running.c_str());
  }
  const std::string stat_before = read_text("/proc/stat");
  auto cpu = detect_host_cpu();
  if (!cpu) return cpu.status();
  r.cpu = std::move(*cpu);
  if (options.isa == "avx2") {
    if (r.cpu.isa.avx512f) r.cpu.notes.push_back("AVX-512 present but not used (--isa avx2)");
    r.cpu.isa.avx512f = r.cpu.isa.avx512bw = r.cpu.isa.avx512vl = false;
    r.cpu.isa.avx512_bf16 = r.cpu.isa.avx512_vnni = false;
  } else if (options.isa == "avx512") {
    if (!r.cpu.isa.has_avx512()) return Status::unsupported("--isa avx512: this CPU has no AVX-512 (F, BW and VL)");
  } else if (options.isa != "auto") {
    return Status::invalid("--isa '" + options.isa + "': expected auto, avx2 or avx512");
  }
  r.paths = simd_paths(r.cpu);
  if (options.max_threads < 0) return Status::invalid("--threads must be positive");
  int threads = r.cpu.threads;
  if (options.max_threads > 0) {
    if (options.max_threads > r.cpu.threads)
      return Status::invalid(
          fmt::format("--threads {}: this process may run on {} logical CPU(s)", options.max_threads, r.cpu.threads));
    threads = options.max_threads;
  }
  r.thread_counts = thread_counts_for(threads);
  Prober p(options, r);
  ROOFLENS_RETURN_IF_ERROR(p.run());
  r.steal_fraction = steal_fraction(stat_before, read_text("/proc/stat"));
  r.wall_seconds = seconds_since(t0);
  classify_interference(r);
  return r;
}

Expected<double> measure_core_clock_hz(int repeats, double seconds) {
  if (repeats < 1 || seconds <= 0)
    return Status::invalid("clock sampling needs at least one repeat of positive length");
  uint64_t iters = 1 << 14;
  volatile uint64_t sink = 0;
  for (int i = 0; i < 40; ++i) {
    const auto t0 = Clock::now();
    sink = dependent_add_chain(iters);
    const double t = seconds_since(t0);
    if (t > 0.002) {
      iters = static_cast<uint64_t>(static_cast<double>(iters) * seconds / t) + 1;
      break;
    }
    iters *= 2;
  }
  double best = 0;
  for (int rep = 0; rep < repeats; ++rep) {
    const auto t0 = Clock::now();
    sink = dependent_add_chain(iters);
    best = std::max(best, static_cast<double>(iters) * kAddsPerChainIter / seconds_since(t0));
  }
  (void)sink;
  if (best < 1e8 || best > 1e10)
    return Status::internal("the add-chain clock estimate is implausible: " + std::to_string(best) + " Hz");
  return best;
}

}  // namespace rooflens::microbench
