// Measuring a model on a backend: throughput with its spread, per-layer times, and
// correctness against another backend. Decides nothing about what the numbers mean.
#pragma once

#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "rooflens/exec/backend.h"
#include "rooflens/exec/host_state.h"
#include "rooflens/exec/timing.h"
#include "rooflens/microbench/host_reference.h"

namespace rooflens {

// How far (relative) the host-state reference may move between before and after a block of
// runs before the block is flagged and timed again: the default of measure, validate and
// Python's measure.
inline constexpr double kDefaultReferenceMaxMove = 0.10;

struct MeasureOptions {
  ExecOptions exec;
  TimingOptions timing;
  uint64_t input_seed = 1;
  // Called before every run (warm-up and timed), outside the layers' timings: the kernel
  // probe evicts the caches here so weights arrive from memory, as in a network.
  std::function<void()> before_run;
  // Sampled just before and after the timed runs: was the machine contended (host_state.h)?
  // Null: not assessed.
  HostSampler* host_sampler = nullptr;
  ContentionOptions contention;
  // The host-state reference, timed just before and after the block of timed runs. A block
  // whose reference moved by more than `reference_max_move` (either kernel, relative) is
  // flagged and timed again, up to `reference_retries` times; the block whose reference moved
  // least is kept. Null: no reference.
  microbench::HostReferenceProbe* reference = nullptr;
  double reference_max_move = kDefaultReferenceMaxMove;
  int reference_retries = 2;
  // With a reference: one pass of its batch-1 convolutions (ReferencePasses) is timed after
  // every timed run, outside the run's time, and the block's reading of those kernels is the
  // one that makes the runs' median time equal to the median of each run's time over its own
  // pass (HostStateReading::paired_kernels_s). A shared VM's speed moves within seconds (a
  // neighbour on the sibling hyperthread halves the FMA rate): readings before and after a
  // block of runs miss what moved in between (docs/performance.md, "Issue 30, thirtieth pass").
  bool paired_reference = true;
  // With a reference: before each block of runs, while the executor's dispatch on the
  // measuring threads reads another level than `state_level_s` (microbench::same_dispatch_level)
  // the block waits, reading it again every kStatePollSeconds, up to `state_wait_s` in all; a
  // wait that ran out is not repeated for the call's later blocks. A shared VM switches between
  // two dispatch states for tens of seconds at a time, and the slower one slows small models by
  // up to 1.8x with no sign in the reference's other readings (docs/performance.md, "Issue 30,
  // thirty-third pass"): waiting times the model in the state the kernel table was probed in.
  // The level counts only on `state_level_threads` threads (another count forks another team).
  // 0 (either): no wait.
  double state_level_s = 0;
  int state_level_threads = 0;
  double state_wait_s = 0;
  // With a host sampler and more than one thread: when a short trial after preparing finds
  // the machine contended, the model is prepared again on half the threads and tried, and
  // the faster of the two thread counts is kept. oneDNN splits every primitive statically
  // among its OpenMP threads, so on an oversubscribed machine each barrier waits for a
  // preempted thread and fewer threads can run several times faster (docs/performance.md,
  // "Fewer threads under contention"). With a batch of at least two, the batch is also tried
  // as independent streams of one thread each (batch_streams.h), which no barrier joins, and
  // kept when clearly faster than the better thread count. Off: the asked thread count as
  // one team, whatever the machine.
  bool adapt_threads = false;
};

// How often a block waiting for the dispatch state reads it again (MeasureOptions::state_wait_s).
inline constexpr double kStatePollSeconds = 0.2;

// Under contention the asked thread count is kept only when its trial ran at least this much
// faster than the trial on fewer threads, and batch streams are kept only when their trial
// ran this much faster than the better of the two (MeasureOptions::adapt_threads).
inline constexpr double kKeepAskedThreadsGain = 1.05;

// How the thread count measured with was chosen (MeasureOptions::adapt_threads).
struct ThreadChoice {
  int asked = 0, used = 0;
  bool tried = false;                      // contended in the first trial, so fewer threads were tried
  bool alternated = false;                 // the two counts were timed in alternating slices (else one after the other)
  double asked_seconds = 0;                // median seconds per run in the trial on `asked` threads
  double fewer_seconds = 0;                // the same on fewer threads (when tried)
  int team = 0;                            // the thread count of one team the trials kept (`used` unless streams were)
  int streams = 0;                         // batch streams tried (0: none); `used` of them ran when kept
  double streams_seconds = 0;              // median seconds per batch in the trial of the streams
  double team_beside_streams_seconds = 0;  // the same of the team kept, in slices alternating with the streams
  bool kept_streams = false;               // the batch ran as `streams` streams of one thread each
  std::string summary;                     // one line
};

// The host-state reference around the kept block of runs.
struct HostStateReading {
  microbench::HostReference before, after;
  double move = 0;       // compute_move(): how far the host moved during the block
  bool flagged = false;  // move above the limit, or the dispatch state changed, even in the kept block
  int blocks = 1;        // blocks timed: 1, plus one per repeat of a flagged block
  // The reference's batch-1 convolutions as the runs saw them (MeasureOptions::
  // paired_reference): median run time over the median of run time / its pass; 0: not read.
  double paired_kernels_s = 0;
  int paired_runs = 0;
  // Seconds the blocks waited for the dispatch state (MeasureOptions::state_wait_s), and
  // whether the kept block's wait ran out with the host still in the other state.
  double state_waited_s = 0;
  bool state_wait_ran_out = false;
  // The mean of before and after: the host's state during the block (clock and FMA: 0 unless
  // both readings have one); the reference's kernels as paired with the runs where they were.
  microbench::HostReference mean() const {
    auto avg = [](double a, double b) { return a > 0 && b > 0 ? 0.5 * (a + b) : 0.0; };
    microbench::HostReference m;
    m.gemm_flops = 0.5 * (before.gemm_flops + after.gemm_flops);
    m.stream_bytes = 0.5 * (before.stream_bytes + after.stream_bytes);
    m.clock_hz = avg(before.clock_hz, after.clock_hz);
    m.fma_flops = avg(before.fma_flops, after.fma_flops);
    m.dispatch_s = avg(before.dispatch_s, after.dispatch_s);
    m.kernels_s = paired_kernels_s > 0 ? paired_kernels_s : avg(before.kernels_s, after.kernels_s);
    m.kernels8_s = avg(before.kernels8_s, after.kernels8_s);
    return m;
  }
  // The host changed dispatch state during the block (microbench::same_dispatch_state).
  bool state_changed() const { return !microbench::same_dispatch_state(before, after); }
  // max of |after / before - 1| over the triad and the compute side the drift uses
  // (microbench::compute_ratio).
  double compute_move() const {
    const double triad = before.stream_bytes > 0 ? std::abs(after.stream_bytes / before.stream_bytes - 1) : 0.0;
    return std::max(std::abs(microbench::compute_ratio(after, before) - 1), triad);
  }
};

// The reference's batch-1 kernels as a block's runs saw them (MeasureOptions::paired_reference):
// the reading k for which median(runs) / k is the median over runs of run / its pass, each run
// set against the host's state of its own second; {0, 0} with fewer than three pairs (a pair
// with a time that is not positive is left out). Returns {k, pairs}. Pure.
std::pair<double, int> paired_reference_reading(const std::vector<double>& runs, const std::vector<double>& passes);

struct LayerMeasurement {
  std::string name, op, impl;
  double time_s = 0;  // median over timed runs
};

struct Measurement {
  std::string backend;
  int64_t batch = 1;
  int threads = 0;
  int streams = 1;        // >1: the batch ran as that many streams of one thread (batch_streams.h)
  TimingResult timing;    // seconds per batch
  double throughput = 0;  // images/s at the median
  double throughput_q1 = 0, throughput_q3 = 0;  // images/s at the slow and fast quartiles
  double achieved_flops = 0;                    // FLOP/s at the median (FLOPs of the fused view)
  std::vector<LayerMeasurement> layers;
  size_t activation_bytes = 0;                 // the backend's run-time buffers as placed (0: not planned)
  size_t activation_bytes_unshared = 0;        // the same with a buffer each
  std::string layout;                          // the backend's layout_summary()
  bool denormals_flushed = false;              // the backend's flushes_denormals()
  std::optional<ContentionReport> contention;  // with MeasureOptions::host_sampler
  std::optional<HostStateReading> host;        // with MeasureOptions::reference
  std::optional<ThreadChoice> thread_choice;   // with MeasureOptions::adapt_threads
};

// One reading of the host-state reference with the executor's dispatch on `threads` threads
// (HostReference::dispatch_s; 0 without oneDNN), and its convolutions at batch 8 too where
// `batch` reads them (microbench::uses_batch_reference).
microbench::HostReference reference_reading(microbench::HostReferenceProbe& probe, int threads, int64_t batch = 1);

// The threads a measurement runs on: `asked`, or when 0 or less OpenMP's default (the CPUs the
// process was started on, e.g. under taskset, or OMP_NUM_THREADS; every CPU otherwise).
int measure_threads(int asked);

// Prepares `backend` (weights reordered outside the timed loop) and times it.
Expected<Measurement> measure_model(const Graph& g, const ModelAnalysis& fused, Backend& backend,
                                    const MeasureOptions& o);

// ||out - ref|| / ||ref|| per output, running `a` and `b` (both prepared on `g`) on the
// same fresh random inputs; outputs of `a` are poisoned (NaN) before its run so an
// unwritten element fails.
Expected<std::vector<double>> relative_errors(const Graph& g, Backend& a, Backend& b, uint64_t input_seed);

}  // namespace rooflens
