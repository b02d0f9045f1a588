// `rooflens probe cpu`: measures this machine (compute peaks per dtype and thread count,
// bandwidth over working sets, dispatch overhead), prints measured beside theoretical, and
// writes a device file that `predict --device` accepts.
// `rooflens probe gpu` is in probe_gpu_cmd.cpp.
// `rooflens probe jpeg`: JPEG decode rate of one core (libjpeg-turbo) at the model's input
// size and at a typical source photo size.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "commands.h"
#include "common.h"
#include "rooflens/analysis/network_level.h"
#include "rooflens/calibration/kernel_probe.h"
#include "rooflens/device/device.h"
#include "rooflens/exec/backend.h"
#include "rooflens/exec/dispatch_probe.h"
#include "rooflens/microbench/jpeg_decode.h"
#include "rooflens/microbench/probe.h"
#include "rooflens/report/table.h"

namespace rooflens::cli {
namespace {

using microbench::BandwidthKind;
using microbench::ProbeResult;

std::string bytes_label(double b) {
  if (b >= (1 << 30)) return fmt::format("{:g} GiB", b / (1 << 30));
  if (b >= (1 << 20)) return fmt::format("{:g} MiB", b / (1 << 20));
  return fmt::format("{:g} KiB", b / 1024);
}

std::string render_table(const ProbeResult& r) {
  using report::Table;
  std::string out;
  const auto& c = r.cpu;
  std::string isa;
  for (const auto& n : c.isa.names()) isa += (isa.empty() ? "" : " ") + n;
  out += fmt::format("rooflens probe cpu, {}\n", r.date);
  out += fmt::format("cpu:    {} ({}), cpuid family 0x{:x} model 0x{:x}; {} core(s), {} logical CPU(s)\n", c.model_name,
                     c.brand, c.family, c.model, c.cores, c.threads);
  out += fmt::format("isa:    {} (detected at run time)\n", isa.empty() ? "none of the probe's" : isa);
  out += fmt::format("caches: L1d {} and L2 {} per core, L3 {} ({})\n", bytes_label(c.l1d_bytes),
                     bytes_label(c.l2_bytes), bytes_label(c.l3_bytes), c.cache_source);
  if (r.llc_bytes != c.l3_bytes)
    out += fmt::format("        last-level cache used: {}; {}\n", bytes_label(r.llc_bytes), r.llc_source);
  out += fmt::format("memory: {:.1f} GiB (MemTotal)\n", c.mem_total_bytes / (1u << 30));
  out += fmt::format("clock:  {:.3f} GHz used for the theoretical peaks: {}\n", r.clock_hz / 1e9, r.clock_source);
  out += fmt::format(
      "runs:   {} repeats per figure; {:.2f} s per compute repeat, {:.2f} s per bandwidth repeat; "
      "{:.0f} s in all\n\n",
      r.repeats, r.compute_seconds, r.bandwidth_seconds, r.wall_seconds);

  if (!r.compute.empty()) {
    Table t;
    t.headers = {"dtype",          "isa",        "instruction",           "threads",           "median (GFLOP/s)",
                 "best (GFLOP/s)", "spread (%)", "theoretical (GFLOP/s)", "median/theor. (%)", "best/theor. (%)",
                 "on CPU (%)"};
    t.numeric = {false, false, false, true, true, true, true, true, true, true, true};
    for (const auto& m : r.compute)
      t.rows.push_back({m.dtype, m.isa, m.instruction, std::to_string(m.threads),
                        report::fmt_scaled(m.flops.median, 1e9, 1), report::fmt_scaled(m.flops.best, 1e9, 1),
                        report::fmt_fixed(100 * m.flops.spread, 1), report::fmt_scaled(m.theoretical, 1e9, 1),
                        m.theoretical > 0 ? report::fmt_fixed(100 * m.flops.median / m.theoretical, 1) : "-",
                        m.theoretical > 0 ? report::fmt_fixed(100 * m.flops.best / m.theoretical, 1) : "-",
                        report::fmt_fixed(100 * m.on_cpu.median, 0)});
    out += "Compute peaks (int8 in GOP/s; on CPU: thread CPU time / wall time, median)\n" + report::render_text(t);
    out += "theoretical = cores x FMA units x (datapath bits / 32) x 2 x clock (bf16 x2, int8 x4 per lane):\n";
    for (const auto& p : r.paths)
      out += fmt::format("  {}: {:g} FLOP/cycle/core; {}\n", p.isa, p.fp32_flop_per_cycle(), p.assumption);
    out += "\n";
  }

  if (!r.bandwidth.empty()) {
    Table t;
    t.headers = {"working set", "level", "threads"};
    t.numeric = {true, false, true};
    for (BandwidthKind k : microbench::kBandwidthKinds) {
      t.headers.push_back(std::string(microbench::bandwidth_kind_name(k)) + " median / best (GB/s)");
      t.numeric.push_back(true);
    }
    for (int threads : r.thread_counts) {
      std::vector<double> sizes;
      for (const auto& m : r.bandwidth)
        if (m.threads == threads && m.kind == BandwidthKind::kRead) sizes.push_back(m.working_set_bytes);
      for (double ws : sizes) {
        std::vector<std::string> row = {bytes_label(ws),
                                        microbench::cache_level(ws, threads, c.l1d_bytes, c.l2_bytes, r.llc_bytes),
                                        std::to_string(threads)};
        for (BandwidthKind k : microbench::kBandwidthKinds) {
          std::string cell = "-";
          // Triad rounds each of its three arrays separately: match the nearest working set.
          const microbench::BandwidthMeasurement* best = nullptr;
          for (const auto& m : r.bandwidth)
            if (m.threads == threads && m.kind == k &&
                (!best || std::abs(m.working_set_bytes - ws) < std::abs(best->working_set_bytes - ws)))
              best = &m;
          if (best && std::abs(best->working_set_bytes - ws) <= 0.02 * ws)
            cell = report::fmt_scaled(best->bytes_per_s.median, 1e9, 1) + " / " +
                   report::fmt_scaled(best->bytes_per_s.best, 1e9, 1);
          row.push_back(cell);
        }
        t.rows.push_back(std::move(row));
      }
    }
    out +=
        "Bandwidth (STREAM counting: read and write n x 4 B, triad 3 x n x 4 B; level: smallest cache holding "
        "each core's share, L3 the whole set)\n" +
        report::render_text(t) + "\n";
  }

  if (!r.dispatch.empty()) {
    Table t;
    t.headers = {"threads", "median (us)", "best (us)", "spread (%)"};
    t.numeric = {true, true, true, true};
    for (const auto& m : r.dispatch)
      t.rows.push_back({std::to_string(m.threads), report::fmt_scaled(m.seconds.median, 1e-6, 3),
                        report::fmt_scaled(m.seconds.best, 1e-6, 3), report::fmt_fixed(100 * m.seconds.spread, 1)});
    out +=
        "Dispatch overhead (fork/join of an almost empty parallel region on the pinned team; --out records a "
        "oneDNN primitive's dispatch as launch_overhead_s when oneDNN is built)\n" +
        report::render_text(t) + "\n";
  }

  const int n = microbench::max_threads(r);
  out += fmt::format("Summary at {} thread(s):\n", n);
  for (const auto& dt : microbench::measured_dtypes(r))
    if (const auto* m = microbench::best_compute(r, dt, n)) {
      const double theo = microbench::theoretical_peak(r, dt, n);
      out += fmt::format("  {} peak: median {:.1f}, best {:.1f} G{}/s ({}); theoretical {:.1f} ({:.0f}% reached)\n", dt,
                         m->flops.median / 1e9, m->flops.best / 1e9, dt == "int8" ? "OP" : "FLOP", m->isa, theo / 1e9,
                         theo > 0 ? 100 * m->flops.best / theo : 0.0);
    }
  if (const auto* t = microbench::largest_working_set(r, BandwidthKind::kTriad, n))
    out += fmt::format("  DRAM triad ({}): median {:.1f}, best {:.1f} GB/s\n", bytes_label(t->working_set_bytes),
                       t->bytes_per_s.median / 1e9, t->bytes_per_s.best / 1e9);
  if (!r.dispatch.empty())
    out += fmt::format("  dispatch overhead: {:.2f} us (median)\n", r.dispatch.back().seconds.median * 1e6);
  if (!r.bandwidth.empty()) {
    out += "  roofs (triad, medians; caches: best working set of the level, DRAM: the largest):";
    std::map<std::string, double> roof = microbench::level_roofs(r, BandwidthKind::kTriad, n);
    for (const char* level : {"L1", "L2", "L3", "DRAM"})
      if (roof.count(level)) out += fmt::format(" {} {:.1f}", level, roof[level] / 1e9);
    out += " GB/s\n";
  }
  if (r.steal_fraction) out += fmt::format("  hypervisor steal during the probe: {:.1f}%\n", 100 * *r.steal_fraction);
  if (!r.warnings.empty()) {
    out += "\nWarnings:\n";
    for (const auto& w : r.warnings) out += "  - " + w + "\n";
  } else {
    out += "\nNo interference seen (spread <= 10% and thread scaling >= 0.8 x cores).\n";
  }
  return out;
}

using JpegRuns = std::vector<std::pair<std::string, microbench::JpegDecodeResult>>;

std::string render_jpeg_table(const JpegRuns& runs) {
  using report::Table;
  const auto& first = runs.front().second;
  std::string out = fmt::format("rooflens probe jpeg, {}\n", first.date);
  out += fmt::format("library: {}; one thread (one core); load average {} (1 min) at the start\n", first.library,
                     first.load_average_1m >= 0 ? fmt::format("{:.2f}", first.load_average_1m) : "unknown");
  out += fmt::format(
      "image:   synthetic photo (gradients, sharp-edged objects, texture, noise), quality {}, {}, "
      "decoded to packed RGB (accurate IDCT, fancy upsampling: the libjpeg-turbo defaults)\n\n",
      first.quality, microbench::chroma_subsampling_name(first.subsampling));
  Table t;
  t.headers = {"role",           "size",
               "JPEG (KB)",      "bits/pixel",
               "PSNR (dB)",      "images/s per core, median",
               "IQR (images/s)", "images per CPU-s",
               "decoded (MB/s)", "on CPU (%)",
               "decodes"};
  t.numeric = {false, false, true, true, true, true, true, true, true, true, true};
  for (const auto& [role, r] : runs)
    t.rows.push_back({role, fmt::format("{}x{}", r.size.width, r.size.height),
                      report::fmt_scaled(static_cast<double>(r.jpeg_bytes), 1e3, 1),
                      report::fmt_fixed(r.bits_per_pixel, 2), report::fmt_fixed(r.psnr_db, 1),
                      report::fmt_fixed(r.images_per_s.median, 0), report::fmt_fixed(r.images_per_s_iqr, 0),
                      report::fmt_fixed(r.images_per_cpu_s.median, 0),
                      report::fmt_scaled(r.decoded_bytes_per_s, 1e6, 1), report::fmt_fixed(100 * r.on_cpu, 0),
                      std::to_string(r.decodes)});
  out += report::render_text(t);
  out +=
      "\nimages/s per core: wall-clock rate of one thread (median and interquartile range of the repeats).\n"
      "images per CPU-s: decodes per second of the thread's own CPU time, the rate of a core nobody else uses.\n"
      "Cores to feed a device = its images/s / images/s per core (decode only; resize, crop and normalisation come on "
      "top).\n";
  for (const auto& [role, r] : runs)
    if (r.on_cpu < 0.9)
      out += fmt::format(
          "warning: {}: the thread ran on its CPU {:.0f}% of the wall time: this machine is shared "
          "(load average {:.2f}); images per CPU-s is the better per-core figure\n",
          role, 100 * r.on_cpu, r.load_average_1m);
  return out;
}

int run_probe_jpeg(const ProbeArgs& a) {
  auto model = microbench::parse_image_size(a.jpeg_size);
  if (!model) return report_error(model.status().with_context("--size"));
  auto source = microbench::parse_image_size(a.jpeg_source_size);
  if (!source) return report_error(source.status().with_context("--source-size"));
  JpegRuns runs;
  for (const auto& [role, size] :
       {std::pair{std::string("model input"), *model}, std::pair{std::string("source"), *source}}) {
    microbench::JpegDecodeOptions o;
    o.size = size;
    o.seconds = a.jpeg_seconds;
    auto r = microbench::measure_jpeg_decode(o);
    if (!r) return report_error(r.status());
    runs.emplace_back(role, std::move(*r));
  }
  const std::string text =
      a.format == "json" ? microbench::jpeg_decode_json(runs).dump(2) + "\n" : render_jpeg_table(runs);
  Status w = write_output("", text);
  return w ? kExitOk : report_error(w);
}

// `--kernels`: the kernel table, timed with the dispatch overhead just measured and the
// probe's largest thread count, into the device JSON.
Status add_kernel_table(const ProbeArgs& a, const microbench::ProbeResult& r, nlohmann::ordered_json* dev) {
  auto backend = make_onednn_backend();
  if (!backend) return Status::unavailable("--kernels needs the oneDNN backend (built with ROOFLENS_WITH_ONEDNN=OFF)");
  KernelProbeOptions ko;
  ko.threads = r.dispatch.empty() ? 0 : static_cast<int>(r.dispatch.back().threads);
  ko.quick = a.quick;
  ko.rounds = a.kernel_rounds > 0 ? a.kernel_rounds : a.quick ? 1 : 3;
  ko.tactic_cache = tactic_cache_path();
  ko.dispatch_s = dev->value("launch_overhead_s", 0.0);
  // Evict three last-level caches' worth before every run (at least 64 MiB, at most 1 GiB).
  ko.flush_bytes = std::clamp(3 * r.llc_bytes, 64.0 * (1 << 20), 1024.0 * (1 << 20));
  if (!a.quiet) ko.progress = [](const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); };
  // The table's level inside whole networks: the generated networks timed at batch 1 and 8
  // (1 with --quick) after each round of shapes, so both read the same host.
  NetworkLevelOptions lo;
  lo.threads = ko.threads;
  lo.tactic_cache = ko.tactic_cache;
  lo.progress = ko.progress;
  lo.max_seconds = a.quick ? 0.15 : 0.4;
  if (a.quick) lo.batches = {1};
  auto spec = parse_device_json(dev->dump(), a.out);
  if (!spec) return spec.status();
  auto kt = probe_kernels_with_levels(*backend, *spec, ko, lo, onednn_version_text(), r.cpu.model_name);
  if (!kt) return kt.status();
  if (!a.kernel_samples.empty())
    if (Status w = write_output(a.kernel_samples, kernel_samples_json(*kt)); !w) return w;
  for (const std::string& w : kt->warnings) {
    std::fprintf(stderr, "probe: warning: %s\n", w.c_str());
    (*dev)["sources"]["kernel_table_warning"] = w;
  }
  (*dev)["kernel_table"] = nlohmann::ordered_json::parse(kernel_table_json(kt->table));
  (*dev)["sources"]["kernel_table"] = fmt::format(
      "measured by rooflens probe cpu --kernels{} in {:.0f} s: the backend's primitives over sampled shapes per class "
      "(median of {} interleaved rounds, the generated networks timed after each), "
      "each fitted as t = dispatch + exp(c0 + sum c_i x_i) (docs/perf-model.md)",
      a.quick ? " --quick" : "", kt->seconds, ko.rounds);
  return Status::ok();
}

}  // namespace

