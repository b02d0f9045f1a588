// Measures oneDNN's per-primitive dispatch overhead (see dispatch_probe.h).
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <oneapi/dnnl/dnnl.hpp>
#include <vector>

#include "rooflens/exec/dispatch_probe.h"

namespace rooflens {

Expected<DispatchOverhead> measure_onednn_dispatch(int threads) {
  try {
    if (threads > 0) omp_set_num_threads(threads);
    dnnl::engine eng(dnnl::engine::kind::cpu, 0);
    dnnl::stream s(eng);
    dnnl::memory::desc md({1, 64}, dnnl::memory::data_type::f32, dnnl::memory::format_tag::ab);
    dnnl::memory src(md, eng), dst(md, eng);
    std::fill_n(static_cast<float*>(src.get_data_handle()), 64, 1.0f);
    dnnl::eltwise_forward::desc d(dnnl::prop_kind::forward_inference, dnnl::algorithm::eltwise_relu, md, 0.f, 0.f);
    dnnl::eltwise_forward prim(dnnl::eltwise_forward::primitive_desc(d, eng));
    auto run = [&](int n) {
      const auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < n; ++i) prim.execute(s, {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}});
      s.wait();
      return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / n;
    };
    run(200);  // warm-up
    std::vector<double> per;
    for (int r = 0; r < 15; ++r) per.push_back(run(200));
    std::sort(per.begin(), per.end());
    return DispatchOverhead{per[per.size() / 2], per.front(), static_cast<int>(per.size())};
  } catch (const dnnl::error& e) {
    return Status::unavailable(std::string("oneDNN dispatch probe failed: ") + e.what());
  }
}

}  // namespace rooflens
