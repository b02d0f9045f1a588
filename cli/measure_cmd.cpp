// `rooflens measure` and `rooflens validate`: run models for real on this CPU and set the
// measurements beside the performance model's predictions.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include <map>
#include "commands.h"
#include "common.h"
#include "loading.h"
#include "measure_host.h"
#include "rooflens/analysis/validation.h"
#include "rooflens/device/device.h"
#include "rooflens/exec/cuda.h"
#include "rooflens/exec/measure.h"
#include "rooflens/perf/model.h"
#include "rooflens/report/table.h"

namespace rooflens::cli {
namespace {

struct BackendChoice {
  std::string name = "cpu";
  DType dtype = DType::kF32;
  bool graph = false;
};

Expected<std::unique_ptr<Backend>> make_backend(const BackendChoice& c) {
  if (c.name == "cuda") {
    CudaBackendOptions o;
    o.dtype = c.dtype;
    o.graph = c.graph;
    return make_cuda_backend(o);
  }
  std::unique_ptr<Backend> b;
  if (c.name == "cpu" || c.name == "onednn") b = make_onednn_backend();
  if (c.name == "reference") b = make_reference_backend();
  if (!b) return Status::unavailable("backend '" + c.name + "' is not available in this build");
  return b;
}

// The host-state options `measure` and `validate` share.
void add_host_options(CLI::App* cmd, bool* no_reference, double* max_move) {
  cmd->add_flag("--no-host-reference", *no_reference,
                "cpu backends: do not time the host-state reference (a fixed GEMM and a DRAM triad) before and after "
                "the runs; no normalised throughput then");
  cmd->add_option("--reference-max-move", *max_move,
                  "a block of runs whose host-state reference moved by more than this share between before and after "
                  "is flagged and timed again (twice at most)")
      ->check(CLI::Range(0.0, 10.0))
      ->capture_default_str();
}

int default_threads(int t) { return t > 0 ? t : static_cast<int>(std::max(1u, std::thread::hardware_concurrency())); }

struct Compared {
  Measurement m;
  Prediction p;
  double peak = 0;
  std::string peak_label;
  std::string inputs;  // the graph inputs as run: "x 1x3x224x224"
  HostFigures host;    // the host's state against the command's baseline
};

// "NAME 1x3x224x224, ..." of a loaded graph's run-time inputs.
std::string input_shapes_text(const Graph& g) {
  std::string s;
  for (ValueId id : g.inputs) {
    const Value& v = g.value(id);
    std::string dims;
    if (v.shape)
      for (int64_t d : *v.shape) dims += (dims.empty() ? "" : "x") + std::to_string(d);
    s += (s.empty() ? "" : ", ") + v.name + " " + (dims.empty() ? std::string("?") : dims);
  }
  return s;
}

Expected<Compared> measure_and_predict(const std::string& path, const std::vector<InputShapeOverride>& shapes,
                                       const BackendChoice& choice, int64_t batch, const ExecOptions& exec,
                                       double max_seconds, const DeviceSpec& dev, HostContext* host) {
  const int threads = exec.threads;
  auto loaded = load_model(path, shapes, choice.dtype, batch);
  if (!loaded) return loaded.status();
  auto backend = make_backend(choice);
  if (!backend) return backend.status();
  MeasureOptions mo;
  mo.exec = exec;
  mo.timing.max_seconds = max_seconds;
  if (choice.name == "cuda") {
    mo.timing.min_warmup_seconds = 1.0;  // GPU clocks up from idle
  } else {
    // A quarter of a second of warm-up and at least a quarter of the time cap measured
    // (at most 1 s), as ONNX Runtime's peer bench does, so a fast model's median is not
    // set by one transient.
    mo.timing.min_warmup_seconds = std::min(0.25, max_seconds / 8);
    mo.timing.min_seconds = std::min(1.0, max_seconds / 4);
  }
  if (host && choice.name != "cuda") attach_host(mo, *host);
  auto m = measure_model(loaded->graph, loaded->analysis, **backend, mo);
  if (!m) return m.status().with_context(path);
  m->threads = threads;
  PerfOptions po;
  po.dtype = dtype_name(choice.dtype);
  auto p = predict(loaded->graph, loaded->analysis, dev, po);
  if (!p) return p.status();
  Compared c{std::move(*m), std::move(*p), 0, "", input_shapes_text(loaded->graph), {}};
  if (host) c.host = host_figures(c.m, c.p, *host);
  if (auto mp = dev.best_measured_peak(po.dtype)) {
    c.peak = mp->flops;
    c.peak_label = "measured";
  } else if (auto bp = dev.best_peak(po.dtype)) {
    c.peak = bp->flops;
    c.peak_label = "datasheet";
  }
  return c;
}

Expected<DeviceSpec> load_dev(const std::string& spec, const std::string& dir) {
  auto db = load_device_dir(devices_dir(dir));
  if (!db) return db.status();
  return resolve_device(spec, *db);
}

// Utilization and predictions are against the device's peaks: they must be the machine's
// that runs the backend.
Status device_runs_backend(const DeviceSpec& dev, const std::string& given, const std::string& backend,
                           const std::string& gpu_name) {
  if (backend != "cuda" && dev.is_gpu())
    return Status::invalid("--device '" + given + "' is a GPU (" + dev.name +
                           "): its datasheet cannot describe this "
                           "CPU, where the " +
                           backend +
                           " backend runs; give this CPU's file (`rooflens probe cpu "
                           "--out local.json`, then --device local.json) or leave --device out");
  if (backend == "cuda" && !dev.is_gpu())
    return Status::invalid("--device '" + given + "' is not a GPU: the cuda backend runs on '" + gpu_name +
                           "'; give its database id or a GPU device file");
  return Status::ok();
}

}  // namespace

void add_measure(CLI::App& app, MeasureArgs& a) {
  auto* cmd =
      app.add_subcommand("measure", "Run a model for real on this CPU (oneDNN) and set measured beside predicted");
  cmd->add_option("file", a.file, "ONNX model file (one)")->required();
  cmd->add_option("--backend", a.backend, "cpu (oneDNN), reference, or cuda (cuDNN/cuBLAS on an NVIDIA GPU)")
      ->check(CLI::IsMember({"cpu", "onednn", "reference", "cuda"}))
      ->capture_default_str();
  cmd->add_option("--dtype", a.dtype, "fp32, or fp16 (tensor cores) on the cuda backend")
      ->check(CLI::IsMember({"fp32", "fp16"}))
      ->capture_default_str();
  cmd->add_flag("--graph", a.graph,
                "cuda backend: replay the model as one CUDA graph (launch overhead removed; no per-layer times)");
  cmd->add_option("--batch", a.batch, "batch size, or max (the largest that fits the device's memory)")
      ->capture_default_str();
  add_input_shape_option(cmd, &a.input_shapes);
  cmd->add_option("--threads", a.threads, "threads (default: all cores)")->check(at_least_one("all cores"));
  cmd->add_option("--device", a.device,
                  "device file or id for predictions and the peak (default: this machine's entry; `rooflens probe cpu "
                  "--out local.json` measures one)")
      ->capture_default_str();
  cmd->add_option("--layout", a.layout,
                  "cpu backend: activations between layers: channels-last, blocked (oneDNN's nChw16c where channels "
                  "are a multiple of 16), or auto (each layer in the layout it ran faster in, from one timed run of "
                  "each, reorders costed)")
      ->check(CLI::IsMember({"channels-last", "blocked", "auto"}))
      ->capture_default_str();
  cmd->add_flag("--no-tune", a.no_tune,
                "cpu backend: take oneDNN's first implementation of each conv/inner product instead of timing its "
                "candidates while preparing");
  cmd->add_flag("--no-buffer-reuse", a.no_buffer_reuse,
                "cpu backend: give every activation a buffer of its own instead of one arena shared by buffers whose "
                "lifetimes do not overlap");
  cmd->add_flag("--verify", a.verify, "also run the reference backend on the same input and report the relative error");
  cmd->add_option("--format", a.format, "table or json (default: from -o's extension, else table)")
      ->check(CLI::IsMember({"table", "json"}));
  cmd->add_option("--max-seconds", a.max_seconds, "time cap for the repeats")
      ->check(positive_seconds())
      ->capture_default_str();
  cmd->add_option("-o,--output", a.output, "write to this file (atomically) instead of stdout");
  cmd->add_option("--devices-dir", a.devices_dir, "directory of device JSON files");
  add_host_options(cmd, &a.no_host_reference, &a.reference_max_move);
}

namespace {

// What one `measure` run found, for the two renderings below.
struct MeasureOutcome {
  const Compared& c;
  const DeviceSpec& dev;
  const Expected<int64_t>& max_batch;
  std::string gpu_name;
  std::optional<double> verify_err;
  std::vector<double> errs;
  const HostContext* host = nullptr;
};

// Largest relative error per output of the chosen backend against the reference backend.
Expected<std::vector<double>> verify_against_reference(const MeasureArgs& a,
                                                       const std::vector<InputShapeOverride>& shapes,
                                                       const BackendChoice& choice, int64_t batch,
                                                       const ExecOptions& exec) {
  auto loaded = load_model(a.file, shapes, choice.dtype, batch);
  if (!loaded) return loaded.status();
  auto be_or = make_backend(choice);
  if (!be_or) return be_or.status();
  auto& be = *be_or;
  auto ref = make_reference_backend();
  ExecOptions eo = exec;
  Status s = be->prepare(loaded->graph, loaded->analysis, eo);
  if (s) s = ref->prepare(loaded->graph, loaded->analysis, eo);
  if (!s) return s;
  return relative_errors(loaded->graph, *be, *ref, 12345);
}

std::string measure_json(const MeasureArgs& a, const MeasureOutcome& o) {
  const Compared* c = &o.c;
  const DeviceSpec* dev = &o.dev;
  const auto& max_batch = o.max_batch;
  const auto& gpu_name = o.gpu_name;
  const auto& verify_err = o.verify_err;
  const auto& errs = o.errs;
  const Measurement& m = c->m;
  const double util = c->peak > 0 ? m.achieved_flops / c->peak : 0;
  std::string out;
  nlohmann::json layers = nlohmann::json::array();
  for (size_t i = 0; i < m.layers.size(); ++i) {
    const auto& L = m.layers[i];
    double pred = 0;
    for (const auto& pl : c->p.layers)
      if (pl.name == L.name) pred = pl.time_s;
    layers.push_back(
        {{"name", L.name}, {"op", L.op}, {"time_s", L.time_s}, {"predicted_time_s", pred}, {"impl", L.impl}});
  }
  nlohmann::json j = {{"schema", "rooflens.measure/1"},
                      {"model", c->p.model},
                      {"backend", m.backend},
                      {"device", dev->id},
                      {"batch", m.batch},
                      {"inputs", c->inputs},
                      {"threads", m.threads},
                      {"dtype", a.dtype},
                      {"cuda_graph", a.graph},
                      {"gpu", gpu_name},
                      {"throughput", m.throughput},
                      {"throughput_iqr", m.throughput_q3 - m.throughput_q1},
                      {"throughput_q1", m.throughput_q1},
                      {"throughput_q3", m.throughput_q3},
                      {"latency_s", m.timing.median},
                      {"runs", m.timing.samples.size()},
                      {"achieved_flops", m.achieved_flops},
                      {"utilization", util},
                      {"peak_flops", c->peak},
                      {"peak_kind", c->peak_label},
                      {"predicted_throughput", c->p.throughput},
                      {"noisy", m.timing.noisy},
                      {"warning", m.timing.warning},
                      {"max_batch", max_batch ? nlohmann::json(*max_batch) : nlohmann::json(nullptr)},
                      {"activation_bytes", m.activation_bytes},
                      {"activation_bytes_unshared", m.activation_bytes_unshared},
                      {"layout", m.layout},
                      {"layers", layers}};
  if (o.host) j.update(host_json(m, c->host, *o.host));
  if (verify_err) {
    j["verify_max_rel_error"] = *verify_err;
    j["verify_rel_errors"] = errs;
  }
  out = j.dump(2) + "\n";
  return out;
}

std::string measure_text(const MeasureArgs& a, const MeasureOutcome& o) {
  const Compared* c = &o.c;
  const DeviceSpec* dev = &o.dev;
  const auto& max_batch = o.max_batch;
  const auto& gpu_name = o.gpu_name;
  const auto& verify_err = o.verify_err;
  const Measurement& m = c->m;
  const double util = c->peak > 0 ? m.achieved_flops / c->peak : 0;
  std::string out;
  report::Table t;
  t.headers = {"layer", "op", "measured (us)", "predicted (us)", "measured (%)", "impl"};
  t.numeric = {false, false, true, true, true, false};
  double total = 0;
  for (const auto& L : m.layers) total += L.time_s;
  for (const auto& L : m.layers) {
    double pred = 0;
    for (const auto& pl : c->p.layers)
      if (pl.name == L.name) pred = pl.time_s;
    t.rows.push_back({L.name, L.op, report::fmt_fixed(L.time_s * 1e6, 1), report::fmt_fixed(pred * 1e6, 1),
                      report::fmt_fixed(total > 0 ? 100 * L.time_s / total : 0, 1), L.impl});
  }
  out = report::render_text(t) + "\n";
  if (a.backend == "cuda")
    out += fmt::format("measured on {} ({} backend, {}{}): {}, batch {}\n", gpu_name, m.backend, a.dtype,
                       a.graph ? ", one CUDA graph per batch" : "", c->p.model, m.batch);
  else
    out += fmt::format("measured on this machine ({} backend, {} thread(s)): {}, batch {}\n", m.backend, m.threads,
                       c->p.model, m.batch);
  out += fmt::format("  input           {}\n", c->inputs);
  out += fmt::format("  throughput      {:>10.1f} images/s  (median of {} runs; interquartile {:.1f} .. {:.1f})\n",
                     m.throughput, m.timing.samples.size(), m.throughput_q1, m.throughput_q3);
  out += fmt::format("  latency         {:>10.3f} ms per batch (best {:.3f})\n", m.timing.median * 1e3,
                     m.timing.min * 1e3);
  if (max_batch)
    out += fmt::format(
        "  max batch       {:>10}  (largest that fits {:.1f} GB less {:.1f} GB reserved: weights + live activations "
        "+ workspace)\n",
        *max_batch, dev->mem_bytes / 1e9, dev->reserved_bytes / 1e9);
  if (m.activation_bytes > 0)
    out += fmt::format(
        "  activations     {:>10.1f} MiB  (one arena, shared where lifetimes do not overlap; {:.1f} MiB with a "
        "buffer each)\n",
        m.activation_bytes / 1048576.0, m.activation_bytes_unshared / 1048576.0);
  if (!m.layout.empty()) out += fmt::format("  layout          {}\n", m.layout);
  out += fmt::format("  achieved        {:>10.1f} GFLOP/s\n", m.achieved_flops / 1e9);
  out += fmt::format("  utilization     {:>10.1f} %  of the {} peak {:.1f} GFLOP/s ({})\n", 100 * util, c->peak_label,
                     c->peak / 1e9, dev->id);
  out += fmt::format("  predicted       {:>10.1f} images/s  (performance model on {}; measured/predicted {:.2f})\n",
                     c->p.throughput, dev->id, m.throughput / c->p.throughput);
  if (verify_err)
    out += fmt::format("  verify          max relative error {:.2e} against the reference backend\n", *verify_err);
  if (o.host) out += host_text(m, c->host, *o.host);
  if (m.timing.noisy) out += "  warning: " + m.timing.warning + "\n";
  return out;
}

}  // namespace

int run_measure(const MeasureArgs& args) {
  MeasureArgs a = args;
  if (Status s = resolve_output(a.format, a.output, {"table", "json"}, {a.file, a.device}); !s) return report_error(s);
  BackendChoice choice{a.backend, a.dtype == "fp16" ? DType::kF16 : DType::kF32, a.graph};
  if (a.backend != "cuda" && (a.dtype != "fp32" || a.graph))
    return report_error(Status::invalid("--dtype fp16 and --graph need --backend cuda (the CPU backends run fp32)"));
  std::string device = a.device, gpu_name;
  if (a.backend == "cuda") {
    auto info = cuda_device_info();
    if (!info) return report_error(info.status());
    gpu_name = info->name;
    if (device == "this-cpu") {
      auto db = load_device_dir(devices_dir(a.devices_dir));
      if (!db) return report_error(db.status());
      auto gpu = find_gpu_by_name(info->name, *db);
      if (!gpu) return report_error(gpu.status());
      device = gpu->id;
    }
  }
  auto dev = load_dev(device, a.devices_dir);
  if (!dev) return report_error(dev.status());
  if (Status s = device_runs_backend(*dev, device, a.backend, gpu_name); !s) return report_error(s);
  const int threads = default_threads(a.threads);
  auto shapes = parse_input_shapes(a.input_shapes);
  if (!shapes) return report_error(shapes.status());
  // The largest batch whose weights + live activations + workspace fit this device's memory.
  auto memory_at = [&](int64_t b) -> Expected<int64_t> {
    auto l = load_model(a.file, *shapes, DType::kF32, b);
    if (!l) return l.status();
    return estimate_memory(l->graph, l->analysis, *dev).total();
  };
  auto max_batch = find_max_batch(memory_at, dev->mem_bytes - dev->reserved_bytes);
  int64_t batch = 0;
  if (a.batch == "max") {
    if (!max_batch) return report_error(max_batch.status());
    batch = *max_batch;
  } else {
    auto b = parse_batch_or_max(a.batch);
    if (!b) return report_error(b.status());
    batch = **b;
  }
  ExecOptions exec;
  exec.threads = threads;
  exec.tactic_cache = tactic_cache_path();
  exec.tune = !a.no_tune;
  exec.reuse_buffers = !a.no_buffer_reuse;
  exec.layout = a.layout == "blocked" ? ActivationLayout::kBlocked
                : a.layout == "auto"  ? ActivationLayout::kAuto
                                      : ActivationLayout::kChannelsLast;
  HostContext host = make_host_context(!a.no_host_reference, a.reference_max_move, threads, *dev);
  auto c = measure_and_predict(a.file, *shapes, choice, batch, exec, a.max_seconds, *dev,
                               a.backend == "cuda" ? nullptr : &host);
  if (!c) return report_error(c.status());
  MeasureOutcome o{*c, *dev, max_batch, gpu_name, std::nullopt, {}, a.backend == "cuda" ? nullptr : &host};
  if (a.verify) {
    auto e = verify_against_reference(a, *shapes, choice, batch, exec);
    if (!e) return report_error(e.status());
    o.errs = *e;
    o.verify_err = *std::max_element(o.errs.begin(), o.errs.end());
  }
  const std::string out = a.format == "json" ? measure_json(a, o) : measure_text(a, o);
  Status w = write_output(a.output, out);
  return w ? kExitOk : report_error(w);
}

void add_validate(CLI::App& app, ValidateArgs& a) {
  auto* cmd =
      app.add_subcommand("validate", "Measure bundled models on this CPU and compare with the performance model");
  cmd->add_option("--device", a.device, "device file or id whose predictions are checked")->capture_default_str();
  cmd->add_flag("--zoo", a.zoo, "every bundled model");
  cmd->add_option("--models", a.models, "comma-separated model names from the zoo");
  cmd->add_option("--batch", a.batch, "batch size")->capture_default_str()->check(CLI::PositiveNumber);
  cmd->add_option("--threads", a.threads, "threads (default: all cores)")->check(at_least_one("all cores"));
  cmd->add_option("--max-seconds", a.max_seconds, "time cap per model")
      ->check(positive_seconds())
      ->capture_default_str();
  cmd->add_option("--format", a.format, "table or json (default: from -o's extension, else table)")
      ->check(CLI::IsMember({"table", "json"}));
  cmd->add_option("-o,--output", a.output, "write to this file (atomically) instead of stdout");
  cmd->add_option("--devices-dir", a.devices_dir, "directory of device JSON files");
  cmd->add_option("--repeat", a.repeat,
                  "rounds over the models, alternating them (every other round reversed); each model's median and "
                  "spread, raw and normalised, are reported")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  add_host_options(cmd, &a.no_host_reference, &a.reference_max_move);
  cmd->add_option("--fit", a.fit_out,
                  "fit kernel efficiencies (gemm, depthwise, memory) on every other model, write the device file with "
                  "them here, and validate on the held-out models only");
}

namespace {

// Efficiency per kernel class: for each model, predicted roof time / measured time (less
// the dispatch cost) summed over the layers each roof binds; then the median over models,
// so one model measured while the machine was busy cannot drag the fit.
struct FitSums {
  std::map<std::string, std::vector<double>> ratios;
  void add(const Compared& c) {
    std::map<std::string, double> predicted, measured;
    for (const auto& L : c.p.layers) {
      if (L.bound == Bound::kNone) continue;
      double measured_s = 0;
      for (const auto& ml : c.m.layers)
        if (ml.name == L.name) measured_s = ml.time_s;
      const double work = measured_s - L.t_launch;
      if (work <= 0) continue;
      const bool compute = L.t_compute >= L.t_memory;
      const std::string cls = compute ? L.kernel_class : "memory";
      if (cls == "other") continue;
      predicted[cls] += compute ? L.t_compute : L.t_memory;
      measured[cls] += work;
    }
    for (const auto& [cls, p] : predicted)
      if (measured[cls] > 0) ratios[cls].push_back(p / measured[cls]);
  }
  std::map<std::string, double> efficiencies() const {
    std::map<std::string, double> e;
    for (const auto& [cls, r] : ratios)
      if (!r.empty()) e[cls] = std::clamp(quantile(r, 0.5), 0.01, 1.0);
    return e;
  }
};

// One model's repeated measurements in `validate --repeat N`.
struct ModelRuns {
  std::string name;
  double predicted = 0;
  std::vector<double> raw, normalized;
  int contended = 0, flagged = 0;
};

// Rounds over the models, alternating them (every other round in reverse order), so that
// each model's repeats are spread over the whole run.
Expected<std::vector<ModelRuns>> validate_runs(const ValidateArgs& a, const std::string& dir,
                                               const std::vector<std::string>& test, const ExecOptions& exec,
                                               const DeviceSpec& dev, HostContext& host) {
  std::vector<ModelRuns> runs(test.size());
  for (int r = 0; r < std::max(1, a.repeat); ++r)
    for (size_t k = 0; k < test.size(); ++k) {
      const size_t i = r % 2 ? test.size() - 1 - k : k;
      std::fprintf(stderr, "validate: %s (%zu/%zu, round %d/%d)\n", test[i].c_str(), k + 1, test.size(), r + 1,
                   std::max(1, a.repeat));
      auto c = measure_and_predict(dir + "/" + test[i] + ".onnx", {}, BackendChoice{}, a.batch, exec, a.max_seconds,
                                   dev, &host);
      if (!c) return c.status();
      ModelRuns& m = runs[i];
      m.name = test[i];
      m.predicted = c->p.throughput;
      m.raw.push_back(c->m.throughput);
      if (c->host.has_reference) m.normalized.push_back(c->host.normalized_throughput);
      m.contended += c->m.contention && c->m.contention->contended;
      m.flagged += c->m.host && c->m.host->flagged;
    }
  return runs;
}

// The fidelity points of the runs: raw (median of the raw repeats) or normalised.
std::vector<ValidationPoint> validation_points(const std::vector<ModelRuns>& runs, bool normalized) {
  std::vector<ValidationPoint> pts;
  for (const auto& m : runs) {
    const auto& xs = normalized ? m.normalized : m.raw;
    if (!xs.empty()) pts.push_back({m.name, spread(xs).median, m.predicted});
  }
  return pts;
}

nlohmann::json summary_json(const ValidationSummary& s) {
  return {{"n", s.n},
          {"spearman", s.spearman},
          {"median_abs_error", s.median_abs_error},
          {"within_10", s.within_10},
          {"within_25", s.within_25}};
}

std::string validate_json(const ValidateArgs& a, const std::vector<ModelRuns>& runs, const DeviceSpec& dev, int threads,
                          const std::map<std::string, double>& fitted, const std::vector<std::string>& train,
                          const HostContext& host) {
  const ValidationSummary s = summarize(validation_points(runs, false));
  const ValidationSummary sn = summarize(validation_points(runs, true));
  nlohmann::json models = nlohmann::json::array();
  for (const auto& m : runs) {
    const Spread raw = spread(m.raw), norm = spread(m.normalized);
    nlohmann::json j = {{"name", m.name},
                        {"measured", raw.median},
                        {"predicted", m.predicted},
                        {"error", raw.median > 0 ? m.predicted / raw.median - 1 : 0},
                        {"runs", m.raw},
                        {"spread", raw.rel_range},
                        {"contended_runs", m.contended},
                        {"flagged_runs", m.flagged}};
    if (!m.normalized.empty()) {
      j["normalized"] = norm.median;
      j["error_normalized"] = norm.median > 0 ? m.predicted / norm.median - 1 : 0;
      j["runs_normalized"] = m.normalized;
      j["spread_normalized"] = norm.rel_range;
    }
    models.push_back(j);
  }
  nlohmann::json kt = nullptr;
  if (dev.kernel_table)
    kt = {{"file", dev.file},
          {"backend", dev.kernel_table->backend},
          {"threads", dev.kernel_table->threads},
          {"measured", dev.kernel_table->measured}};
  nlohmann::json j = {{"schema", "rooflens.validate/1"},
                      {"device", dev.id},
                      {"batch", a.batch},
                      {"threads", threads},
                      {"repeat", std::max(1, a.repeat)},
                      {"unit", "images/s"},
                      {"spearman", s.spearman},
                      {"median_abs_error", s.median_abs_error},
                      {"within_10", s.within_10},
                      {"within_25", s.within_25},
                      {"normalized", sn.n ? summary_json(sn) : nlohmann::json(nullptr)},
                      {"host_baseline", host.baseline_source},
                      {"models", models},
                      {"fitted_efficiency", fitted},
                      {"fitted_on", train},
                      {"kernel_table", kt}};
  return j.dump(2) + "\n";
}

std::string validate_text(const ValidateArgs& a, const std::vector<ModelRuns>& runs, const DeviceSpec& dev, int threads,
                          const std::map<std::string, double>& fitted, const HostContext& host) {
  report::Table t;
  t.headers = {"model",           "measured (img/s)", "normalised (img/s)", "predicted (img/s)", "error (%)",
               "error norm. (%)", "spread (%)",       "spread norm. (%)",   "contended"};
  t.numeric = {false, true, true, true, true, true, true, true, true};
  for (const auto& m : runs) {
    const Spread raw = spread(m.raw), norm = spread(m.normalized);
    const bool hn = !m.normalized.empty();
    t.rows.push_back({m.name, report::fmt_fixed(raw.median, 1), hn ? report::fmt_fixed(norm.median, 1) : "-",
                      report::fmt_fixed(m.predicted, 1), report::fmt_fixed(100 * (m.predicted / raw.median - 1), 1),
                      hn ? report::fmt_fixed(100 * (m.predicted / norm.median - 1), 1) : "-",
                      report::fmt_fixed(100 * raw.rel_range, 1), hn ? report::fmt_fixed(100 * norm.rel_range, 1) : "-",
                      fmt::format("{}/{}", m.contended, m.raw.size())});
  }
  const ValidationSummary s = summarize(validation_points(runs, false));
  const ValidationSummary sn = summarize(validation_points(runs, true));
  std::string out = report::render_text(t) +
                    fmt::format(
                        "\n{} models, batch {}, {} thread(s), {} round(s), predictions from {}\n  raw:        "
                        "Spearman {:.3f}, median |error| {:.1f}%, within +-10%: {:.0f}%, within +-25%: {:.0f}%\n",
                        s.n, a.batch, threads, std::max(1, a.repeat), dev.id, s.spearman, 100 * s.median_abs_error,
                        100 * s.within_10, 100 * s.within_25);
  if (sn.n)
    out += fmt::format(
        "  normalised: Spearman {:.3f}, median |error| {:.1f}%, within +-10%: {:.0f}%, within +-25%: {:.0f}% "
        "(host drift divided out against {})\n",
        sn.spearman, 100 * sn.median_abs_error, 100 * sn.within_10, 100 * sn.within_25, host.baseline_source);
  if (dev.kernel_table)
    out += fmt::format(
        "  layer times from the measured kernel table ({}, {} thread(s), measured {}); no model above "
        "was among its sampled kernels\n",
        dev.kernel_table->backend, dev.kernel_table->threads, dev.kernel_table->measured);
  if (!fitted.empty()) {
    out += fmt::format("  held out: efficiencies were fitted on the other models and written to {}:", a.fit_out);
    for (const auto& [k, v] : fitted) out += fmt::format(" {} {:.3f}", k, v);
    out += "\n";
  }
  return out;
}
}  // namespace

int run_validate(const ValidateArgs& args) {
  ValidateArgs a = args;
  if (Status s = resolve_output(a.format, a.output, {"table", "json"}, {a.device}); !s) return report_error(s);
  if (Status s = check_output_file(a.fit_out, {a.device, a.output}, "--fit"); !s) return report_error(s);
  auto dev = load_dev(a.device, a.devices_dir);
  if (!dev) return report_error(dev.status());
  const std::string dir = models_dir("");
  std::ifstream f(dir + "/zoo.json");
  auto zoo = nlohmann::json::parse(f, nullptr, false);
  if (zoo.is_discarded()) return report_error(Status::invalid(dir + "/zoo.json: cannot read the zoo manifest"));
  std::vector<std::string> names;
  if (!a.models.empty()) {
    std::stringstream ss(a.models);
    std::string n;
    while (std::getline(ss, n, ',')) names.push_back(n);
  } else if (a.zoo) {
    for (const auto& m : zoo["models"]) names.push_back(m["name"]);
  } else {
    return report_error(Status::invalid("validate: give --zoo or --models a,b,c"));
  }
  const int threads = default_threads(a.threads);
  ExecOptions exec;
  exec.threads = threads;
  exec.tactic_cache = tactic_cache_path();
  for (const auto& n : names)
    if (!std::filesystem::exists(dir + "/" + n + ".onnx"))
      return report_error(Status::invalid("--models: no bundled model '" + n + "'"));
  if (dev->kernel_table) {
    const KernelTable& kt = *dev->kernel_table;
    std::fprintf(stderr, "validate: predictions from the measured kernel table of %s (%s, %d thread(s), %s)\n",
                 dev->file.c_str(), kt.backend.c_str(), kt.threads, kt.measured.c_str());
    if (kt.threads != threads)
      std::fprintf(stderr, "validate: warning: the kernel table was measured with %d thread(s), this run uses %d\n",
                   kt.threads, threads);
  }
  std::vector<std::string> test = names, train;
  std::map<std::string, double> fitted;
  if (!a.fit_out.empty()) {
    // Fit on the even positions, validate on the odd ones: no model is both.
    test.clear();
    for (size_t i = 0; i < names.size(); ++i) (i % 2 ? test : train).push_back(names[i]);
    FitSums sums;
    for (size_t i = 0; i < train.size(); ++i) {
      std::fprintf(stderr, "validate: fitting on %s (%zu/%zu)\n", train[i].c_str(), i + 1, train.size());
      auto c = measure_and_predict(dir + "/" + train[i] + ".onnx", {}, BackendChoice{}, a.batch, exec, a.max_seconds,
                                   *dev, nullptr);
      if (!c) return report_error(c.status());
      sums.add(*c);
    }
    fitted = sums.efficiencies();
    dev->efficiency = fitted;
    // Write the device file with the fitted efficiencies.
    std::ifstream df(dev->file);
    auto dj = nlohmann::ordered_json::parse(df, nullptr, false);
    if (dj.is_discarded()) return report_error(Status::invalid(dev->file + ": cannot re-read the device file"));
    dj["efficiency"] = fitted;
    std::string src = "fitted by rooflens validate --fit on " + std::to_string(train.size()) + " models at batch " +
                      std::to_string(a.batch) + " (" + std::to_string(threads) +
                      " threads): predicted roof time / "
                      "measured time less dispatch, summed over the layers each roof binds; models:";
    for (const auto& t : train) src += " " + t;
    dj["sources"]["efficiency"] = src;
    Status w = write_output(a.fit_out, dj.dump(2) + "\n");
    if (!w) return report_error(w);
  }
  HostContext host = make_host_context(!a.no_host_reference, a.reference_max_move, threads, *dev);
  auto runs = validate_runs(a, dir, test, exec, *dev, host);
  if (!runs) return report_error(runs.status());
  const std::string out = a.format == "json" ? validate_json(a, *runs, *dev, threads, fitted, train, host)
                                             : validate_text(a, *runs, *dev, threads, fitted, host);
  Status w = write_output(a.output, out);
  return w ? kExitOk : report_error(w);
}

}  // namespace rooflens::cli
