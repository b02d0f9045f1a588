// SqliteTrainStore (train_store.h): opening and identifying the file, find and put, rows.
#include "rooflens/store/train_store.h"

#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <thread>

#include <fmt/format.h>

#include "sqlite_util.h"

namespace rooflens::store {
namespace {

constexpr char kSqliteMagic[16] = "SQLite format 3";  // 15 characters and the NUL: 16 bytes

// The table; every TrainResult field has a column (TrainResult::recipe is the key's recipe).
// final_loss may be NULL: a diverged training's NaN loss (SQLite stores NaN as NULL).
constexpr const char* kCreateTable = R"sql(
CREATE TABLE train_results (
  space         TEXT    NOT NULL,  -- "nats-sss"
  arch          TEXT    NOT NULL,  -- "8:16:24:32:40"
  dataset       TEXT    NOT NULL,  -- "fashion-mnist" or the data directory
  recipe        TEXT    NOT NULL,  -- TrainRecipe::describe()
  seed          INTEGER NOT NULL,  -- torch seed of the trial
  accuracy      REAL    NOT NULL,  -- percent, top-1 on the test images
  train_seconds REAL    NOT NULL,  -- wall seconds of training
  eval_seconds  REAL    NOT NULL,  -- wall seconds of the test pass
  final_loss    REAL,              -- mean cross-entropy of the last epoch; NULL when not a number
  train_images  INTEGER NOT NULL,
  test_images   INTEGER NOT NULL,
  threads       INTEGER NOT NULL,
  versions      TEXT    NOT NULL,  -- "rooflens 0.1.0, LibTorch 1.13.0"
  stored_at     TEXT    NOT NULL,  -- UTC, ISO 8601
  PRIMARY KEY (space, arch, dataset, recipe, seed)
))sql";

constexpr const char* kColumns[] = {"space",       "arch",          "dataset",      "recipe",     "seed",
                                    "accuracy",    "train_seconds", "eval_seconds", "final_loss", "train_images",
                                    "test_images", "threads",       "versions",     "stored_at"};

constexpr const char* kFindSql =
    "SELECT accuracy, train_seconds, eval_seconds, final_loss, train_images, test_images, threads, versions "
    "FROM train_results WHERE space = ?1 AND arch = ?2 AND dataset = ?3 AND recipe = ?4 AND seed = ?5";
constexpr const char* kInsertSql =
    "INSERT INTO train_results (space, arch, dataset, recipe, seed, accuracy, train_seconds, eval_seconds, "
    "final_loss, train_images, test_images, threads, versions, stored_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, "
    "?9, ?10, ?11, ?12, ?13, strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) ON CONFLICT DO NOTHING";

// The first bytes of a file that is not SQLite, for the refusal: printable ones as text.
std::string describe_start(const char* bytes, size_t n) {
  std::string text;
  bool printable = true;
  for (size_t i = 0; i < n && i < 8; ++i) {
    const auto c = static_cast<unsigned char>(bytes[i]);
    if (c < 0x20 || c > 0x7e) printable = false;
  }
  if (printable) {
    size_t end = 0;
    while (end < n && static_cast<unsigned char>(bytes[end]) >= 0x20 && static_cast<unsigned char>(bytes[end]) <= 0x7e)
      ++end;
    return fmt::format("it starts with \"{}\"", std::string(bytes, end));
  }
  for (size_t i = 0; i < n && i < 8; ++i)
    text += fmt::format("{}{:02x}", i ? " " : "", static_cast<unsigned char>(bytes[i]));
  return fmt::format("it starts with bytes {}", text);
}

// Refuses what SQLite should not even open: a directory, a missing file (unless creating),
// a file whose first 16 bytes are not SQLite's header. An empty file counts as missing.
Expected<bool> file_exists_as_sqlite(const std::string& path, bool create) {
  std::error_code ec;
  const auto st = std::filesystem::status(path, ec);
  if (std::filesystem::is_directory(st))
    return Status::invalid(fmt::format("{}: is a directory, not a results database", path));
  if (!std::filesystem::exists(st)) {
    if (create) return false;
    return Status::invalid(fmt::format("{}: no such file", path));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::unavailable(fmt::format("{}: cannot read the file ({})", path, std::strerror(errno)));
  char head[16] = {};
  in.read(head, sizeof head);
  const auto n = static_cast<size_t>(in.gcount());
  if (n == 0) {
    if (create) return false;
    return Status::invalid(fmt::format("{}: empty file, not a rooflens results database", path));
  }
  if (n < sizeof head || std::memcmp(head, kSqliteMagic, sizeof head) != 0)
    return Status::invalid(
        fmt::format("{}: not an SQLite database ({}); rooflens keeps training results in an "
                    "SQLite file of its own: choose another path",
                    path, describe_start(head, n)));
  return true;
}

struct FileInfo {
  int64_t application_id = 0;
  int64_t user_version = 0;
  std::vector<std::string> objects;  // "table x", "index y" in sqlite_master
};

Expected<FileInfo> read_info_now(sqlite3* db, const std::string& path) {
  FileInfo f;
  auto id = sqlite_int(db, "PRAGMA application_id", path, "reading the application id");
  if (!id) return id.status();
  auto v = sqlite_int(db, "PRAGMA user_version", path, "reading the schema version");
  if (!v) return v.status();
  auto objects =
      sqlite_texts(db, "SELECT type || ' ' || name FROM sqlite_master ORDER BY name", path, "listing the tables");
  if (!objects) return objects.status();
  f.application_id = *id;
  f.user_version = *v;
  f.objects = std::move(*objects);
  return f;
}

// The three reads in one read transaction: another process creating the table meanwhile must
// not make the file look half made (its table without its application id).
Expected<FileInfo> read_info(sqlite3* db, const std::string& path) {
  if (sqlite3_get_autocommit(db) == 0) return read_info_now(db, path);  // inside a transaction already
  ROOFLENS_RETURN_IF_ERROR(sqlite_exec(db, "BEGIN", path, "reading the file's header"));
  auto f = read_info_now(db, path);
  sqlite3_exec(db, f ? "COMMIT" : "ROLLBACK", nullptr, nullptr, nullptr);
  return f;
}

bool is_blank(const FileInfo& f) { return f.application_id == 0 && f.user_version == 0 && f.objects.empty(); }

Status refuse_foreign(const std::string& path, const FileInfo& f) {
  std::string objects;
  for (size_t i = 0; i < f.objects.size() && i < 5; ++i) objects += (i ? ", " : "") + f.objects[i];
  if (f.objects.size() > 5) objects += fmt::format(", ... ({} in all)", f.objects.size());
  return Status::invalid(
      fmt::format("{}: an SQLite database of another application (application_id {:#x}, "
                  "user_version {}{}{}); rooflens keeps its training results in a file of its "
                  "own (application_id {:#x}) and changes nothing here: choose another path",
                  path, static_cast<uint32_t>(f.application_id), f.user_version, objects.empty() ? "" : "; ", objects,
                  static_cast<uint32_t>(kApplicationId)));
}

// A file with rooflens' application id: its schema version and table.
Status check_ours(sqlite3* db, const std::string& path, const FileInfo& f) {
  if (f.user_version > kSchemaVersion)
    return Status::unsupported(
        fmt::format("{}: schema version {} is newer than this rooflens reads (version {}): "
                    "the file was written by a newer rooflens; use that one, or another path",
                    path, f.user_version, kSchemaVersion));
  if (f.user_version < 1)
    return Status::invalid(
        fmt::format("{}: a rooflens results file with schema version {} (expected 1..{}): its "
                    "header is damaged",
                    path, f.user_version, kSchemaVersion));
  auto cols = sqlite_texts(db, fmt::format("SELECT name FROM pragma_table_info('{}')", kTrainTable), path,
                           "reading the table's columns");
  if (!cols) return cols.status();
  if (cols->empty())
    return Status::invalid(
        fmt::format("{}: a rooflens results file (application_id {:#x}) without its table {}: "
                    "damaged, or made by another program; move it aside",
                    path, static_cast<uint32_t>(kApplicationId), kTrainTable));
  for (const char* c : kColumns)
    if (std::find(cols->begin(), cols->end(), c) == cols->end())
      return Status::invalid(
          fmt::format("{}: table {} has no column {} (schema version {} has: {}): damaged, or "
                      "made by another program; move it aside",
                      path, kTrainTable, c, f.user_version, fmt::join(*cols, ", ")));
  return Status::ok();
}

// Creates the table in a blank file, in one write transaction; another process may have done
// it meanwhile (then its file is checked like any other).
Status initialize(sqlite3* db, const std::string& path) {
  ROOFLENS_RETURN_IF_ERROR(sqlite_exec(db, "BEGIN IMMEDIATE", path, "starting to create the results table"));
  auto f = read_info(db, path);
  Status s = f.status();
  if (s) {
    if (is_blank(*f)) {
      s = sqlite_exec(db, kCreateTable, path, "creating the results table");
      if (s)
        s = sqlite_exec(db, fmt::format("PRAGMA application_id = {}", kApplicationId).c_str(), path,
                        "setting the application id");
      if (s)
        s = sqlite_exec(db, fmt::format("PRAGMA user_version = {}", kSchemaVersion).c_str(), path,
                        "setting the schema version");
      if (s) return sqlite_exec(db, "COMMIT", path, "creating the results table");
    } else if (f->application_id != kApplicationId) {
      s = refuse_foreign(path, *f);
    }
  }
  sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
  return s;
}

// PRAGMA journal_mode = WAL, retried while another process holds a lock: the switch needs
// the file to itself and SQLite answers BUSY at once instead of calling the busy handler
// (two processes opening a new file both switch it). A file already in WAL mode needs no lock.
Expected<std::vector<std::string>> switch_to_wal(sqlite3* db, const std::string& path) {
  auto mode = sqlite_texts(db, "PRAGMA journal_mode", path, "reading the journal mode");
  if (!mode || (!mode->empty() && (*mode)[0] == "wal")) return mode;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kBusyTimeoutMs);
  for (;;) {
    mode = sqlite_texts(db, "PRAGMA journal_mode = WAL", path, "switching to WAL journal mode");
    if (mode || (mode.status().code() != StatusCode::kUnavailable) || std::chrono::steady_clock::now() > deadline ||
        (sqlite3_errcode(db) & 0xff) != SQLITE_BUSY)
      return mode;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

}  // namespace

SqliteTrainStore::~SqliteTrainStore() {
  sqlite3_finalize(find_);
  sqlite3_finalize(insert_);
  sqlite3_close_v2(db_);
}

Expected<std::shared_ptr<SqliteTrainStore>> SqliteTrainStore::open(const std::string& path,
                                                                   const OpenOptions& options) {
  if (path.empty()) return Status::invalid("results database: empty path");
  auto exists = file_exists_as_sqlite(path, options.create);
  if (!exists) return exists.status();
  sqlite3* raw = nullptr;
  const int flags = SQLITE_OPEN_READWRITE | (options.create ? SQLITE_OPEN_CREATE : 0) | SQLITE_OPEN_NOMUTEX;
  const int rc = sqlite3_open_v2(path.c_str(), &raw, flags, nullptr);
  std::shared_ptr<SqliteTrainStore> store(new SqliteTrainStore(path, raw));  // closes raw on every path
  if (rc != SQLITE_OK) return sqlite_status(raw, rc, path, "opening");
  sqlite3* db = store->db_;
  sqlite3_extended_result_codes(db, 1);
  sqlite3_busy_timeout(db, kBusyTimeoutMs);

  auto info = read_info(db, path);
  if (!info) return info.status();
  if (is_blank(*info)) {
    if (!options.create)
      return Status::invalid(fmt::format("{}: an empty SQLite database, not a rooflens results file", path));
    ROOFLENS_RETURN_IF_ERROR(initialize(db, path));
    info = read_info(db, path);
    if (!info) return info.status();
  }
  if (info->application_id != kApplicationId) return refuse_foreign(path, *info);
  ROOFLENS_RETURN_IF_ERROR(check_ours(db, path, *info));
  // A writer finds out now, not after its first training (SQLite opens a write-protected
  // file read-only without saying so).
  if (options.create && sqlite3_db_readonly(db, "main") == 1)
    return Status::unavailable(
        fmt::format("{}: the file is read-only for this user, and trainings could not be "
                    "stored in it",
                    path));

  // WAL: readers and the writer do not block each other, and a commit is one append. It is a
  // property of the file, so this changes nothing after the first open; a read-only file
  // keeps the mode it has.
  if (sqlite3_db_readonly(db, "main") == 0) {
    auto mode = switch_to_wal(db, path);
    if (!mode) return mode.status();
    if (mode->empty() || (*mode)[0] != "wal")
      return Status::unavailable(
          fmt::format("{}: SQLite could not switch the file to WAL journal mode (it is in {} "
                      "mode; WAL needs a local file system with shared memory)",
                      path, mode->empty() ? std::string("an unknown") : (*mode)[0]));
  }
  ROOFLENS_RETURN_IF_ERROR(sqlite_exec(db, "PRAGMA synchronous = FULL", path, "setting synchronous"));
  if (options.quick_check) {
    auto lines = sqlite_texts(db, "PRAGMA quick_check(5)", path, "checking the database (quick_check)");
    if (!lines) return lines.status();
    if (lines->size() != 1 || (*lines)[0] != "ok")
      return Status::invalid(
          fmt::format("{}: the database is damaged (quick_check: {}); `rooflens nas-db check {}` "
                      "lists the damage; move the file aside to start a new one",
                      path, fmt::join(*lines, "; "), path));
  }
  ROOFLENS_RETURN_IF_ERROR(store->prepare());
  return store;
}

Status SqliteTrainStore::prepare() {
  int rc = sqlite3_prepare_v3(db_, kFindSql, -1, SQLITE_PREPARE_PERSISTENT, &find_, nullptr);
  if (rc != SQLITE_OK) return sqlite_status(db_, rc, path_, "preparing the lookup");
  rc = sqlite3_prepare_v3(db_, kInsertSql, -1, SQLITE_PREPARE_PERSISTENT, &insert_, nullptr);
  if (rc != SQLITE_OK) return sqlite_status(db_, rc, path_, "preparing the insert");
  return Status::ok();
}

namespace {

void bind_text(sqlite3_stmt* s, int i, const std::string& v) {
  sqlite3_bind_text(s, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
}

Status bind_key(sqlite3_stmt* s, const train::TrainKey& k) {
  if (k.seed > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
    return Status::invalid(
        fmt::format("training seed {} is above 2^63 - 1: SQLite integers are 64-bit signed", k.seed));
  bind_text(s, 1, k.space);
  bind_text(s, 2, k.arch);
  bind_text(s, 3, k.dataset);
  bind_text(s, 4, k.recipe);
  sqlite3_bind_int64(s, 5, static_cast<int64_t>(k.seed));
  return Status::ok();
}

std::string key_text(const train::TrainKey& k) {
  return fmt::format("{} {} on {} seed {} ({})", k.space, k.arch, k.dataset, k.seed, k.recipe);
}

// Resets a statement on scope exit, so that no read transaction stays open between calls.
struct ResetOnExit {
  sqlite3_stmt* s;
  ~ResetOnExit() {
    sqlite3_reset(s);
    sqlite3_clear_bindings(s);
  }
};

}  // namespace

Expected<std::optional<train::TrainResult>> SqliteTrainStore::find(const train::TrainKey& key) {
  std::lock_guard<std::mutex> lock(mu_);
  ResetOnExit reset{find_};
  ROOFLENS_RETURN_IF_ERROR(bind_key(find_, key));
  const int rc = sqlite3_step(find_);
  if (rc == SQLITE_DONE) return std::optional<train::TrainResult>();
  if (rc != SQLITE_ROW) return sqlite_status(db_, rc, path_, fmt::format("looking up {}", key_text(key)));
  train::TrainResult r;
  r.accuracy = sqlite3_column_double(find_, 0);
  r.train_seconds = sqlite3_column_double(find_, 1);
  r.eval_seconds = sqlite3_column_double(find_, 2);
  r.final_loss = sqlite3_column_type(find_, 3) == SQLITE_NULL ? std::numeric_limits<double>::quiet_NaN()
                                                              : sqlite3_column_double(find_, 3);
  r.train_images = sqlite3_column_int64(find_, 4);
  r.test_images = sqlite3_column_int64(find_, 5);
  r.threads = sqlite3_column_int(find_, 6);
  r.versions = column_text(find_, 7);
  r.recipe = key.recipe;
  return std::optional<train::TrainResult>(std::move(r));
}

Status SqliteTrainStore::put(const train::TrainKey& key, const train::TrainResult& r) {
  const std::string what = fmt::format("storing {}", key_text(key));
  if (!(r.accuracy >= 0 && r.accuracy <= 100))
    return Status::invalid(fmt::format("{}: {}: accuracy {} is outside 0..100 (percent)", path_, what, r.accuracy));
  if (!std::isfinite(r.train_seconds) || r.train_seconds < 0 || !std::isfinite(r.eval_seconds) || r.eval_seconds < 0)
    return Status::invalid(fmt::format("{}: {}: train {} s, test {} s: expected finite seconds >= 0", path_, what,
                                       r.train_seconds, r.eval_seconds));
  if (!r.recipe.empty() && r.recipe != key.recipe)
    return Status::invalid(
        fmt::format("{}: {}: the result was trained with recipe '{}', not the key's", path_, what, r.recipe));
  if (key.space.empty() || key.arch.empty() || key.dataset.empty() || key.recipe.empty())
    return Status::invalid(fmt::format("{}: {}: space, arch, dataset and recipe must not be empty", path_, what));
  std::lock_guard<std::mutex> lock(mu_);
  ResetOnExit reset{insert_};
  ROOFLENS_RETURN_IF_ERROR(bind_key(insert_, key));
  sqlite3_bind_double(insert_, 6, r.accuracy);
  sqlite3_bind_double(insert_, 7, r.train_seconds);
  sqlite3_bind_double(insert_, 8, r.eval_seconds);
  if (std::isfinite(r.final_loss))
    sqlite3_bind_double(insert_, 9, r.final_loss);
  else
    sqlite3_bind_null(insert_, 9);
  sqlite3_bind_int64(insert_, 10, r.train_images);
  sqlite3_bind_int64(insert_, 11, r.test_images);
  sqlite3_bind_int64(insert_, 12, r.threads);
  bind_text(insert_, 13, r.versions);
  // One write transaction; BEGIN IMMEDIATE takes the write lock first (waiting up to the busy
  // timeout for another process), so the insert never meets a lock half-way.
  ROOFLENS_RETURN_IF_ERROR(sqlite_exec(db_, "BEGIN IMMEDIATE", path_, what));
  int rc = sqlite3_step(insert_);
  if (rc != SQLITE_DONE) {
    Status s = sqlite_status(db_, rc, path_, what);
    sqlite3_reset(insert_);
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    return s;
  }
  sqlite3_reset(insert_);
  Status s = sqlite_exec(db_, "COMMIT", path_, what);
  if (!s) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
  return s;
}

Expected<std::vector<StoredTraining>> SqliteTrainStore::rows() {
  std::lock_guard<std::mutex> lock(mu_);
  Stmt s;
  int rc = sqlite3_prepare_v2(db_,
                              "SELECT space, arch, dataset, recipe, seed, accuracy, train_seconds, eval_seconds, "
                              "final_loss, train_images, test_images, threads, versions, stored_at FROM train_results "
                              "ORDER BY space, dataset, recipe, arch, seed",
                              -1, s.out(), nullptr);
  if (rc != SQLITE_OK) return sqlite_status(db_, rc, path_, "reading the results");
  std::vector<StoredTraining> out;
  while ((rc = sqlite3_step(s.get())) == SQLITE_ROW) {
    StoredTraining t;
    t.key.space = column_text(s.get(), 0);
    t.key.arch = column_text(s.get(), 1);
    t.key.dataset = column_text(s.get(), 2);
    t.key.recipe = column_text(s.get(), 3);
    t.key.seed = static_cast<uint64_t>(sqlite3_column_int64(s.get(), 4));
    t.result.accuracy = sqlite3_column_double(s.get(), 5);
    t.result.train_seconds = sqlite3_column_double(s.get(), 6);
    t.result.eval_seconds = sqlite3_column_double(s.get(), 7);
    t.result.final_loss = sqlite3_column_type(s.get(), 8) == SQLITE_NULL ? std::numeric_limits<double>::quiet_NaN()
                                                                         : sqlite3_column_double(s.get(), 8);
    t.result.train_images = sqlite3_column_int64(s.get(), 9);
    t.result.test_images = sqlite3_column_int64(s.get(), 10);
    t.result.threads = sqlite3_column_int(s.get(), 11);
    t.result.versions = column_text(s.get(), 12);
    t.result.recipe = t.key.recipe;
    t.stored_at = column_text(s.get(), 13);
    out.push_back(std::move(t));
  }
  if (rc != SQLITE_DONE) return sqlite_status(db_, rc, path_, "reading the results");
  return out;
}

Expected<std::shared_ptr<train::TrainCache>> open_train_cache(const std::string& path) {
  auto s = SqliteTrainStore::open(path);
  if (!s) return s.status();
  return std::shared_ptr<train::TrainCache>(std::move(*s));
}

}  // namespace rooflens::store
