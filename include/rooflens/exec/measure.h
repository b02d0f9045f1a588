// Measuring a model on a backend: throughput with its spread, per-layer times, and
// correctness against another backend. Decides nothing about what the numbers mean.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "rooflens/exec/backend.h"
#include "rooflens/exec/timing.h"

namespace rooflens {

struct MeasureOptions {
  ExecOptions exec;
  TimingOptions timing;
  uint64_t input_seed = 1;
  // Called before every run (warm-up and timed), outside the layers' timings: the kernel
  // probe evicts the caches here so weights arrive from memory, as in a network.
  std::function<void()> before_run;
};

struct LayerMeasurement {
  std::string name, op, impl;
  double time_s = 0;  // median over timed runs
};

struct Measurement {
  std::string backend;
  int64_t batch = 1;
  int threads = 0;
  TimingResult timing;                          // seconds per batch
  double throughput = 0;                        // images/s at the median
  double throughput_q1 = 0, throughput_q3 = 0;  // images/s at the slow and fast quartiles
  double achieved_flops = 0;                    // FLOP/s at the median (FLOPs of the fused view)
  std::vector<LayerMeasurement> layers;
  size_t activation_bytes = 0;           // the backend's run-time buffers as placed (0: not planned)
  size_t activation_bytes_unshared = 0;  // the same with a buffer each
  std::string layout;                    // the backend's layout_summary()
};

// Prepares `backend` (weights reordered outside the timed loop) and times it.
Expected<Measurement> measure_model(const Graph& g, const ModelAnalysis& fused, Backend& backend,
                                    const MeasureOptions& o);

// ||out - ref|| / ||ref|| per output, running `a` and `b` (both prepared on `g`) on the
// same fresh random inputs; outputs of `a` are poisoned (NaN) before its run so an
// unwritten element fails.
Expected<std::vector<double>> relative_errors(const Graph& g, Backend& a, Backend& b, uint64_t input_seed);

}  // namespace rooflens
