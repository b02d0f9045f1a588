// SqliteTrainStore::check (train_store.h): SQLite's integrity_check, then every row's values.
#include <cmath>

#include <fmt/format.h>

#include "rooflens/nas/sss_space.h"
#include "rooflens/store/train_store.h"
#include "sqlite_util.h"

namespace rooflens::store {
namespace {

constexpr const char* kRowsSql =
    "SELECT rowid, space, arch, dataset, recipe, seed, accuracy, train_seconds, eval_seconds, final_loss, "
    "train_images, test_images, threads, versions, stored_at FROM train_results ORDER BY rowid";

// The problems of one row (columns as in kRowsSql).
void check_row(sqlite3_stmt* s, std::vector<std::string>& problems) {
  // Types first: reading a column as text converts it, after which its type is undefined.
  int types[15] = {};
  for (int col = 0; col < 15; ++col) types[col] = sqlite3_column_type(s, col);
  const std::string where = fmt::format("row {} ({} {} on {} seed {})", sqlite3_column_int64(s, 0), column_text(s, 1),
                                        column_text(s, 2), column_text(s, 3), column_text(s, 5));
  auto type = [&](int col) { return types[col]; };
  auto name = [&](int col) { return std::string(sqlite3_column_name(s, col)); };
  for (int col : {1, 2, 3, 4, 13, 14})
    if (type(col) != SQLITE_TEXT || sqlite3_column_bytes(s, col) == 0)
      problems.push_back(
          fmt::format("{}: {} is {}, not a non-empty text", where, name(col),
                      type(col) == SQLITE_NULL ? std::string("NULL") : fmt::format("'{}'", column_text(s, col))));
  for (int col : {5, 10, 11, 12})
    if (type(col) != SQLITE_INTEGER)
      problems.push_back(fmt::format("{}: {} '{}' is not an integer", where, name(col), column_text(s, col)));
  if (type(5) == SQLITE_INTEGER && sqlite3_column_int64(s, 5) < 0)
    problems.push_back(fmt::format("{}: seed {} is negative", where, sqlite3_column_int64(s, 5)));
  for (int col : {10, 11, 12})
    if (type(col) == SQLITE_INTEGER && sqlite3_column_int64(s, col) < 1)
      problems.push_back(fmt::format("{}: {} {} is not >= 1", where, name(col), sqlite3_column_int64(s, col)));
  auto number = [&](int col) { return type(col) == SQLITE_FLOAT || type(col) == SQLITE_INTEGER; };
  if (!number(6) || !(sqlite3_column_double(s, 6) >= 0 && sqlite3_column_double(s, 6) <= 100))
    problems.push_back(fmt::format("{}: accuracy '{}' is not a percentage in 0..100", where, column_text(s, 6)));
  for (int col : {7, 8})
    if (!number(col) || !std::isfinite(sqlite3_column_double(s, col)) || sqlite3_column_double(s, col) < 0)
      problems.push_back(
          fmt::format("{}: {} '{}' is not a finite number of seconds >= 0", where, name(col), column_text(s, col)));
  if (type(9) != SQLITE_NULL && !number(9))
    problems.push_back(fmt::format("{}: final_loss '{}' is not a number", where, column_text(s, 9)));
  if (column_text(s, 1) == "nats-sss") {
    auto idx = sss_index(column_text(s, 2));
    if (!idx) problems.push_back(fmt::format("{}: arch: {}", where, idx.status().message()));
  }
}

}  // namespace

Expected<std::vector<std::string>> SqliteTrainStore::check(size_t limit) {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> problems;
  // integrity_check reports damage as rows; a file too damaged to walk fails with CORRUPT.
  auto lines = sqlite_texts(db_, fmt::format("PRAGMA integrity_check({})", limit), path_, "integrity_check");
  if (!lines) {
    problems.push_back(lines.status().message());
    return problems;
  }
  if (!(lines->size() == 1 && (*lines)[0] == "ok"))
    for (const std::string& l : *lines) problems.push_back("integrity_check: " + l);
  Stmt s;
  int rc = sqlite3_prepare_v2(db_, kRowsSql, -1, s.out(), nullptr);
  if (rc != SQLITE_OK) {
    problems.push_back(sqlite_status(db_, rc, path_, "reading the rows").message());
    return problems;
  }
  size_t rows = 0;
  while ((rc = sqlite3_step(s.get())) == SQLITE_ROW) {
    check_row(s.get(), problems);
    ++rows;
  }
  if (rc != SQLITE_DONE)
    problems.push_back(sqlite_status(db_, rc, path_, fmt::format("reading row {}", rows + 1)).message());
  if (problems.size() > limit) {
    const size_t more = problems.size() - limit;
    problems.resize(limit);
    problems.push_back(fmt::format("... and {} more", more));
  }
  return problems;
}

}  // namespace rooflens::store
