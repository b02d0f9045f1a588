// RFC 4180 CSV records (see csv.h).
#include "rooflens/util/csv.h"

#include <fmt/format.h>

namespace rooflens {

Expected<std::vector<std::vector<std::string>>> parse_csv(const std::string& text, const std::string& file) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> row;
  std::string field;
  bool quoted = false, field_started = false;
  int line = 1;
  auto end_row = [&] {
    if (field_started || !row.empty()) {
      row.push_back(field);
      rows.push_back(row);
    } else {
      rows.push_back({});  // blank line: keep numbering aligned
    }
    row.clear();
    field.clear();
    field_started = false;
  };
  for (size_t i = 0; i < text.size(); ++i) {
    const char ch = text[i];
    if (quoted) {
      if (ch == '"') {
        if (i + 1 < text.size() && text[i + 1] == '"') {
          field += '"';
          ++i;
        } else {
          quoted = false;
        }
      } else {
        if (ch == '\n') ++line;
        field += ch;
      }
      continue;
    }
    if (ch == '"' && field.empty()) {
      quoted = field_started = true;
    } else if (ch == ',') {
      row.push_back(field);
      field.clear();
      field_started = true;
    } else if (ch == '\n') {
      end_row();
      ++line;
    } else if (ch != '\r') {
      field += ch;
      field_started = true;
    }
  }
  if (quoted) return Status::invalid(fmt::format("{}:{}: unterminated quoted field", file, line));
  if (field_started || !row.empty()) end_row();
  return rows;
}

}  // namespace rooflens
