// The kernel table's level inside whole networks (device/kernel_table.h, NetworkLevel): the
// generated networks of calibration/level_networks.h timed end to end on the oneDNN backend
// and set against what the table predicts for them at the host's state. `probe cpu
// --kernels` runs it right after fitting the table and stores the result in it.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "rooflens/device/device.h"
#include "rooflens/exec/backend.h"

namespace rooflens {

struct NetworkLevelOptions {
  std::vector<int64_t> batches = {1, 8};  // ascending
  int threads = 0;                        // the table's thread count
  double max_seconds = 1.0;               // timed per network and batch
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
  double measured_s = 0;   // per run, median
  double predicted_s = 0;  // the table's (no level), at the host's state during the runs
  bool counted = true;     // false: read in another dispatch state than the table's, left out
  std::map<std::string, LevelClassTime> classes;
};

struct NetworkLevelResult {
  std::vector<NetworkLevel> levels;  // one per batch
  std::vector<NetworkLevelTiming> timings;
};

// `dev` must carry the kernel table to level (its own levels are ignored). Errors: no table,
// a network the backend cannot run, an unknown name in `networks`.
Expected<NetworkLevelResult> measure_network_levels(Backend& backend, const DeviceSpec& dev,
                                                    const NetworkLevelOptions& o);

}  // namespace rooflens
