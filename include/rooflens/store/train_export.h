// What `rooflens nas-db` shows of a results store: trainings grouped by (space, dataset,
// recipe), and the CSV the csv: accuracy oracle reads (nas/oracle.h, CsvOracle), one line per
// network with its accuracy averaged over the stored seeds.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "rooflens/store/train_store.h"
#include "rooflens/util/status.h"

namespace rooflens::store {

// The trainings of one (space, dataset, recipe).
struct TrainGroup {
  std::string space, dataset, recipe;
  size_t trainings = 0;      // rows (network x seed)
  size_t networks = 0;       // distinct archs
  std::string best_arch;     // highest mean accuracy over its seeds (first in arch order on ties)
  double best_accuracy = 0;  // percent, that mean
  double train_seconds = 0;  // sum over the rows
  double eval_seconds = 0;   // sum over the rows
};

// Groups in the order of `rows` (rows() sorts by space, dataset, recipe).
std::vector<TrainGroup> group_trainings(const std::vector<StoredTraining>& rows);

// Selects rows; an empty field matches anything. space and dataset must be equal; recipe is
// found anywhere in the recipe string ("train 3000" picks the recipes trained on 3000 images).
struct TrainFilter {
  std::string space, dataset, recipe;
  bool matches(const train::TrainKey& k) const;
};

// The rows of `rows` that `filter` selects, when they form exactly one group; otherwise invalid
// input naming `file`: none match (listing what the file holds), or several do (listing them,
// so that --dataset / --recipe can pick one).
Expected<std::vector<StoredTraining>> select_one_group(const std::vector<StoredTraining>& rows,
                                                       const TrainFilter& filter, const std::string& file);

// CSV for the csv: oracle, from one group's rows (select_one_group): header
// `arch,accuracy,train_seconds,trials`, one line per network in SSS index order; accuracy =
// mean over the network's seeds (percent), train_seconds = mean training + test seconds (what
// the measured clock charged; empty when 0, so that the csv: oracle charges its default),
// trials = seeds averaged. Only the NATS-SSS space ("nats-sss") is exported (unsupported
// otherwise); an arch that is not an SSS network is invalid input.
Expected<std::string> accuracy_csv(const std::vector<StoredTraining>& group_rows);

}  // namespace rooflens::store
