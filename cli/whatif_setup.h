// What `rooflens whatif` and `rooflens doctor` both need: the what-if options for a model
// file on a device (fold, fold with aligned widths, channel padding, other devices) and a
// loader over the file's model session (one import, rebatched and retyped on demand).
#pragma once

#include "rooflens/analysis/doctor.h"
#include "rooflens/session/whatif_request.h"

#include <memory>
#include <string>
#include <vector>

#include "loading.h"
#include "rooflens/analysis/whatif.h"

namespace rooflens::cli {

struct WhatIfSetup {
  WhatIfOptions options;
  TypedLoader load;  // the file's ModelSession::typed_loader()
};

// `devices`: comma-separated ids for the device rows; empty: every GPU of the database.
Expected<std::unique_ptr<WhatIfSetup>> make_whatif_setup(const std::string& file, const std::string& device,
                                                         const std::string& dtype, const std::string& batch,
                                                         const std::vector<std::string>& input_shapes,
                                                         const std::string& devices, const std::string& devices_dir,
                                                         const std::string& engine);

// The doctor's options for a setup: its what-if options, the device's host link, this
// machine's cores, and this machine's JPEG decode rate when known (images/s per core; 0:
// unknown).
DoctorOptions doctor_options(const WhatIfSetup& s, double jpeg_images_per_s_per_core = 0);

}  // namespace rooflens::cli
