// The host's state around measurements (see measure_host.h).
#include "measure_host.h"

#include <fmt/format.h>

#include "rooflens/report/measure_report.h"

namespace rooflens::cli {

nlohmann::json host_json(const Measurement& m, const HostFigures& f, const HostContext& ctx) {
  nlohmann::json j;
  if (m.contention) {
    const auto& c = *m.contention;
    j["contended"] = c.contended;
    j["contention"] = {{"contended", c.contended},     {"wait_share", c.wait_share},         {"cpu_share", c.cpu_share},
                       {"steal_share", c.steal_share}, {"other_runnable", c.other_runnable}, {"summary", c.summary}};
  }
  if (m.host) {
    const auto& h = *m.host;
    nlohmann::json ref = report::host_reading_json(h);
    ref.update({{"max_move", ctx.max_move},
                {"baseline_gemm_flops", ctx.baseline.gemm_flops},
                {"baseline_stream_bytes", ctx.baseline.stream_bytes},
                {"baseline_clock_hz", ctx.baseline.clock_hz},
                {"baseline_fma_flops", ctx.baseline.fma_flops},
                {"baseline_dispatch_s", ctx.baseline.dispatch_s},
                {"baseline_kernels_s", ctx.baseline.kernels_s},
                {"baseline_kernels8_s", ctx.baseline.kernels8_s},
                {"same_state", f.same_state},
                {"compute_ratio", compute_ratio(f.now, ctx.baseline)},
                {"baseline", ctx.baseline_source},
                {"compute_share", f.compute_share},
                {"drift", f.drift}});
    j["host_reference"] = std::move(ref);
    j["normalized_throughput"] = f.normalized_throughput;
    j["predicted_throughput_at_host_state"] = f.predicted_at_state;
  }
  return j;
}

std::string host_text(const Measurement& m, const HostFigures& f, const HostContext& ctx) {
  std::string out;
  if (m.contention) out += fmt::format("  host            {}\n", m.contention->summary);
  if (m.host) {
    const auto& h = *m.host;
    out += fmt::format(
        "  reference       FMA {:.0f} -> {:.0f} GFLOP/s, clock {:.2f} -> {:.2f} GHz, triad {:.1f} -> {:.1f} GB/s, "
        "GEMM {:.1f} -> {:.1f} GFLOP/s before -> after (moved {:.1f}%{}; {} block(s) timed)\n",
        h.before.fma_flops / 1e9, h.after.fma_flops / 1e9, h.before.clock_hz / 1e9, h.after.clock_hz / 1e9,
        h.before.stream_bytes / 1e9, h.after.stream_bytes / 1e9, h.before.gemm_flops / 1e9, h.after.gemm_flops / 1e9,
        100 * h.move, h.flagged ? fmt::format(", above {:.0f}%: flagged", 100 * ctx.max_move) : "", h.blocks);
    if (h.before.dispatch_s > 0 && h.after.dispatch_s > 0)
      out += fmt::format("  dispatch        {:.2f} -> {:.2f} us before -> after{}\n", h.before.dispatch_s * 1e6,
                         h.after.dispatch_s * 1e6,
                         f.same_state || !(ctx.baseline.dispatch_s > 0)
                             ? std::string()
                             : fmt::format("; the baseline read {:.2f} us: the host is in another dispatch state, "
                                           "small models run slower in it and no drift factor carries them over{}",
                                           ctx.baseline.dispatch_s * 1e6,
                                           h.state_waited_s >= kStatePollSeconds || !(ctx.state_level_s > 0)
                                               ? std::string()
                                               : " (--state-wait waits for the table's)"));
    if (h.state_waited_s >= kStatePollSeconds)
      out += fmt::format("  state wait      {:.1f} s for the kernel table's dispatch state{}\n", h.state_waited_s,
                         h.state_wait_ran_out ? ", in vain: measured in the other" : "");
    if (h.before.kernels_s > 0 && h.after.kernels_s > 0)
      out += fmt::format("  kernels         {:.3f} -> {:.3f} ms before -> after{}\n", h.before.kernels_s * 1e3,
                         h.after.kernels_s * 1e3,
                         ctx.baseline.kernels_s > 0 ? fmt::format(" (baseline {:.3f} ms)", ctx.baseline.kernels_s * 1e3)
                                                    : std::string());
    if (h.paired_kernels_s > 0)
      out +=
          fmt::format("  kernels paired  {:.3f} ms as {} timed runs saw them (a pass after each; the drift uses it)\n",
                      h.paired_kernels_s * 1e3, h.paired_runs);
    if (h.before.kernels8_s > 0 && h.after.kernels8_s > 0)
      out +=
          fmt::format("  kernels, b8     {:.3f} -> {:.3f} ms before -> after{}\n", h.before.kernels8_s * 1e3,
                      h.after.kernels8_s * 1e3,
                      ctx.baseline.kernels8_s > 0 ? fmt::format(" (baseline {:.3f} ms)", ctx.baseline.kernels8_s * 1e3)
                                                  : std::string());
    out += fmt::format("  normalised      {:>10.1f} images/s  (host {:.3f}x its state at {}; {:.0f}% compute-bound)\n",
                       f.normalized_throughput, f.drift, ctx.baseline_source, 100 * f.compute_share);
    out += fmt::format(
        "  predicted now   {:>10.1f} images/s  (the prediction scaled to the host's state; "
        "measured/predicted {:.2f})\n",
        f.predicted_at_state, f.predicted_at_state > 0 ? m.throughput / f.predicted_at_state : 0);
  }
  if (m.contention && m.contention->contended)
    out += "  warning: the machine was contended while measuring: the figures above describe a shared machine\n";
  return out;
}

}  // namespace rooflens::cli
