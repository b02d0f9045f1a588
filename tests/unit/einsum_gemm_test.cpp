// The batched-GEMM plan of a two-operand Einsum (exec/einsum_gemm.h), which the oneDNN and
// CUDA backends both lower from: its index arithmetic against the direct sum, for operands
// in place, transposed and copied, and an output written in place or reordered from scratch.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "rooflens/exec/einsum_gemm.h"

namespace rooflens {
namespace {
using Strides = std::vector<int64_t>;

// An Einsum operand on the host: values by letter coordinates, stored row-major in the order
// of `storage` (a permutation of the term's letters).
struct HostOperand {
  std::vector<double> data;
  Strides strides;  // per term dim
};

std::map<char, int64_t> letter_extents(const EinsumDesc& d) {
  std::map<char, int64_t> e;
  for (size_t i = 0; i < d.letters.size(); ++i) e[d.letters[i]] = d.extents[i];
  return e;
}

// Row-major offset of `coord` (by letter) over the letters of `term`, with `ext` extents.
int64_t offset_in(const std::string& term, std::map<char, int64_t>& ext, std::map<char, int64_t>& coord) {
  int64_t off = 0;
  for (char c : term) off = off * ext[c] + coord[c];
  return off;
}

// Calls f(coord) for every coordinate of the letters of `term`, the last fastest.
template <typename F>
void for_each_coord(const std::string& term, std::map<char, int64_t>& ext, F f) {
  std::map<char, int64_t> coord;
  for (char c : term) coord[c] = 0;
  int64_t total = 1;
  for (char c : term) total *= ext[c];
  for (int64_t i = 0; i < total; ++i) {
    int64_t r = i;
    for (size_t k = term.size(); k-- > 0;) {
      coord[term[k]] = r % ext[term[k]];
      r /= ext[term[k]];
    }
    f(coord);
  }
}

HostOperand host_operand(const std::string& term, const std::string& storage, std::map<char, int64_t>& ext, int salt) {
  HostOperand o;
  for (char c : term) {
    int64_t st = 1;
    for (size_t k = storage.find(c) + 1; k < storage.size(); ++k) st *= ext[storage[k]];
    o.strides.push_back(st);
  }
  for_each_coord(storage, ext, [&](std::map<char, int64_t>& c) {
    o.data.push_back(std::sin(1.0 + salt + static_cast<double>(offset_in(term, ext, c))));
  });
  return o;
}

// What a backend multiplies for an operand: the stored data, or its packed copy.
std::vector<double> gemm_input(const EinsumOperand& p, const HostOperand& o) {
  if (!p.copy) return o.data;
  std::vector<double> packed;
  int64_t total = 1;
  for (int64_t e : p.shape) total *= e;
  for (int64_t i = 0; i < total; ++i) {
    int64_t r = i, off = 0;
    for (size_t k = p.shape.size(); k-- > 0;) {
      off += (r % p.shape[k]) * p.strides[k];
      r /= p.shape[k];
    }
    packed.push_back(o.data[static_cast<size_t>(off)]);
  }
  return packed;
}

// The plan's GEMM on the host, row-major as the plan defines it: per batch p,
// Y[i,j] = sum_l A(i,l) B(l,j), a transposed operand read across its leading dim.
std::vector<double> host_gemm(const EinsumGemm& g, const std::vector<double>& a, const std::vector<double>& b) {
  std::vector<double> y(static_cast<size_t>(g.count * g.m * g.n), 0.0);
  for (int64_t p = 0; p < g.count; ++p)
    for (int64_t i = 0; i < g.m; ++i)
      for (int64_t j = 0; j < g.n; ++j)
        for (int64_t l = 0; l < g.k; ++l) {
          const double av = a[static_cast<size_t>(p * g.m * g.k + (g.a.trans ? i + l * g.a.ld : l + i * g.a.ld))];
          const double bv = b[static_cast<size_t>(p * g.k * g.n + (g.b.trans ? l + j * g.b.ld : j + l * g.b.ld))];
          y[static_cast<size_t>(p * g.m * g.n + j + i * g.n)] += av * bv;
        }
  return y;
}

// Lowers `eq` (A stored in `a_storage` order, B in `b_storage`) as the backend does and
// compares with the direct sum; returns the plan for the caller's checks.
EinsumGemm check_einsum(const std::vector<std::string>& terms, const std::string& out,
                        const std::map<char, int64_t>& extents, const std::string& a_storage,
                        const std::string& b_storage) {
  EinsumDesc d;
  d.inputs = terms;
  d.output = out;
  for (const auto& [c, e] : extents) {
    d.letters.push_back(c);
    d.extents.push_back(e);
  }
  auto ext = letter_extents(d);
  const HostOperand a = host_operand(terms[0], a_storage, ext, 0), b = host_operand(terms[1], b_storage, ext, 7);
  const EinsumGemm g = einsum_gemm(d, a.strides, b.strides);
  EXPECT_TRUE(g.refusal.empty()) << g.refusal;
  const std::vector<double> y = host_gemm(g, gemm_input(g.a, a), gemm_input(g.b, b));
  std::vector<double> want(y.size(), 0.0);
  for_each_coord(d.letters, ext, [&](std::map<char, int64_t>& c) {
    const double av = a.data[static_cast<size_t>(offset_in(a_storage, ext, c))];
    want[static_cast<size_t>(offset_in(out, ext, c))] += av * b.data[static_cast<size_t>(offset_in(b_storage, ext, c))];
  });
  int64_t i = 0;
  for_each_coord(out, ext, [&](std::map<char, int64_t>& c) {
    int64_t from = i++;
    if (!g.scratch_strides.empty()) {
      from = 0;
      for (size_t k = 0; k < out.size(); ++k) from += c[out[k]] * g.scratch_strides[k];
    }
    EXPECT_NEAR(y[static_cast<size_t>(from)], want[static_cast<size_t>(i - 1)], 1e-9) << out << " element " << i - 1;
  });
  return g;
}

TEST(EinsumGemm, TwoOperandsBecomeOneBatchedGemm) {
  const std::map<char, int64_t> e{{'b', 1}, {'g', 3}, {'h', 2}, {'i', 5}, {'j', 4}, {'d', 6}};
  auto qk = check_einsum({"bghid", "bghjd"}, "bghij", e, "bghid", "bghjd");
  EXPECT_FALSE(qk.a.trans || qk.a.copy || qk.b.copy);
  EXPECT_TRUE(qk.b.trans);
  EXPECT_EQ(qk.count, 6);
  EXPECT_TRUE(qk.scratch_strides.empty());
  auto av = check_einsum({"bghij", "bghjd"}, "bghid", e, "bghij", "bghjd");
  EXPECT_FALSE(av.a.trans || av.b.trans || av.a.copy || av.b.copy);
  auto reordered = check_einsum({"bghid", "bghjd"}, "bgjhi", e, "bghid", "bghjd");
  EXPECT_FALSE(reordered.scratch_strides.empty());
  auto copied = check_einsum({"bhgid", "bghjd"}, "bghij", e, "bhgid", "bghjd");
  EXPECT_TRUE(copied.a.copy);
  // Stored in another order than the term's letters (a view): A as the transpose, B copied.
  auto viewed = check_einsum({"bghid", "bghjd"}, "bghij", e, "bghdi", "bgdhj");
  EXPECT_TRUE(viewed.a.trans);
  EXPECT_TRUE(viewed.b.copy);
  check_einsum({"ik", "kj"}, "ij", {{'i', 3}, {'j', 5}, {'k', 4}}, "ik", "kj");
  check_einsum({"bik", "bkj"}, "bji", {{'b', 2}, {'i', 3}, {'j', 5}, {'k', 4}}, "bki", "bjk");
}

TEST(EinsumGemm, RefusesWhatIsNoProduct) {
  EinsumDesc one;
  one.inputs = {"bij"};
  one.output = "bji";
  one.letters = "bij";
  one.extents = {2, 3, 4};
  EXPECT_NE(einsum_gemm_refusal(one).find("'bij->bji' of one operand"), std::string::npos);
  EinsumDesc inner = one;
  inner.inputs = {"bij", "bj"};
  inner.output = "b";
  EXPECT_NE(einsum_gemm_refusal(inner).find("sums letter 'i' within one operand"), std::string::npos);
  EXPECT_FALSE(einsum_gemm(inner, {12, 4, 1}, {4, 1}).refusal.empty());
}

}  // namespace
}  // namespace rooflens
