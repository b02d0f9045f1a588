// The doctor's checklist items (doctor.h), one function per item, and what they share.
// Internal to src/analysis.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "rooflens/analysis/doctor.h"

namespace rooflens::doctor {

struct Context {
  const Prediction& p;                 // the baseline
  const std::vector<WhatIfRow>& rows;  // rows[0] is the baseline
  const LoadedModel& model;            // the baseline model as predicted
  const DoctorOptions& o;
  const TypedLoader& load;
};

Finding memory_bound(const Context& c);       // 1
Finding starvation(const Context& c);         // 2
Finding input_loading(const Context& c);      // 3
Finding copy_overlap(const Context& c);       // 4
Finding specialized_units(const Context& c);  // 5
Finding unoptimized_code(const Context& c);   // 6
Finding thermal(const Context& c);            // 7
Finding heterogeneity(const Context& c);      // 8
Finding launch_overhead(const Context& c);    // 9

// A remedy whose gain is a what-if row against the baseline row.
Remedy remedy_from_row(const WhatIfRow& base, const WhatIfRow& row, std::string name, std::string how);
void sort_remedies(std::vector<Remedy>& rs);
// Adds the layers `pick` selects (returning their evidence line) to f, largest share first,
// summing their time share.
void collect_layers(Finding& f, const Prediction& p,
                    const std::function<std::optional<std::string>(const LayerPrediction&)>& pick, size_t max_layers);

}  // namespace rooflens::doctor
