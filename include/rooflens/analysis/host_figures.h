// The host's state around measurements on a CPU: the samplers and the baseline every
// measurement of a session is normalised to, and each measurement set against that baseline
// (the drift, the normalised throughput, the prediction scaled to the host's state). Used by
// `measure`, `validate` and the Python module alike; docs/guide/measure.md and
// docs/guide/validate.md say what each figure is for.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "rooflens/analysis/validation.h"
#include "rooflens/device/device.h"
#include "rooflens/exec/measure.h"
#include "rooflens/microbench/host_reference.h"
#include "rooflens/perf/model.h"

namespace rooflens {

// One per session of measurements: the samplers and the baseline they are normalised to.
struct HostContext {
  std::unique_ptr<HostSampler> sampler;
  std::unique_ptr<microbench::HostReferenceProbe> reference;  // null: no host-state reference
  double max_move = kDefaultReferenceMaxMove;
  bool adapt_threads = false;    // MeasureOptions::adapt_threads
  bool paired_reference = true;  // MeasureOptions::paired_reference (with a reference)
  // MeasureOptions::state_wait_s: wait up to this long before each block for the kernel
  // table's dispatch state (state_level_s on state_level_threads, set from the table; 0
  // without one). After a wait that ran out, later measurements do not wait until one of them
  // reads that state again (host_figures): a host that stays in the other state is not waited
  // for model after model.
  double state_wait_s = 0;
  double state_level_s = 0;
  int state_level_threads = 0;
  bool state_wait_suspended = false;
  HostRates baseline;
  // Threads the baseline was read with (the table's, or the first measurement's): a dispatch
  // read on another count is another quantity (one thread forks no team) and is not compared.
  int baseline_threads = 0;
  std::string baseline_source;  // "the kernel table's host reference (...)" or "the first reading of this run (...)"
};

// The baseline is the device's kernel table's host reference when it has one; otherwise the
// first measurement sets it (host_figures).
HostContext make_host_context(bool reference, double max_move, int threads, const DeviceSpec& dev);
// Points the measure options at the context's sampler and reference.
void attach_host(MeasureOptions& mo, const HostContext& ctx);

// A measurement set against the baseline.
struct HostFigures {
  bool has_reference = false;
  double compute_share = 0.5;        // of the prediction's layer time
  double drift = 1;                  // host speed now / at the baseline (host_drift)
  double normalized_throughput = 0;  // measured / drift: images/s at the baseline's host state
  double predicted_at_state = 0;     // predicted x drift: the kernel table scaled to the host now
  HostRates now;                     // the reference's reading (mean of before and after); its
                                     // dispatch 0 when read on another thread count than the baseline
  // The host in the baseline's dispatch state (microbench::same_dispatch_state): false when
  // its dispatch reads another level, where no drift factor carries a measurement over.
  bool same_state = true;
  double state_waited_s = 0;  // the measurement's wait for the table's dispatch state (HostStateReading)
};
// The first measurement of a context without a kernel-table baseline sets the baseline; each
// measurement suspends or resumes the context's wait for the dispatch state.
HostFigures host_figures(const Measurement& m, const Prediction& p, HostContext& ctx);

// Of repeated runs of one model (values[i] measured with host[i]), those read in the dispatch
// state `level` (seconds: microbench::same_dispatch_state against it), or all of them when
// none is or `level` is 0: what a median over repeats is taken of, so that runs in the other
// state neither move it nor are dropped in silence (pure).
std::vector<double> runs_in_dispatch_state(const std::vector<double>& values, const std::vector<HostFigures>& host,
                                           double level);
// Whether one reading is in the dispatch state `level` (true when either is 0).
bool in_dispatch_state(const HostFigures& f, double level);

}  // namespace rooflens
