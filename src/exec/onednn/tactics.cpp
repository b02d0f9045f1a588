// Timing helpers of tactic selection (see tactics.h).
#include "tactics.h"

namespace rooflens::onednn {

dnnl::memory scratch_memory(const dnnl::memory::desc& md, dnnl::engine& eng) {
  dnnl::memory m(md, eng);
  float* p = static_cast<float*>(m.get_data_handle());
  std::fill(p, p + md.get_size() / sizeof(float), 0.01f);
  return m;
}

double time_primitive(const dnnl::primitive& p, const std::unordered_map<int, dnnl::memory>& args,
                      dnnl::stream& s, int runs, double give_up_s) {
  using clock = std::chrono::steady_clock;
  auto once = [&] {
    const auto t0 = clock::now();
    p.execute(s, args);
    s.wait();
    return std::chrono::duration<double>(clock::now() - t0).count();
  };
  double best = once();
  if (best > give_up_s) return best;
  best = std::numeric_limits<double>::infinity();
  for (int r = 0; r < runs; ++r) best = std::min(best, once());
  return best;
}

}  // namespace rooflens::onednn
