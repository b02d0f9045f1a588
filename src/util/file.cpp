// Atomic file writes and output-path checks (see file.h).
#include "rooflens/util/file.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace rooflens {
namespace {

std::string quoted(std::string_view what, const std::string& path) { return std::string(what) + " '" + path + "'"; }

}  // namespace

Status check_output_file(const std::string& path, const std::vector<std::string>& inputs, std::string_view what) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (path.empty() || path == "-") return Status::ok();  // stdout
  if (fs::is_directory(path, ec))
    return Status::invalid(quoted(what, path) + ": is a directory; give the name of the file to write");
  if (!fs::exists(path, ec)) return Status::ok();
  for (const std::string& in : inputs) {
    if (in.empty() || in == "-") continue;
    std::error_code e2;
    if (fs::equivalent(path, in, e2))
      return Status::invalid(quoted(what, path) + ": is also an input ('" + in +
                             "'); refusing to overwrite it: write to another file");
  }
  return Status::ok();
}

Status check_output_dir(const std::string& path, std::string_view what) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!path.empty() && fs::exists(path, ec) && !fs::is_directory(path, ec))
    return Status::invalid(quoted(what, path) + ": exists and is not a directory; give a directory to write into");
  return Status::ok();
}

Status write_file_atomic(const std::string& path, std::string_view bytes) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_directory(path, ec)) return Status::invalid(path + ": is a directory; give the name of the file to write");
  fs::path tmp(path);
  tmp += ".tmp" + std::to_string(::getpid());
  {
    std::ofstream f(tmp, std::ios::binary);
    if (!f) return Status::invalid(path + ": cannot open for writing");
    f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    f.flush();
    if (!f) {
      fs::remove(tmp, ec);
      return Status::invalid(path + ": write failed");
    }
  }
  fs::rename(tmp, path, ec);
  if (ec) {
    const std::string why = ec.message();
    fs::remove(tmp, ec);
    return Status::invalid(path + ": cannot replace: " + why);
  }
  return Status::ok();
}

}  // namespace rooflens
