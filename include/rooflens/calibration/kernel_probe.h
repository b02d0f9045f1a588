// Calibration (`rooflens probe cpu --kernels`): times the CPU backend's own primitives over
// sampled shapes per kernel class and fits the kernel table (device/kernel_table.h) the
// predictor uses. Its own module, above exec and perf, so that microbench (the device's
// peaks) needs neither.
//
// Each sample is a small graph run by the backend exactly as a model's layer is: an adapter
// convolution before the probed layer leaves its input in the layout a model's previous
// layer would (channels-last), and a consumer after it takes the output conversion, so the
// probed layer's time is what the same layer takes inside a network. Layout conversions are
// timed directly (oneDNN reorders) and fitted first; each other sample's conversions, as the
// predictor counts them, are subtracted before its class is fitted.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "rooflens/device/kernel_table.h"
#include "rooflens/exec/backend.h"
#include "rooflens/ir/graph.h"
#include "rooflens/perf/kernel_predict.h"

namespace rooflens {

struct KernelProbeOptions {
  int threads = 0;        // 0: all cores
  bool quick = false;     // fewer shapes, shorter timing (under a minute)
  uint64_t seed = 1;      // shape sampling
  double dispatch_s = 0;  // measured per-primitive overhead (subtracted before fitting)
  // Each shape is timed twice: warm (run again and again, its weights stay in cache, as in
  // a network whose weights fit the last-level cache) and cold (this many bytes written
  // before every run evict the caches, as in a network whose weights do not). Three times
  // the last-level cache; 0 times warm only. The table's cache_bytes is a third of it.
  double flush_bytes = 192.0 * (1 << 20);
  // Rounds over all cases, the classes interleaved; each case's time is the median of its
  // rounds (a slow window of a shared host then lands on no class as a whole).
  int rounds = 3;
  std::vector<std::string> classes;                  // empty: every class
  std::string tactic_cache;                          // ExecOptions::tactic_cache of every run
  std::function<void(const std::string&)> progress;  // one line per finished class
  // Called after each round (0-based), once the round's reference reading is taken: other
  // timings that must see the same host state as the table's shapes run here (the generated
  // networks of analysis/network_level.h). An error stops the probe.
  std::function<Status(int round)> after_round;
};

// One sampled kernel: the graph that runs it and the name of the probed layer.
struct KernelCase {
  std::string cls;
  Graph graph;
  std::string layer;  // anchor node name of the probed layer
};

// The sampled shapes of a class as runnable graphs (deterministic in seed).
std::vector<KernelCase> kernel_cases(const std::string& cls, int count, uint64_t seed);
// Dense convolutions of 3-30 GFLOP (batch 8-16, VGG's full-resolution sizes) for the conv
// and pointwise classes, beyond kernel_cases' 3 GFLOP; none for other classes (deterministic
// in seed, a stream of their own).
std::vector<KernelCase> heavy_kernel_cases(const std::string& cls, int count, uint64_t seed);

struct KernelProbeResult {
  KernelTable table;
  std::map<std::string, std::vector<KernelSample>> samples;  // kernel time, conversions removed
  double seconds = 0;                                        // wall time of the probe
  // What the table cannot be trusted for: the host changed dispatch state between the
  // readings before and after (microbench::same_dispatch_state), so the table mixes two.
  std::vector<std::string> warnings;
};

// Every timed shape of a probe as JSON (schema rooflens.kernel_samples/1): per class its
// feature names and, per shape, the problem (oneDNN's notation), its features and its warm
// and cold seconds (conversions removed, dispatch included), beside the table's host,
// dispatch and simd_lanes. For refitting or trying features of one's own (docs/perf-model.md).
std::string kernel_samples_json(const KernelProbeResult& r);

// Runs every class on `backend` (the oneDNN backend) and fits the table. `backend_name`
// and `host` are recorded in it.
Expected<KernelProbeResult> probe_kernels(Backend& backend, const KernelProbeOptions& o,
                                          const std::string& backend_name, const std::string& host);

}  // namespace rooflens
