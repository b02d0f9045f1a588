// The doctor's report (analysis/doctor.h) as text and as JSON (schema rooflens.doctor/1).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "rooflens/analysis/doctor.h"

namespace rooflens::report {

// Findings in rank order: verdict, the main number, the layers concerned, evidence, remedies
// with before/after throughput and utilization. `verbose` also lists items that do not apply.
std::string doctor_text(const DoctorReport& r, bool verbose);
nlohmann::json doctor_json(const DoctorReport& r);

// `rooflens doctor --zoo`: one row per model, ranked by the largest single gain.
struct DoctorZooRow {
  std::string model;
  std::optional<DoctorReport> report;  // empty when the model could not be diagnosed
  std::string error;                   // why not
};
// Rows sorted by the time the best remedy saves (largest first; failures last), with the
// first finding that applies and the best remedy's before/after throughput.
std::string doctor_zoo_text(std::vector<DoctorZooRow> rows, const std::string& setting);
nlohmann::json doctor_zoo_json(std::vector<DoctorZooRow> rows, const std::string& device, const std::string& dtype,
                               const std::string& batch);
// The same ranking as a section of the study's HTML page (`rooflens study --report DIR
// --doctor`): <section id="doctor"> with <table id="doctor-table">, one <tr data-model> per
// model, largest gain first.
std::string doctor_section_html(std::vector<DoctorZooRow> rows, const std::string& setting);

}  // namespace rooflens::report
