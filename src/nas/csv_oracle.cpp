// CSV accuracy oracle (oracle.h): a user's table `arch,accuracy[,train_seconds]`, parsed
// once into a map from SSS index to accuracy and cost.
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>

#include <fmt/format.h>

#include "rooflens/nas/oracle.h"
#include "rooflens/nas/sss_space.h"
#include "rooflens/util/csv.h"

namespace rooflens::nas {
namespace {

std::string trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

std::optional<double> to_double(const std::string& t) {
  if (t.empty()) return std::nullopt;
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(t.c_str(), &end);
  if (end != t.c_str() + t.size() || errno == ERANGE) return std::nullopt;
  return v;
}

// An arch field: "8:16:24:32:40" or a decimal index.
Expected<int64_t> parse_arch(const std::string& field, const std::string& where) {
  const std::string t = trim(field);
  if (t.empty()) return Status::invalid(where + ": empty (expected an arch string like 8:16:24:32:40 or an index)");
  if (t.find(':') != std::string::npos) {
    auto idx = sss_index(t);
    if (!idx) return idx.status().with_context(where);
    return *idx;
  }
  if (!std::all_of(t.begin(), t.end(), [](unsigned char c) { return std::isdigit(c); }) || t.size() > 6)
    return Status::invalid(fmt::format("{}: '{}' is neither an arch string (8:16:24:32:40) nor an index 0..{}", where,
                                       t, kSssSpaceSize - 1));
  const int64_t idx = std::stoll(t);
  if (!sss_index_valid(idx))
    return Status::invalid(
        fmt::format("{}: index {} is outside the NATS-Bench SSS space (0..{})", where, idx, kSssSpaceSize - 1));
  return idx;
}

}  // namespace

Expected<std::unique_ptr<CsvOracle>> CsvOracle::load(const std::string& file, double default_cost_seconds) {
  std::error_code ec;
  if (std::filesystem::is_directory(file, ec))
    return Status::invalid(file + ": is a directory; expected the accuracy CSV file (arch,accuracy[,train_seconds])");
  std::ifstream in(file, std::ios::binary);
  if (!in) return Status::invalid(file + ": cannot open the accuracy CSV");
  std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  if (in.bad()) return Status::invalid(file + ": read error");
  return parse(text, file, default_cost_seconds);
}

Expected<std::unique_ptr<CsvOracle>> CsvOracle::parse(const std::string& text, const std::string& file,
                                                      double default_cost_seconds) {
  if (!std::isfinite(default_cost_seconds) || default_cost_seconds <= 0)
    return Status::invalid(
        fmt::format("{}: default cost {} s: must be a finite number > 0 (the simulated clock "
                    "must advance)",
                    file, default_cost_seconds));
  auto rows = parse_csv(text, file);
  if (!rows) return rows.status();
  // Row r of parse_csv is line r + 1 (blank lines are kept as empty rows).
  size_t h = 0;
  while (h < rows->size() && (*rows)[h].empty()) ++h;
  if (h == rows->size())
    return Status::invalid(file + ": empty file (expected a header line arch,accuracy[,train_seconds])");
  std::optional<size_t> c_arch, c_acc, c_cost;
  const auto& header = (*rows)[h];
  std::string header_text;
  for (size_t c = 0; c < header.size(); ++c) {
    std::string name = trim(header[c]);
    std::transform(name.begin(), name.end(), name.begin(), [](unsigned char ch) { return std::tolower(ch); });
    header_text += (c ? "," : "") + name;
    if (name == "arch" && !c_arch) c_arch = c;
    if (name == "accuracy" && !c_acc) c_acc = c;
    if (name == "train_seconds" && !c_cost) c_cost = c;
  }
  if (!c_arch || !c_acc)
    return Status::invalid(
        fmt::format("{}:{}: missing column '{}' (header is '{}'; expected "
                    "arch,accuracy[,train_seconds])",
                    file, h + 1, !c_arch ? "arch" : "accuracy", header_text));
  std::unique_ptr<CsvOracle> o(new CsvOracle());
  o->file_ = file;
  o->default_cost_seconds_ = default_cost_seconds;
  for (size_t r = h + 1; r < rows->size(); ++r) {
    const auto& row = (*rows)[r];
    if (row.empty()) continue;
    const int line = static_cast<int>(r + 1);
    const std::string where = fmt::format("{}:{}", file, line);
    const size_t need = std::max({*c_arch, *c_acc, c_cost.value_or(0)}) + 1;
    if (row.size() < need)
      return Status::invalid(fmt::format("{}: {} field(s), the header has {}", where, row.size(), header.size()));
    auto idx = parse_arch(row[*c_arch], where + " arch");
    if (!idx) return idx.status();
    Row out;
    out.line = line;
    const std::string acc_text = trim(row[*c_acc]);
    auto acc = to_double(acc_text);
    if (!acc) return Status::invalid(fmt::format("{} accuracy: '{}' is not a number", where, acc_text));
    if (!(*acc >= 0 && *acc <= 100))
      return Status::invalid(fmt::format("{} accuracy: {} is outside 0..100 (percent)", where, acc_text));
    out.accuracy = *acc;
    const std::string cost_text = c_cost ? trim(row[*c_cost]) : std::string();
    if (cost_text.empty()) {
      out.cost_seconds = default_cost_seconds;
      out.default_cost = true;
    } else {
      auto cost = to_double(cost_text);
      if (!cost || !std::isfinite(*cost) || *cost <= 0)
        return Status::invalid(
            fmt::format("{} train_seconds: '{}' is not a finite number of seconds > 0", where, cost_text));
      out.cost_seconds = *cost;
    }
    auto [it, fresh] = o->rows_.emplace(*idx, out);
    if (!fresh)
      return Status::invalid(fmt::format("{} arch: network {} ({}) is listed twice (first on line {})", where, *idx,
                                         sss_arch_string(*idx), it->second.line));
  }
  return o;
}

Expected<const CsvOracle::Row*> CsvOracle::find(int64_t arch_index) const {
  if (!sss_index_valid(arch_index))
    return Status::invalid(
        fmt::format("arch index {} is outside the NATS-Bench SSS space (0..{})", arch_index, kSssSpaceSize - 1));
  auto it = rows_.find(arch_index);
  if (it == rows_.end())
    return Status::unavailable(
        fmt::format("{}: no row for network {} ({})", file_, arch_index, sss_arch_string(arch_index)));
  return &it->second;
}

Expected<Evaluation> CsvOracle::evaluate(int64_t arch_index, uint64_t /*seed: the table is deterministic*/) {
  auto row = find(arch_index);
  if (!row) return row.status();
  Evaluation e;
  e.accuracy = (*row)->accuracy;
  e.cost_seconds = (*row)->cost_seconds;
  e.detail = fmt::format("{}:{}{}", file_, (*row)->line, (*row)->default_cost ? " (default cost)" : "");
  return e;
}

Expected<double> CsvOracle::final_accuracy(int64_t arch_index) {
  auto row = find(arch_index);
  if (!row) return row.status();
  return (*row)->accuracy;
}

std::string CsvOracle::describe() const {
  return fmt::format(
      "CSV accuracy oracle ({}, {} networks): accuracy = the table's value for both search and final; cost = "
      "train_seconds, or a fixed {} s per evaluation where the table has none",
      file_, rows_.size(), default_cost_seconds_);
}

}  // namespace rooflens::nas
