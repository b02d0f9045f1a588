// `rooflens study`: accuracy, throughput and utilization of a zoo on one device, their
// Pareto frontiers, AI against the CMR, FoldedCNN what-ifs, and the HTML report.
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include "commands.h"
#include "common.h"
#include "loading.h"
#include "rooflens/analysis/study_inputs.h"
#include "rooflens/analysis/study_run.h"
#include "rooflens/analysis/doctor.h"
#include "rooflens/exec/measure.h"
#include "rooflens/report/doctor_report.h"
#include "rooflens/report/study_html.h"
#include "rooflens/report/study_report.h"
#include "whatif_setup.h"

namespace rooflens::cli {

void add_study(CLI::App& app, StudyArgs& a) {
  auto* cmd = app.add_subcommand("study", "Accuracy, throughput and utilization of many models on one device: Pareto "
                                          "frontiers, AI vs CMR, FoldedCNN what-ifs, an HTML report");
  cmd->add_option("files", a.files, "ONNX model files (accuracy from --accuracy or the zoo manifest by file stem)");
  cmd->add_flag("--zoo", a.zoo, "every bundled zoo model");
  cmd->add_option("--models", a.models, "comma-separated bundled zoo model names");
  cmd->add_option("--device", a.device,
                  "device id or alias, a device .json file, or custom:... (default: v100; this-cpu with --source measured)");
  cmd->add_option("--dtype", a.dtype, "fp32, fp16, bf16, int8 or fp8 (default: fp16; fp32 with --source measured)");
  cmd->add_option("--batch", a.batch, "images per batch: N, or max (largest that fits the device; default max, 8 with --source measured)");
  cmd->add_option("--source", a.source, "predicted (performance model) or measured (this CPU through oneDNN)")
      ->check(CLI::IsMember({"predicted", "measured"}))->capture_default_str();
  cmd->add_option("--measurements", a.measurements,
                  "CSV of measured throughput per model (model,batch,throughput or timm's benchmark CSV); the models studied are its rows");
  cmd->add_option("--accuracy", a.accuracy, "CSV of accuracy per model (model,acc1[,acc5]); overrides the zoo manifest");
  cmd->add_option("--fold", a.fold, "comma-separated models to fold as well as those below the CMR");
  cmd->add_option("--fold-factor", a.fold_factor, "FoldedCNN factor f (an integer >= 2)")->capture_default_str();
  cmd->add_flag("--no-fold", a.no_fold, "skip the FoldedCNN what-if");
  cmd->add_option("--util-peak", a.util_peak, "utilization the plots and frontiers use: datasheet or measured (where the device has one)")
      ->check(CLI::IsMember({"datasheet", "measured"}))->capture_default_str();
  cmd->add_option("--report", a.report, "write index.html, study.json, study.csv and one SVG per figure into this directory");
  cmd->add_flag("--doctor", a.doctor, "with --report: run the doctor on every model and add its section (the largest "
                                      "gain per model) to index.html, and doctor.json");
  cmd->add_option("--format", a.format, "stdout: summary, table, csv or json")
      ->check(CLI::IsMember({"summary", "table", "csv", "json"}))->capture_default_str();
  cmd->add_option("-o,--output", a.output, "write stdout's text to this file (atomically)");
  cmd->add_option("--threads", a.threads, "threads for measured runs (default: all cores)");
  cmd->add_option("--max-seconds", a.max_seconds, "time cap per measured model")->capture_default_str();
  cmd->add_option("--jobs", a.jobs, "models analysed at once (default: one per core)");
  cmd->add_option("--devices-dir", a.devices_dir, "directory of device JSON files");
}

namespace {

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string t;
  while (std::getline(ss, t, ','))
    if (!t.empty()) out.push_back(t);
  return out;
}

Expected<std::string> read_file(const std::string& path, const char* what) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return Status::invalid(fmt::format("{} '{}': cannot open the file", what, path));
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// A loader over one imported graph: rebatching instead of re-parsing the file.
ModelLoader onnx_loader(const std::string& path, DType dtype) {
  auto base = std::make_shared<std::optional<Expected<Loaded>>>();
  return [path, dtype, base](int64_t batch) -> Expected<LoadedModel> {
    auto l = load_model_rebatched(path, dtype, batch, *base);
    if (!l) return l.status();
    return LoadedModel{std::move(l->graph), std::move(l->analysis)};
  };
}

struct Plan {
  std::vector<StudyEntry> entries;
  StudyOptions opts;
};

}  // namespace

