// `rooflens study`: accuracy, throughput and utilization of a zoo on one device, their
// Pareto frontiers, AI against the CMR, FoldedCNN what-ifs, and the HTML report.
#include <fmt/format.h>

#include <filesystem>
#include <sstream>
#include <thread>
#include <tuple>

#include "backend_choice.h"
#include "commands.h"
#include "common.h"
#include "loading.h"
#include "rooflens/analysis/doctor.h"
#include "rooflens/analysis/study_run.h"
#include "rooflens/exec/measure.h"
#include "rooflens/report/doctor_report.h"
#include "rooflens/report/study_html.h"
#include "rooflens/report/study_report.h"
#include "rooflens/session/study_request.h"
#include "whatif_setup.h"

namespace rooflens::cli {

void add_study(CLI::App& app, StudyArgs& a) {
  auto* cmd = app.add_subcommand("study",
                                 "Accuracy, throughput and utilization of many models on one device: Pareto "
                                 "frontiers, AI vs CMR, FoldedCNN what-ifs, an HTML report");
  cmd->add_option("files", a.files, "ONNX model files (accuracy from --accuracy or the zoo manifest by file stem)");
  cmd->add_option_function<std::vector<std::string>>(
         "--zoo",
         [&a](const std::vector<std::string>& v) {
           a.zoo = true;
           a.zoo_set = v.empty() || v[0].empty() ? "torchvision" : v[0];
         },
         "every model of a bundled zoo: torchvision (the default), timm, or all")
      ->expected(0, 1);
  cmd->add_option(
      "--models", a.models,
      "comma-separated bundled zoo model names (timm's as timm/NAME); with --zoo, studied besides that whole zoo");
  cmd->add_option(
      "--device", a.device,
      "device id or alias, a device .json file, or custom:... (default: v100; this-cpu with --source measured)");
  cmd->add_option("--dtype", a.dtype, "fp32, fp16, bf16, int8 or fp8 (default: fp16; fp32 with --source measured)");
  cmd->add_option("--batch", a.batch,
                  "images per batch: N, or max (largest that fits the device; default max, 8 with --source measured)");
  cmd->add_option("--source", a.source,
                  "predicted (performance model) or measured (this CPU through oneDNN, or the GPU at hand with "
                  "--backend cuda)")
      ->check(CLI::IsMember({"predicted", "measured"}))
      ->capture_default_str();
  cmd->add_option("--backend", a.backend,
                  "--source measured: cpu (oneDNN, fp32) or cuda (cuDNN/cuBLAS on the GPU at hand; default dtype "
                  "fp16, batch 256, device the GPU's database entry)")
      ->check(CLI::IsMember({"cpu", "cuda"}))
      ->capture_default_str();
  cmd->add_flag("--graph", a.graph, "--backend cuda: time each model as one CUDA graph replay");
  cmd->add_option("--measurements", a.measurements,
                  "CSV of measured throughput per model (model,batch,throughput or timm's benchmark CSV); the models "
                  "studied are its rows");
  cmd->add_option("--accuracy", a.accuracy,
                  "CSV of accuracy per model (model,acc1[,acc5]); overrides the zoo manifest");
  cmd->add_option("--fold", a.fold, "comma-separated models to fold as well as those below the CMR");
  cmd->add_option("--fold-factor", a.fold_factor, "FoldedCNN factor f (an integer >= 2)")->capture_default_str();
  cmd->add_flag("--no-fold", a.no_fold, "skip the FoldedCNN what-if");
  cmd->add_option("--util-peak", a.util_peak,
                  "utilization the plots and frontiers use: datasheet or measured (where the device has one)")
      ->check(CLI::IsMember({"datasheet", "measured"}))
      ->capture_default_str();
  cmd->add_option("--report", a.report,
                  "write index.html, study.json, study.csv and one SVG per figure into this directory");
  cmd->add_flag("--doctor", a.doctor,
                "with --report: run the doctor on every model and add its section (the largest "
                "gain per model) to index.html, and doctor.json");
  cmd->add_option("--format", a.format,
                  "stdout: summary, table, csv or json (default: from -o's extension, else summary)")
      ->check(CLI::IsMember({"summary", "table", "csv", "json"}));
  cmd->add_option("-o,--output", a.output, "write stdout's text to this file (atomically)");
  cmd->add_option("--threads", a.threads, "threads for measured runs (default: every CPU this process may use)")
      ->check(at_least_one("all cores"));
  cmd->add_option("--max-seconds", a.max_seconds, "time cap per measured model")
      ->check(positive_seconds())
      ->capture_default_str();
  cmd->add_option("--jobs", a.jobs, "models analysed at once (default: one per core)");
  cmd->add_option("--devices-dir", a.devices_dir, "directory of device JSON files");
  add_engine_option(cmd, &a.engine);
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

// The flags with their defaults filled in (they depend on --source) and checked.
struct Setting {
  bool measured = false;
  bool cuda = false;     // measured on the GPU at hand
  std::string gpu_name;  // its name (cuda)
  std::string dtype;     // fp16, fp32, ...
  DType dt = DType::kF16;
  int fold_factor = 4;
  std::string batch;               // as given: N or max
  std::optional<int64_t> batch_n;  // nullopt: max
  DeviceSpec device;
  EngineProfile engine;  // the execution GPU predictions describe
};

Expected<Setting> parse_setting(const StudyArgs& a) {
  Setting st;
  st.measured = a.source == "measured";
  if (st.measured && !a.measurements.empty())
    return Status::invalid("--source measured and --measurements exclude each other");
  st.cuda = a.backend == "cuda";
  if (!st.measured && (st.cuda || a.graph)) return Status::invalid("--backend and --graph need --source measured");
  if (!st.cuda && a.graph) return Status::invalid("--graph needs --backend cuda");
  std::string device = !a.device.empty() ? a.device : st.measured ? "this-cpu" : "v100";
  if (st.cuda) {
    auto gpu = gpu_at_hand(a.device, a.devices_dir);
    if (!gpu) return gpu.status();
    device = gpu->device;
    st.gpu_name = gpu->name;
  }
  st.dtype = !a.dtype.empty() ? a.dtype : st.measured && !st.cuda ? "fp32" : "fp16";
  auto dt = parse_dtype_arg("--dtype", st.dtype);
  if (!dt) return dt.status();
  st.dt = *dt;
  if (st.measured && !st.cuda && st.dt != DType::kF32)
    return Status::unsupported("--source measured runs fp32 on this CPU; --dtype " + st.dtype +
                               " cannot be measured here (--backend cuda measures fp16 on a GPU)");
  if (st.cuda && st.dt != DType::kF32 && st.dt != DType::kF16)
    return Status::unsupported("--backend cuda measures fp16 or fp32, not " + st.dtype);
  char* end = nullptr;
  errno = 0;
  const long v = std::strtol(a.fold_factor.c_str(), &end, 10);
  if (a.fold_factor.empty() || *end != '\0' || errno == ERANGE || v < 2 || v > 1024)
    return Status::invalid("--fold-factor '" + a.fold_factor + "': must be an integer >= 2");
  st.fold_factor = static_cast<int>(v);
  if (a.doctor && a.report.empty())
    return Status::invalid("--doctor adds a section to the report page: give --report DIR");
  st.batch = !a.batch.empty() ? a.batch : st.cuda ? "256" : st.measured ? "8" : "max";
  auto batch_or_max = parse_batch_or_max(st.batch);
  if (!batch_or_max) return batch_or_max.status();
  st.batch_n = *batch_or_max;
  auto dev = device_with_peak(device, a.devices_dir, st.dtype);
  if (!dev) return dev.status();
  st.device = std::move(*dev);
  if (st.measured && st.cuda != st.device.is_gpu())
    return Status::invalid("--device '" + device + "' " +
                           (st.cuda ? "is not a GPU: --backend cuda measures on '" + st.gpu_name + "'"
                                    : "is a GPU: --source measured runs on this CPU (--backend cuda for a GPU)"));
  auto engine = resolve_engine(a.engine, st.device);
  if (!engine) return engine.status();
  st.engine = std::move(*engine);
  return st;
}

Expected<ResolvedStudy> resolve_models(const StudyArgs& a, const Setting& st) {
  StudyRequest request;
  request.files = a.files;
  request.models = split_list(a.models);
  request.zoo = a.zoo;
  auto zoo_set = parse_zoo_set(a.zoo_set);
  if (!zoo_set) return zoo_set.status();
  request.zoo_set = *zoo_set;
  request.measurements_csv = a.measurements;
  request.accuracy_csv = a.accuracy;
  request.fold = split_list(a.fold);
  request.dtype = st.dt;
  request.models_dir = models_dir("");
  return resolve_study_request(request);
}

Expected<StudyOptions> study_options(const StudyArgs& a, const Setting& st) {
  StudyOptions o;
  o.device = st.device;
  o.dtype = st.dtype;
  o.batch = st.batch_n;
  o.perf.dtype = st.dtype;
  o.perf.engine = st.engine;
  o.utilization_measured_peak = a.util_peak == "measured";
  o.fold_factor = st.fold_factor;
  o.fold_below_cmr = !a.no_fold;
  o.jobs = measure_threads(a.jobs);
  o.fold = [](const LoadedModel& l, int factor) { return fold_model(l, factor); };
  const int threads = measure_threads(a.threads);
  if (st.measured && st.cuda) {
    const BackendChoice choice{"cuda", st.dt, a.graph};
    measure_study_on(o, backend_factory(choice), true, ExecOptions{}, a.max_seconds,
                     fmt::format("{} through the cuda backend ({}, {})", st.gpu_name, st.dtype,
                                 a.graph ? "one CUDA graph per batch" : "layer by layer"));
  } else if (st.measured) {
    if (!make_onednn_backend())
      return Status::unavailable("--source measured needs the oneDNN backend, which this build lacks");
    ExecOptions exec;
    exec.threads = threads;
    exec.tactic_cache = tactic_cache_path();
    measure_study_on(o, backend_factory(BackendChoice{"onednn", DType::kF32, false}), false, exec, a.max_seconds,
                     fmt::format("this CPU through the oneDNN backend ({} thread(s))", threads));
  } else if (!a.measurements.empty()) {
    o.source = StudySource::kMeasurements;
    o.source_detail = "measured throughput from " + a.measurements + "; utilization, AI and frontiers by rooflens";
  } else {
    o.source = StudySource::kPredicted;
    o.source_detail = "performance model over the device database; not measured" +
                      (st.device.is_gpu() ? "; engine " + st.engine.id : std::string());
  }
  o.progress = [](const std::string& m, size_t done, size_t total) {
    std::fprintf(stderr, "study: %s (%zu/%zu)\n", m.c_str(), done, total);
  };
  return o;
}

// The doctor on every model at the study's device, dtype and batch (--doctor): the report
// page's section and doctor.json.
std::pair<std::string, std::string> doctor_section(const StudyArgs& a, const Setting& st, const ResolvedStudy& models) {
  std::vector<report::DoctorZooRow> rows;
  const size_t n = models.entries.size();
  for (size_t i = 0; i < n; ++i) {
    const std::string& name = models.entries[i].name;
    std::fprintf(stderr, "study: doctor %s (%zu/%zu)\n", name.c_str(), i + 1, n);
    report::DoctorZooRow row{name, std::nullopt, ""};
    auto setup = make_whatif_setup(models.files[i], st.device.id, st.dtype, st.batch, {}, "", a.devices_dir, a.engine);
    if (!setup) {
      row.error = setup.status().message();
    } else {
      auto rep = rooflens::run_doctor(name, (*setup)->load, doctor_options(**setup));
      if (rep)
        row.report = std::move(*rep);
      else
        row.error = rep.status().message();
    }
    rows.push_back(std::move(row));
  }
  const std::string setting = st.device.id + ", " + st.dtype + ", batch " + st.batch;
  std::string html = report::doctor_section_html(rows, setting);
  return {std::move(html), report::doctor_zoo_json(std::move(rows), st.device.id, st.dtype, st.batch).dump(2) + "\n"};
}

// The report directory: the figures as standalone SVG files (for slides and docs), study.json,
// study.csv, doctor.json with --doctor, and index.html last, so that a directory with an
// index.html is complete.
Status write_report(const std::string& dir, const Study& s, const std::string& json, const std::string& doctor_html,
                    const std::optional<std::string>& doctor_json) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Status::invalid("--report '" + dir + "': cannot create the directory: " + ec.message());
  const std::string html = report::study_html(s, doctor_html);
  if (doctor_json) ROOFLENS_RETURN_IF_ERROR(write_output(dir + "/doctor.json", *doctor_json));
  const std::string csv = report::study_csv(s);
  for (const auto& [id, svg] : report::study_svgs(s))
    ROOFLENS_RETURN_IF_ERROR(write_output(dir + "/" + id + ".svg", svg));
  for (const auto& [file, text] :
       {std::pair<const char*, const std::string*>{"study.json", &json}, {"study.csv", &csv}, {"index.html", &html}})
    ROOFLENS_RETURN_IF_ERROR(write_output(dir + "/" + file, *text));
  return Status::ok();
}

}  // namespace

