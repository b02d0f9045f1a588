// The host's state around `measure` and `validate` runs (analysis/host_figures.h), rendered
// for the two commands' outputs.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "rooflens/analysis/host_figures.h"
#include "rooflens/exec/measure.h"

namespace rooflens::cli {

nlohmann::json host_json(const Measurement& m, const HostFigures& f, const HostContext& ctx);
std::string host_text(const Measurement& m, const HostFigures& f, const HostContext& ctx);

}  // namespace rooflens::cli
