// The host's state around measurements (see host_figures.h).
#include "rooflens/analysis/host_figures.h"

#include <fmt/format.h>

namespace rooflens {

HostContext make_host_context(bool reference, double max_move, int threads, const DeviceSpec& dev) {
  HostContext c;
  c.sampler = make_proc_host_sampler();
  c.max_move = max_move;
  if (reference) c.reference = std::make_unique<microbench::HostReferenceProbe>(threads);
  if (dev.kernel_table && dev.kernel_table->host_gemm_flops > 0) {
    c.baseline = {dev.kernel_table->host_gemm_flops, dev.kernel_table->host_stream_bytes,
                  dev.kernel_table->host_clock_hz, dev.kernel_table->host_fma_flops, dev.kernel_table->host_dispatch_s};
    c.baseline.kernels_s = dev.kernel_table->host_kernels_s;
    c.baseline.kernels8_s = dev.kernel_table->host_kernels8_s;
    c.baseline_threads = dev.kernel_table->threads;
    c.baseline_source = "the kernel table's host reference (measured " + dev.kernel_table->measured + ")";
    c.state_level_s = dev.kernel_table->host_dispatch_s;
    c.state_level_threads = dev.kernel_table->threads;
  }
  return c;
}

void attach_host(MeasureOptions& mo, const HostContext& ctx) {
  mo.host_sampler = ctx.sampler.get();
  mo.reference = ctx.reference.get();
  mo.reference_max_move = ctx.max_move;
  mo.adapt_threads = ctx.adapt_threads;
  mo.paired_reference = ctx.paired_reference;
  mo.state_level_s = ctx.state_level_s;
  mo.state_level_threads = ctx.state_level_threads;
  mo.state_wait_s = ctx.state_wait_suspended ? 0.0 : ctx.state_wait_s;
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
  f.state_waited_s = m.host->state_waited_s;
  if (m.host->state_wait_ran_out)
    ctx.state_wait_suspended = true;
  else if (microbench::same_dispatch_level(m.host->before.dispatch_s, ctx.state_level_s))
    ctx.state_wait_suspended = false;
  HostRates now = m.host->mean();
  if (!ctx.baseline.known()) {
    ctx.baseline = now;
    ctx.baseline_threads = m.threads;
    ctx.baseline_source =
        fmt::format("the first reading of this run (FMA {:.1f} GFLOP/s, clock {:.2f} GHz, triad {:.1f} GB/s)",
                    now.fma_flops / 1e9, now.clock_hz / 1e9, now.stream_bytes / 1e9);
  }
  if (ctx.baseline_threads > 0 && m.threads != ctx.baseline_threads)
    now.dispatch_s = now.kernels_s = now.kernels8_s = 0;
  f.now = now;
  f.same_state = microbench::same_dispatch_state(now, ctx.baseline);
  f.drift = host_drift(now, ctx.baseline, f.compute_share);
  f.normalized_throughput = m.throughput / f.drift;
  f.predicted_at_state = p.throughput * f.drift;
  return f;
}

bool in_dispatch_state(const HostFigures& f, double level) {
  return microbench::same_dispatch_level(f.now.dispatch_s, level);
}

std::vector<double> runs_in_dispatch_state(const std::vector<double>& values, const std::vector<HostFigures>& host,
                                           double level) {
  std::vector<double> dispatch;
  for (const HostFigures& f : host) dispatch.push_back(f.now.dispatch_s);
  return microbench::values_at_dispatch_level(values, dispatch, level);
}

}  // namespace rooflens
