// Formats a zoo study (analysis/study.h): the rooflens.study/1 JSON, a CSV with one row
// per model, and a short plain-text summary. The HTML report is in study_html.h.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "rooflens/analysis/study.h"
#include "rooflens/report/table.h"

namespace rooflens::report {

inline constexpr const char* kStudySchema = "rooflens.study/1";

// The whole study as JSON: device, dtype, batch, source, peaks, CMR, every model (with its
// per-layer points when `with_layers`), the frontiers as model names, the folds and notes.
// Keys follow rooflens.predict/1 (throughput, utilization as a fraction, peak_flops); the
// units are listed under "units". Indices in Study are written as model names.
nlohmann::json study_json(const Study& s, bool with_layers = true);

// One row per model; every header names its unit. Frontier memberships are "yes"/"".
Table study_table(const Study& s);
std::string study_csv(const Study& s);

// A few lines: how many models, where the numbers come from, the peaks and CMR, which
// models sit on each frontier and on all three, and the fold what-ifs.
std::string study_summary_text(const Study& s);

// Helpers shared with the HTML report.
// The sentence saying where the throughput numbers come from, with Study::source_detail.
std::string study_source_sentence(const Study& s);
// The bound with the largest share of time and that share; {"", 0} when none.
std::pair<std::string, double> study_top_bound(const StudyModel& m);

}  // namespace rooflens::report
