// Times the host-state reference's three convolutions through oneDNN (see dispatch_probe.h).
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <oneapi/dnnl/dnnl.hpp>
#include <utility>
#include <vector>

#include "rooflens/exec/dispatch_probe.h"
#include "rooflens/microbench/stats.h"

namespace rooflens {
namespace {

// One convolution of the reference, batch 1, fp32, layouts of oneDNN's choosing as the
// backend's layers have: C input channels, K output, kernel k x k, `groups` groups, H x H input.
struct RefConv {
  int64_t c, k, kernel, groups, hw;
};
// A 3x3 convolution of a ResNet's second stage, a 1x1 expansion of its third with 1 MiB of
// weights, and a depthwise 3x3 of a MobileNet: the kernel classes that take most of the zoo's
// time, about 0.5 ms a pass on two Xeon vCPUs.
constexpr RefConv kReferenceConvs[] = {{64, 64, 3, 1, 28}, {256, 1024, 1, 1, 14}, {256, 256, 3, 256, 28}};

// Passes timed per reading, median taken: with 41 (about 20 ms) the readings before and after a
// block of ResNet-50 differed by 0-3%, with 11 by up to 7% (the 2-vCPU Xeon VM, 2026-12-05).
// A batch-8 pass is 8x as long: 9 of them.
constexpr int kReferencePasses = 41, kBatchPasses = 9;

struct BuiltConv {
  dnnl::convolution_forward prim;
  dnnl::memory src, wei, dst;
};

dnnl::memory filled(const dnnl::memory::desc& md, const dnnl::engine& eng) {
  dnnl::memory m(md, eng);
  // 0.01: no denormals or NaNs from uninitialised memory to slow the kernels.
  std::fill_n(static_cast<float*>(m.get_data_handle()), md.get_size() / sizeof(float), 0.01f);
  return m;
}

BuiltConv build(const RefConv& r, int64_t batch, const dnnl::engine& eng) {
  using dt = dnnl::memory::data_type;
  using tag = dnnl::memory::format_tag;
  const int64_t pad = r.kernel / 2;
  const dnnl::memory::dims wdims =
      r.groups > 1 ? dnnl::memory::dims{r.groups, r.k / r.groups, r.c / r.groups, r.kernel, r.kernel}
                   : dnnl::memory::dims{r.k, r.c, r.kernel, r.kernel};
  dnnl::memory::desc src({batch, r.c, r.hw, r.hw}, dt::f32, tag::any), wei(wdims, dt::f32, tag::any),
      dst({batch, r.k, r.hw, r.hw}, dt::f32, tag::any);
  dnnl::convolution_forward::desc d(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, src, wei,
                                    dst, {1, 1}, {pad, pad}, {pad, pad});
  dnnl::convolution_forward::primitive_desc pd(d, eng);
  return BuiltConv{dnnl::convolution_forward(pd), filled(pd.src_desc(), eng), filled(pd.weights_desc(), eng),
                   filled(pd.dst_desc(), eng)};
}

class OnednnReferencePasses final : public ReferencePasses {
 public:
  OnednnReferencePasses(int threads, int64_t batch) : threads_(threads), eng_(dnnl::engine::kind::cpu, 0), s_(eng_) {
    for (const RefConv& r : kReferenceConvs) convs_.push_back(build(r, std::max<int64_t>(1, batch), eng_));
  }
  double time_pass() override {
    if (threads_ > 0) omp_set_num_threads(threads_);
    const auto t0 = std::chrono::steady_clock::now();
    try {
      for (auto& c : convs_) {
        c.prim.execute(s_, {{DNNL_ARG_SRC, c.src}, {DNNL_ARG_WEIGHTS, c.wei}, {DNNL_ARG_DST, c.dst}});
        s_.wait();
      }
    } catch (const dnnl::error&) {
      return 0;  // no reading: a pair without a positive pass is left out
    }
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }

 private:
  int threads_;
  dnnl::engine eng_;
  dnnl::stream s_;
  std::vector<BuiltConv> convs_;
};

}  // namespace

Expected<std::unique_ptr<ReferencePasses>> ReferencePasses::make(int threads, int batch) {
  try {
    return std::unique_ptr<ReferencePasses>(std::make_unique<OnednnReferencePasses>(threads, batch));
  } catch (const dnnl::error& e) {
    return Status::unavailable(std::string("oneDNN reference kernels failed: ") + e.what());
  }
}

Expected<double> measure_onednn_reference_kernels(int threads, int batch) {
  auto passes = ReferencePasses::make(threads, batch);
  if (!passes) return passes.status();
  const bool batched = batch > 1;
  for (int i = 0; i < (batched ? 2 : 5); ++i) (*passes)->time_pass();  // warm-up: weights into cache, the team awake
  std::vector<double> per;
  for (int i = 0; i < (batched ? kBatchPasses : kReferencePasses); ++i) {
    per.push_back((*passes)->time_pass());
    if (!(per.back() > 0)) return Status::unavailable("oneDNN reference kernels failed to run");
  }
  return microbench::summarize(std::move(per), false).median;
}

}  // namespace rooflens
