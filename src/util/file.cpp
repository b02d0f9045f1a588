// Atomic file writes (see file.h).
#include "rooflens/util/file.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace rooflens {

Status write_file_atomic(const std::string& path, std::string_view bytes) {
  namespace fs = std::filesystem;
  fs::path tmp(path);
  tmp += ".tmp" + std::to_string(::getpid());
  {
    std::ofstream f(tmp, std::ios::binary);
    if (!f) return Status::invalid(path + ": cannot open for writing");
    f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    f.flush();
    if (!f) {
      std::error_code ec;
      fs::remove(tmp, ec);
      return Status::invalid(path + ": write failed");
    }
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) {
    fs::remove(tmp, ec);
    return Status::invalid(path + ": cannot replace: " + ec.message());
  }
  return Status::ok();
}

}  // namespace rooflens
