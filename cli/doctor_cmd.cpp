// `rooflens doctor`: the article's checklist on one model and device (analysis/doctor.h).
#include <cstdio>
#include <sstream>

#include "backend_choice.h"
#include "commands.h"
#include "common.h"
#include "loading.h"
#include "rooflens/analysis/doctor.h"
#include "rooflens/exec/measure.h"
#include "rooflens/microbench/jpeg_decode.h"
#include "rooflens/microbench/probe.h"
#include "rooflens/report/doctor_report.h"
#include "whatif_setup.h"

namespace rooflens::cli {

void add_doctor(CLI::App& app, DoctorArgs& a) {
  auto* cmd = app.add_subcommand("doctor",
                                 "Why a model misses the device's peak: the article's checklist with evidence, "
                                 "ranked by the time each remedy would save, every gain predicted on the "
                                 "changed model or setting");
  cmd->add_option("file", a.file, "ONNX model file (or --zoo)");
  cmd->add_flag("--zoo", a.zoo, "every bundled model, ranked by the largest single gain the doctor finds");
  cmd->add_option("--models", a.models, "with --zoo: comma-separated model names from the zoo");
  cmd->add_option("--models-dir", a.models_dir, "directory of the bundled models (default: models/)");
  cmd->add_option("--device", a.device,
                  "device id or alias, a device .json file, or custom:... (default: v100; with --measured --backend "
                  "cuda, the database entry of the GPU at hand)");
  cmd->add_option("--dtype", a.dtype, "fp32, fp16, bf16, int8 or fp8")->capture_default_str();
  cmd->add_option("--batch", a.batch, "batch: N or max")->capture_default_str();
  add_input_shape_option(cmd, &a.input_shapes);
  cmd->add_option("--devices", a.devices, "devices for the 'another device' remedies (default: every GPU)");
  cmd->add_option("--jpeg-rate", a.jpeg_rate,
                  "JPEG decode rate of this machine, images/s per core (rooflens probe jpeg)");
  cmd->add_flag("--measure-jpeg", a.measure_jpeg,
                "measure JPEG decoding on this machine now (1 s, libjpeg-turbo, at "
                "the model's input size) for the input item");
  cmd->add_flag("--measured", a.measured,
                "also run the model and compare every layer with its bound (item 6): on this CPU through oneDNN "
                "(fp32; needs a CPU device, e.g. the file of `rooflens probe cpu --out local.json`), or on the GPU "
                "at hand with --backend cuda (fp16 or fp32)");
  cmd->add_option("--backend", a.backend, "--measured: cpu (oneDNN) or cuda (cuDNN/cuBLAS on the GPU at hand)")
      ->check(CLI::IsMember({"cpu", "cuda"}))
      ->capture_default_str();
  cmd->add_option("--threads", a.threads, "--measured: threads (default: every CPU this process may use)")
      ->check(at_least_one("all cores"));
  cmd->add_option("--max-seconds", a.max_seconds, "--measured: time cap for the timed repeats")
      ->check(positive_seconds())
      ->capture_default_str();
  cmd->add_option("--format", a.format, "table or json (default: from -o's extension, else table)")
      ->check(CLI::IsMember({"table", "json"}));
  cmd->add_flag("--verbose", a.verbose, "also list the items that do not apply");
  cmd->add_option("-o,--output", a.output, "write to this file (atomically) instead of stdout");
  cmd->add_option("--devices-dir", a.devices_dir, "directory of device JSON files");
  add_engine_option(cmd, &a.engine);
}

namespace {

// `--zoo`: the doctor on every bundled model (or --models), one progress line per model on
// stderr, then the models ranked by the largest single gain.
int run_doctor_zoo(const DoctorArgs& a) {
  if (!a.file.empty()) return report_error(Status::invalid("give a model file or --zoo, not both"));
  if (a.measure_jpeg || !a.input_shapes.empty())
    return report_error(Status::invalid("--measure-jpeg and --input-shape apply to one model, not to --zoo"));
  const std::string dir = models_dir(a.models_dir);
  auto zoo = zoo_index(dir);
  if (zoo.empty()) return report_error(Status::invalid("no zoo index (zoo.json) in '" + dir + "'"));
  std::vector<std::string> names;
  if (a.models.empty()) {
    for (const auto& [name, _] : zoo) names.push_back(name);
  } else {
    std::stringstream ss(a.models);
    for (std::string m; std::getline(ss, m, ',');) {
      if (!zoo.count(m))
        return report_error(Status::invalid("--models: '" + m + "' is not in the zoo (" + dir + "/zoo.json)"));
      names.push_back(m);
    }
  }
  std::vector<report::DoctorZooRow> rows;
  for (size_t i = 0; i < names.size(); ++i) {
    std::fprintf(stderr, "doctor --zoo: [%zu/%zu] %s\n", i + 1, names.size(), names[i].c_str());
    report::DoctorZooRow row{names[i], std::nullopt, ""};
    auto setup = make_whatif_setup(dir + "/" + names[i] + ".onnx", a.device, a.dtype, a.batch, {}, a.devices,
                                   a.devices_dir, a.engine);
    if (!setup) {
      // A bad device or dtype fails every model alike: stop at the first.
      if (setup.status().code() == StatusCode::kInvalidInput && i == 0) return report_error(setup.status());
      row.error = setup.status().message();
      rows.push_back(std::move(row));
      continue;
    }
    auto rep = rooflens::run_doctor(names[i], (*setup)->load, doctor_options(**setup, a.jpeg_rate));
    if (rep)
      row.report = std::move(*rep);
    else
      row.error = rep.status().message();
    rows.push_back(std::move(row));
  }
  const std::string setting = a.device + ", " + a.dtype + ", batch " + a.batch;
  const std::string out = a.format == "json"
                              ? report::doctor_zoo_json(std::move(rows), a.device, a.dtype, a.batch).dump(2) + "\n"
                              : report::doctor_zoo_text(std::move(rows), setting);
  Status w = write_output(a.output, out);
  return w ? kExitOk : report_error(w);
}

// --measured: the model at the baseline's batch (max resolved), measured layer by layer on
// this CPU (oneDNN) or on the GPU at hand (cuda), into the doctor's options; with the CPU,
// the core clock right after the sustained run (item 7).
Status add_measured_layers(const DoctorArgs& a, WhatIfSetup& setup, int64_t batch, const std::string& gpu_name,
                           DoctorOptions* o) {
  const bool cuda = a.backend == "cuda";
  const DType dt = cuda && a.dtype == "fp16" ? DType::kF16 : DType::kF32;
  auto l = setup.load(batch, dt);
  if (!l) return l.status();
  auto backend = make_backend(BackendChoice{cuda ? "cuda" : "cpu", dt, false});
  if (!backend)
    return cuda ? backend.status() : Status::unavailable("--measured needs the oneDNN backend (built without oneDNN)");
  MeasureOptions mo;
  mo.exec.threads = a.threads;
  mo.exec.tactic_cache = tactic_cache_path();
  mo.timing = model_timing(cuda, a.max_seconds);
  std::fprintf(stderr, "doctor: measuring %s at batch %lld on %s...\n", a.file.c_str(), static_cast<long long>(batch),
               cuda ? (gpu_name + " (cuda backend, " + a.dtype + ")").c_str() : "this CPU (oneDNN)");
  auto m = measure_model(l->graph, l->analysis, **backend, mo);
  if (!m) return m.status().with_context(a.file);
  std::vector<MeasuredLayer> layers;
  for (const auto& ml : m->layers) layers.push_back({ml.name, ml.time_s, ml.impl});
  o->measured = std::move(layers);
  if (cuda) return Status::ok();
  if (auto clk = microbench::measure_core_clock_hz())
    o->clock_measured_hz = *clk;
  else
    std::fprintf(stderr, "doctor: clock not measured: %s\n", clk.status().message().c_str());
  return Status::ok();
}

}  // namespace

int run_doctor(const DoctorArgs& args) {
  DoctorArgs a = args;
  if (Status s = resolve_output(a.format, a.output, {"table", "json"}, {a.file, a.device}); !s) return report_error(s);
  if (a.jpeg_rate < 0) return report_error(Status::invalid("--jpeg-rate: must be >= 0 images/s per core"));
  if (a.zoo) {
    if (a.measured) return report_error(Status::invalid("--measured applies to one model, not to --zoo"));
    if (a.device.empty()) a.device = "v100";
    return run_doctor_zoo(a);
  }
  if (!a.models.empty()) return report_error(Status::invalid("--models needs --zoo"));
  if (a.file.empty()) return report_error(Status::invalid("give a model file, or --zoo for every bundled model"));
  const bool cuda = a.measured && a.backend == "cuda";
  if (a.backend == "cuda" && !a.measured) return report_error(Status::invalid("--backend cuda needs --measured"));
  if (a.measured && !cuda && a.dtype != "fp32")
    return report_error(Status::invalid("--measured: the CPU backend runs fp32, not " + a.dtype + " (--dtype fp32)"));
  if (cuda && a.dtype != "fp32" && a.dtype != "fp16")
    return report_error(Status::invalid("--measured --backend cuda runs fp16 or fp32, not " + a.dtype));
  std::string gpu_name;
  if (cuda) {
    auto gpu = gpu_at_hand(a.device, a.devices_dir);
    if (!gpu) return report_error(gpu.status());
    a.device = gpu->device;
    gpu_name = gpu->name;
  } else if (a.device.empty()) {
    a.device = "v100";
  }
  auto setup =
      make_whatif_setup(a.file, a.device, a.dtype, a.batch, a.input_shapes, a.devices, a.devices_dir, a.engine);
  if (!setup) return report_error(setup.status());
  if (a.jpeg_rate > 0 && a.measure_jpeg)
    return report_error(Status::invalid("give --jpeg-rate or --measure-jpeg, not both"));
  DoctorOptions o = doctor_options(**setup, a.jpeg_rate);
  if (cuda && !o.whatif.device.is_gpu())
    return report_error(Status::invalid("--measured --backend cuda runs the model on '" + gpu_name + "': give its " +
                                        "GPU device (or leave --device out), not '" + o.whatif.device.id + "'"));
  if (a.measured && !cuda && o.whatif.device.is_gpu())
    return report_error(
        Status::invalid("--measured runs the model on this CPU: give a CPU device (--device "
                        "local.json from `rooflens probe cpu --out local.json`), not '" +
                        o.whatif.device.id + "'"));
  if (a.measure_jpeg) {
    // The model's input size: the last two dims of its first input.
    auto l = (*setup)->load(1, *parse_dtype(a.dtype));
    if (!l) return report_error(l.status());
    const Graph& g = l->graph;
    microbench::JpegDecodeOptions jo;
    jo.seconds = 1.0;
    if (!g.inputs.empty() && g.value(g.inputs[0]).shape && g.value(g.inputs[0]).shape->size() == 4) {
      const Shape& s = *g.value(g.inputs[0]).shape;
      jo.size = {static_cast<int>(s[3]), static_cast<int>(s[2])};
    }
    auto jr = microbench::measure_jpeg_decode(jo);
    if (!jr) return report_error(jr.status().with_context("--measure-jpeg"));
    o.jpeg_images_per_s_per_core = jr->images_per_cpu_s.median;  // per CPU-second: robust on a shared machine
  }
  auto rep = rooflens::run_doctor(a.file, (*setup)->load, o);
  if (!rep) return report_error(rep.status());
  if (a.measured) {
    Status m = add_measured_layers(a, **setup, rep->baseline.batch, gpu_name, &o);
    if (!m) return report_error(m);
    rep = rooflens::run_doctor(a.file, (*setup)->load, o);
    if (!rep) return report_error(rep.status());
  }
  const std::string out =
      a.format == "json" ? report::doctor_json(*rep).dump(2) + "\n" : report::doctor_text(*rep, a.verbose);
  Status w = write_output(a.output, out);
  return w ? kExitOk : report_error(w);
}

}  // namespace rooflens::cli
