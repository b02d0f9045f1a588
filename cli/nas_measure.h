// Measured throughput for `rooflens nas --throughput measured`: each network a search
// evaluates is built at the batch, run on this CPU through oneDNN (fp32) and timed; results
// are cached per network for the process.
#pragma once

#include "rooflens/device/device.h"
#include "rooflens/nas/search.h"
#include "rooflens/nas/sss_space.h"

namespace rooflens::cli {

// Utilization is over the device's datasheet fp32 peak (`device` should be this CPU's probe
// file). Thread-safe: measurements are serialised (two at once would share the cores).
nas::ThroughputFn cpu_throughput_fn(const SssNetInput& input, int64_t batch, const DeviceSpec& device,
                                    double max_seconds);

}  // namespace rooflens::cli
