// The host-state reference (see host_reference.h).
#include "rooflens/microbench/host_reference.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <thread>

#include "rooflens/microbench/host_cpu.h"
#include "rooflens/microbench/kernels.h"
#include "rooflens/microbench/probe.h"
#include "rooflens/microbench/thread_team.h"

namespace rooflens::microbench {
namespace {

constexpr int kGemmN = 128;
constexpr int kGemmCalls = 24;  // per thread per block: 24 x 4.2 MFLOP
constexpr int kBlocks = 5;
constexpr int kTriadPasses = 4;  // per timing: ~4 ms at 70 GB/s, long against thread start-up
constexpr size_t kTriadBytesPerArray = 24u << 20;

double now_s() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

// Runs fn(member) on `threads` threads (the caller is member 0); returns the wall time.
double timed_parallel_unpinned(int threads, const std::function<void(int)>& fn) {
  std::vector<std::thread> team;
  const double t0 = now_s();
  for (int m = 1; m < threads; ++m) team.emplace_back(fn, m);
  fn(0);
  for (auto& t : team) t.join();
  return now_s() - t0;
}

// As timed_parallel_unpinned, each worker first pinned to plan[member]. A new thread starts on
// its creator's CPU; when the creator is bound to one CPU (OMP_PROC_BIND) the worker would wait
// there behind the creator's own timed work, so the clock starts only once every worker has
// pinned itself and moved (the creator yields its CPU until then).
double timed_parallel_pinned(int threads, const std::vector<int>& plan, const std::function<void(int)>& fn) {
  std::atomic<int> ready{0};
  std::atomic<bool> go{false};
  std::vector<std::thread> team;
  for (int m = 1; m < threads; ++m)
    team.emplace_back([&, m] {
      pin_current_thread(plan[static_cast<size_t>(m)]);
      ready.fetch_add(1);
      while (!go.load()) std::this_thread::yield();
      fn(m);
    });
  while (ready.load() < threads - 1) std::this_thread::yield();
  const double t0 = now_s();
  go.store(true);
  fn(0);
  for (auto& t : team) t.join();
  return now_s() - t0;
}

// Where a reading's team of `threads` runs (reference_team_cpus for this thread, this
// process): worked out once per reading, not per timed block.
std::vector<int> team_plan(int threads) { return reference_team_cpus(threads, current_thread_cpus(), usable_cpus()); }

// The team on the CPUs of `plan` (team_plan), or where the scheduler puts it when it is empty.
double timed_parallel(const std::vector<int>& plan, int threads, const std::function<void(int)>& fn) {
  return plan.empty() ? timed_parallel_unpinned(threads, fn) : timed_parallel_pinned(threads, plan, fn);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

// The timed GEMM: reference_gemm at the fixed size, with restrict pointers and a known trip
// count so that the compiler vectorises it at -O2.
void gemm_fixed(const float* __restrict a, const float* __restrict b, float* __restrict c) {
  for (int i = 0; i < kGemmN; ++i)
    for (int k = 0; k < kGemmN; ++k) {
      const float aik = a[i * kGemmN + k];
      const float* __restrict br = b + k * kGemmN;
      float* __restrict cr = c + i * kGemmN;
      for (int j = 0; j < kGemmN; ++j) cr[j] += aik * br[j];
    }
}

// One block of the widest fp32 FMA kernel on every thread: FLOP/s.
double fma_block(const ComputeKernel& k, const std::vector<int>& plan, int threads, uint64_t iters) {
  std::vector<std::vector<float>> acc(static_cast<size_t>(threads), std::vector<float>(kMaxAccumulators * 16, 0.0f));
  const double t = timed_parallel(plan, threads, [&](int m) { k.run(iters, acc[static_cast<size_t>(m)].data()); });
  return k.ops(iters) * threads / t;
}

}  // namespace

std::vector<int> reference_team_cpus(int threads, const std::vector<int>& caller, const std::vector<int>& usable) {
  if (threads <= 1 || caller.empty() || static_cast<int>(caller.size()) >= threads) return {};
  std::vector<int> outside, inside;
  for (int c : usable) (std::count(caller.begin(), caller.end(), c) ? inside : outside).push_back(c);
  if (!inside.empty()) inside.erase(inside.begin());  // left to the caller
  std::vector<int> plan{-1};
  for (const std::vector<int>* part : {&outside, &inside})
    for (size_t i = 0; i < part->size() && static_cast<int>(plan.size()) < threads; ++i) plan.push_back((*part)[i]);
  if (static_cast<int>(plan.size()) < threads) return {};
  return plan;
}

bool same_dispatch_level(double a, double b) {
  if (!(a > 0) || !(b > 0)) return true;
  const double r = a / b;
  return r < kDispatchStateRatio && r > 1 / kDispatchStateRatio;
}

bool same_dispatch_state(const HostReference& a, const HostReference& b) {
  return same_dispatch_level(a.dispatch_s, b.dispatch_s);
}

std::vector<double> values_at_dispatch_level(const std::vector<double>& values, const std::vector<double>& dispatch,
                                             double level) {
  std::vector<double> same;
  for (size_t i = 0; i < values.size() && i < dispatch.size(); ++i)
    if (same_dispatch_level(dispatch[i], level)) same.push_back(values[i]);
  return same.empty() ? values : same;
}

double cases_dispatch_level(const std::vector<std::vector<double>>& per_case) {
  std::vector<double> all;
  for (const auto& c : per_case)
    for (double d : c)
      if (d > 0) all.push_back(d);
  if (all.empty()) return 0;
  const double fastest = *std::min_element(all.begin(), all.end());
  const auto at_fastest = std::count_if(per_case.begin(), per_case.end(), [&](const std::vector<double>& c) {
    return std::any_of(c.begin(), c.end(), [&](double d) { return d > 0 && same_dispatch_level(d, fastest); });
  });
  if (2 * static_cast<size_t>(at_fastest) >= per_case.size()) return fastest;
  std::nth_element(all.begin(), all.begin() + all.size() / 2, all.end());
  return all[all.size() / 2];
}

double compute_ratio(const HostReference& now, const HostReference& baseline) {
  if (now.fma_flops > 0 && baseline.fma_flops > 0) return now.fma_flops / baseline.fma_flops;
  if (now.clock_hz > 0 && baseline.clock_hz > 0) return now.clock_hz / baseline.clock_hz;
  if (now.gemm_flops > 0 && baseline.gemm_flops > 0) return now.gemm_flops / baseline.gemm_flops;
  return 1.0;
}

double reference_fma_flops(int threads) {
  const std::vector<ComputeKernel> kernels = compute_kernels(detect_isa());
  if (kernels.empty() || kernels.front().dtype != "fp32") return 0;
  const ComputeKernel& k = kernels.front();  // the widest fp32 FMA
  // About 2 ms a block at 4 GHz: 2 FMA instructions per cycle, `accumulators` per iteration.
  const uint64_t iters = static_cast<uint64_t>(2e-3 * 4e9 * 2 / k.accumulators);
  const std::vector<int> plan = team_plan(threads);
  fma_block(k, plan, threads, iters / 4);  // warm-up: wide-vector clock licence, thread start
  std::vector<double> v;
  for (int blk = 0; blk < kBlocks; ++blk) v.push_back(fma_block(k, plan, threads, iters));
  return median(v);
}

void reference_gemm(const float* a, const float* b, float* c, int n) {
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < n; ++k) {
      const float aik = a[i * n + k];
      const float* br = b + static_cast<size_t>(k) * n;
      float* cr = c + static_cast<size_t>(i) * n;
      for (int j = 0; j < n; ++j) cr[j] += aik * br[j];
    }
}

HostReferenceProbe::HostReferenceProbe(int threads) : threads_(std::max(1, threads)) {
  n_ = kTriadBytesPerArray / sizeof(float);
  n_ -= n_ % (64 * static_cast<size_t>(threads_));  // whole vectors per thread
  auto alloc = [&] {
    auto* p = static_cast<float*>(std::aligned_alloc(64, n_ * sizeof(float)));
    for (size_t i = 0; i < n_; ++i) p[i] = 1.0f;  // touched once, outside every timing
    return p;
  };
  a_ = alloc();
  b_ = alloc();
  c_ = alloc();
}

HostReferenceProbe::~HostReferenceProbe() {
  std::free(a_);
  std::free(b_);
  std::free(c_);
}

HostReference HostReferenceProbe::measure() {
  const double start = now_s();
  const std::vector<int> plan = team_plan(threads_);
  const size_t nn = static_cast<size_t>(kGemmN) * kGemmN;
  std::vector<std::vector<float>> mats(static_cast<size_t>(threads_), std::vector<float>(3 * nn));
  for (auto& m : mats)
    for (size_t i = 0; i < m.size(); ++i) m[i] = 1e-3f * static_cast<float>(i % 7);
  std::vector<double> gemm, triad;
  const double gemm_flops = 2.0 * kGemmN * kGemmN * kGemmN * kGemmCalls * threads_;
  for (int blk = 0; blk < kBlocks; ++blk) {
    const double t = timed_parallel(plan, threads_, [&](int m) {
      float* p = mats[static_cast<size_t>(m)].data();
      for (int r = 0; r < kGemmCalls; ++r) gemm_fixed(p, p + nn, p + 2 * nn);
    });
    gemm.push_back(gemm_flops / t);
  }
  const BandwidthKernels bk = bandwidth_kernels(detect_isa());
  const size_t per = n_ / static_cast<size_t>(threads_);
  for (int blk = 0; blk < kBlocks; ++blk) {
    const double t = timed_parallel(plan, threads_, [&](int m) {
      const size_t off = per * static_cast<size_t>(m);
      bk.triad(a_ + off, b_ + off, c_ + off, 0.5f, per, kTriadPasses);
    });
    triad.push_back(bandwidth_bytes(BandwidthKind::kTriad, n_, kTriadPasses) / t);
  }
  HostReference r;
  r.gemm_flops = median(gemm);
  r.stream_bytes = median(triad);
  if (auto clock = measure_core_clock_hz(3, 0.005)) r.clock_hz = *clock;
  r.fma_flops = reference_fma_flops(threads_);
  r.seconds = now_s() - start;
  return r;
}

}  // namespace rooflens::microbench
