// `rooflens validate`: the flags mapped to the library's zoo validation
// (session/zoo_validation.h), its table rendering, the per-layer files of --layers-dir and
// the device file of --fit; validate --measurements is validate_corpus.cpp.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <sstream>

#include "backend_choice.h"
#include "commands.h"
#include "common.h"
#include "loading.h"
#include "measure_common.h"
#include "rooflens/analysis/validation.h"
#include "rooflens/device/device.h"
#include "rooflens/report/table.h"
#include "rooflens/session/zoo.h"
#include "rooflens/session/zoo_validation.h"

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
  cmd->add_option("--state-repeat", a.state_repeat,
                  "then more rounds (up to this many in all) for the models with no run in the host's faster dispatch "
                  "state, the state the kernel table was probed in (a model measured once whose run fell in the slower "
                  "one); 0: off")
      ->check(CLI::Range(0, 1000));
  cmd->add_option("--settle", a.settle_tolerance, "the share a settled median's interval stays within (--max-repeat)")
      ->check(CLI::Range(0.001, 1.0))
      ->capture_default_str();
  add_host_options(cmd, &a.no_host_reference, &a.reference_max_move, &a.no_paired_reference, &a.state_wait);
}

namespace {

// Everything validate needs, resolved from the flags before any model runs.
struct ValidateRun {
  ValidateArgs a;
  std::string gpu_name;
  int threads = 1;
  bool graph_first = false;  // the compared mode is a CUDA graph
  ZooValidationRequest req;
};

// The models --zoo or --models names, checked against the bundled zoo.
Expected<std::vector<std::string>> validate_names(const ValidateArgs& a, const std::string& dir) {
  const auto index = zoo_index(dir, ZooSet::kTorchvision);
  std::vector<std::string> names;
  if (!a.models.empty()) {
    std::stringstream ss(a.models);
    for (std::string n; std::getline(ss, n, ',');) names.push_back(n);
  } else if (a.zoo) {
    if (index.empty()) return Status::invalid(dir + "/zoo.json: cannot read the zoo manifest");
    for (const auto& [name, m] : index) names.push_back(name);
  } else {
    return Status::invalid("validate: give --zoo or --models a,b,c");
  }
  std::vector<std::string> missing;
  for (const auto& n : names)
    if (!index.count(n)) missing.push_back("'" + n + "'");
  if (!missing.empty()) return Status::invalid(fmt::format("--models: no bundled model {}", fmt::join(missing, ", ")));
  return names;
}

// The backend modes of --backend and --modes, in order.
std::vector<ValidationMode> validate_modes(const ValidateArgs& a) {
  const DType dt = a.dtype == "fp16" ? DType::kF16 : DType::kF32;
  std::vector<ValidationMode> modes;
  std::stringstream ms(a.modes);
  for (std::string m; std::getline(ms, m, ',');) {
    const BackendChoice c{a.backend, dt, m == "graph"};
    const bool gpu = a.backend == "cuda";
    modes.push_back({gpu ? m : a.backend, backend_factory(c), gpu});
  }
  return modes;
}

Expected<ValidateRun> resolve_validate(const ValidateArgs& args) {
  ValidateRun r;
  r.a = args;
  ValidateArgs& a = r.a;
  ROOFLENS_RETURN_IF_ERROR(resolve_output(a.format, a.output, {"table", "json"}, {a.device}));
  ROOFLENS_RETURN_IF_ERROR(check_output_file(a.fit_out, {a.device, a.output}, "--fit"));
  ROOFLENS_RETURN_IF_ERROR(check_backend_flags(a.backend, a.dtype, false));
  if (a.backend != "cuda" && a.modes != "eager")
    return Status::invalid("--modes " + a.modes + ": CUDA graphs need --backend cuda");
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
  ZooValidationRequest& q = r.req;
  q.dev = std::move(*dev);
  q.models_dir = models_dir("");
  auto names = validate_names(a, q.models_dir);
  if (!names) return names.status();
  q.models = std::move(*names);
  if (!a.layers_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(a.layers_dir, ec);
    if (ec) return Status::invalid("--layers-dir '" + a.layers_dir + "': " + ec.message());
  }
  r.threads = default_threads(a.threads);
  r.graph_first = a.backend == "cuda" && a.modes.rfind("graph", 0) == 0;
  q.modes = validate_modes(a);
  q.dtype = a.dtype == "fp16" ? DType::kF16 : DType::kF32;
  q.batch = a.batch;
  q.exec.threads = r.threads;
  q.exec.tactic_cache = tactic_cache_path();
  q.max_seconds = a.max_seconds;
  q.warmup_seconds = a.warmup_seconds;
  q.repeat = a.repeat;
  q.max_repeat = a.max_repeat;
  q.state_repeat = a.state_repeat;
  q.settle = a.settle_tolerance;
  q.keep_going = a.keep_going;
  q.host_reference = !a.no_host_reference;
  q.reference_max_move = a.reference_max_move;
  q.paired_reference = !a.no_paired_reference;
  q.state_wait = a.state_wait;
  q.fit_half = !a.fit_out.empty();
  q.progress = [](const std::string& line) { std::fprintf(stderr, "validate: %s\n", line.c_str()); };
  return r;
}

// Each measurement to --layers-dir as MODEL-DTYPE-bBATCH-MODE.json (rooflens.measure/1).
Status write_layers(const ValidateRun& r, const std::string& name, size_t mode, const Compared& c) {
  MeasureArgs ma;
  ma.dtype = r.a.dtype;
  ma.graph = r.a.backend == "cuda" && r.req.modes[mode].label == "graph";
  const Expected<int64_t> no_max = Status::unavailable("not computed by validate");
  return write_output(
      fmt::format("{}/{}-{}-b{}-{}.json", r.a.layers_dir, name, r.a.dtype, r.a.batch, r.req.modes[mode].label),
      measure_json(ma, MeasureOutcome{c, r.req.dev, no_max, r.gpu_name, std::nullopt, {}, nullptr, {}}));
}

// --fit: the device file with the efficiencies fitted on half the models (device_json, the
// schema's one writer).
Status write_fit(const ValidateRun& r, const ZooValidation& v) {
  DeviceSpec d = r.req.dev;
  d.efficiency = v.fitted;
  std::string src =
      "fitted by rooflens validate --fit on " + std::to_string(v.train.size()) + " models at batch " +
      std::to_string(r.a.batch) + " (" +
      (r.a.backend == "cuda" ? r.gpu_name + ", cuda backend, " + r.a.dtype : std::to_string(r.threads) + " threads") +
      "): predicted roof time / measured time less dispatch, summed over the layers each roof binds; "
      "models:";
  for (const auto& t : v.train) src += " " + t;
  d.sources["efficiency"] = src;
  return write_output(r.a.fit_out, device_json(d).dump(2) + "\n");
}

// The repeats and the host state per model, and the fidelity against normalised throughput.
std::string repeats_text(const ZooValidation& res) {
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
    const ValidationSummary& sn = res.normalized;
    out += fmt::format(
        "  normalised: Spearman {:.3f}, median |error| {:.1f}%, within +-10%: {:.0f}%, within +-25%: {:.0f}% "
        "(against {})\n",
        sn.spearman, 100 * sn.median_abs_error, 100 * sn.within_10, 100 * sn.within_25, res.host_baseline);
  }
  if (res.elasticity) {
    const HostElasticity& e = *res.elasticity;
    std::string exps;
    for (size_t i = 0; i < kElasticReadings; ++i)
      exps += fmt::format("{}{} {:.2f}", i ? ", " : "", elastic_reading_names()[i], e.exponent[i]);
    out += fmt::format(
        "  drift: the session's level {:.3f} (median of the runs' own drift) times the host's elasticities ({}) "
        "on each run's readings against the session's median, fitted on the other models' runs; on all {} models "
        "they take the within-model spread (sd of log runs) from {:.1f}% to {:.1f}%\n",
        e.level, exps, e.models, 100 * e.sd_raw, 100 * e.sd_fitted);
  }
  return out;
}

