// CLI plumbing (see common.h).
#include "common.h"

#include "rooflens/util/file.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace rooflens::cli {

int exit_code_for(const Status& s) {
  switch (s.code()) {
    case StatusCode::kOk: return kExitOk;
    case StatusCode::kInvalidInput:
    case StatusCode::kUnsupported:
    case StatusCode::kUnavailable: return kExitInput;
    case StatusCode::kInternal: return kExitInternal;
  }
  return kExitInternal;
}

int report_error(const Status& s) {
  const char* kind = s.code() == StatusCode::kInternal ? "internal error" : "error";
  std::fprintf(stderr, "rooflens: %s: %s\n", kind, s.message().c_str());
  return exit_code_for(s);
}

Status write_output(const std::string& path, const std::string& text) {
  if (path.empty() || path == "-") {
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
    return Status::ok();
  }
  return write_file_atomic(path, text);
}

Expected<std::optional<int64_t>> parse_batch_or_max(const std::string& value) {
  if (value == "max") return std::optional<int64_t>{};
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(value.c_str(), &end, 10);
  if (value.empty() || *end != '\0' || errno == ERANGE || v <= 0 || v > (int64_t{1} << 24))
    return Status::invalid("--batch '" + value + "': expected a positive integer or max");
  return std::optional<int64_t>{v};
}

std::string bundled_dir(const std::string& sub, const std::string& marker, const std::string& override_dir) {
  namespace fs = std::filesystem;
  if (!override_dir.empty()) return override_dir;
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    for (fs::path p : {exe.parent_path() / ".." / sub, exe.parent_path() / "../.." / sub,
                       exe.parent_path() / "../share/rooflens" / sub})
      if (fs::exists(p / marker, ec)) return fs::weakly_canonical(p, ec).string();
  }
  return (fs::path(ROOFLENS_SOURCE_DIR) / sub).string();
}

std::string tactic_cache_path() {
  if (const char* p = std::getenv("ROOFLENS_TACTIC_CACHE")) return std::string(p) == "off" ? "" : p;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/rooflens/tactics.json";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/rooflens/tactics.json";
  return "";
}

std::string models_dir(const std::string& override_dir) { return bundled_dir("models", "zoo.json", override_dir); }
std::string devices_dir(const std::string& override_dir) {
  return bundled_dir("data/devices", "v100-sxm2-16gb.json", override_dir);
}

}  // namespace rooflens::cli
