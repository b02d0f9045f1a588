// CSV text split into records and fields, as the study's and the NAS oracle's user files
// are read.
#pragma once

#include <string>
#include <vector>

#include "rooflens/util/status.h"

namespace rooflens {

// Every line of `text` split into fields (RFC 4180 quoting: "" inside quotes is one quote,
// a quoted field may span lines). Row r is line r + 1 of the file (a blank line is an empty
// row, so numbers stay aligned). Invalid input on an unterminated quoted field, naming
// `file` and the line it starts counting from.
Expected<std::vector<std::vector<std::string>>> parse_csv(const std::string& text, const std::string& file);

}  // namespace rooflens
