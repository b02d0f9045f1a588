// Writing files so that a reader never sees a partial one.
#pragma once

#include <string>
#include <string_view>

#include "rooflens/util/status.h"

namespace rooflens {

// Writes `bytes` to a temporary file beside `path`, then renames it over `path`: either the
// whole new content is there or the old file (or nothing) is. A failure removes the
// temporary file and names the path and the reason.
Status write_file_atomic(const std::string& path, std::string_view bytes);

}  // namespace rooflens
