// The host's state around measurements (see measure_host.h).
#include "measure_host.h"

#include <fmt/format.h>

namespace rooflens::cli {

HostContext make_host_context(bool reference, double max_move, int threads, const DeviceSpec& dev) {
  HostContext c;
  c.sampler = make_proc_host_sampler();
  c.max_move = max_move;
  if (reference) c.reference = std::make_unique<microbench::HostReferenceProbe>(threads);
  if (dev.kernel_table && dev.kernel_table->host_gemm_flops > 0) {
    c.baseline = {dev.kernel_table->host_gemm_flops, dev.kernel_table->host_stream_bytes};
    c.baseline_source = "the kernel table's host reference (measured " + dev.kernel_table->measured + ")";
  }
  return c;
}

void attach_host(MeasureOptions& mo, const HostContext& ctx) {
  mo.host_sampler = ctx.sampler.get();
  mo.reference = ctx.reference.get();
  mo.reference_max_move = ctx.max_move;
  mo.adapt_threads = ctx.adapt_threads;
}

HostFigures host_figures(const Measurement& m, const Prediction& p, HostContext& ctx) {
  HostFigures f;
  std::vector<double> tc, tm, ts;
  for (const auto& L : p.layers) {
    tc.push_back(L.t_compute);
    tm.push_back(L.t_memory);
    ts.push_back(L.time_s);
  }
  f.compute_share = compute_share(tc, tm, ts);
  if (!m.host) return f;
  f.has_reference = true;
  const HostRates now{m.host->gemm_flops(), m.host->stream_bytes()};
  if (!ctx.baseline.known()) {
    ctx.baseline = now;
    ctx.baseline_source = fmt::format("the first reading of this run (GEMM {:.1f} GFLOP/s, triad {:.1f} GB/s)",
                                      now.gemm_flops / 1e9, now.stream_bytes / 1e9);
  }
  f.drift = host_drift(now, ctx.baseline, f.compute_share);
  f.normalized_throughput = m.throughput / f.drift;
  f.predicted_at_state = p.throughput * f.drift;
  return f;
}

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
    j["host_reference"] = {{"gemm_flops_before", h.before.gemm_flops},
                           {"gemm_flops_after", h.after.gemm_flops},
                           {"stream_bytes_before", h.before.stream_bytes},
                           {"stream_bytes_after", h.after.stream_bytes},
                           {"clock_hz_before", h.before.clock_hz},
                           {"clock_hz_after", h.after.clock_hz},
                           {"move", h.move},
                           {"flagged", h.flagged},
                           {"blocks", h.blocks},
                           {"max_move", ctx.max_move},
                           {"baseline_gemm_flops", ctx.baseline.gemm_flops},
                           {"baseline_stream_bytes", ctx.baseline.stream_bytes},
                           {"baseline", ctx.baseline_source},
                           {"compute_share", f.compute_share},
                           {"drift", f.drift}};
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
        "  reference       GEMM {:.1f} -> {:.1f} GFLOP/s, triad {:.1f} -> {:.1f} GB/s, clock {:.2f} -> {:.2f} GHz "
        "before -> after (moved {:.1f}%{}; {} block(s) timed)\n",
        h.before.gemm_flops / 1e9, h.after.gemm_flops / 1e9, h.before.stream_bytes / 1e9, h.after.stream_bytes / 1e9,
        h.before.clock_hz / 1e9, h.after.clock_hz / 1e9, 100 * h.move,
        h.flagged ? fmt::format(", above {:.0f}%: flagged", 100 * ctx.max_move) : "", h.blocks);
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
