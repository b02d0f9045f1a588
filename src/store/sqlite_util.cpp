// SQLite result codes as Status values, and small statement helpers (sqlite_util.h).
#include "sqlite_util.h"

#include <vector>

#include <fmt/format.h>

#include "rooflens/store/train_store.h"

namespace rooflens::store {

Status sqlite_status(sqlite3* db, int rc, const std::string& path, std::string_view what) {
  // sqlite3_errmsg describes the connection's latest failure; errstr the code alone.
  const std::string msg = db != nullptr && sqlite3_errcode(db) == rc ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
  switch (rc & 0xff) {
    case SQLITE_CORRUPT:
      return Status::invalid(
          fmt::format("{}: {}: the database is corrupt ({}); move the file aside to start a new one", path, what, msg));
    case SQLITE_NOTADB:
      return Status::invalid(
          fmt::format("{}: {}: not an SQLite database, or its first page is damaged ({})", path, what, msg));
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return Status::unavailable(
          fmt::format("{}: {}: another process kept the database locked (waited up to {} s; "
                      "{})",
                      path, what, kBusyTimeoutMs / 1000, msg));
    case SQLITE_CANTOPEN:
      return Status::unavailable(
          fmt::format("{}: {}: cannot open the file ({}; does its directory exist, and may "
                      "this user write there?)",
                      path, what, msg));
    case SQLITE_READONLY:
    case SQLITE_PERM:
    case SQLITE_AUTH:
      return Status::unavailable(fmt::format("{}: {}: the database is read-only here ({})", path, what, msg));
    case SQLITE_FULL:
    case SQLITE_IOERR:
    case SQLITE_NOMEM:
    case SQLITE_NOLFS: return Status::unavailable(fmt::format("{}: {}: {}", path, what, msg));
    case SQLITE_MISUSE:
    case SQLITE_INTERNAL: return Status::internal(fmt::format("{}: {}: {} (SQLite code {})", path, what, msg, rc));
    default: return Status::invalid(fmt::format("{}: {}: {} (SQLite code {})", path, what, msg, rc));
  }
}

Status sqlite_exec(sqlite3* db, const char* sql, const std::string& path, std::string_view what) {
  const int rc = sqlite3_exec(db, sql, nullptr, nullptr, nullptr);
  return rc == SQLITE_OK ? Status::ok() : sqlite_status(db, rc, path, what);
}

Expected<int64_t> sqlite_int(sqlite3* db, const char* sql, const std::string& path, std::string_view what) {
  Stmt s;
  int rc = sqlite3_prepare_v2(db, sql, -1, s.out(), nullptr);
  if (rc != SQLITE_OK) return sqlite_status(db, rc, path, what);
  rc = sqlite3_step(s.get());
  if (rc == SQLITE_ROW) return static_cast<int64_t>(sqlite3_column_int64(s.get(), 0));
  if (rc == SQLITE_DONE) return Status::internal(fmt::format("{}: {}: no value", path, what));
  return sqlite_status(db, rc, path, what);
}

Expected<std::vector<std::string>> sqlite_texts(sqlite3* db, const std::string& sql, const std::string& path,
                                                std::string_view what) {
  Stmt s;
  int rc = sqlite3_prepare_v2(db, sql.c_str(), -1, s.out(), nullptr);
  if (rc != SQLITE_OK) return sqlite_status(db, rc, path, what);
  std::vector<std::string> out;
  while ((rc = sqlite3_step(s.get())) == SQLITE_ROW) out.push_back(column_text(s.get(), 0));
  if (rc != SQLITE_DONE) return sqlite_status(db, rc, path, what);
  return out;
}

std::string column_text(sqlite3_stmt* s, int col) {
  const unsigned char* t = sqlite3_column_text(s, col);
  if (t == nullptr) return {};
  return std::string(reinterpret_cast<const char*>(t), static_cast<size_t>(sqlite3_column_bytes(s, col)));
}

}  // namespace rooflens::store
