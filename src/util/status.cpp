// Status names and the internal-invariant failure handler.
#include "rooflens/util/status.h"

#include <cstdio>
#include <cstdlib>

namespace rooflens {

const char* status_code_name(StatusCode code) {
  switch (code) {
    case StatusCode::kOk: return "ok";
    case StatusCode::kInvalidInput: return "invalid input";
    case StatusCode::kUnsupported: return "unsupported";
    case StatusCode::kUnavailable: return "unavailable";
    case StatusCode::kInternal: return "internal error";
  }
  return "unknown";
}

void assert_fail(const char* cond, const char* file, int line) {
  std::fprintf(stderr, "rooflens: internal invariant failed: %s (%s:%d)\n", cond, file, line);
  std::abort();
}

}  // namespace rooflens
