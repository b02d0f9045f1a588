// Writing files so that a reader never sees a partial one, and checking an output path
// before any work is done for it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "rooflens/util/status.h"

namespace rooflens {

// Writes `bytes` to a temporary file beside `path`, then renames it over `path`: either the
// whole new content is there or the old file (or nothing) is. A failure removes the
// temporary file and names the path and the reason. A directory at `path` is refused
// before anything is written.
Status write_file_atomic(const std::string& path, std::string_view bytes);

// Whether `path` may be written as an output file: invalid when it names a directory, or
// the same file as one of `inputs` (by any name: links and relative paths are resolved), so
// that a command never replaces what it reads. `what` names the flag in the message
// ("-o"); inputs that are not existing files (device ids, "-") are ignored.
Status check_output_file(const std::string& path, const std::vector<std::string>& inputs = {},
                         std::string_view what = "output");

// Whether `path` may be used as an output directory: invalid when it exists and is not a
// directory. `what` names the flag ("--report").
Status check_output_dir(const std::string& path, std::string_view what = "output directory");

}  // namespace rooflens
