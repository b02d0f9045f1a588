// Tactic selection for weighted primitives: oneDNN lists several implementations for
// one convolution or inner product, and its first choice is not always the fastest
// (oneDNN 2.6 on AVX-512: brgconv_1x1 with a `sum` post-op runs a 1x1 conv about 15%
// slower than jit:avx512_core, measured at ResNet-50's b32 shapes). As TensorRT does at
// build time, prepare times each candidate on scratch data of the layer's own shapes and
// keeps the fastest. Reference implementations are never candidates.
#pragma once

#include <algorithm>
#include <chrono>
#include <limits>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "epilogue.h"
#include "tactic_cache.h"

namespace rooflens::onednn {

// A memory of `md` filled with a small constant (no NaNs or denormals to skew a timing).
dnnl::memory scratch_memory(const dnnl::memory::desc& md, dnnl::engine& eng);

// Seconds of the fastest of `runs` executions after one warm-up (runs 0: the warm-up's).
double time_primitive(const dnnl::primitive& p, const std::unordered_map<int, dnnl::memory>& args, dnnl::stream& s,
                      int runs);

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

// Whether oneDNN 2.6.3 gets `pd` wrong with the epilogue `e`: its gemm convolution adds a
// binary post-op operand of the destination's full 4-D shape in the wrong order on
// channels-last data (max |error| 2 against ref:any and the JIT kernels on a 1x1
// convolution of 7 channels; OneDnn.ChannelConcatAndOneInputConcat failed whenever timing
// picked it). Such an implementation is never used.
template <typename PD>
bool misapplies_post_ops(const PD& pd, const Epilogue& e) {
  if (std::string(pd.impl_info_str()).find("gemm") == std::string::npos) return false;
  const dnnl::memory::dims dst = pd.dst_desc().dims();
  if (dst.size() != 4) return false;
  for (const auto& [idx, m] : e.binary_args)
    if (m.get_desc().dims() == dst) return true;
  return false;
}

// The post-op chain without its last entry, when that entry is an unscaled transcendental
// eltwise op (SiLU, GELU, sigmoid, tanh, ...: what a separate eltwise primitive can then
// apply in place); nullopt otherwise.
std::optional<dnnl::post_ops> without_last_eltwise(const dnnl::post_ops& ops, dnnl::algorithm* alg, float* alpha,
                                                   float* beta);

// A chosen implementation: the primitive, and whether its last eltwise post-op runs as a
// separate in-place eltwise primitive after it (`split`).
template <typename PD>
struct Tactic {
  PD pd;
  bool split = false;
  dnnl::algorithm alg = dnnl::algorithm::undef;
  float alpha = 0, beta = 0;
};

// The fastest way to run a weighted primitive: each implementation oneDNN offers for
// `desc` with the whole epilogue as post-ops, and, when the epilogue ends in a
// transcendental eltwise op (SiLU, GELU, ...), each with that op split off into a separate in-place pass (oneDNN
// 2.6's swish post-op can cost more than a pass of its own: EfficientNet's expand convs).
// Weights go into each candidate's own layout (reordered from `w_plain_mem`); activations,
// bias and post-op operands are scratch memory. `what` names the geometry the descriptors
// do not hold (strides, padding); with the descriptors and post-ops it keys the tactic
// cache, which answers without timing when it holds a choice. `b_md` is a zero desc for a
// primitive without a bias (matmul). Implementations that
// misapply the epilogue (misapplies_post_ops) are never candidates. `also`: the first
// implementations of other algorithms for the same layer (Winograd), whose implementations
// join the candidates after oneDNN's own. With `tune` off, or a single candidate, oneDNN's
// first choice (of those) with the whole epilogue.
template <typename Prim, typename Desc, typename PD>
Tactic<PD> fastest_tactic(OneDnnBackend& b, const Desc& desc, const PD& first, const std::string& what,
                          const dnnl::memory& w_plain_mem, const dnnl::memory::desc& b_md, const Epilogue& e,
                          const std::vector<PD>& also = {}) {
  std::vector<Tactic<PD>> cands;
  for (const PD& pd : candidate_impls(first))
    if (!misapplies_post_ops(pd, e)) cands.push_back({pd});
  for (const PD& other : also)
    for (const PD& pd : candidate_impls(other))
      if (!misapplies_post_ops(pd, e)) cands.push_back({pd});
  if (cands.empty()) cands.push_back({first});  // nothing better on offer
  if (!b.options().tune) return cands.front();
  dnnl::algorithm alg = dnnl::algorithm::undef;
  float alpha = 0, beta = 0;
  if (auto rest = without_last_eltwise(e.ops, &alg, &alpha, &beta)) {
    dnnl::primitive_attr attr;
    attr.set_post_ops(*rest);
    PD split_first(desc, attr, b.engine(), true);
    if (split_first)
      for (const PD& pd : candidate_impls(split_first))
        if (!misapplies_post_ops(pd, e)) cands.push_back({pd, true, alg, alpha, beta});
  }
  if (cands.size() < 2) return cands.front();  // candidate_impls never returns none
  const std::string key = what + " x" + desc_key(first.src_desc()) + " w" + desc_key(w_plain_mem.get_desc()) + " y" +
                          desc_key(first.dst_desc()) + " " + post_ops_key(e.ops);
  // An implementation offered for two weight layouts (a MatMul's [K, N] weights row-major and
  // column-major) is told apart by its layout.
  auto label = [&cands](const Tactic<PD>& t) {
    const std::string impl = t.pd.impl_info_str();
    const bool shared = std::any_of(cands.begin(), cands.end(), [&](const Tactic<PD>& c) {
      return impl == c.pd.impl_info_str() && c.pd.weights_desc() != t.pd.weights_desc();
    });
    return impl + (shared ? " w" + desc_key(t.pd.weights_desc()) : "") + (t.split ? " +eltwise" : "");
  };
  if (auto name = cached_tactic(b.options().tactic_cache, key))
    for (const auto& c : cands)
      if (*name == label(c)) return c;
  dnnl::engine& eng = b.engine();
  dnnl::stream s(eng);
  std::unordered_map<int, dnnl::memory> args = {{DNNL_ARG_SRC, scratch_memory(first.src_desc(), eng)},
                                                {DNNL_ARG_DST, scratch_memory(first.dst_desc(), eng)}};
  if (b_md.get_size() > 0) args[DNNL_ARG_BIAS] = scratch_memory(b_md, eng);  // a zero desc: no bias
  for (const auto& [idx, m] : e.binary_args)
    args[DNNL_ARG_ATTR_MULTIPLE_POST_OP(idx) | DNNL_ARG_SRC_1] = scratch_memory(m.get_desc(), eng);
  // The split-off pass, timed once on the destination (it runs in place).
  double eltwise_s = 0;
  const bool any_split = std::any_of(cands.begin(), cands.end(), [](const auto& c) { return c.split; });
  if (any_split) {
    dnnl::eltwise_forward::desc ed(dnnl::prop_kind::forward_inference, alg, first.dst_desc(), alpha, beta);
    dnnl::eltwise_forward::primitive_desc epd(ed, eng);
    const dnnl::memory& d = args.at(DNNL_ARG_DST);
    eltwise_s = time_primitive(dnnl::eltwise_forward(epd), {{DNNL_ARG_SRC, d}, {DNNL_ARG_DST, d}}, s, 3);
  }
  // Each candidate once (JIT warm-up; those over 1.5x the best so far drop out), then three
  // rounds over the rest, so a slow spell of a shared machine hits them all alike.
  struct Timed {
    size_t i;
    dnnl::primitive p;
    dnnl::memory w;
    double best, worst;
  };
  std::vector<Timed> live;
  double lead = std::numeric_limits<double>::infinity();
  for (size_t i = 0; i < cands.size(); ++i) {
    const PD& pd = cands[i].pd;
    if (pd.src_desc() != first.src_desc() || pd.dst_desc() != first.dst_desc()) continue;
    dnnl::memory wm(pd.weights_desc(), eng);
    dnnl::memory wsrc = w_plain_mem;
    dnnl::reorder(wsrc, wm).execute(s, wsrc, wm);
    s.wait();
    args[DNNL_ARG_WEIGHTS] = wm;
    Prim p(pd);
    const double t = (cands[i].split ? eltwise_s : 0) + time_primitive(p, args, s, 0);
    lead = std::min(lead, t);
    if (t <= 1.5 * lead) live.push_back({i, p, wm, std::numeric_limits<double>::infinity(), 0});
  }
  for (int round = 0; round < 3; ++round)
    for (Timed& c : live) {
      args[DNNL_ARG_WEIGHTS] = c.w;
      const double t = (cands[c.i].split ? eltwise_s : 0) + time_primitive(c.p, args, s, 0);
      c.best = std::min(c.best, t);
      c.worst = std::max(c.worst, t);
    }
  // oneDNN's first choice stands unless another beats it by 3%; a choice whose own rounds
  // spread by more than 25% was timed on a busy machine and is used but not remembered.
  size_t best = 0;
  double best_s = std::numeric_limits<double>::infinity(), first_s = best_s, spread = 0;
  for (const Timed& c : live) {
    if (c.i == 0) first_s = c.best;
    if (c.best < best_s) best_s = c.best, best = c.i, spread = c.worst / c.best - 1;
  }
  if (best != 0 && best_s > first_s / 1.03) best = 0;
  if (spread > 0.25) return cands[best];
  remember_tactic(b.options().tactic_cache, key, label(cands[best]));
  return cands[best];
}

}  // namespace rooflens::onednn
