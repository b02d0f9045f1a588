// CLI plumbing shared by subcommands: exit codes, error printing, atomic output.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "rooflens/util/file.h"
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

// The largest batch a `--batch` flag accepts: 2^24 images, far beyond any device's memory,
// so that a typo of extra digits is refused rather than analysed.
inline constexpr int64_t kMaxBatch = int64_t{1} << 24;

// Flag checks CLI11 runs on a given value (never on the default), so that `--threads 0`
// and `--max-seconds -1` are refused with the rule: "--threads: 0: must be an integer >= 1
// (omit the flag for all cores)".
CLI::Validator at_least_one(const std::string& when_omitted);
CLI::Validator positive_seconds();

// `--batch N|max`: a positive integer (at most kMaxBatch), or nullopt for max.
Expected<std::optional<int64_t>> parse_batch_or_max(const std::string& value);

// The format a command writes: `format` when given (not empty); otherwise the one the
// extension of `output` names (.json, .csv) or else `fallback`. Invalid when the extension
// names another format than --format, or a format not in `allowed`, so that `-o m.json`
// never holds a table.
Expected<std::string> output_format(const std::string& format, const std::string& output,
                                    const std::vector<std::string>& allowed, const std::string& fallback = "table");

// The -o and --format of a command that reads `inputs`, checked before any work: refuses
// an -o that is a directory or one of the inputs (rooflens::check_output_file) and a
// --format its extension contradicts (output_format); then sets `format` to what to write.
Status resolve_output(std::string& format, const std::string& output, const std::vector<std::string>& allowed,
                      const std::vector<std::string>& inputs, const std::string& fallback = "table");

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