int run_study(const StudyArgs& a) {
  const bool measured = a.source == "measured";
  if (measured && !a.measurements.empty())
    return report_error(Status::invalid("--source measured and --measurements exclude each other"));
  const std::string device = !a.device.empty() ? a.device : measured ? "this-cpu" : "v100";
  const std::string dtype_s = !a.dtype.empty() ? a.dtype : measured ? "fp32" : "fp16";
  auto dt = parse_dtype(dtype_s);
  if (!dt) return report_error(Status::invalid("--dtype '" + dtype_s + "': expected fp32, fp16, bf16, int8 or fp8"));
  if (measured && *dt != DType::kF32)
    return report_error(Status::unsupported("--source measured runs fp32 on this CPU; --dtype " + dtype_s + " cannot be measured here"));
  int fold_factor = 0;
  {
    char* end = nullptr;
    errno = 0;
    const long v = std::strtol(a.fold_factor.c_str(), &end, 10);
    if (a.fold_factor.empty() || *end != '\0' || errno == ERANGE || v < 2 || v > 1024)
      return report_error(Status::invalid("--fold-factor '" + a.fold_factor + "': must be an integer >= 2"));
    fold_factor = static_cast<int>(v);
  }
  if (a.doctor && a.report.empty())
    return report_error(Status::invalid("--doctor adds a section to the report page: give --report DIR"));
  const std::string batch_s = !a.batch.empty() ? a.batch : measured ? "8" : "max";
  auto batch_or_max = parse_batch_or_max(batch_s);
  if (!batch_or_max) return report_error(batch_or_max.status());
  const std::optional<int64_t> batch = *batch_or_max;

  auto db = load_device_dir(devices_dir(a.devices_dir));
  if (!db) return report_error(db.status());
  auto dev = resolve_device(device, *db);
  if (!dev) return report_error(dev.status());
  if (!dev->best_peak(dtype_s))
    return report_error(Status::unsupported("device '" + dev->id + "' has no " + dtype_s + " peak"));

  // Models: files, --models, --zoo, or the rows of a measurements file.
  const std::string mdir = models_dir("");
  auto zoo = zoo_index(mdir);
  std::vector<std::pair<std::string, std::string>> models;  // name, path
  std::set<std::string> names;
  auto add_model = [&](const std::string& name, const std::string& path, const std::string& where) -> Status {
    if (!names.insert(name).second) return Status::invalid(where + ": model '" + name + "' given twice");
    models.emplace_back(name, path);
    return Status::ok();
  };
  std::map<std::string, std::string> file_by_stem;
  for (const auto& f : a.files) {
    if (!std::filesystem::exists(f)) return report_error(Status::invalid("'" + f + "': no such file"));
    file_by_stem[std::filesystem::path(f).stem().string()] = f;
  }
  auto zoo_path = [&](const std::string& n) -> std::optional<std::string> {
    auto it = zoo.find(n);
    if (it == zoo.end()) return std::nullopt;
    return mdir + "/" + it->second.value("file", n + ".onnx");
  };
  std::map<std::string, MeasuredRow> given;
  if (!a.measurements.empty()) {
    auto text = read_file(a.measurements, "--measurements");
    if (!text) return report_error(text.status());
    auto rows = parse_measurements_csv(*text, a.measurements);
    if (!rows) return report_error(rows.status());
    for (const auto& r : *rows) {
      std::string path;
      if (auto f = file_by_stem.find(r.model); f != file_by_stem.end()) path = f->second;
      else if (auto z = zoo_path(r.model)) path = *z;
      else
        return report_error(Status::invalid(fmt::format("{}:{}: model '{}' is not in the zoo (rooflens zoo) nor among the "
                                                        "given files", a.measurements, r.line, r.model)));
      given[r.model] = r;
      Status s = add_model(r.model, path, a.measurements);
      if (!s) return report_error(s);
    }
  } else {
    for (const auto& f : a.files) {
      Status s = add_model(std::filesystem::path(f).stem().string(), f, "files");
      if (!s) return report_error(s);
    }
    for (const auto& n : split_list(a.models)) {
      auto z = zoo_path(n);
      if (!z) return report_error(Status::invalid("--models: '" + n + "' is not in the zoo (see rooflens zoo)"));
      Status s = add_model(n, *z, "--models");
      if (!s) return report_error(s);
    }
    if (a.zoo)
      for (const auto& [n, e] : zoo)
        if (!names.count(n)) models.emplace_back(n, *zoo_path(n)), names.insert(n);
  }
  if (models.empty()) return report_error(Status::invalid("study: give ONNX files, --models, --zoo or --measurements"));

  std::map<std::string, AccuracyRow> acc_csv;
  if (!a.accuracy.empty()) {
    auto text = read_file(a.accuracy, "--accuracy");
    if (!text) return report_error(text.status());
    auto rows = parse_accuracy_csv(*text, a.accuracy);
    if (!rows) return report_error(rows.status());
    for (const auto& r : *rows) acc_csv[r.model] = r;
  }
  std::set<std::string> fold_list;
  for (const auto& n : split_list(a.fold)) {
    if (!names.count(n)) return report_error(Status::invalid("--fold: '" + n + "' is not among the studied models"));
    fold_list.insert(n);
  }

  Plan plan;
  for (const auto& [name, path] : models) {
    StudyEntry e;
    e.name = name;
    e.load = onnx_loader(path, *dt);
    if (auto r = acc_csv.find(name); r != acc_csv.end()) {
      e.acc1 = r->second.acc1;
      e.acc5 = r->second.acc5;
      e.accuracy_source = a.accuracy;
    } else if (auto z = zoo.find(name); z != zoo.end() && z->second.contains("acc1") && z->second["acc1"].is_number()) {
      e.acc1 = z->second["acc1"].get<double>();
      if (z->second.contains("acc5") && z->second["acc5"].is_number()) e.acc5 = z->second["acc5"].get<double>();
      e.accuracy_source = "models/zoo.json";
    }
    if (auto g = given.find(name); g != given.end()) {
      e.given_throughput = g->second.throughput;
      e.given_batch = g->second.batch;
    }
    e.fold = fold_list.count(name) > 0;
    plan.entries.push_back(std::move(e));
  }

  StudyOptions& o = plan.opts;
  o.device = *dev;
  o.dtype = dtype_s;
  o.batch = batch;
  o.perf.dtype = dtype_s;
  o.utilization_measured_peak = a.util_peak == "measured";
  o.fold_factor = fold_factor;
  o.fold_below_cmr = !a.no_fold;
  o.jobs = a.jobs > 0 ? a.jobs : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  o.fold = [](const LoadedModel& l, int factor) -> Expected<LoadedModel> { return fold_loaded(l, factor); };
  const int threads = a.threads > 0 ? a.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  if (measured) {
    o.source = StudySource::kMeasured;
    auto backend = std::shared_ptr<Backend>(make_onednn_backend());
    if (!backend) return report_error(Status::unavailable("--source measured needs the oneDNN backend, which this build lacks"));
    o.source_detail = fmt::format("{} thread(s), median of repeated runs", threads);
    o.measure = [backend, threads, &a](const LoadedModel& l) -> Expected<MeasuredThroughput> {
      MeasureOptions mo;
      mo.exec.threads = threads;
      mo.timing.max_seconds = a.max_seconds;
      auto m = measure_model(l.graph, l.analysis, *backend, mo);
      if (!m) return m.status();
      return MeasuredThroughput{m->throughput, m->throughput_q1, m->throughput_q3};
    };
  } else if (!a.measurements.empty()) {
    o.source = StudySource::kMeasurements;
    o.source_detail = "measured throughput from " + a.measurements + "; utilization, AI and frontiers by rooflens";
  } else {
    o.source = StudySource::kPredicted;
    o.source_detail = "performance model over the device database; not measured";
  }
  o.progress = [](const std::string& m, size_t done, size_t total) {
    std::fprintf(stderr, "study: %s (%zu/%zu)\n", m.c_str(), done, total);
  };

  auto s = rooflens::run_study(plan.entries, o);
  if (!s) return report_error(s.status());
  if (measured && a.device.empty())
    s->notes.push_back("peaks and CMR from the database entry '" + dev->id + "', not from this machine: run `rooflens probe "
                       "cpu --out local.json` and pass --device local.json for this CPU's measured peaks");

  // The doctor on every model, at the study's device, dtype and batch (--doctor).
  std::string doctor_html, doctor_json;
  if (a.doctor) {
    std::vector<report::DoctorZooRow> rows;
    size_t i = 0;
    for (const auto& [name, path] : models) {
      std::fprintf(stderr, "study: doctor %s (%zu/%zu)\n", name.c_str(), ++i, models.size());
      report::DoctorZooRow row{name, std::nullopt, ""};
      auto setup = make_whatif_setup(path, dev->id, dtype_s, batch_s, {}, "", a.devices_dir);
      if (!setup) {
        row.error = setup.status().message();
      } else {
        auto rep = rooflens::run_doctor(name, (*setup)->load, doctor_options(**setup));
        if (rep) row.report = std::move(*rep);
        else row.error = rep.status().message();
      }
      rows.push_back(std::move(row));
    }
    const std::string setting = dev->id + ", " + dtype_s + ", batch " + batch_s;
    doctor_html = report::doctor_section_html(rows, setting);
    doctor_json = report::doctor_zoo_json(std::move(rows), dev->id, dtype_s, batch_s).dump(2) + "\n";
  }

  // Everything is computed before anything is written: a failure leaves no partial report.
  std::string json;  // rendered once, for the report and/or stdout
  if (!a.report.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(a.report, ec);
    if (ec) return report_error(Status::invalid("--report '" + a.report + "': cannot create the directory: " + ec.message()));
    const std::string html = report::study_html(*s, doctor_html);
    if (a.doctor) {
      Status w = write_output(a.report + "/doctor.json", doctor_json);
      if (!w) return report_error(w);
    }
    json = report::study_json(*s).dump(2) + "\n";
    const std::string csv = report::study_csv(*s);
    // The figures also as standalone SVG files (for slides and docs); index.html last, so a
    // report directory with an index.html is complete.
    for (const auto& [id, svg] : report::study_svgs(*s)) {
      Status w = write_output(a.report + "/" + id + ".svg", svg);
      if (!w) return report_error(w);
    }
    for (const auto& [file, text] : {std::pair<const char*, const std::string*>{"study.json", &json}, {"study.csv", &csv}, {"index.html", &html}}) {
      Status w = write_output(a.report + "/" + file, *text);
      if (!w) return report_error(w);
    }
  }
  std::string out;
  if (a.format == "json") out = !json.empty() ? json : report::study_json(*s).dump(2) + "\n";
  else if (a.format == "csv") out = report::study_csv(*s);
  else out = report::study_summary_text(*s);
  if (!a.report.empty() && a.format == "summary")
    out += fmt::format("report: {}\n", std::filesystem::absolute(std::filesystem::path(a.report) / "index.html").string());
  Status w = write_output(a.output, out);
  return w ? kExitOk : report_error(w);
}

}  // namespace rooflens::cli