std::string validate_text(const ValidateRun& r, const ZooValidation& res) {
  const DeviceSpec& dev = r.req.dev;
  const ValidationSummary& s = res.summary;
  const std::vector<LayerClassSummary>& classes = res.classes;
  report::Table t;
  t.headers = {"model", "measured (img/s)", "predicted (img/s)", "error (%)"};
  t.numeric = {false, true, true, true};
  for (const auto& p : res.pts)
    t.rows.push_back({p.name, report::fmt_fixed(p.measured, 1), report::fmt_fixed(p.predicted, 1),
                      report::fmt_fixed(100 * p.error(), 1)});
  const std::string run_on =
      r.a.backend == "cuda"
          ? fmt::format("{} (cuda backend, {}, {})", r.gpu_name, r.a.dtype, r.graph_first ? "CUDA graphs" : "eager")
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
  } else if (r.graph_first) {
    out += "  no per-layer comparison: CUDA graphs give no per-layer times (--modes eager,graph gives both)\n";
  }
  out += repeats_text(res);
  for (const auto& [m, e] : res.failures) out += "  failed: " + m + ": " + e + "\n";
  return out;
}

// What the table says before the rounds: the kernel table the predictions come from.
void say_kernel_table(const ValidateRun& r) {
  const DeviceSpec& dev = r.req.dev;
  if (!dev.kernel_table) return;
  const KernelTable& kt = *dev.kernel_table;
  std::fprintf(stderr, "validate: predictions from the measured kernel table of %s (%s, %d thread(s), %s)\n",
               dev.file.c_str(), kt.backend.c_str(), kt.threads, kt.measured.c_str());
  if (auto w = dev.sources.find("kernel_table_warning"); w != dev.sources.end())
    std::fprintf(stderr, "validate: warning: %s: %s\n", dev.file.c_str(), w->second.c_str());
  if (kt.threads != r.threads)
    std::fprintf(stderr, "validate: warning: the kernel table was measured with %d thread(s), this run uses %d\n",
                 kt.threads, r.threads);
}

}  // namespace

int run_validate(const ValidateArgs& args) {
  if (!args.measurements.empty()) return run_validate_corpus(args);
  auto r = resolve_validate(args);
  if (!r) return report_error(r.status());
  say_kernel_table(*r);
  if (!r->a.layers_dir.empty())
    r->req.on_measurement = [&run = *r](const std::string& name, size_t mode, const Compared& c) {
      return write_layers(run, name, mode, c);
    };
  auto v = validate_zoo(r->req);
  if (!v) return report_error(v.status());
  if (!r->a.fit_out.empty())
    if (Status s = write_fit(*r, *v); !s) return report_error(s);
  if (!microbench::same_dispatch_level(v->baseline_dispatch, v->dispatch_level))
    std::fprintf(stderr,
                 "validate: warning: the kernel table was probed with the dispatch at %.2f us, this run read %.2f us "
                 "at best: the table describes the slower dispatch state, the normalised medians the faster\n",
                 v->baseline_dispatch * 1e6, v->dispatch_level * 1e6);
  const ZooValidationLabels labels{r->a.backend, r->a.dtype, r->a.modes, r->gpu_name, r->threads};
  const std::string out = r->a.format == "json" ? zoo_validation_json(r->req, labels, *v) : validate_text(*r, *v);
  Status w = write_output(r->a.output, out);
  return w ? kExitOk : report_error(w);
}

}  // namespace rooflens::cli
