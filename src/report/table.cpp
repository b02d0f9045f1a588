// Text and CSV rendering of tables.
#include "rooflens/report/table.h"

#include <fmt/format.h>

#include <algorithm>

namespace rooflens::report {

std::string render_text(const Table& t) {
  std::vector<size_t> w(t.headers.size(), 0);
  for (size_t i = 0; i < t.headers.size(); ++i) w[i] = t.headers[i].size();
  for (const auto& r : t.rows)
    for (size_t i = 0; i < r.size() && i < w.size(); ++i) w[i] = std::max(w[i], r[i].size());
  auto line = [&](const std::vector<std::string>& cells) {
    std::string s;
    for (size_t i = 0; i < w.size(); ++i) {
      const std::string c = i < cells.size() ? cells[i] : "";
      const bool right = i < t.numeric.size() && t.numeric[i];
      if (i) s += "  ";
      s += right ? fmt::format("{:>{}}", c, w[i]) : fmt::format("{:<{}}", c, w[i]);
    }
    while (!s.empty() && s.back() == ' ') s.pop_back();
    return s + "\n";
  };
  std::string out = line(t.headers);
  size_t total = 0;
  for (size_t x : w) total += x + 2;
  out += std::string(total > 2 ? total - 2 : 0, '-') + "\n";
  for (const auto& r : t.rows) out += line(r);
  return out;
}

static std::string csv_cell(const std::string& c) {
  if (c.find_first_of(",\"\n") == std::string::npos) return c;
  std::string q = "\"";
  for (char ch : c) {
    if (ch == '"') q += '"';
    q += ch;
  }
  return q + "\"";
}

std::string render_csv(const Table& t) {
  std::string out;
  auto line = [&](const std::vector<std::string>& cells) {
    for (size_t i = 0; i < cells.size(); ++i) {
      if (i) out += ',';
      out += csv_cell(cells[i]);
    }
    out += '\n';
  };
  line(t.headers);
  for (const auto& r : t.rows) line(r);
  return out;
}

std::string fmt_scaled(double v, double scale, int decimals) { return fmt::format("{:.{}f}", v / scale, decimals); }
std::string fmt_fixed(double v, int decimals) { return fmt::format("{:.{}f}", v, decimals); }

}  // namespace rooflens::report
