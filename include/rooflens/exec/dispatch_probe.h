// Per-primitive dispatch overhead of the oneDNN CPU backend: the time to execute a
// primitive with almost no work (a ReLU over 64 floats) on `threads` threads. It is the
// CPU counterpart of a GPU's kernel launch overhead in the performance model.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "rooflens/util/status.h"

namespace rooflens {

struct DispatchOverhead {
  double median_s = 0, best_s = 0;
  int samples = 0;
};

// Unavailable when built without oneDNN.
Expected<DispatchOverhead> measure_onednn_dispatch(int threads);

// The host-state reference's kernels (HostReference::kernels_s, kernels8_s): seconds of one pass
// over three fixed fp32 convolutions (a 3x3, a 1x1 with 1 MiB of weights, a depthwise 3x3) at
// `batch` (1 or microbench::kReferenceBatch) on `threads` threads, warm, median of 41 passes at
// batch 1 and 9 at batch 8 (about 20 and 45 ms on the 2-vCPU Xeon VM): the table's own kinds of kernel, so that their
// drift is the drift the zoo's models see (docs/performance.md, "Issue 30, seventeenth pass").
// Unavailable when built without oneDNN.
Expected<double> measure_onednn_reference_kernels(int threads, int batch = 1);

// The same three convolutions built once and timed one pass at a time: a reading cheap enough
// (about 0.5-1 ms at batch 1) to take beside every timed run of a model, so that each run has
// the host's state of its own seconds (MeasureOptions::paired_reference). Unavailable when
// built without oneDNN.
class ReferencePasses {
 public:
  static Expected<std::unique_ptr<ReferencePasses>> make(int threads, int batch = 1);
  virtual ~ReferencePasses() = default;
  virtual double time_pass() = 0;  // seconds of one pass over the three convolutions; 0 if it failed
};

// "oneDNN 2.7.3 (cpu)" as linked, or "none" without oneDNN.
std::string onednn_version_text();

// fp32 lanes of the widest vector instructions oneDNN's kernels use on this CPU (its
// effective ISA, which ONEDNN_MAX_CPU_ISA can lower): 16 for AVX-512, 8 for AVX/AVX2, 4 for
// SSE4.1; 0 without oneDNN or for an ISA it does not name.
int onednn_fp32_lanes();

// Median seconds of one oneDNN reorder of an f32 [N, C, H, W] tensor between channels-last
// (acdb) and row-major (abcd), in the direction given, with one wait per reorder as the
// backend's layers have: the layout conversion the backend inserts between layers.
Expected<double> time_onednn_reorder(int64_t n, int64_t c, int64_t h, int64_t w, bool to_rowmajor, int threads,
                                     double max_seconds);

}  // namespace rooflens
