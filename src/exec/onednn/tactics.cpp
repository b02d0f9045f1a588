// Timing helpers of tactic selection (see tactics.h).
#include "tactics.h"

namespace rooflens::onednn {

dnnl::memory scratch_memory(const dnnl::memory::desc& md, dnnl::engine& eng) {
  dnnl::memory m(md, eng);
  float* p = static_cast<float*>(m.get_data_handle());
  std::fill(p, p + md.get_size() / sizeof(float), 0.01f);
  return m;
}

double time_primitive(const dnnl::primitive& p, const std::unordered_map<int, dnnl::memory>& args, dnnl::stream& s,
                      int runs) {
  using clock = std::chrono::steady_clock;
  auto once = [&] {
    const auto t0 = clock::now();
    p.execute(s, args);
    s.wait();
    return std::chrono::duration<double>(clock::now() - t0).count();
  };
  double best = once();
  if (runs == 0) return best;
  best = std::numeric_limits<double>::infinity();
  for (int r = 0; r < runs; ++r) best = std::min(best, once());
  return best;
}

std::optional<dnnl::post_ops> without_last_eltwise(const dnnl::post_ops& ops, dnnl::algorithm* alg, float* alpha,
                                                   float* beta) {
  const int n = ops.len();
  if (n == 0 || ops.kind(n - 1) != dnnl::primitive::kind::eltwise) return std::nullopt;
  float scale = 0;
  ops.get_params_eltwise(n - 1, scale, *alg, *alpha, *beta);
  if (scale != 1.0f) return std::nullopt;
  // Only transcendental ops: ReLU, clip and hard-swish cost next to nothing in registers,
  // and a separate pass over memory could only win them through timing noise.
  using A = dnnl::algorithm;
  const A costly[] = {A::eltwise_swish, A::eltwise_gelu_erf, A::eltwise_gelu_tanh, A::eltwise_logistic,
                      A::eltwise_tanh,  A::eltwise_elu,      A::eltwise_exp,       A::eltwise_mish};
  if (std::find(std::begin(costly), std::end(costly), *alg) == std::end(costly)) return std::nullopt;
  dnnl::post_ops rest;
  for (int i = 0; i + 1 < n; ++i) {
    switch (ops.kind(i)) {
      case dnnl::primitive::kind::sum: {
        float sc = 0;
        ops.get_params_sum(i, sc);
        rest.append_sum(sc);
        break;
      }
      case dnnl::primitive::kind::eltwise: {
        float sc = 0, a = 0, b = 0;
        dnnl::algorithm al;
        ops.get_params_eltwise(i, sc, al, a, b);
        rest.append_eltwise(sc, al, a, b);
        break;
      }
      case dnnl::primitive::kind::binary: {
        dnnl::algorithm al;
        dnnl::memory::desc src1;
        ops.get_params_binary(i, al, src1);
        rest.append_binary(al, src1);
        break;
      }
      default: return std::nullopt;
    }
  }
  return rest;
}

}  // namespace rooflens::onednn
