// `rooflens measure`: run one model for real (this CPU, or a GPU through the cuda backend)
// and set the measurement beside the performance model's prediction.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include <map>
#include "backend_choice.h"
#include "commands.h"
#include "common.h"
#include "loading.h"
#include "measure_common.h"
#include "rooflens/analysis/validation.h"
#include "rooflens/device/device.h"
#include "rooflens/exec/cuda.h"
#include "rooflens/exec/measure.h"
#include "rooflens/microbench/host_cpu.h"
#include "rooflens/perf/model.h"
#include "rooflens/report/table.h"

namespace rooflens::cli {

void add_host_options(CLI::App* cmd, bool* no_reference, double* max_move, bool* no_paired, double* state_wait) {
  cmd->add_flag("--no-host-reference", *no_reference,
                "cpu backends: do not time the host-state reference (an FMA loop, the core clock, a DRAM triad, a "
                "fixed GEMM and three oneDNN convolutions) before and after the runs; no normalised throughput then");
  cmd->add_option("--reference-max-move", *max_move,
                  "a block of runs whose host-state reference moved by more than this share between before and after "
                  "is flagged and timed again (twice at most)")
      ->check(CLI::Range(0.0, 10.0))
      ->capture_default_str();
  cmd->add_flag("--no-paired-reference", *no_paired,
                "cpu backends: do not time a pass of the reference's convolutions after every timed run (the drift "
                "then reads them before and after the runs only)");
  cmd->add_option("--state-wait", *state_wait,
                  "cpu backends with a device file from `probe cpu --kernels`: before each block of runs, wait up to "
                  "this many seconds while the host's per-primitive dispatch reads another state than the kernel "
                  "table's (a shared VM's slower state slows small models up to 1.8x); 0: measure in either")
      ->check(CLI::Range(0.0, 3600.0))
      ->capture_default_str();
}

int default_threads(int t) { return measure_threads(t); }

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
  cmd->add_option("--threads", a.threads, "threads (default: every CPU this process may use)")
      ->check(at_least_one("all cores"));
  cmd->add_option("--device", a.device,
                  "device file or id for predictions and the peak (default: this machine's entry; `rooflens probe cpu "
                  "--out local.json` measures one)")
      ->capture_default_str();
  cmd->add_option("--layout", a.layout,
                  "cpu backend: activations between layers: channels-last, blocked (oneDNN's nChw16c where channels "
                  "are a multiple of 16), or auto (each layer in the layout it ran faster in, from one timed run of "
                  "each, reorders costed)")
      ->check(
          CLI::IsMember(std::vector<std::string>(std::begin(kActivationLayoutNames), std::end(kActivationLayoutNames))))
      ->capture_default_str();
  cmd->add_flag("--no-tune", a.no_tune,
                "cpu backend: take oneDNN's first implementation of each conv/inner product instead of timing its "
                "candidates while preparing");
  cmd->add_flag("--no-buffer-reuse", a.no_buffer_reuse,
                "cpu backend: give every activation a buffer of its own instead of one arena shared by buffers whose "
                "lifetimes do not overlap");
  cmd->add_flag("--keep-denormals", a.keep_denormals,
                "cpu backend: compute with IEEE denormal floats, as ONNX Runtime and PyTorch do by default, instead of "
                "flushing them to zero (slower where activations decay towards zero)");
  cmd->add_flag("--verify", a.verify, "also run the reference backend on the same input and report the relative error");
  cmd->add_option("--format", a.format, "table or json (default: from -o's extension, else table)")
      ->check(CLI::IsMember({"table", "json"}));
  cmd->add_option("--max-seconds", a.max_seconds, "time cap for the repeats")
      ->check(positive_seconds())
      ->capture_default_str();
  cmd->add_option("-o,--output", a.output, "write to this file (atomically) instead of stdout");
  cmd->add_option("--devices-dir", a.devices_dir, "directory of device JSON files");
  add_host_options(cmd, &a.no_host_reference, &a.reference_max_move, &a.no_paired_reference, &a.state_wait);
  cmd->add_flag("--fixed-threads", a.fixed_threads,
                "cpu backends: measure on --threads as one team whatever the machine; by default, when a short "
                "trial finds the machine contended, half the threads are tried too, then the batch split into "
                "streams of one thread each, and the fastest is measured");
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
                      {"streams", m.streams},
                      {"thread_choice", m.thread_choice
                                            ? nlohmann::json{{"asked", m.thread_choice->asked},
                                                             {"used", m.thread_choice->used},
                                                             {"tried_fewer", m.thread_choice->tried},
                                                             {"alternated", m.thread_choice->alternated},
                                                             {"asked_seconds", m.thread_choice->asked_seconds},
                                                             {"fewer_seconds", m.thread_choice->fewer_seconds},
                                                             {"tried_streams", m.thread_choice->streams},
                                                             {"kept_streams", m.thread_choice->kept_streams},
                                                             {"summary", m.thread_choice->summary}}
                                            : nlohmann::json(nullptr)},
                      {"dtype", a.dtype},
                      {"cuda_graph", a.graph},
                      {"gpu", gpu_name},
                      {"throughput", m.throughput},
                      {"throughput_iqr", m.throughput_q3 - m.throughput_q1},
                      {"throughput_q1", m.throughput_q1},
                      {"throughput_q3", m.throughput_q3},
                      {"latency_s", m.timing.median},
                      {"latency_min_s", m.timing.min},
                      {"runs", m.timing.samples.size()},
                      {"achieved_flops", m.achieved_flops},
                      {"utilization", util},
                      {"peak_flops", c->peak},
                      {"peak_kind", c->peak_label},
                      {"predicted_throughput", c->p.throughput},
                      {"device_mismatch", o.device_mismatch},
                      {"noisy", m.timing.noisy},
                      {"warning", m.timing.warning},
                      {"max_batch", max_batch ? nlohmann::json(*max_batch) : nlohmann::json(nullptr)},
                      {"activation_bytes", m.activation_bytes},
                      {"activation_bytes_unshared", m.activation_bytes_unshared},
                      {"layout", m.layout},
                      {"denormals_flushed", m.denormals_flushed},
                      {"layers", layers}};
  if (o.host) j.update(host_json(m, c->host, *o.host));
  if (verify_err) {
    j["verify_max_rel_error"] = *verify_err;
    j["verify_rel_errors"] = errs;
  }
  out = j.dump(2) + "\n";
  return out;
}

