// Which arguments need `rooflens-full` (entry.h).
#include <string_view>

#include "entry.h"

namespace rooflens::cli {

bool needs_full_program(int argc, const char* const* argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    const std::string_view prev = i > 1 ? std::string_view(argv[i - 1]) : std::string_view();
    if (a == "--backend=cuda" || (prev == "--backend" && a == "cuda")) return true;  // CUDA backend
    if (i == 2 && std::string_view(argv[1]) == "probe" && a == "gpu") return true;   // GPU probe
    if (a.rfind("train:", 0) == 0 || a.rfind("--oracle=train:", 0) == 0) return true;  // trainer
  }
  return false;
}

}  // namespace rooflens::cli
