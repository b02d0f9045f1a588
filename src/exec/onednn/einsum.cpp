// Einsum of two operands on the oneDNN backend (MaxViT's attention) as one matmul primitive
// from the shared plan (exec/einsum_gemm.h): each operand in place, packed or transposed
// through its strides, or first reordered packed; an output in another letter order than
// batch, rows, columns is computed into a buffer and reordered into place.
#include "nodes_internal.h"
#include "rooflens/exec/einsum_gemm.h"

namespace rooflens::onednn {

using dnnl::memory;

namespace {

constexpr auto kF32 = memory::data_type::f32;

memory::dims dims_of(const std::vector<int64_t>& v) { return memory::dims(v.begin(), v.end()); }

// The operand as the matmul's [count, outer, inner] stack: its own memory through the plan's
// strides, or a packed copy that a reorder step makes.
memory stack_of(OneDnnBackend& b, const EinsumOperand& o, const memory& x, int64_t count, int64_t outer,
                int64_t inner) {
  const memory::dims dims{count, outer, inner};
  if (!o.copy) {
    const memory::dims strides =
        o.trans ? memory::dims{outer * inner, 1, outer} : memory::dims{outer * inner, inner, 1};
    return memory(memory::desc(dims, kF32, strides), b.engine(), x.get_data_handle());
  }
  const memory view(memory::desc(dims_of(o.shape), kF32, dims_of(o.strides)), b.engine(), x.get_data_handle());
  const memory packed = b.new_buffer(md_rowmajor(o.shape));
  b.add_reorder(view, packed);
  return memory(memory::desc(dims, kF32, memory::dims{outer * inner, inner, 1}), b.engine(), packed.get_data_handle());
}

}  // namespace

std::string einsum_refusal(const Graph& g, const Node& n) {
  const auto& d = std::get<EinsumDesc>(n.desc);
  if (std::string why = einsum_gemm_refusal(d); !why.empty()) return why;
  for (ValueId v : n.inputs)
    if (g.value(v).dtype != DType::kF32) return "Einsum '" + einsum_equation(d) + "' of non-fp32 tensors";
  return {};
}

Status einsum(OneDnnBackend& b, const Node& n) {
  const Graph& g = b.graph();
  if (std::string why = einsum_refusal(g, n); !why.empty()) return Status::unsupported(why);
  const auto& d = std::get<EinsumDesc>(n.desc);
  auto x0 = plain_operand(b, n.inputs[0]);
  if (!x0) return x0.status();
  auto x1 = plain_operand(b, n.inputs[1]);
  if (!x1) return x1.status();
  const EinsumGemm p = einsum_gemm(d, x0->second, x1->second);
  const memory a = stack_of(b, p.a, x0->first, p.count, p.m, p.k);
  const memory w = stack_of(b, p.b, x1->first, p.count, p.k, p.n);
  const Shape& ys = shape_of(g, n.outputs[0]);
  const memory out = b.new_buffer(md_rowmajor(ys));
  const memory y = p.scratch_strides.empty() ? out : b.new_buffer(md_rowmajor({p.count, p.m, p.n}));
  const memory y3(md_rowmajor({p.count, p.m, p.n}), b.engine(), y.get_data_handle());
  const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a.get_desc(), w.get_desc(), y3.get_desc()), b.engine());
  b.add_primitive(dnnl::matmul(pd), {{DNNL_ARG_SRC, a}, {DNNL_ARG_WEIGHTS, w}, {DNNL_ARG_DST, y3}}, pd.impl_info_str());
  if (!p.scratch_strides.empty())
    b.add_reorder(memory(memory::desc(dims_of(ys), kF32, dims_of(p.scratch_strides)), b.engine(), y.get_data_handle()),
                  out);
  b.set_mem(n.outputs[0], out);
  return Status::ok();
}

}  // namespace rooflens::onednn
