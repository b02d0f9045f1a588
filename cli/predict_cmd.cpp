// `rooflens predict`: predicted per-layer time, bounds, throughput and utilization on a device.
#include <fmt/format.h>

#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "commands.h"
#include "common.h"
#include "loading.h"
#include "rooflens/onnx/import.h"
#include "rooflens/passes/folded_cnn.h"
#include "rooflens/passes/infer_shapes.h"
#include "rooflens/perf/max_batch.h"
#include "rooflens/perf/model.h"
#include "rooflens/report/predict_report.h"
#include "rooflens/session/predict_request.h"

namespace rooflens::cli {
namespace {

struct Request {
  std::vector<int64_t> batches;  // explicit batches
  bool max = false;              // also the largest batch that fits
};

Expected<Request> parse_batches(const std::string& s) {
  Request r;
  std::stringstream ss(s);
  std::string tok;
  while (std::getline(ss, tok, ',')) {
    if (tok == "max") {
      r.max = true;
      continue;
    }
    char* end = nullptr;
    errno = 0;
    long long v = std::strtoll(tok.c_str(), &end, 10);
    if (tok.empty() || *end != '\0' || errno == ERANGE || v <= 0 || v > kMaxBatch)
      return Status::invalid("--batch '" + s + "': '" + tok + "' is not an integer from 1 to " +
                             std::to_string(kMaxBatch) + " (2^24) or 'max'");
    r.batches.push_back(v);
  }
  if (r.batches.empty() && !r.max) return Status::invalid("--batch '" + s + "': no batch given");
  return r;
}

// Predicts one model at every requested batch; the last entry is `max` when requested.
Expected<std::vector<Prediction>> predict_model(const std::string& path, const PredictArgs& a,
                                                const std::vector<InputShapeOverride>& shapes, DType dtype,
                                                const DeviceSpec& dev, const Request& req,
                                                const EngineProfile& engine) {
  PredictRequest r;
  r.batches = req.batches;
  r.max = req.max;
  r.perf.dtype = a.dtype;
  r.perf.use_measured_peak = !a.datasheet_peak;
  r.perf.engine = engine;
  return predict_session(ModelSession::from_file(path, shapes), dtype, dev, r);
}

}  // namespace

void add_predict(CLI::App& app, PredictArgs& a) {
  auto* cmd =
      app.add_subcommand("predict",
                         "Predicted per-layer time, bound, throughput and utilization on a device (performance model)");
  cmd->add_option("files", a.files, "ONNX model files (several: one summary row per model)");
  cmd->add_flag("--zoo", a.zoo, "predict every bundled zoo model");
  cmd->add_option("--device", a.device,
                  "device id or alias (rooflens devices), a device .json file, or custom:fp16=125e12,bw=900e9,mem=16e9")
      ->capture_default_str();
  cmd->add_option("--dtype", a.dtype, "fp32, fp16, bf16, int8 or fp8")->capture_default_str();
  cmd->add_option("--batch", a.batch, "batch sizes: N, max (largest that fits), or a list like 1,8,64,max")
      ->capture_default_str();
  add_input_shape_option(cmd, &a.input_shapes);
  cmd->add_option("--format", a.format, "table, csv or json (default: from -o's extension, else table)")
      ->check(CLI::IsMember({"table", "csv", "json"}));
  cmd->add_option("--roofline", a.roofline, "write the roofline chart (SVG) of the (last) prediction here");
  cmd->add_option("-o,--output", a.output, "write to this file (atomically) instead of stdout");
  cmd->add_option("--devices-dir", a.devices_dir, "directory of device JSON files (default: the bundled data/devices)");
  cmd->add_flag("--datasheet-peak", a.datasheet_peak,
                "model compute roofs with datasheet peaks even where a measured peak exists");
  add_engine_option(cmd, &a.engine);
}

int run_predict(const PredictArgs& args) {
  PredictArgs a = args;
  std::vector<std::string> inputs = a.files;
  inputs.push_back(a.device);
  if (Status s = resolve_output(a.format, a.output, {"table", "csv", "json"}, inputs); !s) return report_error(s);
  if (Status s = check_output_file(a.roofline, inputs, "--roofline"); !s) return report_error(s);
  if (!a.roofline.empty() && !a.output.empty() && a.output != "-" && a.roofline == a.output)
    return report_error(Status::invalid("--roofline and -o name the same file '" + a.output + "': give two names"));
  auto dt = parse_dtype_arg("--dtype", a.dtype);
  if (!dt) return report_error(dt.status());
  auto req = parse_batches(a.batch);
  if (!req) return report_error(req.status());
  auto shapes = parse_input_shapes(a.input_shapes);
  if (!shapes) return report_error(shapes.status());
  auto dev = device_with_peak(a.device, a.devices_dir, a.dtype);
  if (!dev) return report_error(dev.status());
  auto engine = resolve_engine(a.engine, *dev);
  if (!engine) return report_error(engine.status());
  const std::string engine_label = dev->is_gpu() ? ", engine " + engine->id : "";

  std::vector<std::string> files = a.files;
  const std::string mdir = models_dir("");
  auto zoo = zoo_index(mdir);
  if (a.zoo)
    for (const auto& [name, z] : zoo) files.push_back(z.path);
  if (files.empty()) return report_error(Status::invalid("predict: give ONNX files or --zoo"));

  std::vector<std::vector<Prediction>> all;
  // Progress: one line rewritten in place on a terminal, a line per model in a log.
  const bool terminal = isatty(fileno(stderr)) != 0;
  for (const auto& f : files) {
    auto ps = predict_model(f, a, *shapes, *dt, *dev, *req, *engine);
    if (!ps) return report_error(ps.status());
    if (files.size() > 1)
      fmt::print(stderr, "{}predicted {} ({}/{}){}", terminal ? "\r" : "", std::filesystem::path(f).stem().string(),
                 all.size() + 1, files.size(), terminal ? "\x1b[K" : "\n");
    all.push_back(std::move(*ps));
  }
  if (files.size() > 1 && terminal) std::fprintf(stderr, "\n");

  std::string out;
  const bool csv = a.format == "csv";
  if (files.size() == 1 && all[0].size() == 1) {
    const Prediction& p = all[0][0];
    if (a.format == "json")
      out = report::predict_json(p).dump(2) + "\n";
    else if (csv)
      out = report::render_csv(report::predict_layers_table(p, true));
    else
      out = report::render_text(report::predict_layers_table(p, false)) + "\n" + report::predict_summary_text(p, *dev);
  } else if (files.size() == 1) {
    if (a.format == "json") {
      nlohmann::json arr = nlohmann::json::array();
      for (const auto& p : all[0]) arr.push_back(report::predict_json(p, false));
      out = arr.dump(2) + "\n";
    } else {
      auto t = report::batch_sweep_table(all[0], csv);
      out = csv ? report::render_csv(t)
                : fmt::format("prediction (performance model): {} on {} ({}{}), {}{}\n\n", all[0][0].model, dev->name,
                              dev->id, engine_label, a.dtype,
                              all[0][0].images_per_input > 1
                                  ? fmt::format(" (folded: {} images per input)", all[0][0].images_per_input)
                                  : "") +
                      report::render_text(t);
    }
  } else {
    // One row per model (the last requested batch).
    report::Table t;
    t.headers = {
        "model",     "acc@1 (%)",   "batch",     "throughput (img/s)", "util. datasheet (%)", "util. measured (%)",
        "GFLOP/img", "AI (FLOP/B)", "AI vs CMR", "top bound (time %)"};
    t.numeric = {false, true, true, true, true, true, true, true, false, false};
    nlohmann::json arr = nlohmann::json::array();
    for (const auto& ps : all) {
      const Prediction& p = ps.back();
      std::map<std::string, double> by;
      for (const auto& L : p.layers)
        if (L.bound != Bound::kNone) by[std::string(bound_name(L.bound))] += L.time_share;
      auto top = std::max_element(by.begin(), by.end(), [](auto& x, auto& y) { return x.second < y.second; });
      auto z = zoo.find(p.model);
      std::string acc = z != zoo.end() && z->second.acc1 ? report::fmt_fixed(*z->second.acc1, 2) : "-";
      // Images, for a folded model too (Prediction::images_per_input), so rows compare.
      const int f = p.images_per_input;
      t.rows.push_back({p.model, acc, std::to_string(p.batch * f), report::fmt_fixed(p.throughput * f, 0),
                        report::fmt_fixed(100 * p.utilization, 1),
                        p.utilization_measured ? report::fmt_fixed(100 * *p.utilization_measured, 1) : "-",
                        report::fmt_fixed(p.flops_per_image / f / 1e9, 2), report::fmt_fixed(p.ai, 1),
                        p.ai < p.cmr ? "below" : "above",
                        top == by.end() ? "-" : fmt::format("{} ({:.0f}%)", top->first, 100 * top->second)});
      arr.push_back(report::predict_json(p, false));
    }
    if (a.format == "json")
      out = arr.dump(2) + "\n";
    else if (csv)
      out = report::render_csv(t);
    else
      out = fmt::format("prediction (performance model): {} models on {} ({}{}), {}, CMR {:.1f} FLOP/B\n\n", all.size(),
                        dev->name, dev->id, engine_label, a.dtype, dev->cmr(a.dtype)) +
            report::render_text(t);
  }
  if (!a.roofline.empty()) {
    Status s = write_output(a.roofline, report::roofline_svg(all.back().back(), *dev));
    if (!s) return report_error(s);
  }
  Status w = write_output(a.output, out);
  return w ? kExitOk : report_error(w);
}

}  // namespace rooflens::cli
