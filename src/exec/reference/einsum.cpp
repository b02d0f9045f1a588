// Reference Einsum: one loop over every distinct letter (the node's EinsumDesc), summing the
// product of the operands into the output element the output letters address. In double.
#include <algorithm>

#include "kernels.h"

namespace rooflens::ref {
namespace {

// Flat offset of a term's element for the current letter coordinates.
int64_t term_offset(const std::string& term, const Shape& shape, const std::string& letters,
                    const std::vector<int64_t>& coord) {
  int64_t off = 0;
  for (size_t d = 0; d < term.size(); ++d) {
    const auto l = static_cast<size_t>(letters.find(term[d]));
    off = off * shape[d] + coord[l];
  }
  return off;
}

}  // namespace

Status run_Einsum(KernelContext& ctx) {
  const auto& d = ctx.desc<EinsumDesc>();
  for (size_t i = 0; i < d.inputs.size(); ++i) ROOFLENS_RETURN_IF_ERROR(require_float_tensor(ctx, i, "inputs"));
  Tensor& y = ctx.alloc_out(0);
  std::vector<double> acc(static_cast<size_t>(y.numel()), 0.0);
  const Shape extents(d.extents.begin(), d.extents.end());
  const int64_t total = ops::prod(extents);
  std::vector<int64_t> coord;
  for (int64_t f = 0; f < total; ++f) {
    unravel(f, extents, &coord);
    double p = 1.0;
    for (size_t i = 0; i < d.inputs.size(); ++i)
      p *= ctx.in(i).data[static_cast<size_t>(term_offset(d.inputs[i], ctx.in(i).shape, d.letters, coord))];
    acc[static_cast<size_t>(term_offset(d.output, y.shape, d.letters, coord))] += p;
  }
  for (size_t i = 0; i < acc.size(); ++i) y.data[i] = static_cast<float>(acc[i]);
  return Status::ok();
}

}  // namespace rooflens::ref
