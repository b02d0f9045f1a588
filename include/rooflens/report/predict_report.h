// Formats `predict` and `devices` results: tables, the rooflens.predict/1 JSON, the
// batch sweep, and the roofline chart (SVG).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "rooflens/device/device.h"
#include "rooflens/perf/model.h"
#include "rooflens/report/table.h"

namespace rooflens::report {

inline constexpr const char* kPredictSchema = "rooflens.predict/1";
inline constexpr const char* kDevicesSchema = "rooflens.devices/1";

Table predict_layers_table(const Prediction& p, bool for_csv);
std::string predict_summary_text(const Prediction& p, const DeviceSpec& d);
nlohmann::json predict_json(const Prediction& p, bool with_layers = true);
Table batch_sweep_table(const std::vector<Prediction>& ps, bool for_csv);
Table devices_table(const std::vector<DeviceSpec>& ds, bool for_csv);
nlohmann::json devices_json(const std::vector<DeviceSpec>& ds);

// Log-log roofline of the device (one roof per compute unit for the dtype, ridge points
// marked) with every layer as a point sized by its time share and coloured by its bound.
std::string roofline_svg(const Prediction& p, const DeviceSpec& d);

}  // namespace rooflens::report
