// `rooflens probe gpu`: measures one CUDA device (cuBLAS GEMM peaks per dtype, device memory
// copy bandwidth, launch overhead, pinned host link), prints measured beside the datasheet of
// the database device its name matches, and writes a device file that `predict --device`
// accepts. Without a device (or a CUDA build) it ends with one error line, exit 2, no file.
#include <fmt/format.h>

#include <cmath>
#include <cstdio>

#include "commands.h"
#include "common.h"
#include "rooflens/device/device.h"
#include "rooflens/microbench/gpu_probe.h"
#include "rooflens/report/table.h"

namespace rooflens::cli {
namespace {

using microbench::GpuComparison;
using microbench::GpuProbeResult;

std::string pct(double v, double of) { return of > 0 ? report::fmt_fixed(100 * v / of, 1) : "-"; }

// One table of the comparisons whose unit is `unit`, scaled by `scale` (header `label`).
std::string comparison_table(const std::vector<GpuComparison>& rows, const std::string& unit, double scale,
                             int decimals, const std::string& label) {
  report::Table t;
  t.headers = {"figure",
               "median (" + label + ")",
               "best (" + label + ")",
               "spread (%)",
               "datasheet (" + label + ")",
               "median/datasheet (%)",
               "best/datasheet (%)",
               "datasheet figure"};
  t.numeric = {false, true, true, true, true, true, true, false};
  for (const auto& c : rows) {
    if (c.unit != unit) continue;
    t.rows.push_back(
        {c.what, report::fmt_scaled(c.measured.median, scale, decimals),
         report::fmt_scaled(c.measured.best, scale, decimals), report::fmt_fixed(100 * c.measured.spread, 1),
         c.datasheet > 0 ? report::fmt_scaled(c.datasheet, scale, decimals) : "-", pct(c.measured.median, c.datasheet),
         pct(c.measured.best, c.datasheet), c.datasheet > 0 ? c.datasheet_note : "-"});
  }
  return t.rows.empty() ? "" : report::render_text(t);
}

std::string version(int v) { return fmt::format("{}.{}", v / 1000, v % 1000 / 10); }

std::string render_gpu_table(const GpuProbeResult& r, const DeviceSpec* ds) {
  const auto& f = r.facts;
  std::string out = fmt::format("rooflens probe gpu, {}\n", r.date);
  out += fmt::format("device:    {} (device {}, PCI {}), compute capability {}, {} SMs, {:.1f} GiB, L2 {:.0f} MiB\n",
                     f.name, f.ordinal, f.pci_bus_id.empty() ? "unknown" : f.pci_bus_id, f.compute_capability(),
                     f.sm_count, f.global_mem_bytes / (1u << 30), f.l2_bytes / (1 << 20));
  out += fmt::format("clocks:    SM {} (cudaDevAttrClockRate), memory {} on a {}-bit bus\n",
                     f.clock_hz > 0 ? fmt::format("{:.0f} MHz", f.clock_hz / 1e6) : "unknown",
                     f.mem_clock_hz > 0 ? fmt::format("{:.0f} MHz", f.mem_clock_hz / 1e6) : "unknown",
                     f.mem_bus_width_bits);
  out += fmt::format("software:  driver supports CUDA {}, runtime CUDA {}, cuBLAS {}.{}.{}\n",
                     version(f.driver_version), version(f.runtime_version), f.cublas_version / 10000,
                     f.cublas_version / 100 % 100, f.cublas_version % 100);
  out += fmt::format("host link: {} now, {} at most (sysfs)\n",
                     f.pcie_link_current.empty() ? "unknown" : f.pcie_link_current,
                     f.pcie_link_max.empty() ? "unknown" : f.pcie_link_max);
  if (ds) {
    out += fmt::format("datasheet: {} ({}), {}\n", ds->id, ds->name, ds->file);
    if (ds->mem_bytes > 0 && std::fabs(ds->mem_bytes - f.global_mem_bytes) > 0.1 * ds->mem_bytes)
      out += fmt::format(
          "           note: its memory ({:.1f} GiB) differs from this device's by more than 10%: another "
          "variant?\n",
          ds->mem_bytes / (1u << 30));
  } else {
    out += fmt::format("datasheet: no database device matches '{}': measured figures only\n", f.name);
  }
  out += fmt::format("runs:      {} timed repeats after {} warm-up(s) per figure, CUDA events{}; {:.0f} s in all\n\n",
                     r.repeats, r.warmups, r.quick ? ", --quick" : "", r.wall_seconds);

  const auto rows = microbench::compare_with_datasheet(r, ds);
  out +=
      "Matrix peaks: cublasGemmEx, square, FLOP = 2 m n k; fp32 without TF32 (CUBLAS_COMPUTE_32F_PEDANTIC), others on "
      "tensor cores with fp32 accumulation\n" +
      comparison_table(rows, "FLOP/s", 1e12, 1, "TFLOP/s") + "\n";
  out += "Bandwidth: device copies count bytes read + written; host copies from/to pinned memory, one direction\n" +
         comparison_table(rows, "B/s", 1e9, 1, "GB/s") + "\n";
  out += "Launch overhead: empty kernel, time per launch (graph: per node; round trip: launch + synchronise)\n" +
         comparison_table(rows, "s", 1e-6, 2, "us") + "\n";

  out += "Summary (best of repeats; the device file records these):\n";
  for (const char* dt : {"fp32", "tf32", "fp16", "bf16"})
    if (const auto* m = microbench::best_gemm(r, dt)) {
      std::string ratio;
      if (ds)
        if (auto p = ds->unit_peak(dt, m->unit == "tensor" ? ComputeUnit::kTensor : ComputeUnit::kCuda))
          ratio = fmt::format("; {:.0f}% of the datasheet's {:.1f}", 100 * m->flops.best / p->flops, p->flops / 1e12);
      out += fmt::format("  {} peak: {:.1f} TFLOP/s at {}^3{}{}\n", dt, m->flops.best / 1e12, m->n, ratio,
                         m->verified ? "" : " (RESULT CHECK FAILED)");
    }
  if (const auto* c = microbench::find_copy(r, "kernel"))
    out += fmt::format("  memory bandwidth (copy kernel): {:.0f} GB/s{}\n", c->bytes_per_s.best / 1e9,
                       ds && ds->mem_bandwidth > 0
                           ? fmt::format("; {:.0f}% of the datasheet's {:.0f}",
                                         100 * c->bytes_per_s.best / ds->mem_bandwidth, ds->mem_bandwidth / 1e9)
                           : "");
  if (const auto* l = microbench::find_launch(r, "stream"))
    out += fmt::format("  launch overhead: {:.2f} us per back-to-back launch (median)\n", l->seconds.median * 1e6);
  if (const auto* h = microbench::find_host_copy(r, "host_to_device"))
    out += fmt::format("  host to device: {:.1f} GB/s (pinned)\n", h->bytes_per_s.best / 1e9);
  if (!r.warnings.empty()) {
    out += "\nWarnings:\n";
    for (const auto& w : r.warnings) out += "  - " + w + "\n";
  } else {
    out += "\nNo warnings (every spread <= 10%, every GEMM result checked).\n";
  }
  return out;
}

}  // namespace

void add_probe_gpu(CLI::App& probe, ProbeArgs& a) {
  auto* gpu = probe.add_subcommand(
      "gpu",
      "Measure a CUDA device: cuBLAS GEMM peaks (fp32, tf32, fp16, bf16), device memory copy bandwidth, kernel launch "
      "overhead, pinned host link; median and best of repeats beside the datasheet");
  gpu->add_option("--gpu", a.gpu, "CUDA device ordinal")->check(CLI::NonNegativeNumber)->capture_default_str();
  gpu->add_flag("--quick", a.quick, "4096 GEMMs only, smaller copies, fewer launches (for tests and demos)");
  gpu->add_option("--repeats", a.repeats, "timed repeats per figure (default 15, --quick 10)")
      ->check(CLI::Range(1, 1000));
  gpu->add_option("-o,--out", a.out, "write a rooflens.device/1 file here (use it with --device FILE)");
  gpu->add_option("--json,--json-out", a.json_out, "also write the rooflens.gpu_probe/1 object to this file");
  gpu->add_option("--id", a.gpu_id, "device id in the --out file")->capture_default_str();
  gpu->add_option("--format", a.format, "table or json (rooflens.gpu_probe/1)")
      ->check(CLI::IsMember({"table", "json"}))
      ->capture_default_str();
  gpu->add_option("--devices-dir", a.devices_dir, "device database to find the datasheet in (default: bundled)");
  gpu->add_flag("--quiet", a.quiet, "no progress lines on stderr");
  gpu->final_callback([&a] { a.target = "gpu"; });
}

int run_probe_gpu(const ProbeArgs& a) {
  if (a.gpu_id.empty()) return report_error(Status::invalid("--id must not be empty"));
  microbench::GpuProbeOptions o;
  o.device = a.gpu;
  o.quick = a.quick;
  o.repeats = a.repeats;
  if (!a.quiet) o.progress = [](const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); };
  auto r = microbench::run_gpu_probe(o);
  if (!r) return report_error(r.status());

