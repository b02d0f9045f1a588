// `rooflens validate --engine E --measurements FILE`: the performance model with one engine
// profile beside a recorded GPU corpus (analysis/corpus.h), per point, per model and per split.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "commands.h"
#include "common.h"
#include "loading.h"
#include "rooflens/analysis/corpus.h"
#include "rooflens/perf/model.h"
#include "rooflens/report/table.h"

namespace rooflens::cli {
namespace {

std::string summary_line(const std::string& what, const ValidationSummary& s) {
  return fmt::format("{}: {} points, median |error| {:.1f}%, within +-25% {:.0f}%, Spearman {:.3f}\n", what, s.n,
                     100 * s.median_abs_error, 100 * s.within_25, s.spearman);
}

nlohmann::json summary_json(const ValidationSummary& s) {
  return {{"n", s.n},
          {"median_abs_error", s.median_abs_error},
          {"within_25", s.within_25},
          {"within_10", s.within_10},
          {"spearman", s.spearman}};
}

std::string render(const CorpusReport& rep, const std::string& file, bool json) {
  if (json) {
    nlohmann::json j = {{"schema", "rooflens.validate-corpus/1"}, {"engine", rep.engine}, {"corpus", file}};
    j["all"] = summary_json(rep.all);
    for (const auto& [k, s] : rep.by_split) j["by_split"][k] = summary_json(s);
    for (const auto& [k, s] : rep.by_model) j["by_model"][k] = summary_json(s);
    for (const auto& [k, s] : rep.by_device) j["by_device"][k] = summary_json(s);
    j["points"] = nlohmann::json::array();
    for (const auto& p : rep.points)
      j["points"].push_back({{"line", p.row.line},
                             {"model", p.row.model},
                             {"device", p.row.device},
                             {"dtype", p.row.dtype},
                             {"batch", p.row.batch},
                             {"mode", p.row.mode},
                             {"split", p.row.split},
                             {"measured", p.row.throughput},
                             {"predicted", p.predicted},
                             {"source", p.row.source}});
    return j.dump(2) + "\n";
  }
  report::Table t;
  t.headers = {"model",    "device", "dtype", "batch", "mode", "split", "measured (img/s)", "predicted (img/s)",
               "pred/meas"};
  t.numeric = {false, false, false, true, false, false, true, true, true};
  for (const auto& p : rep.points)
    t.rows.push_back({p.row.model, p.row.device, p.row.dtype, std::to_string(p.row.batch),
                      p.row.mode.empty() ? "-" : p.row.mode, p.row.split, report::fmt_fixed(p.row.throughput, 0),
                      report::fmt_fixed(p.predicted, 0), report::fmt_fixed(p.predicted / p.row.throughput, 2)});
  std::string out =
      fmt::format("predictions (performance model, engine {}) beside the recorded corpus {}\n\n", rep.engine, file) +
      report::render_text(t) + "\n";
  for (const auto& [k, s] : rep.by_model) out += summary_line("model " + k, s);
  for (const auto& [k, s] : rep.by_device) out += summary_line("device " + k, s);
  for (const auto& [k, s] : rep.by_split) out += summary_line("split " + k, s);
  out += summary_line("all", rep.all);
  return out;
}

}  // namespace

int run_validate_corpus(const ValidateArgs& args) {
  ValidateArgs a = args;
  if (Status s = resolve_output(a.format, a.output, {"table", "json"}, {a.measurements}); !s) return report_error(s);
  std::ifstream f(a.measurements);
  if (!f) return report_error(Status::invalid("--measurements '" + a.measurements + "': cannot read the file"));
  std::stringstream ss;
  ss << f.rdbuf();
  auto rows = read_corpus_csv(ss.str(), a.measurements);
  if (!rows) return report_error(rows.status());
  auto db = load_device_dir(devices_dir(a.devices_dir));
  if (!db) return report_error(db.status());
  const std::string engine_id = a.engine.empty() ? "tensorrt" : a.engine;
  if (std::filesystem::path(engine_id).extension() != ".json") {
    auto engines = load_engine_dir(bundled_dir("data/engines", "tensorrt.json", ""));
    if (!engines) return report_error(engines.status());
    if (auto e = find_engine(engine_id, *engines); !e) return report_error(e.status());
  }
  const std::string mdir = models_dir("");
  // Every row of the engine resolved before any prediction: a bad row is refused up front.
  std::map<std::string, ModelSession> sessions;
  std::map<int, std::pair<DeviceSpec, EngineProfile>> setting;
  std::string engine_name = engine_id;
  for (const CorpusRow& r : *rows) {
    if (r.engine != std::filesystem::path(engine_id).stem().string()) continue;
    const std::string where = a.measurements + ":" + std::to_string(r.line);
    auto dev = resolve_device(r.device, *db);
    if (!dev) return report_error(dev.status().with_context(where));
    if (!dev->best_peak(r.dtype))
      return report_error(Status::invalid(where + ": device '" + dev->id + "' has no " + r.dtype + " peak"));
    auto eng = resolve_engine(engine_id, *dev);
    if (!eng) return report_error(eng.status().with_context(where));
    if (!r.mode.empty()) eng->captured = r.mode == "graph";
    engine_name = eng->id;
    const std::string path = mdir + "/" + r.model + ".onnx";
    if (!std::filesystem::exists(path))
      return report_error(Status::invalid(where + ": model '" + r.model + "' is not in the zoo (" + mdir + ")"));
    if (!sessions.count(r.model)) sessions.emplace(r.model, ModelSession::from_file(path));
    setting.emplace(r.line, std::make_pair(std::move(*dev), std::move(*eng)));
  }
  auto rep = compare_corpus(*rows, engine_name, [&](const CorpusRow& r) -> Expected<double> {
    const auto& [dev, eng] = setting.at(r.line);
    auto dt = parse_dtype_arg("dtype", r.dtype);
    if (!dt) return dt.status();
    auto m = sessions.at(r.model).model(r.batch, *dt);
    if (!m) return m.status();
    PerfOptions po;
    po.dtype = r.dtype;
    po.engine = eng;
    auto p = predict(m->graph, m->analysis, dev, po);
    if (!p) return p.status();
    return p->throughput;
  });
  if (!rep) return report_error(rep.status());
  Status w = write_output(a.output, render(*rep, a.measurements, a.format == "json"));
  return w ? kExitOk : report_error(w);
}

}  // namespace rooflens::cli
