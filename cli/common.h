// CLI plumbing shared by subcommands: exit codes, error printing, atomic output.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "rooflens/util/status.h"

namespace rooflens::cli {

// Exit codes: 0 success, 2 bad input / unsupported (the user can fix it), 1 internal error.
inline constexpr int kExitOk = 0;
inline constexpr int kExitInternal = 1;
inline constexpr int kExitInput = 2;

int exit_code_for(const Status& s);
// Prints "rooflens: error: <message>" on stderr and returns the exit code.
int report_error(const Status& s);

// Writes `text` to `path` atomically (temp file + rename), or to stdout when path is empty
// or "-". A failure leaves no partial file.
Status write_output(const std::string& path, const std::string& text);

// `--batch N|max`: a positive integer (at most 2^24), or nullopt for max.
Expected<std::optional<int64_t>> parse_batch_or_max(const std::string& value);

// Directory holding the bundled models (models/zoo.json), found next to the binary or in
// the source tree; `override_dir` wins when not empty.
std::string models_dir(const std::string& override_dir);
// Directory of the device database (data/devices/*.json).
std::string devices_dir(const std::string& override_dir);
std::string bundled_dir(const std::string& sub, const std::string& marker, const std::string& override_dir);

// The file the oneDNN backend keeps its tactic choices in (ExecOptions::tactic_cache):
// ROOFLENS_TACTIC_CACHE when set ("off": "", nothing kept on disk), else
// $XDG_CACHE_HOME/rooflens/tactics.json, else ~/.cache/rooflens/tactics.json, else "".
std::string tactic_cache_path();

}  // namespace rooflens::cli
