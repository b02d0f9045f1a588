// What `rooflens nas` writes once its runs are over: result.json in --out, the tables on
// stdout, and the HTML report (--report).
#pragma once

#include <string>
#include <vector>

#include "commands.h"
#include "rooflens/nas/oracle.h"
#include "rooflens/nas/search.h"

namespace rooflens::cli {

struct NasOutcome {
  const nas::SpaceTable* space = nullptr;
  const NasArgs* args = nullptr;
  std::string oracle;                   // the oracle's description
  std::string device;                   // device, dtype, batch and dataset of the space table
  std::vector<nas::SearchResult> runs;  // strategy x seed, in --strategy order then seed
  std::vector<std::string> logs;        // the JSONL log of each run
  std::vector<double> final_accuracy;   // per SSS index; empty when the oracle lacks one
  std::string no_truth_reason;          // why final_accuracy is empty
};

// Scores the runs (report::make_nas_report_input), writes result.json (atomically), prints
// the tables, writes the report. Returns the exit code.
int write_nas_outputs(NasOutcome outcome, nas::AccuracyOracle& oracle);

}  // namespace rooflens::cli
