// Where `rooflens nas --oracle train:...` keeps its trainings when --db is not given, and
// what --db means (docs/nas.md, "Results database").
#pragma once

#include <string>

#include "rooflens/util/status.h"

namespace rooflens::cli {

inline constexpr const char* kTrainDbFile = "train-results.sqlite";

// The default results database: $ROOFLENS_CACHE_DIR/train-results.sqlite, else
// $XDG_CACHE_HOME/rooflens/train-results.sqlite (an absolute XDG_CACHE_HOME only, as the XDG
// spec says), else $HOME/.cache/rooflens/train-results.sqlite. Unavailable when none is set.
// Creates nothing.
Expected<std::string> default_train_db();

// --db VALUE of `rooflens nas`: "none" -> "" (memory only); "" -> default_train_db(), with its
// directory created; else VALUE. Invalid input for a path with ',' (the oracle spec's separator).
Expected<std::string> train_db_for_nas(const std::string& flag);

}  // namespace rooflens::cli
