// Corpus CSV and its comparison with predictions (analysis/corpus.h).
#include "rooflens/analysis/corpus.h"

#include <cerrno>
#include <cstdlib>

#include "rooflens/util/csv.h"

namespace rooflens {
namespace {

std::string trim(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t\r");
  if (a == std::string::npos) return "";
  return s.substr(a, s.find_last_not_of(" \t\r") - a + 1);
}

std::map<std::string, ValidationSummary> summaries(const std::map<std::string, std::vector<ValidationPoint>>& groups) {
  std::map<std::string, ValidationSummary> out;
  for (const auto& [k, pts] : groups) out[k] = summarize(pts);
  return out;
}

}  // namespace

Expected<std::vector<CorpusRow>> read_corpus_csv(const std::string& text, const std::string& file) {
  auto recs = parse_csv(text, file);
  if (!recs) return recs.status();
  if (recs->empty()) return Status::invalid(file + ": empty corpus (no header line)");
  std::map<std::string, size_t> col;
  for (size_t i = 0; i < (*recs)[0].size(); ++i) col[trim((*recs)[0][i])] = i;
  for (const char* need : {"model", "device", "dtype", "batch", "engine", "throughput", "source"})
    if (!col.count(need))
      return Status::invalid(file + ":1: the corpus has no '" + need +
                             "' column (needs model, device, dtype, batch, engine, throughput, source)");
  std::vector<CorpusRow> rows;
  for (size_t r = 1; r < recs->size(); ++r) {
    const auto& f = (*recs)[r];
    if (f.empty() || (f.size() == 1 && trim(f[0]).empty())) continue;
    if (!f.empty() && trim(f[0]).rfind('#', 0) == 0) continue;
    const std::string where = file + ":" + std::to_string(r + 1);
    auto get = [&](const std::string& c) { return col.count(c) && col[c] < f.size() ? trim(f[col[c]]) : ""; };
    CorpusRow row;
    row.line = static_cast<int>(r + 1);
    row.model = get("model");
    row.device = get("device");
    row.dtype = get("dtype");
    row.engine = get("engine");
    row.source = get("source");
    row.mode = get("mode");
    row.split = get("split").empty() ? "fit" : get("split");
    row.note = get("note");
    const std::pair<const char*, const std::string*> required[] = {{"model", &row.model},
                                                                   {"device", &row.device},
                                                                   {"dtype", &row.dtype},
                                                                   {"engine", &row.engine},
                                                                   {"source", &row.source}};
    for (const auto& [name, v] : required)
      if (v->empty()) return Status::invalid(where + ": column '" + name + "' is empty");
    if (!row.mode.empty() && row.mode != "eager" && row.mode != "graph")
      return Status::invalid(where + ": mode '" + row.mode + "' is not eager or graph");
    const std::string b = get("batch"), t = get("throughput");
    char* end = nullptr;
    errno = 0;
    const long long bv = std::strtoll(b.c_str(), &end, 10);
    if (b.empty() || *end != '\0' || errno == ERANGE || bv <= 0)
      return Status::invalid(where + ": batch '" + b + "' is not a positive integer");
    row.batch = bv;
    end = nullptr;
    const double tv = std::strtod(t.c_str(), &end);
    if (t.empty() || *end != '\0' || !(tv > 0))
      return Status::invalid(where + ": throughput '" + t + "' is not a positive number (images/s)");
    row.throughput = tv;
    rows.push_back(std::move(row));
  }
  return rows;
}

Expected<CorpusReport> compare_corpus(const std::vector<CorpusRow>& rows, const std::string& engine,
                                      const std::function<Expected<double>(const CorpusRow&)>& predict) {
  CorpusReport rep;
  rep.engine = engine;
  std::vector<ValidationPoint> all;
  std::map<std::string, std::vector<ValidationPoint>> split, model, device;
  for (const CorpusRow& r : rows) {
    if (r.engine != engine) continue;
    auto p = predict(r);
    if (!p) return p.status().with_context("corpus line " + std::to_string(r.line));
    rep.points.push_back({r, *p});
    const ValidationPoint vp{r.model + "/" + r.device + "/b" + std::to_string(r.batch), r.throughput, *p};
    all.push_back(vp);
    split[r.split].push_back(vp);
    model[r.model].push_back(vp);
    device[r.device].push_back(vp);
  }
  if (all.empty()) return Status::invalid("the corpus has no row for engine '" + engine + "'");
  rep.all = summarize(all);
  rep.by_split = summaries(split);
  rep.by_model = summaries(model);
  rep.by_device = summaries(device);
  return rep;
}

}  // namespace rooflens
