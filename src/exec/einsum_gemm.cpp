// The batched-GEMM plan of a two-operand Einsum (include/rooflens/exec/einsum_gemm.h): the
// letters sorted into batch, rows, columns and summed; each operand used in place when its
// strides make it a packed [batch, outer, inner] stack or the transpose of one, else copied.
#include "rooflens/exec/einsum_gemm.h"

namespace rooflens {
namespace {

struct LetterRoles {
  std::string batch, rows, cols, sum;  // batch/rows/cols in the output's order, sum in the first input's
};

bool has(const std::string& term, char c) { return term.find(c) != std::string::npos; }

LetterRoles letter_roles(const EinsumDesc& d) {
  LetterRoles r;
  const std::string &a = d.inputs[0], &b = d.inputs[1], &y = d.output;
  for (char c : y) {
    if (has(a, c) && has(b, c))
      r.batch += c;
    else if (has(a, c))
      r.rows += c;
    else
      r.cols += c;
  }
  for (char c : a)
    if (has(b, c) && !has(y, c)) r.sum += c;
  return r;
}

int64_t extent_of(const EinsumDesc& d, char c) { return d.extents[d.letters.find(c)]; }

int64_t extent_of(const EinsumDesc& d, const std::string& letters) {
  int64_t p = 1;
  for (char c : letters) p *= extent_of(d, c);
  return p;
}

// A term's dims in the order of `seq` (its letters): extents and the value's strides.
struct Reordered {
  Shape shape;
  std::vector<int64_t> strides;
};

Reordered reorder(const EinsumDesc& d, const std::string& term, const std::vector<int64_t>& strides,
                  const std::string& seq) {
  Reordered r;
  for (char c : seq) {
    r.shape.push_back(extent_of(d, c));
    r.strides.push_back(strides[term.find(c)]);
  }
  return r;
}

// Dense row-major in this order (dims of one element may have any stride).
bool packed(const Reordered& r) {
  int64_t expect = 1;
  for (size_t k = r.shape.size(); k-- > 0;) {
    if (r.shape[k] != 1 && r.strides[k] != expect) return false;
    expect *= r.shape[k];
  }
  return true;
}

EinsumOperand gemm_operand(const EinsumDesc& d, const std::string& term, const std::vector<int64_t>& strides,
                           const std::string& batch, const std::string& outer, const std::string& inner) {
  EinsumOperand o;
  const Reordered plain = reorder(d, term, strides, batch + outer + inner);
  o.ld = extent_of(d, inner);
  if (packed(plain)) return o;
  if (packed(reorder(d, term, strides, batch + inner + outer))) {
    o.trans = true;
    o.ld = extent_of(d, outer);
    return o;
  }
  o.copy = true;
  o.shape = plain.shape;
  o.strides = plain.strides;
  return o;
}

}  // namespace

std::string einsum_equation(const EinsumDesc& d) {
  std::string eq;
  for (size_t i = 0; i < d.inputs.size(); ++i) eq += (i ? "," : "") + d.inputs[i];
  return eq + "->" + d.output;
}

std::string einsum_gemm_refusal(const EinsumDesc& d) {
  const std::string eq = "Einsum '" + einsum_equation(d) + "'";
  if (d.inputs.size() != 2) return eq + " of one operand (a product of two is lowered)";
  const std::string &a = d.inputs[0], &b = d.inputs[1], &y = d.output;
  for (char c : d.letters)
    if (!has(y, c) && !(has(a, c) && has(b, c)))
      return eq + " sums letter '" + std::string(1, c) + "' within one operand (products only)";
  return {};
}

EinsumGemm einsum_gemm(const EinsumDesc& d, const std::vector<int64_t>& a_strides,
                       const std::vector<int64_t>& b_strides) {
  EinsumGemm g;
  g.refusal = einsum_gemm_refusal(d);
  if (!g.refusal.empty()) return g;
  const LetterRoles p = letter_roles(d);
  g.a = gemm_operand(d, d.inputs[0], a_strides, p.batch, p.rows, p.sum);
  g.b = gemm_operand(d, d.inputs[1], b_strides, p.batch, p.sum, p.cols);
  g.m = extent_of(d, p.rows);
  g.n = extent_of(d, p.cols);
  g.k = extent_of(d, p.sum);
  g.count = extent_of(d, p.batch);
  const std::string order = p.batch + p.rows + p.cols;
  if (order == d.output) return g;
  std::vector<int64_t> st(order.size(), 1);
  for (size_t k = order.size(); k-- > 1;) st[k - 1] = st[k] * extent_of(d, order[k]);
  for (char c : d.output) g.scratch_strides.push_back(st[order.find(c)]);
  return g;
}

}  // namespace rooflens
