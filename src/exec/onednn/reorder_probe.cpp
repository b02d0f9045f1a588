// Times oneDNN's layout conversion between channels-last and row-major (see dispatch_probe.h).
#include <omp.h>

#include <chrono>
#include <cstring>
#include <oneapi/dnnl/dnnl.hpp>
#include <string>
#include <vector>

#include "rooflens/exec/dispatch_probe.h"
#include "rooflens/exec/timing.h"

namespace rooflens {

std::string onednn_version_text() {
  const dnnl_version_t* v = dnnl::version();
  return "oneDNN " + std::to_string(v->major) + "." + std::to_string(v->minor) + "." + std::to_string(v->patch) +
         " (cpu)";
}

int onednn_fp32_lanes() {
  using isa = dnnl::cpu_isa;
  switch (dnnl::get_effective_cpu_isa()) {
    case isa::sse41: return 4;
    case isa::avx:
    case isa::avx2:
    case isa::avx2_vnni: return 8;
    case isa::avx512_core:
    case isa::avx512_core_vnni:
    case isa::avx512_core_bf16:
    case isa::avx512_core_amx: return 16;
    default: return 0;
  }
}

Expected<double> time_onednn_reorder(int64_t n, int64_t c, int64_t h, int64_t w, bool to_rowmajor, int threads,
                                     double max_seconds) {
  try {
    if (threads > 0) omp_set_num_threads(threads);
    dnnl::engine eng(dnnl::engine::kind::cpu, 0);
    dnnl::stream s(eng);
    using tag = dnnl::memory::format_tag;
    const dnnl::memory::dims dims = {n, c, h, w};
    dnnl::memory::desc from(dims, dnnl::memory::data_type::f32, to_rowmajor ? tag::acdb : tag::abcd);
    dnnl::memory::desc to(dims, dnnl::memory::data_type::f32, to_rowmajor ? tag::abcd : tag::acdb);
    dnnl::memory src(from, eng), dst(to, eng);
    std::memset(src.get_data_handle(), 0, from.get_size());
    std::memset(dst.get_data_handle(), 0, to.get_size());
    dnnl::reorder r(src, dst);
    TimingOptions o;
    o.max_seconds = max_seconds;
    o.min_repeats = 9;
    o.max_repeats = 400;
    auto t = time_runs(
        [&] {
          r.execute(s, src, dst);
          s.wait();
          return Status::ok();
        },
        o);
    if (!t) return t.status();
    return t->median;
  } catch (const dnnl::error& e) {
    return Status::unavailable(std::string("oneDNN reorder probe failed: ") + e.what());
  }
}

}  // namespace rooflens