int run_study(const StudyArgs& args) {
  StudyArgs a = args;
  std::vector<std::string> inputs = a.files;
  inputs.insert(inputs.end(), {a.measurements, a.accuracy, a.device});
  if (Status s = resolve_output(a.format, a.output, {"summary", "table", "csv", "json"}, inputs, "summary"); !s)
    return report_error(s);
  if (Status s = check_output_dir(a.report, "--report"); !s) return report_error(s);
  auto st = parse_setting(a);
  if (!st) return report_error(st.status());
  auto models = resolve_models(a, *st);
  if (!models) return report_error(models.status());
  auto o = study_options(a, *st);
  if (!o) return report_error(o.status());
  auto s = rooflens::run_study(models->entries, *o);
  if (!s) return report_error(s.status());
  if (st->measured && !st->cuda && a.device.empty()) note_database_peaks(*s, st->device.id);
  std::string doctor_html;
  std::optional<std::string> doctor_json;
  if (a.doctor) std::tie(doctor_html, doctor_json) = doctor_section(a, *st, *models);

  // Everything is computed before anything is written: a failure leaves no partial report.
  std::string json;  // rendered once, for the report and/or stdout
  if (!a.report.empty()) {
    json = report::study_json(*s).dump(2) + "\n";
    Status w = write_report(a.report, *s, json, doctor_html, doctor_json);
    if (!w) return report_error(w);
  }
  std::string out;
  if (a.format == "json")
    out = !json.empty() ? json : report::study_json(*s).dump(2) + "\n";
  else if (a.format == "csv")
    out = report::study_csv(*s);
  else
    out = report::study_summary_text(*s);
  if (!a.report.empty() && a.format == "summary")
    out +=
        fmt::format("report: {}\n", std::filesystem::absolute(std::filesystem::path(a.report) / "index.html").string());
  Status w = write_output(a.output, out);
  return w ? kExitOk : report_error(w);
}

}  // namespace rooflens::cli
