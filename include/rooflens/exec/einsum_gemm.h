// A two-operand Einsum as one batched GEMM, planned from the node's EinsumDesc (resolved in
// ops/einsum.cpp) and its operands' strides; the oneDNN and CUDA backends both lower it from
// this plan. Every letter is a batch letter (both inputs and the output), a row letter
// (first input and output), a column letter (second input and output) or a summed letter
// (both inputs, not the output): per batch, row-major Y[m,n] = A[m,k] B[k,n].
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "rooflens/ir/attr_map.h"  // Shape
#include "rooflens/ir/op_desc.h"

namespace rooflens {

// How one operand enters the GEMM: a stack of packed [outer, inner] matrices in place, or
// stored as their transpose (trans; ld is the row-major leading dim either way), or first
// copied packed (copy: its extents and strides in [batch, outer, inner] letter order).
struct EinsumOperand {
  bool copy = false, trans = false;
  int64_t ld = 0;
  Shape shape;
  std::vector<int64_t> strides;
};

// The plan: the two operands, the GEMM's sizes (count: the batch), and scratch_strides:
// empty when Y [batch, rows, cols] is the output itself, else Y's strides along each output
// letter, to copy the output from. refusal: why the equation is no product (empty if it is).
struct EinsumGemm {
  std::string refusal;
  EinsumOperand a, b;
  int64_t m = 0, n = 0, k = 0, count = 0;
  std::vector<int64_t> scratch_strides;
};

// "bghid,bghjd->bghij".
std::string einsum_equation(const EinsumDesc& d);
EinsumGemm einsum_gemm(const EinsumDesc& d, const std::vector<int64_t>& a_strides,
                       const std::vector<int64_t>& b_strides);
// What the plan refuses from the equation alone (before any stride is known); empty if none.
std::string einsum_gemm_refusal(const EinsumDesc& d);

}  // namespace rooflens
