// SQLite plumbing private to the store module: result codes as Status values naming the file
// and what failed, a statement handle that finalizes itself, one-value pragmas.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <sqlite3.h>

#include "rooflens/util/status.h"

namespace rooflens::store {

// Maps an SQLite result code to a Status: corrupt / not-a-database files are invalid input
// (with the file and `what`), a lock held past the busy timeout, a full disk or an I/O error
// unavailable, misuse internal.
Status sqlite_status(sqlite3* db, int rc, const std::string& path, std::string_view what);

// A prepared statement, finalized on destruction.
class Stmt {
 public:
  Stmt() = default;
  explicit Stmt(sqlite3_stmt* s) : s_(s) {}
  ~Stmt() { sqlite3_finalize(s_); }
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;
  sqlite3_stmt* get() const { return s_; }
  sqlite3_stmt** out() { return &s_; }

 private:
  sqlite3_stmt* s_ = nullptr;
};

// Runs `sql` (no results wanted).
Status sqlite_exec(sqlite3* db, const char* sql, const std::string& path, std::string_view what);
// The integer the one-row, one-column statement `sql` returns (PRAGMA application_id, ...).
Expected<int64_t> sqlite_int(sqlite3* db, const char* sql, const std::string& path, std::string_view what);
// The first column of every row `sql` returns, as text.
Expected<std::vector<std::string>> sqlite_texts(sqlite3* db, const std::string& sql, const std::string& path,
                                                std::string_view what);

// A column read as text ("" for NULL).
std::string column_text(sqlite3_stmt* s, int col);

}  // namespace rooflens::store
