// What `rooflens whatif`, `rooflens doctor` and the Python module's whatif() and doctor()
// need for a model on a device: the what-if options (fold, fold with aligned widths, channel
// padding to the device's tensor-core multiple, the other devices' rows) and the doctor's.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "rooflens/analysis/doctor.h"
#include "rooflens/analysis/whatif.h"
#include "rooflens/device/device.h"
#include "rooflens/perf/engine.h"

namespace rooflens {

// `device` at `dtype` (it must have a peak for it) and `batch` (nullopt: the largest that
// fits). The device rows: `other_devices` resolved against `db` (ids, aliases, files or
// custom specs; errors name the one that fails), or every GPU of `db` when empty. `engine`:
// the execution the GPU predictions describe (perf/engine.h; default: the TensorRT-class
// engine), set as perf.engine; not used on a CPU.
Expected<WhatIfOptions> whatif_options(const DeviceSpec& device, const std::string& dtype, std::optional<int64_t> batch,
                                       const std::vector<DeviceSpec>& db, const std::vector<std::string>& other_devices,
                                       const EngineProfile& engine = {});

// The doctor's options over what-if options: the device's host link, `host_cores` (this
// machine's, 0: unknown) and this machine's JPEG decode rate when known (images/s per core;
// 0: unknown).
DoctorOptions doctor_options(const WhatIfOptions& whatif, int host_cores, double jpeg_images_per_s_per_core = 0);

}  // namespace rooflens
