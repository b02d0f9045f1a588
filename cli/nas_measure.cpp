// cpu_throughput_fn (nas_measure.h).
#include "nas_measure.h"

#include <map>
#include <memory>
#include <mutex>

#include <fmt/format.h>

#include "common.h"
#include "loading.h"
#include "rooflens/exec/backend.h"
#include "rooflens/exec/measure.h"

namespace rooflens::cli {

nas::ThroughputFn cpu_throughput_fn(const SssNetInput& input, int64_t batch, const DeviceSpec& device,
                                    double max_seconds) {
  struct State {
    std::mutex mu;
    std::map<int64_t, std::pair<double, double>> cache;
  };
  auto state = std::make_shared<State>();
  const auto peak = device.best_peak("fp32");
  const double peak_flops = peak ? peak->flops : 0;
  return [=](int64_t arch) -> Expected<std::pair<double, double>> {
    std::lock_guard<std::mutex> lock(state->mu);
    if (auto it = state->cache.find(arch); it != state->cache.end()) return it->second;
    auto g = build_sss_network(sss_widths(arch), input, batch);
    if (!g) return g.status();
    auto l = analyse_loaded_graph(std::move(*g), sss_arch_string(arch), DType::kF32);
    if (!l) return l.status();
    auto backend = make_onednn_backend();
    if (!backend) return Status::unavailable("the oneDNN backend is not in this build: measured throughput needs it");
    MeasureOptions mo;
    mo.exec.threads = measure_threads(0);
    mo.exec.tactic_cache = tactic_cache_path();
    mo.timing = model_timing(false, max_seconds);
    auto m = measure_model(l->graph, l->analysis, *backend, mo);
    if (!m) return m.status();
    const double flops_per_image = static_cast<double>(l->analysis.totals.flops) / static_cast<double>(batch);
    const double util = peak_flops > 0 ? m->throughput * flops_per_image / peak_flops : 0;
    state->cache[arch] = {m->throughput, util};
    return std::make_pair(m->throughput, util);
  };
}

}  // namespace rooflens::cli
