// The training results database's default path (train_db_path.h).
#include "train_db_path.h"

#include <cstdlib>
#include <filesystem>

#include <fmt/format.h>

namespace rooflens::cli {
namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr ? std::string(v) : std::string();
}

}  // namespace

Expected<std::string> default_train_db() {
  namespace fs = std::filesystem;
  if (const std::string d = env("ROOFLENS_CACHE_DIR"); !d.empty()) return (fs::path(d) / kTrainDbFile).string();
  if (const std::string d = env("XDG_CACHE_HOME"); !d.empty() && fs::path(d).is_absolute())
    return (fs::path(d) / "rooflens" / kTrainDbFile).string();
  if (const std::string d = env("HOME"); !d.empty())
    return (fs::path(d) / ".cache" / "rooflens" / kTrainDbFile).string();
  return Status::unavailable(
      "no results database: none of ROOFLENS_CACHE_DIR, XDG_CACHE_HOME and HOME is set; pass "
      "--db FILE, or --db none to keep the trainings in memory only");
}

Expected<std::string> train_db_for_nas(const std::string& flag) {
  if (flag == "none") return std::string();
  if (!flag.empty()) {
    if (flag.find(',') != std::string::npos)
      return Status::invalid(
          fmt::format("--db '{}': the path may not contain ',' (it travels in the oracle spec)", flag));
    return flag;
  }
  auto path = default_train_db();
  if (!path) return path.status();
  if (path->find(',') != std::string::npos)
    return Status::invalid(
        fmt::format("the default results database {} has ',' in its path (the oracle spec's "
                    "separator): pass --db FILE or --db none",
                    *path));
  std::error_code ec;
  const auto dir = std::filesystem::path(*path).parent_path();
  std::filesystem::create_directories(dir, ec);
  if (ec)
    return Status::unavailable(
        fmt::format("cannot create {} for the results database ({}); pass --db FILE or --db "
                    "none",
                    dir.string(), ec.message()));
  return path;
}

}  // namespace rooflens::cli
