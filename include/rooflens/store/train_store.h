// Durable results of the training oracle: a TrainCache (train/train_oracle.h) kept in one
// SQLite file, so that a second search, a resumed one or another strategy reuses what was
// trained. One row per TrainKey (space, arch, dataset, recipe, seed) with every TrainResult
// field, the software versions and the UTC time it was stored.
//
// The file: WAL journal, synchronous=FULL (a committed row survives kill -9 and power loss),
// a busy timeout (kBusyTimeoutMs) so that two processes on one file wait for each other
// instead of failing, PRAGMA application_id = kApplicationId and user_version = the schema
// version. Opening refuses, naming the file and never creating anything in it: a file that is
// not SQLite (text, random bytes), a truncated or corrupt database (quick_check at open), an
// SQLite database of another application (another application_id, or rooflens' id without
// its table), a schema version newer than this build knows.
//
// Thread-safe: one connection behind a mutex (trainings take seconds; the store is not the
// bottleneck). Several processes may open the same file at once.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "rooflens/train/train_oracle.h"
#include "rooflens/util/status.h"

struct sqlite3;
struct sqlite3_stmt;

namespace rooflens::store {

// 'RfLn': PRAGMA application_id of every rooflens results file.
inline constexpr int32_t kApplicationId = 0x52664c6e;
// PRAGMA user_version: the schema this build reads and writes.
inline constexpr int kSchemaVersion = 1;
inline constexpr int kBusyTimeoutMs = 30000;
inline constexpr const char* kTrainTable = "train_results";

// One stored training.
struct StoredTraining {
  train::TrainKey key;
  train::TrainResult result;  // result.recipe == key.recipe
  std::string stored_at;      // UTC, ISO 8601 with milliseconds: "2026-11-30T23:01:02.345Z"
};

struct OpenOptions {
  // For writing: a missing (or empty) file becomes a new results file, and a read-only one is
  // refused. Otherwise (reading: nas-db) the file must exist, and may be read-only.
  bool create = true;
  // PRAGMA quick_check at open (refuses a truncated or corrupt file at once). `nas-db check`
  // turns it off and runs the full integrity_check itself.
  bool quick_check = true;
};

class SqliteTrainStore : public train::TrainCache {
 public:
  // Opens (or creates) `path`; the refusals above as invalid input (unsupported for a newer
  // schema), a file that cannot be opened or stays locked as unavailable.
  static Expected<std::shared_ptr<SqliteTrainStore>> open(const std::string& path, const OpenOptions& options = {});
  ~SqliteTrainStore() override;
  SqliteTrainStore(const SqliteTrainStore&) = delete;
  SqliteTrainStore& operator=(const SqliteTrainStore&) = delete;

  // The row of `key`, or nullopt.
  Expected<std::optional<train::TrainResult>> find(const train::TrainKey& key) override;
  // Stores `result` under `key` in one transaction. Idempotent: when the key is already there
  // the first row stays (equal keys are the same training). Invalid input for a result that
  // cannot be a training (accuracy outside 0..100, seconds not finite and >= 0, a recipe
  // other than the key's, a seed above 2^63 - 1).
  Status put(const train::TrainKey& key, const train::TrainResult& result) override;
  std::string origin() const override { return "the database"; }

  // Every row, ordered by space, dataset, recipe, arch, seed.
  Expected<std::vector<StoredTraining>> rows();
  // Problems found by PRAGMA integrity_check and by checking every row's values (types,
  // accuracy in 0..100, seconds finite >= 0, counts > 0, arch valid in its space); empty when
  // the file is sound. At most `limit` problems are listed, then a count of the rest.
  Expected<std::vector<std::string>> check(size_t limit = 50);

  const std::string& path() const { return path_; }

 private:
  SqliteTrainStore(std::string path, sqlite3* db) : path_(std::move(path)), db_(db) {}
  Status prepare();

  std::string path_;
  std::mutex mu_;
  sqlite3* db_ = nullptr;
  sqlite3_stmt* find_ = nullptr;
  sqlite3_stmt* insert_ = nullptr;
};

// train::TrainStoreOpener for train::register_train_store_opener: opens `path` with the
// defaults (create when missing).
Expected<std::shared_ptr<train::TrainCache>> open_train_cache(const std::string& path);

}  // namespace rooflens::store
