// A recorded corpus of GPU throughputs (measured here or published) beside the performance
// model's predictions for one engine profile: `rooflens validate --engine E --measurements
// FILE`. The corpus format is data/engines/README.md's; each row names its source.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "rooflens/analysis/validation.h"
#include "rooflens/util/status.h"

namespace rooflens {

// One recorded throughput. Required columns: model, device, dtype, batch, engine, throughput,
// source; optional: mode (eager or graph: whether launches were captured; empty: the
// engine's own rule), split (fit or heldout; empty: fit), note.
struct CorpusRow {
  std::string model, device, dtype, engine, mode, source, split, note;
  int64_t batch = 1;
  double throughput = 0;  // images/s
  int line = 0;           // 1-based line in the file
};

// The rows of a corpus CSV. Invalid input naming the file, line and column when a required
// column is missing or a value is not a number.
Expected<std::vector<CorpusRow>> read_corpus_csv(const std::string& text, const std::string& file);

struct CorpusPoint {
  CorpusRow row;
  double predicted = 0;
  double error() const { return row.throughput > 0 ? predicted / row.throughput - 1 : 0; }
};

struct CorpusReport {
  std::string engine;
  std::vector<CorpusPoint> points;
  ValidationSummary all;
  std::map<std::string, ValidationSummary> by_split, by_model, by_device;  // keys: split, model, device
};

// Predicts every row of `rows` whose engine is `engine` (predict returns images/s) and
// summarises. A row whose prediction fails fails the whole run, naming its line.
Expected<CorpusReport> compare_corpus(const std::vector<CorpusRow>& rows, const std::string& engine,
                                      const std::function<Expected<double>(const CorpusRow&)>& predict);

}  // namespace rooflens