  // The datasheet is context, not a requirement: a database that does not load only loses it.
  std::optional<DeviceSpec> ds;
  if (auto db = load_device_dir(devices_dir(a.devices_dir)))
    ds = microbench::match_datasheet_device(r->facts.name, r->facts.global_mem_bytes, *db);
  else
    std::fprintf(stderr, "probe: no datasheet comparison: %s\n", db.status().message().c_str());
  const DeviceSpec* dsp = ds ? &*ds : nullptr;

  if (!a.out.empty()) {
    auto dev = microbench::gpu_probe_device_json(*r, a.gpu_id, dsp);
    if (!dev) return report_error(dev.status());
    // Parse before writing so that a file `predict` would refuse is never left behind.
    if (auto check = parse_device_json(dev->dump(2), a.out); !check)
      return report_error(
          Status::internal("the device file the probe built does not parse: " + check.status().message()));
    Status w = write_output(a.out, dev->dump(2) + "\n");
    if (!w) return report_error(w);
    if (a.out != "-") std::fprintf(stderr, "probe: wrote %s (use --device %s)\n", a.out.c_str(), a.out.c_str());
  }
  if (!a.json_out.empty()) {
    Status w = write_output(a.json_out, microbench::gpu_probe_json(*r, dsp).dump(2) + "\n");
    if (!w) return report_error(w);
  }
  const std::string text =
      a.format == "json" ? microbench::gpu_probe_json(*r, dsp).dump(2) + "\n" : render_gpu_table(*r, dsp);
  Status w = write_output("", text);
  return w ? kExitOk : report_error(w);
}

}  // namespace rooflens::cli
