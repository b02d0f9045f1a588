// Parts of a measurement's JSON that more than one front end writes: the host-state reference
// around the timed runs (`rooflens measure --format json` and the Python module's measure()).
#pragma once

#include <nlohmann/json.hpp>

#include "rooflens/exec/measure.h"

namespace rooflens::report {

// The reference read before and after the kept block, how far it moved, whether the block was
// flagged or repeated, and the reading paired with the runs (exec/measure.h, HostStateReading).
nlohmann::json host_reading_json(const HostStateReading& h);

}  // namespace rooflens::report
