// A plain table rendered as aligned text or CSV (RFC 4180 quoting).
#pragma once

#include <string>
#include <vector>

namespace rooflens::report {

struct Table {
  std::vector<std::string> headers;  // each names its unit, e.g. "FLOPs (M)"
  std::vector<std::vector<std::string>> rows;
  std::vector<bool> numeric;  // right-align these columns in text
};

std::string render_text(const Table& t);
std::string render_csv(const Table& t);

// Number formatting shared by reports.
std::string fmt_scaled(double v, double scale, int decimals);  // v / scale with fixed decimals
std::string fmt_fixed(double v, int decimals);

}  // namespace rooflens::report