void add_probe(CLI::App& app, ProbeArgs& a) {
  auto* probe = app.add_subcommand("probe", "Measure this machine's peaks and write a device file");
  probe->require_subcommand(1);
  auto* cpu = probe->add_subcommand(
      "cpu",
      "Measure this CPU: FMA peak per dtype and thread count, bandwidth from L1 to DRAM, dispatch overhead; "
      "median and best of repeats, with interference warnings");
  cpu->add_option("--threads", a.threads, "most threads to measure (default: every CPU this process may use)")
      ->check(CLI::PositiveNumber);
  cpu->add_flag("--quick", a.quick, "shorter repeats and fewer working sets (a few seconds; for tests and demos)");
  cpu->add_option("--repeats", a.repeats, "repeats per figure (default 7, --quick 3)")->check(CLI::PositiveNumber);
  cpu->add_option("--out", a.out, "write a rooflens.device/1 file here (use it with --device FILE)");
  cpu->add_option("--json", a.json_out, "also write the rooflens.probe/1 object to this file");
  cpu->add_option("--id", a.id, "device id in the --out file")->capture_default_str();
  cpu->add_option("--format", a.format, "table or json (rooflens.probe/1)")
      ->check(CLI::IsMember({"table", "json"}))
      ->capture_default_str();
  cpu->add_option("--isa", a.isa, "widest instruction set to use: auto, avx2 (as AVX2-only code runs) or avx512")
      ->check(CLI::IsMember({"auto", "avx2", "avx512"}))
      ->capture_default_str();
  cpu->add_flag(
      "--kernels", a.kernels,
      "also time the oneDNN backend's own primitives over sampled shapes per kernel class (conv, stem, pointwise, "
      "depthwise, gemm, gemm_skinny, attention, pool, eltwise, move, reorder), fit a predictor per class and "
      "store it in the --out "
      "file as its kernel table (predict and validate then use it); generated networks timed end to end after each "
      "round give the table's in-network level; about 5 minutes, 1 with --quick");
  cpu->add_option("--kernel-rounds", a.kernel_rounds,
                  "--kernels: time every shape this many times, the classes interleaved, and fit each shape's median "
                  "(default 3, --quick 1)")
      ->check(CLI::Range(1, 20));
  cpu->add_option(
      "--kernel-samples", a.kernel_samples,
      "--kernels: also write every timed shape (problem, features, warm and cold seconds) to this JSON file, "
      "to refit or try features of one's own");
  cpu->add_flag("--quiet", a.quiet, "no progress lines on stderr");
  cpu->final_callback([&a] { a.target = "cpu"; });

  add_probe_gpu(*probe, a);

  auto* jpeg = probe->add_subcommand(
      "jpeg",
      "Measure JPEG decoding on one core (libjpeg-turbo): images/s at the model's input size and at a typical "
      "source photo size, of a synthetic photo encoded at quality 90, 4:2:0");
  jpeg->add_option("--size", a.jpeg_size, "model input size WIDTHxHEIGHT")->capture_default_str();
  jpeg->add_option("--source-size", a.jpeg_source_size, "source photo size WIDTHxHEIGHT (ImageNet's most common)")
      ->capture_default_str();
  jpeg->add_option("--seconds", a.jpeg_seconds, "decode time per size (s), over 7 repeats")
      ->check(CLI::Range(0.01, 600.0))
      ->capture_default_str();
  jpeg->add_option("--format", a.format, "table or json (rooflens.jpeg_decode/1)")
      ->check(CLI::IsMember({"table", "json"}))
      ->capture_default_str();
  jpeg->final_callback([&a] { a.target = "jpeg"; });
}

