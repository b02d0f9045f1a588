// The host-state reference: a fixed GEMM and a DRAM-streaming triad, timed in a few tens of
// milliseconds just before and after a block of measured runs. What they achieve moves with
// the machine's state (a neighbour on the cores or the memory bus, steal, clocks), so a
// measurement divided by their drift repeats where the raw one does not
// (docs/performance.md, "Measurements that repeat").
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

namespace rooflens::microbench {

struct HostReference {
  double gemm_flops = 0;    // FLOP/s of the fixed GEMM (fp32, 128x128x128 per thread), median of blocks
  double stream_bytes = 0;  // B/s of the triad over 3 x 24 MiB split among the threads (4 passes), median of 5
  // One core's clock now (measure_core_clock_hz, best of 3 dependent-add chains of 5 ms): on a
  // shared host it moves with the load of other tenants while steal and the run queue do not
  // (docs/performance.md, "Repeatability, third reading"). 0 when the estimate failed.
  double clock_hz = 0;
  // FLOP/s of the widest fp32 FMA loop (the probe's peak kernel: independent accumulators, no
  // memory) on every thread, median of blocks of about 2 ms: the clock times the issue slots
  // this guest really gets, which a hyperthread sibling busy with another tenant's work takes
  // from it while the clock stays. 0 where the CPU has no FMA kernel.
  double fma_flops = 0;
  // The executor's per-primitive dispatch now (oneDNN: one tiny primitive run on the thread
  // team, median; exec/dispatch_probe.h): what one fork and join of the team costs. Filled by
  // the caller that owns the executor (exec/measure.cpp, the kernel probe); 0 where unknown.
  // On a shared VM it has two levels, 0.8-0.95 us and 1.7-2.4 us on the 2-vCPU Zen 5 host,
  // that persist for minutes, switch with no change in clock, FMA or GEMM, and set how fast
  // small models run (MnasNet 1.0: 510-540 vs 320-390 images/s); docs/performance.md, "Issue
  // 30, ninth pass". No single factor rescales one level into the other.
  double dispatch_s = 0;
  // Seconds of one pass over the reference's three oneDNN convolutions on the executor's team
  // (exec/dispatch_probe.h, measure_onednn_reference_kernels): the kinds of kernel the table
  // fits, so their drift is the one the models see, where the FMA loop and the clock moved the
  // other way (docs/performance.md, "Issue 30, seventeenth pass"). Filled by the caller that
  // owns the executor, as dispatch_s; 0 where unknown.
  double kernels_s = 0;
  // The same three convolutions at batch 8 (kReferenceBatch), read where the measured batch is
  // 4 or more (uses_batch_reference) and shown beside the other readings; the drift does not use
  // them (analysis/validation.h, host_drift: batch-8 runs divided by them repeated worse than by
  // the batch-1 ones; docs/performance.md, "Issue 30, twenty-third and twenty-fourth passes").
  // 0 where not read.
  double kernels8_s = 0;
  double seconds = 0;  // wall time the reference took
  bool known() const { return gemm_flops > 0 && stream_bytes > 0; }
};

// The batch of the reference's second set of convolutions (HostReference::kernels8_s), and
// the batches they are read for (half of kReferenceBatch or more); the drift does not use them.
inline constexpr int kReferenceBatch = 8;
inline bool uses_batch_reference(long long batch) { return batch >= kReferenceBatch / 2; }

// Dispatch readings more than this factor apart describe two different states of the host
// (same_dispatch_state).
inline constexpr double kDispatchStateRatio = 1.4;
// Whether two dispatch readings (seconds) are of the same state: within kDispatchStateRatio
// of each other; true when either is 0 (none read).
bool same_dispatch_level(double a, double b);
// Whether `a` and `b` read the host in the same dispatch state (same_dispatch_level of theirs).
bool same_dispatch_state(const HostReference& a, const HostReference& b);
// Of values[i], each read with dispatch[i], those at the dispatch level `level`, or all of them
// when none is: what a median over repeats is taken of (the kernel probe's rounds, validate's
// runs), so that readings at the other level neither move it nor are dropped in silence. Pure.
std::vector<double> values_at_dispatch_level(const std::vector<double>& values, const std::vector<double>& dispatch,
                                             double level);
// The dispatch level a set of cases timed in rounds describes, per_case[i] being case i's
// readings (0: none read): the fastest reading's level where at least half the cases have a
// reading at it, since each case then keeps its rounds at that level; else the median reading's
// (the state most rounds were read in). One stray fast reading among 873 made a probe's table
// claim the fast state while 872 of its shapes were timed in the slow one (2026-12-06, 08:02 UTC).
// 0 when nothing was read. Pure.
double cases_dispatch_level(const std::vector<std::vector<double>>& per_case);

// How much faster (> 1) the compute side of the host ran in `now` than in `baseline`: the FMA
// loop's ratio when both readings have one, else the clock's, else the fixed GEMM's; 1 when
// neither has any. The FMA loop sees what the clock sees and also the issue slots a hyperthread
// sibling takes; the GEMM is the least steady (its few milliseconds per block moved 16 -> 67
// GFLOP/s within one run on the 2-vCPU host; docs/performance.md, "Issue 30, fourth pass").
double compute_ratio(const HostReference& now, const HostReference& baseline);

// The FMA reading alone (HostReference::fma_flops) on `threads` threads; 0 without an FMA kernel.
double reference_fma_flops(int threads);

// Where the reference's team of `threads` runs. `caller` is the calling thread's affinity
// mask, `usable` the CPUs the process may use (usable_cpus). plan[m] is the CPU that member
// m's thread pins itself to; plan[0] is -1: member 0 is the calling thread, never re-pinned
// (its affinity is its caller's). New threads inherit the caller's mask, so a caller bound to
// one CPU (OMP_PROC_BIND=true binds the main thread) would put the whole team on it and halve
// the FMA reading on 2 CPUs. Workers take usable CPUs outside the caller's mask first, then
// those inside it but the first of them (left to the caller). Empty, meaning every thread keeps the
// mask it inherits: threads <= 1, `caller` empty (unknown) or holding >= threads CPUs (a
// user's taskset is kept), or fewer than `threads` CPUs to go round. Pure.
std::vector<int> reference_team_cpus(int threads, const std::vector<int>& caller, const std::vector<int>& usable);

// Owns the triad's arrays (72 MiB, touched once) so that each reading costs only its timing.
class HostReferenceProbe {
 public:
  explicit HostReferenceProbe(int threads);
  ~HostReferenceProbe();
  HostReferenceProbe(const HostReferenceProbe&) = delete;
  HostReferenceProbe& operator=(const HostReferenceProbe&) = delete;
  // Times both kernels on `threads` threads (5 GEMM blocks and 5 triad timings of a few ms each).
  HostReference measure();
  int threads() const { return threads_; }

 private:
  int threads_;
  size_t n_ = 0;  // floats per triad array
  float* a_ = nullptr;
  float* b_ = nullptr;
  float* c_ = nullptr;
};

// The fixed GEMM, C += A B with n x n row-major matrices (exposed for tests).
void reference_gemm(const float* a, const float* b, float* c, int n);

}  // namespace rooflens::microbench
