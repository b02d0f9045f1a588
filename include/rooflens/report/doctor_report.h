// The doctor's report (analysis/doctor.h) as text and as JSON (schema rooflens.doctor/1).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "rooflens/analysis/doctor.h"

namespace rooflens::report {

// Findings in rank order: verdict, the main number, the layers concerned, evidence, remedies
// with before/after throughput and utilization. `verbose` also lists items that do not apply.
std::string doctor_text(const DoctorReport& r, bool verbose);
nlohmann::json doctor_json(const DoctorReport& r);

}  // namespace rooflens::report