int run_probe(const ProbeArgs& a) {
  // Before minutes of measuring: the files it ends by writing must be writable as files.
  if (Status s = check_output_file(a.out, {}, "--out"); !s) return report_error(s);
  if (Status s = check_output_file(a.json_out, {a.out}, "--json"); !s) return report_error(s);
  if (Status s = check_output_file(a.kernel_samples, {}, "--kernel-samples"); !s) return report_error(s);
  if (a.kernel_samples == "-" ||
      (!a.kernel_samples.empty() && (a.kernel_samples == a.out || a.kernel_samples == a.json_out)))
    return report_error(Status::invalid("--kernel-samples '" + a.kernel_samples +
                                        "': give a file of its own, not stdout, --out or --json"));
  if (!a.out.empty() && a.out != "-" && a.out == a.json_out)
    return report_error(Status::invalid("--out and --json name the same file '" + a.out + "': give two names"));
  if (a.target == "jpeg") return run_probe_jpeg(a);
  if (a.target == "gpu") return run_probe_gpu(a);
  if (a.target != "cpu")
    return report_error(Status::invalid("probe: only 'probe cpu', 'probe gpu' and 'probe jpeg' exist"));
  if (a.id.empty()) return report_error(Status::invalid("--id must not be empty"));
  microbench::ProbeOptions o;
  o.max_threads = a.threads;
  o.quick = a.quick;
  o.repeats = a.repeats;
  o.isa = a.isa;
  if (!a.quiet) o.progress = [](const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); };
  if (a.kernels && a.out.empty())
    return report_error(
        Status::invalid("--kernels: give --out FILE, the device file the kernel table is written into"));
  if (a.kernel_rounds > 0 && !a.kernels)
    return report_error(Status::invalid("--kernel-rounds: it sets how --kernels times its shapes; give --kernels too"));
  if (!a.kernel_samples.empty() && !a.kernels)
    return report_error(Status::invalid("--kernel-samples: it writes the shapes --kernels times; give --kernels too"));
  auto r = microbench::run_cpu_probe(o);
  if (!r) return report_error(r.status());
  if (!a.out.empty()) {
    auto dev = microbench::probe_device_json(*r, a.id);
    // The CPU's "launch overhead" for the performance model is what a oneDNN primitive
    // costs to dispatch, measured here rather than the bare fork/join above.
    if (dev) {
      if (auto d = measure_onednn_dispatch(static_cast<int>(r->dispatch.empty() ? 0 : r->dispatch.back().threads))) {
        (*dev)["launch_overhead_s"] = d->median_s;
        (*dev)["sources"]["launch_overhead_s"] = fmt::format(
            "measured by rooflens probe cpu: oneDNN eltwise primitive over 64 floats, median {:.3g} s (best {:.3g} s) "
            "of {} batches of 200 executions",
            d->median_s, d->best_s, d->samples);
      }
    }
    if (!dev) return report_error(dev.status());
    if (a.kernels) {
      Status k = add_kernel_table(a, *r, &*dev);
      if (!k) return report_error(k);
    }
    Status w = write_output(a.out, dev->dump(2) + "\n");
    if (!w) return report_error(w);
    if (a.out != "-") {
      auto check = load_device_file(a.out);
      if (!check)
        return report_error(
            Status::internal("the device file the probe wrote does not load: " + check.status().message()));
      std::fprintf(stderr, "probe: wrote %s (use --device %s)\n", a.out.c_str(), a.out.c_str());
    }
  }
  if (!a.json_out.empty()) {
    Status w = write_output(a.json_out, microbench::probe_json(*r).dump(2) + "\n");
    if (!w) return report_error(w);
  }
  const std::string text = a.format == "json" ? microbench::probe_json(*r).dump(2) + "\n" : render_table(*r);
  Status w = write_output("", text);
  return w ? kExitOk : report_error(w);
}

}  // namespace rooflens::cli
