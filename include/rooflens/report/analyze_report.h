// Formats `analyze` results: per-layer tables, per-model summaries, versioned JSON.
#pragma once

#include <string>
#include <vector>

#include "rooflens/cost/cost.h"
#include "rooflens/report/table.h"

namespace rooflens::report {

inline constexpr const char* kAnalyzeSchema = "rooflens.analyze/1";

Table layers_table(const ModelAnalysis& m, bool for_csv);
std::string totals_text(const ModelAnalysis& m);
Table summary_table(const std::vector<ModelAnalysis>& models, bool for_csv);
// rooflens.analyze/1 JSON: one object, or a list of them when `as_list`.
std::string analyze_json(const std::vector<ModelAnalysis>& models, bool as_list, bool with_layers = true);
// The same in two steps, so that models can be rendered in parallel: one model's text as it
// stands in that JSON, then the parts joined. analyze_json_join(parts of every model,
// as_list) == analyze_json(models, as_list); without `as_list` there is exactly one part.
std::string analyze_json_part(const ModelAnalysis& m, bool as_list, bool with_layers = true);
std::string analyze_json_join(const std::vector<std::string>& parts, bool as_list);

}  // namespace rooflens::report
