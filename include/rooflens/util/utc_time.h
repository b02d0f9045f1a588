// The current UTC time as an ISO 8601 string ("2026-12-01T03:26:10Z"): the date stamp of
// probes and measured tables.
#pragma once

#include <string>

namespace rooflens {

std::string utc_now();

}  // namespace rooflens
