// CLI plumbing (see common.h).
#include "common.h"

#include "rooflens/util/file.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
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

CLI::Validator at_least_one(const std::string& when_omitted) {
  return CLI::Validator(
      [when_omitted](std::string& v) -> std::string {
        const bool digits = !v.empty() && v.size() <= 9 && v.find_first_not_of("0123456789") == std::string::npos;
        if (digits && std::stoll(v) >= 1) return "";
        return v + ": must be an integer >= 1 (omit the flag for " + when_omitted + ")";
      },
      "INT>=1");
}

CLI::Validator positive_seconds() {
  return CLI::Validator(
      [](std::string& v) -> std::string {
        char* end = nullptr;
        const double x = std::strtod(v.c_str(), &end);
        if (!v.empty() && *end == '\0' && x > 0 && x < 1e9) return "";
        return v + ": must be a positive number of seconds";
      },
      "SECONDS>0");
}

Expected<std::optional<int64_t>> parse_batch_or_max(const std::string& value) {
  if (value == "max") return std::optional<int64_t>{};
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(value.c_str(), &end, 10);
  if (value.empty() || *end != '\0' || errno == ERANGE || v <= 0 || v > kMaxBatch)
    return Status::invalid("--batch '" + value + "': expected an integer from 1 to " + std::to_string(kMaxBatch) +
                           " (2^24), or max");
  return std::optional<int64_t>{v};
}

Expected<std::string> output_format(const std::string& format, const std::string& output,
                                    const std::vector<std::string>& allowed, const std::string& fallback) {
  std::string ext = std::filesystem::path(output).extension().string();
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const std::string named = ext == ".json" ? "json" : ext == ".csv" ? "csv" : "";
  auto list = [&] {
    std::string s;
    for (size_t i = 0; i < allowed.size(); ++i)
      s += (i == 0 ? "" : i + 1 == allowed.size() ? " or " : ", ") + allowed[i];
    return s;
  };
  if (!named.empty() && !format.empty() && format != named)
    return Status::invalid("-o '" + output + "' names a " + named + " file but --format is " + format +
                           ": give --format " + named + " or another file name");
  if (!format.empty()) return format;
  if (named.empty()) return fallback;
  if (std::find(allowed.begin(), allowed.end(), named) == allowed.end())
    return Status::invalid("-o '" + output + "' names a " + named + " file, but this command writes " + list() +
                           ": give --format or another file name");
  return named;
}

Status resolve_output(std::string& format, const std::string& output, const std::vector<std::string>& allowed,
                      const std::vector<std::string>& inputs, const std::string& fallback) {
  ROOFLENS_RETURN_IF_ERROR(check_output_file(output, inputs, "-o"));
  auto f = output_format(format, output, allowed, fallback);
  if (!f) return f.status();
  format = *f;
  return Status::ok();
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
