// `rooflens validate`: measure bundled models (this CPU, or the GPU at hand) and compare
// with the performance model per model and per layer class; optionally fit the kernel
// efficiencies on half the models and keep each model's per-layer measurement.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "backend_choice.h"
#include "commands.h"
#include "common.h"
#include "loading.h"
#include "measure_common.h"
#include "rooflens/analysis/validation.h"
#include "rooflens/device/device.h"
#include "rooflens/report/table.h"

namespace rooflens::cli {

void add_validate(CLI::App& app, ValidateArgs& a) {
  auto* cmd = app.add_subcommand(
      "validate",
      "Measure bundled models (this CPU, or a GPU with --backend cuda) and compare with the performance model, per "
      "model and per layer class");
  cmd->add_option("--device", a.device,
                  "device file or id whose predictions are checked (default: this machine's entry; with --backend "
                  "cuda, the database entry of the GPU at hand)")
      ->capture_default_str();
  cmd->add_option("--backend", a.backend, "cpu (oneDNN), reference, or cuda (cuDNN/cuBLAS on an NVIDIA GPU)")
      ->check(CLI::IsMember({"cpu", "onednn", "reference", "cuda"}))
      ->capture_default_str();
  cmd->add_option("--dtype", a.dtype, "fp32, or fp16 (tensor cores) on the cuda backend")
      ->check(CLI::IsMember({"fp32", "fp16"}))
      ->capture_default_str();
  cmd->add_option("--modes", a.modes,
                  "cuda backend: eager (layer by layer, per-layer times), graph (one CUDA graph per batch), or "
                  "eager,graph (both, one after the other; the comparison uses the first)")
      ->check(CLI::Validator(
          [](std::string& v) -> std::string {
            return v == "eager" || v == "graph" || v == "eager,graph" || v == "graph,eager"
                       ? ""
                       : "--modes: '" + v + "': eager, graph or eager,graph";
          },
          "MODES"))
      ->capture_default_str();
  cmd->add_flag("--zoo", a.zoo, "every bundled model");
  cmd->add_option("--models", a.models, "comma-separated model names from the zoo");
  cmd->add_option("--batch", a.batch, "batch size")->capture_default_str()->check(CLI::PositiveNumber);
  cmd->add_option("--threads", a.threads, "threads (default: every CPU this process may use)")
      ->check(at_least_one("all cores"));
  cmd->add_option("--max-seconds", a.max_seconds, "time cap per model")
      ->check(positive_seconds())
      ->capture_default_str();
  cmd->add_option("--warmup-seconds", a.warmup_seconds,
                  "untimed runs before timing, per model (default: 1 s on a GPU, which clocks up from idle)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--layers-dir", a.layers_dir,
                  "write each model's measurement with every layer here as MODEL-DTYPE-bBATCH-MODE.json "
                  "(rooflens.measure/1, as `measure --format json`)");
  cmd->add_flag("--keep-going", a.keep_going, "report a model that fails (in the output's failures) and go on");
  cmd->add_option("--format", a.format, "table or json (default: from -o's extension, else table)")
      ->check(CLI::IsMember({"table", "json"}));
  cmd->add_option("-o,--output", a.output, "write to this file (atomically) instead of stdout");
  cmd->add_option("--devices-dir", a.devices_dir, "directory of device JSON files");
  cmd->add_option("--fit", a.fit_out,
                  "fit kernel efficiencies (gemm, depthwise, memory) on every other model, write the device file with "
                  "them here, and validate on the held-out models only");
  cmd->add_option("--measurements", a.measurements,
                  "a recorded corpus CSV (model, device, dtype, batch, engine, throughput, source[, mode, split]): "
                  "predictions with --engine beside its rows, nothing measured");
  add_engine_option(cmd, &a.engine);
  cmd->add_option("--repeat", a.repeat,
                  "rounds over the models, alternating them (every other round reversed); each model's median and "
                  "spread, raw and normalised, are reported")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  cmd->add_option("--max-repeat", a.max_repeat,
                  "after the --repeat rounds, more rounds (up to this many in all) for the models whose median is not "
                  "settled: its order-statistic confidence interval (>= 87.5%) outside +-settle of the median "
                  "(normalised runs where there are); 0: off")
      ->check(CLI::Range(0, 1000));
  cmd->add_option("--settle", a.settle_tolerance, "the share a settled median's interval stays within (--max-repeat)")
      ->check(CLI::Range(0.001, 1.0))
      ->capture_default_str();
  add_host_options(cmd, &a.no_host_reference, &a.reference_max_move);
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

}  // namespace

namespace {

// Everything validate needs, resolved from the flags before any model runs.
struct ValidateRun {
  ValidateArgs a;
  std::vector<BackendChoice> choices;  // the modes, in order (one for a CPU backend)
  std::string gpu_name;
  DeviceSpec dev;
  std::string dir;  // the bundled models
  std::vector<std::string> names;
  ExecOptions exec;
  int threads = 1;
};

// One model's repeated measurements (validate --repeat N): raw, and normalised by the host state.
struct ModelRuns {
  double predicted = 0;
  std::vector<double> raw, normalized;
  std::vector<HostFigures> host;  // per run with a host reference: its reading and drift
  int contended = 0, flagged = 0;
  // The normalised runs read in the dispatch state `level` (ValidateResult::dispatch_level),
  // or all of them when none is: the runs a normalised median is taken over.
  std::vector<double> kept_normalized(double level) const { return runs_in_dispatch_state(normalized, host, level); }
  int other_state(double level) const {
    int n = 0;
    for (const auto& h : host) n += !in_dispatch_state(h, level);
    return n;
  }
};

struct ValidateResult {
  std::vector<ValidationPoint> pts;         // measured: the median of the model's raw runs
  std::vector<ValidationPoint> pts_normed;  // measured: the median of its normalised runs
  std::map<std::string, ModelRuns> runs;
  std::string host_baseline;
  HostRates host_baseline_rates;
  std::map<std::string, double> graph_throughput;  // eager,graph: the second mode's figure
  std::vector<LayerClassTimes> class_times;
  std::vector<std::pair<std::string, std::string>> failures;  // model, error
  std::vector<std::string> train;
  std::map<std::string, double> fitted;
  // The faster dispatch state: the least dispatch read by the table's reference or any run
  // (0: none read). Normalised medians are taken over the runs read in it.
  double dispatch_level = 0;
};

Expected<ValidateRun> resolve_validate(const ValidateArgs& args) {
  ValidateRun r;
  r.a = args;
  ValidateArgs& a = r.a;
  ROOFLENS_RETURN_IF_ERROR(resolve_output(a.format, a.output, {"table", "json"}, {a.device}));
  ROOFLENS_RETURN_IF_ERROR(check_output_file(a.fit_out, {a.device, a.output}, "--fit"));
  ROOFLENS_RETURN_IF_ERROR(check_backend_flags(a.backend, a.dtype, false));
  if (a.backend != "cuda" && a.modes != "eager")
    return Status::invalid("--modes " + a.modes + ": CUDA graphs need --backend cuda");
  const DType dt = a.dtype == "fp16" ? DType::kF16 : DType::kF32;
  std::stringstream ms(a.modes);
  for (std::string m; std::getline(ms, m, ',');) r.choices.push_back({a.backend, dt, m == "graph"});
  std::string device = a.device;
  if (a.backend == "cuda") {
    auto gpu = gpu_at_hand(device, a.devices_dir);
    if (!gpu) return gpu.status();
    r.gpu_name = gpu->name;
    device = gpu->device;
  }
  auto dev = load_dev(device, a.devices_dir);
  if (!dev) return dev.status();
  ROOFLENS_RETURN_IF_ERROR(device_runs_backend(*dev, device, a.backend, r.gpu_name));
  r.dev = std::move(*dev);
  r.dir = models_dir("");
  std::ifstream f(r.dir + "/zoo.json");
  auto zoo = nlohmann::json::parse(f, nullptr, false);
  if (zoo.is_discarded()) return Status::invalid(r.dir + "/zoo.json: cannot read the zoo manifest");
  if (!a.models.empty()) {
    std::stringstream ss(a.models);
    for (std::string n; std::getline(ss, n, ',');) r.names.push_back(n);
  } else if (a.zoo) {
    for (const auto& m : zoo["models"]) r.names.push_back(m["name"]);
  } else {
    return Status::invalid("validate: give --zoo or --models a,b,c");
  }
  for (const auto& n : r.names)
    if (!std::filesystem::exists(r.dir + "/" + n + ".onnx"))
      return Status::invalid("--models: no bundled model '" + n + "'");
  if (!a.layers_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(a.layers_dir, ec);
    if (ec) return Status::invalid("--layers-dir '" + a.layers_dir + "': " + ec.message());
  }
  r.threads = default_threads(a.threads);
  r.exec.threads = r.threads;
  r.exec.tactic_cache = tactic_cache_path();
  return r;
}

// One model in each mode: the first mode's measurement is compared; each is written to
// --layers-dir when given.
Expected<Compared> measure_modes(const ValidateRun& r, const std::string& name, ValidateResult* res,
                                 HostContext* host = nullptr) {
  std::optional<Compared> first;
  for (const BackendChoice& c : r.choices) {
    auto m = measure_and_predict(r.dir + "/" + name + ".onnx", {}, c, r.a.batch, r.exec, r.a.max_seconds, r.dev,
                                 r.a.warmup_seconds, c.name == "cuda" ? nullptr : host);
    if (!m) return m.status();
    if (!r.a.layers_dir.empty()) {
      MeasureArgs ma;
      ma.dtype = r.a.dtype;
      ma.graph = c.graph;
      const Expected<int64_t> no_max = Status::unavailable("not computed by validate");
      const std::string mode = r.a.backend != "cuda" ? r.a.backend : c.graph ? "graph" : "eager";
      ROOFLENS_RETURN_IF_ERROR(
          write_output(fmt::format("{}/{}-{}-b{}-{}.json", r.a.layers_dir, name, r.a.dtype, r.a.batch, mode),
                       measure_json(ma, MeasureOutcome{*m, r.dev, no_max, r.gpu_name, std::nullopt, {}, nullptr, {}})));
    }
    if (first)
      res->graph_throughput[name] = m->m.throughput;
    else
      first = std::move(*m);
  }
  return std::move(*first);
}

// Fit on the even positions (written to --fit), validate on the odd ones: no model is both.
Status fit_half(const ValidateRun& r, ValidateResult* res, std::vector<std::string>* test) {
  test->clear();
  for (size_t i = 0; i < r.names.size(); ++i) (i % 2 ? *test : res->train).push_back(r.names[i]);
  FitSums sums;
  for (size_t i = 0; i < res->train.size(); ++i) {
    std::fprintf(stderr, "validate: fitting on %s (%zu/%zu)\n", res->train[i].c_str(), i + 1, res->train.size());
    auto c = measure_modes(r, res->train[i], res);
    if (!c) return c.status();
    sums.add(*c);
  }
  res->fitted = sums.efficiencies();
  std::ifstream df(r.dev.file);
  auto dj = nlohmann::ordered_json::parse(df, nullptr, false);
  if (dj.is_discarded()) return Status::invalid(r.dev.file + ": cannot re-read the device file");
  dj["efficiency"] = res->fitted;
  std::string src =
      "fitted by rooflens validate --fit on " + std::to_string(res->train.size()) + " models at batch " +
      std::to_string(r.a.batch) + " (" +
      (r.a.backend == "cuda" ? r.gpu_name + ", cuda backend, " + r.a.dtype : std::to_string(r.threads) + " threads") +
      "): predicted roof time / measured time less dispatch, summed over the layers each roof binds; "
      "models:";
  for (const auto& t : res->train) src += " " + t;
  dj["sources"]["efficiency"] = src;
  return write_output(r.a.fit_out, dj.dump(2) + "\n");
}

nlohmann::json normalized_json(const ValidateResult& res) {
  if (res.pts_normed.empty()) return nullptr;
  const ValidationSummary s = summarize(res.pts_normed);
  return {{"n", s.n},
          {"spearman", s.spearman},
          {"median_abs_error", s.median_abs_error},
          {"within_10", s.within_10},
          {"within_25", s.within_25}};
}

// The repeats and the host state per model, and the fidelity against normalised throughput.
std::string repeats_text(const ValidateResult& res) {
  if (res.runs.empty()) return "";
  report::Table t;
  t.headers = {"model",     "runs",       "spread (%)", "normalised (img/s)", "error norm. (%)", "spread norm. (%)",
               "contended", "other state"};
  t.numeric = {false, true, true, true, true, true, true, true};
  for (const auto& p : res.pts) {
    const auto it = res.runs.find(p.name);
    if (it == res.runs.end()) continue;
    const ModelRuns& m = it->second;
    const Spread raw = spread(m.raw), norm = spread(m.kept_normalized(res.dispatch_level));
    const bool hn = !m.normalized.empty();
    t.rows.push_back({p.name, std::to_string(m.raw.size()), report::fmt_fixed(100 * raw.rel_range, 1),
                      hn ? report::fmt_fixed(norm.median, 1) : "-",
                      hn && norm.median > 0 ? report::fmt_fixed(100 * (m.predicted / norm.median - 1), 1) : "-",
                      hn ? report::fmt_fixed(100 * norm.rel_range, 1) : "-",
                      fmt::format("{}/{}", m.contended, m.raw.size()),
                      fmt::format("{}/{}", m.other_state(res.dispatch_level), m.host.size())});
  }
  std::string out =
      "\nRepeats and host state (normalised: the host's drift against its baseline divided out, median over the runs "
      "in the faster dispatch state; other state: runs whose dispatch read the slower level, left out when any run "
      "is in the faster):\n" +
      report::render_text(t);
  if (!res.pts_normed.empty()) {
    const ValidationSummary sn = summarize(res.pts_normed);
    out += fmt::format(
        "  normalised: Spearman {:.3f}, median |error| {:.1f}%, within +-10%: {:.0f}%, within +-25%: {:.0f}% "
        "(against {})\n",
        sn.spearman, 100 * sn.median_abs_error, 100 * sn.within_10, 100 * sn.within_25, res.host_baseline);
  }
  return out;
}

std::string validate_json(const ValidateRun& r, const ValidateResult& res, const ValidationSummary& s,
                          const std::vector<LayerClassSummary>& classes) {
  const DeviceSpec& dev = r.dev;
  nlohmann::json models = nlohmann::json::array(), cls = nlohmann::json::array(), per_model = nlohmann::json::array();
  for (const auto& p : res.pts) {
    nlohmann::json m = {{"name", p.name}, {"measured", p.measured}, {"predicted", p.predicted}, {"error", p.error()}};
    if (res.graph_throughput.count(p.name)) m["measured_second_mode"] = res.graph_throughput.at(p.name);
    if (auto it = res.runs.find(p.name); it != res.runs.end()) {
      const ModelRuns& mr = it->second;
      m["runs"] = mr.raw;
      m["spread"] = spread(mr.raw).rel_range;
      m["contended_runs"] = mr.contended;
      m["flagged_runs"] = mr.flagged;
      if (!mr.normalized.empty()) {
        const Spread n = spread(mr.kept_normalized(res.dispatch_level));
        m["normalized"] = n.median;
        m["error_normalized"] = n.median > 0 ? p.predicted / n.median - 1 : 0;
        m["runs_normalized"] = mr.normalized;
        m["spread_normalized"] = n.rel_range;
        m["other_state_runs"] = mr.other_state(res.dispatch_level);
        nlohmann::json h = nlohmann::json::array();
        for (const HostFigures& f : mr.host)
          h.push_back({{"gemm_flops", f.now.gemm_flops},
                       {"stream_bytes", f.now.stream_bytes},
                       {"clock_hz", f.now.clock_hz},
                       {"fma_flops", f.now.fma_flops},
                       {"dispatch_s", f.now.dispatch_s},
                       {"kernels_s", f.now.kernels_s},
                       {"in_dispatch_state", in_dispatch_state(f, res.dispatch_level)},
                       {"compute_share", f.compute_share},
                       {"drift", f.drift}});
        m["host_per_run"] = h;
      }
    }
    models.push_back(m);
  }
  for (const auto& c : classes)
    cls.push_back({{"class", c.cls},
                   {"models", c.models},
                   {"layers", c.layers},
                   {"measured_s", c.measured_s},
                   {"predicted_s", c.predicted_s},
                   {"median_measured_over_predicted", c.median_ratio}});
  for (const auto& t : res.class_times)
    per_model.push_back({{"model", t.model},
                         {"class", t.cls},
                         {"layers", t.layers},
                         {"measured_s", t.measured_s},
                         {"predicted_s", t.predicted_s}});
  nlohmann::json failures = nlohmann::json::array();
  for (const auto& [m, e] : res.failures) failures.push_back({{"model", m}, {"error", e}});
  nlohmann::json kt = nullptr;
  if (dev.kernel_table)
    kt = {{"file", dev.file},
          {"backend", dev.kernel_table->backend},
          {"threads", dev.kernel_table->threads},
          {"measured", dev.kernel_table->measured}};
  return nlohmann::json({{"schema", "rooflens.validate/1"},
                         {"backend", r.a.backend},
                         {"dtype", r.a.dtype},
                         {"modes", r.a.modes},
                         {"gpu", r.gpu_name},
                         {"device", dev.id},
                         {"batch", r.a.batch},
                         {"threads", r.threads},
                         {"unit", "images/s"},
                         {"spearman", s.spearman},
                         {"median_abs_error", s.median_abs_error},
                         {"within_10", s.within_10},
                         {"within_25", s.within_25},
                         {"repeat", std::max(1, r.a.repeat)},
                         {"max_repeat", std::max(std::max(1, r.a.repeat), r.a.max_repeat)},
                         {"settle", r.a.settle_tolerance},
                         {"normalized", normalized_json(res)},
                         {"dispatch_level_s", res.dispatch_level},
                         {"host_baseline", res.host_baseline},
                         {"host_baseline_rates",
                          {{"gemm_flops", res.host_baseline_rates.gemm_flops},
                           {"stream_bytes", res.host_baseline_rates.stream_bytes},
                           {"clock_hz", res.host_baseline_rates.clock_hz},
                           {"fma_flops", res.host_baseline_rates.fma_flops},
                           {"kernels_s", res.host_baseline_rates.kernels_s}}},
                         {"models", models},
                         {"layer_classes", cls},
                         {"layer_classes_per_model", per_model},
                         {"failures", failures},
                         {"fitted_efficiency", res.fitted},
                         {"fitted_on", res.train},
                         {"kernel_table", kt}})
             .dump(2) +
         "\n";
}

std::string validate_text(const ValidateRun& r, const ValidateResult& res, const ValidationSummary& s,
                          const std::vector<LayerClassSummary>& classes) {
  const DeviceSpec& dev = r.dev;
  report::Table t;
  t.headers = {"model", "measured (img/s)", "predicted (img/s)", "error (%)"};
  t.numeric = {false, true, true, true};
  for (const auto& p : res.pts)
    t.rows.push_back({p.name, report::fmt_fixed(p.measured, 1), report::fmt_fixed(p.predicted, 1),
                      report::fmt_fixed(100 * p.error(), 1)});
  const std::string run_on = r.a.backend == "cuda"
                                 ? fmt::format("{} (cuda backend, {}, {})", r.gpu_name, r.a.dtype,
                                               r.choices[0].graph ? "CUDA graphs" : "eager")
                                 : fmt::format("this CPU ({} backend, {} thread(s))", r.a.backend, r.threads);
  std::string out =
      report::render_text(t) +
      fmt::format(
          "\n{} models, batch {}, measured on {}, predictions from {}\n  Spearman {:.3f}, median |error| "
          "{:.1f}%, within +-10%: {:.0f}%, within +-25%: {:.0f}%\n",
          s.n, r.a.batch, run_on, dev.id, s.spearman, 100 * s.median_abs_error, 100 * s.within_10, 100 * s.within_25);
  if (dev.kernel_table)
    out += fmt::format(
        "  layer times from the measured kernel table ({}, {} thread(s), measured {}); no model above "
        "was among its sampled kernels\n",
        dev.kernel_table->backend, dev.kernel_table->threads, dev.kernel_table->measured);
  if (!res.fitted.empty()) {
    out +=
        fmt::format("  held out: efficiencies were fitted on the other {} models and written to {}:", res.train.size(),
                    r.a.fit_out);
    for (const auto& [k, v] : res.fitted) out += fmt::format(" {} {:.3f}", k, v);
    out += "\n";
  }
  if (!classes.empty()) {
    report::Table ct;
    ct.headers = {"layer class", "models", "layers", "measured (ms)", "predicted (ms)", "measured / predicted"};
    ct.numeric = {false, true, true, true, true, true};
    for (const auto& c : classes)
      ct.rows.push_back({c.cls, std::to_string(c.models), std::to_string(c.layers),
                         report::fmt_fixed(c.measured_s * 1e3, 3), report::fmt_fixed(c.predicted_s * 1e3, 3),
                         report::fmt_fixed(c.median_ratio, 2)});
    out +=
        "\nPer layer class (compute-bound layers by kernel class, memory-bound ones as memory; median over "
        "models):\n" +
        report::render_text(ct);
  } else if (r.choices[0].graph) {
    out += "  no per-layer comparison: CUDA graphs give no per-layer times (--modes eager,graph gives both)\n";
  }
  out += repeats_text(res);
  for (const auto& [m, e] : res.failures) out += "  failed: " + m + ": " + e + "\n";
  return out;
}

// One measurement of a model into its runs; the first round's layers also go to the layer classes.
void add_run(const Compared& c, bool first_round, ModelRuns* mr, ValidateResult* res) {
  mr->predicted = c.p.throughput;
  mr->raw.push_back(c.m.throughput);
  if (c.host.has_reference) {
    mr->normalized.push_back(c.host.normalized_throughput);
    mr->host.push_back(c.host);
    const double d = c.host.now.dispatch_s;
    if (d > 0 && (res->dispatch_level == 0 || d < res->dispatch_level)) res->dispatch_level = d;
  }
  mr->contended += c.m.contention && c.m.contention->contended;
  mr->flagged += c.m.host && c.m.host->flagged;
  if (!first_round) return;
  std::vector<std::pair<std::string, double>> measured;
  for (const auto& ml : c.m.layers) measured.emplace_back(ml.name, ml.time_s);
  for (auto& t : layer_class_times(c.p, measured)) res->class_times.push_back(std::move(t));
}

// One round over `models` (every other round in reverse order): each model's run is added to
// res; a model that failed in the first round is skipped. Err only without --keep-going.
Status measure_round(const ValidateRun& r, const std::vector<std::string>& models, int round, int rounds,
                     ValidateResult* res, HostContext* host) {
  for (size_t k = 0; k < models.size(); ++k) {
    const std::string& name = models[round % 2 ? models.size() - 1 - k : k];
    std::fprintf(stderr, "validate: %s (%zu/%zu, round %d/%d)\n", name.c_str(), k + 1, models.size(), round + 1,
                 rounds);
    if (round > 0 && !res->runs.count(name)) continue;  // failed in the first round
    auto c = measure_modes(r, name, res, host);
    if (!c) {
      if (!r.a.keep_going) return c.status();
      std::fprintf(stderr, "validate: %s failed: %s\n", name.c_str(), c.status().message().c_str());
      if (round == 0) res->failures.emplace_back(name, c.status().message());
      continue;
    }
    add_run(*c, round == 0, &res->runs[name], res);
  }
  return Status::ok();
}

// The models measured so far whose median (normalised where there is a host reference) is not
// settled within +-tolerance (analysis::median_settled).
std::vector<std::string> unsettled_models(const std::vector<std::string>& models, const ValidateResult& res,
                                          double tolerance) {
  std::vector<std::string> out;
  for (const auto& name : models) {
    const auto it = res.runs.find(name);
    if (it == res.runs.end()) continue;
    const ModelRuns& mr = it->second;
    // A model whose every normalised run read another dispatch state is not settled either:
    // more rounds may catch the baseline's.
    const bool none_in_state =
        !mr.host.empty() && mr.other_state(res.dispatch_level) == static_cast<int>(mr.host.size());
    if (none_in_state ||
        !median_settled(mr.normalized.empty() ? mr.raw : mr.kept_normalized(res.dispatch_level), tolerance))
      out.push_back(name);
  }
  return out;
}

}  // namespace

int run_validate(const ValidateArgs& args) {
  if (!args.measurements.empty()) return run_validate_corpus(args);
  auto r = resolve_validate(args);
  if (!r) return report_error(r.status());
  if (r->dev.kernel_table) {
    const KernelTable& kt = *r->dev.kernel_table;
    std::fprintf(stderr, "validate: predictions from the measured kernel table of %s (%s, %d thread(s), %s)\n",
                 r->dev.file.c_str(), kt.backend.c_str(), kt.threads, kt.measured.c_str());
    if (auto w = r->dev.sources.find("kernel_table_warning"); w != r->dev.sources.end())
      std::fprintf(stderr, "validate: warning: %s: %s\n", r->dev.file.c_str(), w->second.c_str());
    if (kt.threads != r->threads)
      std::fprintf(stderr, "validate: warning: the kernel table was measured with %d thread(s), this run uses %d\n",
                   kt.threads, r->threads);
  }
  ValidateResult res;
  std::vector<std::string> test = r->names;
  if (!r->a.fit_out.empty())
    if (Status s = fit_half(*r, &res, &test); !s) return report_error(s);
  HostContext host =
      make_host_context(!r->a.no_host_reference && r->a.backend != "cuda", r->a.reference_max_move, r->threads, r->dev);
  res.host_baseline = host.baseline_source;
  res.dispatch_level = host.baseline.dispatch_s;
  const int rounds = std::max(1, r->a.repeat);
  for (int round = 0; round < rounds; ++round)
    if (Status s = measure_round(*r, test, round, rounds, &res, &host); !s) return report_error(s);
  for (int round = rounds; round < r->a.max_repeat; ++round) {
    const std::vector<std::string> unsettled = unsettled_models(test, res, r->a.settle_tolerance);
    if (unsettled.empty()) break;
    if (Status s = measure_round(*r, unsettled, round, r->a.max_repeat, &res, &host); !s) return report_error(s);
  }
  for (const auto& name : test) {
    const auto it = res.runs.find(name);
    if (it == res.runs.end()) continue;
    res.pts.push_back({name, spread(it->second.raw).median, it->second.predicted});
    if (!it->second.normalized.empty())
      res.pts_normed.push_back(
          {name, spread(it->second.kept_normalized(res.dispatch_level)).median, it->second.predicted});
  }
  if (host.baseline_source.size()) res.host_baseline = host.baseline_source;
  if (!microbench::same_dispatch_level(host.baseline.dispatch_s, res.dispatch_level))
    std::fprintf(stderr,
                 "validate: warning: the kernel table was probed with the dispatch at %.2f us, this run read %.2f us "
                 "at best: the table describes the slower dispatch state, the normalised medians the faster\n",
                 host.baseline.dispatch_s * 1e6, res.dispatch_level * 1e6);
  res.host_baseline_rates = host.baseline;
  const ValidationSummary s = summarize(res.pts);
  const std::vector<LayerClassSummary> classes = summarize_layer_classes(res.class_times);
  const std::string out =
      r->a.format == "json" ? validate_json(*r, res, s, classes) : validate_text(*r, res, s, classes);
  Status w = write_output(r->a.output, out);
  if (!w) return report_error(w);
  return res.pts.empty() && !res.failures.empty() ? report_error(Status::invalid("validate: every model failed"))
                                                  : kExitOk;
}

}  // namespace rooflens::cli
