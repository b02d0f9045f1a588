// `rooflens` hands CUDA and LibTorch commands to `rooflens-full` beside it (entry.h).
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>

#include "entry.h"

namespace rooflens::cli {

void run_elsewhere_if_needed(int argc, char** argv) {
  if (!needs_full_program(argc, argv)) return;
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return;
  const std::string full = (self.parent_path() / "rooflens-full").string();
  if (::access(full.c_str(), X_OK) != 0) {
    // Not built (or not installed) beside this program: this program's stubs answer, and they
    // can only say what this program lacks, so say here where the full program was looked for.
    std::fprintf(stderr,
                 "rooflens: note: this command needs rooflens-full (CUDA and LibTorch), which is not at %s; "
                 "answering without them. Build it with the project (it is made when nvcc + cuDNN or LibTorch "
                 "are found) and keep it beside rooflens.\n",
                 full.c_str());
    return;
  }
  argv[0] = const_cast<char*>(full.c_str());
  ::execv(full.c_str(), argv);
  // Only reached when exec failed: carry on; this program's stubs answer.
  std::fprintf(stderr, "rooflens: warning: cannot run %s (%s); running without CUDA/LibTorch\n", full.c_str(),
               std::strerror(errno));
}

}  // namespace rooflens::cli
