// Parsing the study's user files (see study_inputs.h).
#include "rooflens/analysis/study_inputs.h"

#include "rooflens/util/csv.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <map>
#include <set>

namespace rooflens {

namespace {

std::string trim(std::string s) {
  const auto b = s.find_first_not_of(" \t");
  const auto e = s.find_last_not_of(" \t");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

struct Header {
  std::map<std::string, size_t> col;
  std::optional<size_t> find(std::initializer_list<const char*> names) const {
    for (const char* n : names)
      if (auto it = col.find(n); it != col.end()) return it->second;
    return std::nullopt;
  }
};

Expected<double> number(const std::string& s, const std::string& where) {
  const std::string t = trim(s);
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(t.c_str(), &end);
  if (t.empty() || *end != '\0' || errno == ERANGE || !std::isfinite(v))
    return Status::invalid(where + ": '" + t + "' is not a number");
  return v;
}

// Rows after the header, skipping blank lines; each with its 1-based line number.
struct Body {
  Header header;
  std::vector<std::pair<int, std::vector<std::string>>> rows;
};

Expected<Body> body_of(const std::string& text, const std::string& file) {
  auto rows = parse_csv(text, file);
  if (!rows) return rows.status();
  Body b;
  size_t i = 0;
  while (i < rows->size() && (*rows)[i].empty()) ++i;
  if (i == rows->size()) return Status::invalid(file + ": empty file (expected a CSV header line)");
  for (size_t c = 0; c < (*rows)[i].size(); ++c) {
    std::string name = trim((*rows)[i][c]);
    std::transform(name.begin(), name.end(), name.begin(), [](unsigned char ch) { return std::tolower(ch); });
    b.header.col.emplace(name, c);
  }
  for (size_t r = i + 1; r < rows->size(); ++r)
    if (!(*rows)[r].empty()) b.rows.emplace_back(static_cast<int>(r + 1), (*rows)[r]);
  return b;
}

std::string header_list(const Header& h) {
  std::vector<std::pair<size_t, std::string>> v;
  for (const auto& [n, c] : h.col) v.emplace_back(c, n);
  std::sort(v.begin(), v.end());
  std::string s;
  for (const auto& [c, n] : v) s += (s.empty() ? "" : ",") + n;
  return s;
}

}  // namespace

Expected<std::vector<MeasuredRow>> parse_measurements_csv(const std::string& text, const std::string& file) {
  auto b = body_of(text, file);
  if (!b) return b.status();
  const auto model = b->header.find({"model"});
  const auto batch = b->header.find({"batch", "infer_batch_size"});
  const auto thr = b->header.find({"throughput", "infer_samples_per_sec"});
  if (!model || !batch || !thr)
    return Status::invalid(
        fmt::format("{}: missing column '{}' (header is '{}'; expected model,batch,throughput or "
                    "timm's model,infer_samples_per_sec,infer_batch_size)",
                    file,
                    !model   ? "model"
                    : !batch ? "batch"
                             : "throughput",
                    header_list(b->header)));
  std::vector<MeasuredRow> out;
  std::set<std::string> seen;
  for (const auto& [line, row] : b->rows) {
    const std::string where = fmt::format("{}:{}", file, line);
    const size_t need = std::max({*model, *batch, *thr});
    if (row.size() <= need)
      return Status::invalid(
          fmt::format("{}: {} field(s), the header has {}", where, row.size(), b->header.col.size()));
    MeasuredRow m;
    m.line = line;
    m.model = trim(row[*model]);
    if (m.model.empty()) return Status::invalid(where + ": empty model name");
    if (!seen.insert(m.model).second) return Status::invalid(where + ": model '" + m.model + "' is listed twice");
    auto bt = number(row[*batch], where + " batch");
    if (!bt) return bt.status();
    if (*bt < 1 || *bt != std::floor(*bt) || *bt > 1e9)
      return Status::invalid(fmt::format("{} batch: {} is not a positive integer", where, trim(row[*batch])));
    m.batch = static_cast<int64_t>(*bt);
    auto t = number(row[*thr], where + " throughput");
    if (!t) return t.status();
    if (*t <= 0)
      return Status::invalid(fmt::format("{} throughput: {} must be positive (images/s)", where, trim(row[*thr])));
    m.throughput = *t;
    out.push_back(m);
  }
  if (out.empty()) return Status::invalid(file + ": no measurement rows after the header");
  return out;
}

Expected<std::vector<AccuracyRow>> parse_accuracy_csv(const std::string& text, const std::string& file) {
  auto b = body_of(text, file);
  if (!b) return b.status();
  const auto model = b->header.find({"model", "name"});
  const auto acc1 = b->header.find({"acc1", "top1", "acc@1"});
  const auto acc5 = b->header.find({"acc5", "top5", "acc@5"});
  if (!model || !acc1)
    return Status::invalid(fmt::format("{}: missing column '{}' (header is '{}'; expected model,acc1[,acc5])", file,
                                       !model ? "model" : "acc1", header_list(b->header)));
  std::vector<AccuracyRow> out;
  std::set<std::string> seen;
  for (const auto& [line, row] : b->rows) {
    const std::string where = fmt::format("{}:{}", file, line);
    if (row.size() <= std::max(*model, *acc1) || (acc5 && row.size() <= *acc5))
      return Status::invalid(
          fmt::format("{}: {} field(s), the header has {}", where, row.size(), b->header.col.size()));
    AccuracyRow a;
    a.line = line;
    a.model = trim(row[*model]);
    if (!seen.insert(a.model).second) return Status::invalid(where + ": model '" + a.model + "' is listed twice");
    auto check = [&, &row = row](size_t col, const char* what) -> Expected<double> {
      auto v = number(row[col], where + " " + what);
      if (!v) return v.status();
      if (*v < 0 || *v > 100)
        return Status::invalid(fmt::format("{} {}: {} is outside 0..100 (percent)", where, what, *v));
      return *v;
    };
    auto a1 = check(*acc1, "acc1");
    if (!a1) return a1.status();
    a.acc1 = *a1;
    if (acc5 && !trim(row[*acc5]).empty()) {
      auto a5 = check(*acc5, "acc5");
      if (!a5) return a5.status();
      a.acc5 = *a5;
    }
    out.push_back(a);
  }
  return out;
}

}  // namespace rooflens
