// Tactic selection for weighted primitives: oneDNN lists several implementations for
// one convolution or inner product, and its first choice is not always the fastest
// (oneDNN 2.6 on AVX-512: brgconv_1x1 with a `sum` post-op runs a 1x1 conv about 15%
// slower than jit:avx512_core, measured at ResNet-50's b32 shapes). As TensorRT does at
// build time, prepare times each candidate on scratch data of the layer's own shapes and
// keeps the fastest. Reference implementations are never candidates.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstring>
#include <limits>
#include <string>
#include <unordered_map>
#include <vector>

#include "epilogue.h"
#include "tactic_cache.h"

namespace rooflens::onednn {

// A memory of `md` filled with a small constant (no NaNs or denormals to skew a timing).
dnnl::memory scratch_memory(const dnnl::memory::desc& md, dnnl::engine& eng);

// Seconds of the fastest of `runs` executions after one warm-up; stops early (returning
// the warm-up time) when the warm-up alone is over `give_up_s`.
double time_primitive(const dnnl::primitive& p, const std::unordered_map<int, dnnl::memory>& args,
                      dnnl::stream& s, int runs, double give_up_s);

// The implementations to try: at most `limit` distinct ones, in oneDNN's order, without
// reference ones.
template <typename PD>
std::vector<PD> candidate_impls(PD pd, size_t limit = 5) {
  std::vector<PD> out;
  std::vector<std::string> names;
  do {
    const std::string name = pd.impl_info_str();
    if (name.rfind("ref", 0) != 0 && std::find(names.begin(), names.end(), name) == names.end()) {
      out.push_back(pd);
      names.push_back(name);
    }
  } while (out.size() < limit && pd.next_impl());
  if (out.empty()) out.push_back(pd);
  return out;
}

// The fastest candidate of a weighted primitive (weights in each candidate's own layout,
// reordered from `w_plain`; activations, bias and post-op operands on scratch memory).
// `what` names the geometry the descriptors do not hold (strides, padding); with the
// descriptors and post-ops it keys the tactic cache, which answers without timing when it
// holds a choice. With `tune` off, or one candidate, oneDNN's first choice.
template <typename Prim, typename PD>
PD fastest_impl(OneDnnBackend& b, const PD& first, const std::string& what, const dnnl::memory& w_plain_mem,
                const dnnl::memory::desc& b_md, const Epilogue& e) {
  if (!b.options().tune) return first;
  std::vector<PD> cands = candidate_impls(first);
  if (cands.size() < 2) return cands.front();
  const std::string key = what + " x" + desc_key(first.src_desc()) + " w" + desc_key(w_plain_mem.get_desc()) + " y" +
                          desc_key(first.dst_desc()) + " " + post_ops_key(first.get_primitive_attr().get_post_ops());
  if (auto name = cached_tactic(key))
    for (const PD& c : cands)
      if (*name == c.impl_info_str()) return c;
  dnnl::engine& eng = b.engine();
  dnnl::stream s(eng);
  std::unordered_map<int, dnnl::memory> args = {{DNNL_ARG_SRC, scratch_memory(cands[0].src_desc(), eng)},
                                                {DNNL_ARG_BIAS, scratch_memory(b_md, eng)},
                                                {DNNL_ARG_DST, scratch_memory(cands[0].dst_desc(), eng)}};
  for (const auto& [idx, m] : e.binary_args)
    args[DNNL_ARG_ATTR_MULTIPLE_POST_OP(idx) | DNNL_ARG_SRC_1] = scratch_memory(m.get_desc(), eng);
  size_t best = 0;
  double best_s = std::numeric_limits<double>::infinity();
  for (size_t i = 0; i < cands.size(); ++i) {
    if (cands[i].src_desc() != cands[0].src_desc() || cands[i].dst_desc() != cands[0].dst_desc()) continue;
    dnnl::memory wm(cands[i].weights_desc(), eng);
    dnnl::memory wsrc = w_plain_mem;
    dnnl::reorder(wsrc, wm).execute(s, wsrc, wm);
    s.wait();
    args[DNNL_ARG_WEIGHTS] = wm;
    const double t = time_primitive(Prim(cands[i]), args, s, best_s < 2e-3 ? 3 : 2, 1.25 * best_s);
    if (t < best_s) best_s = t, best = i;
  }
  remember_tactic(key, cands[best].impl_info_str());
  return cands[best];
}

}  // namespace rooflens::onednn