namespace {

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
  if (m.thread_choice && m.thread_choice->tried) out += fmt::format("  threads         {}\n", m.thread_choice->summary);
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
  if (m.denormals_flushed) out += "  denormals       flushed to zero (--keep-denormals: IEEE)\n";
  out += fmt::format("  achieved        {:>10.1f} GFLOP/s\n", m.achieved_flops / 1e9);
  out += fmt::format("  utilization     {:>10.1f} %  of the {} peak {:.1f} GFLOP/s ({})\n", 100 * util, c->peak_label,
                     c->peak / 1e9, dev->id);
  out += fmt::format("  predicted       {:>10.1f} images/s  (performance model on {}; measured/predicted {:.2f})\n",
                     c->p.throughput, dev->id, m.throughput / c->p.throughput);
  if (!o.device_mismatch.empty())
    out += fmt::format(
        "  device          {} may not be this CPU ({}): `rooflens probe cpu --out local.json`, then --device "
        "local.json, measures this one\n",
        dev->id, o.device_mismatch);
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
    auto gpu = gpu_at_hand(device, a.devices_dir);
    if (!gpu) return report_error(gpu.status());
    gpu_name = gpu->name;
    device = gpu->device;
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
  exec.flush_denormals = !a.keep_denormals;
  auto layout = parse_activation_layout(a.layout);
  if (!layout) return report_error(layout.status());
  exec.layout = *layout;
  HostContext host = make_host_context(!a.no_host_reference, a.reference_max_move, threads, *dev);
  host.adapt_threads = !a.fixed_threads;
  host.paired_reference = !a.no_paired_reference;
  host.state_wait_s = a.state_wait;
  HostContext* cpu_host = a.backend == "cuda" ? nullptr : &host;
  auto c = measure_and_predict(a.file, *shapes, backend_factory(choice), choice.name == "cuda", choice.dtype, batch,
                               exec, a.max_seconds, -1, *dev, cpu_host);
  if (!c) return report_error(c.status());
  MeasureOutcome o{*c, *dev, max_batch, gpu_name, std::nullopt, {}, cpu_host, ""};
  if (auto cpu = microbench::detect_host_cpu(); cpu && a.backend != "cuda")
    o.device_mismatch = microbench::cpu_device_mismatch(*dev, *cpu);
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

}  // namespace rooflens::cli
