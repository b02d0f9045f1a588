// The kernel table's level inside whole networks (device/kernel_table.h, NetworkLevel): the
// generated networks of calibration/level_networks.h timed end to end on the oneDNN backend
// and set against what the table predicts for them at the host's state. `probe cpu
// --kernels` times them between the kernel probe's rounds (probe_kernels_with_levels), so
// that the table and its level read the same host, and stores the result in the table.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "rooflens/analysis/host_figures.h"
#include "rooflens/calibration/kernel_probe.h"
#include "rooflens/cost/cost.h"
#include "rooflens/device/device.h"
#include "rooflens/exec/backend.h"
#include "rooflens/exec/measure.h"

namespace rooflens {

struct NetworkLevelOptions {
  std::vector<int64_t> batches = {1, 8};  // ascending
  int threads = 0;                        // the table's thread count
  double max_seconds = 1.0;               // timed per network, batch and round
  int rounds = 1;                         // measure_network_levels: rounds over every network
  std::string tactic_cache;               // ExecOptions::tactic_cache
  std::vector<std::string> networks;      // level_networks names to run; empty: all
  std::function<void(const std::string&)> progress;
};

// A network's layers of one level class, or of one class at one position (CLASS@N; perf/
// kernel_predict.h, level_key).
struct LevelClassTime {
  double measured_s = 0;   // its layers' times, scaled so the network's layers sum to its end-to-end time
  double predicted_s = 0;  // the table's (no level), at the host's state
  int layers = 0;
};

struct NetworkLevelTiming {
  std::string network;
  int64_t batch = 1;
  int round = 0;
  double measured_s = 0;   // per run, median
  double predicted_s = 0;  // the table's (no level), at the host's state during the runs
  // false: read in another dispatch state than the table's, left out where the same network
  // has a round in the table's state
  bool counted = true;
  std::map<std::string, LevelClassTime> classes;
  // Per layer of kStreamLevelClass (not in `classes`): measured - predicted seconds.
  std::vector<double> stream_excess_s;
};

struct NetworkLevelResult {
  // One per batch: network_level_of the timings.
  std::vector<NetworkLevel> levels;
  std::vector<NetworkLevelTiming> timings;  // one per network, batch and round
};

// The level of one batch: the median over networks of each network's median measured/predicted
// over its rounds, and per level class the sum of measured over the sum of predicted times
// (classes of fewer than kMinLevelLayers layers have none). A network's rounds are those read
// in the table's dispatch state (NetworkLevelTiming::counted), or all of them where none was:
// no network is left out. Where the host's dispatch reading moves continuously (1.2-3.5 us on
// the Zen 3 guest of 2026-12-07) rather than between two levels, dropping the networks with no
// round in the table's state left 3 of 10 at batch 1, no level for conv at 7x7 and 14x14, and
// the transformers' classes the level of the three (docs/performance.md, "Issue 30,
// twenty-seventh pass"). Pure.
NetworkLevel network_level_of(const std::vector<NetworkLevelTiming>& timings, int64_t batch);

// The generated networks timed in rounds that can run between other timings (the kernel
// probe's rounds), and set against a kernel table once one is fitted.
class LevelNetworkRuns {
 public:
  // Errors: no batch, batches not positive or not ascending, an unknown network name.
  static Expected<LevelNetworkRuns> make(const NetworkLevelOptions& o);
  // Every network at every batch timed once more on `backend`, each beside the host-state
  // reference. Errors: a network the backend cannot run.
  Status measure_round(Backend& backend);
  // The levels of `dev`'s kernel table (its own levels ignored) over the rounds timed so far.
  // Errors: no table, no round timed.
  Expected<NetworkLevelResult> levels(const DeviceSpec& dev) const;

 private:
  struct Run {
    std::string network;
    int64_t batch = 1;
    Graph graph;
    ModelAnalysis analysis;
    std::vector<Measurement> rounds;
  };
  // Rounds timed so far: every run has one measurement per round.
  size_t rounds() const { return runs_.empty() ? 0 : runs_.front().rounds.size(); }
  NetworkLevelOptions options_;
  std::vector<Run> runs_;
  HostContext host_;  // the samplers and reference the rounds are timed beside
};

// `dev` must carry the kernel table to level (its own levels are ignored). Errors: no table,
// a network the backend cannot run, an unknown name in `networks`.
Expected<NetworkLevelResult> measure_network_levels(Backend& backend, const DeviceSpec& dev,
                                                    const NetworkLevelOptions& o);

// The kernel table (calibration/kernel_probe.h) with its network levels: the networks of
// `lo` are timed after each of the probe's rounds and set against the table once fitted,
// on `dev` (the device the table is for; its own table is ignored). `ko.after_round` is
// taken. Errors: those of probe_kernels and of LevelNetworkRuns.
Expected<KernelProbeResult> probe_kernels_with_levels(Backend& backend, const DeviceSpec& dev, KernelProbeOptions ko,
                                                      const NetworkLevelOptions& lo, const std::string& backend_name,
                                                      const std::string& host);

}  // namespace rooflens
