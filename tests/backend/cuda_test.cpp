// The CUDA backend against the reference backend, on small graphs covering every op it
// runs and on bundled zoo models at batch 2: ||out - ref|| / ||ref|| below 1e-3 in fp32
// (FMA math, no TF32; cuDNN may pick FFT or Winograd, whose rounding differs from direct
// summation by up to ~1e-4) and below 3e-2 in fp16 (half storage between layers),
// fresh random inputs each run and poisoned output buffers. Without a CUDA device the small
// graphs still run on the reference backend and pass the CUDA backend's supports(), then
// skip and say why; the view rules and the zoo's support check run; one case checks that
// the absence is reported as unavailable.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <map>
#include <random>
#include <set>

#include "rooflens/cost/cost.h"
#include "rooflens/exec/backend.h"
#include "rooflens/exec/cuda.h"
#include "rooflens/exec/measure.h"
#include "rooflens/exec/weights.h"
#include "rooflens/ir/graph_builder.h"
#include "rooflens/onnx/import.h"
#include "rooflens/passes/infer_shapes.h"

#if defined(ROOFLENS_WITH_CUDA)
#include "cuda_backend.h"  // src/exec/cuda: the view rules, tested without a device
#endif

namespace rooflens {
namespace {

#if defined(ROOFLENS_WITH_CUDA)
using cuda::reshape_strides;
using cuda::strided_view;
using cuda::strides_of;
using Strides = std::vector<int64_t>;

// numpy's no-copy reshape: splits and merges of contiguous dims are views, a merge across a
// transposed pair is not.
TEST(CudaViews, ReshapeWithoutACopyWhereTheMergedDimsAreContiguous) {
  EXPECT_EQ(reshape_strides({2, 6, 4}, {24, 4, 1}, {2, 2, 3, 4}), (Strides{24, 12, 4, 1}));
  EXPECT_EQ(reshape_strides({2, 2, 3, 4}, {24, 12, 4, 1}, {2, 24}), (Strides{24, 1}));
  // NHWC [N,C,H,W] = (H*W*C, 1, W*C, C): C split in two groups (ShuffleNet's reshape).
  EXPECT_EQ(reshape_strides({2, 24, 5, 6}, {720, 1, 144, 24}, {2, 2, 12, 5, 6}), (Strides{720, 12, 1, 144, 24}));
  // Its transpose (0,2,1,3,4) merged back to [N,C,H,W]: (1, 12) is not contiguous.
  EXPECT_FALSE(reshape_strides({2, 12, 2, 5, 6}, {720, 1, 12, 144, 24}, {2, 24, 5, 6}));
  // ... but the NHWC output seen in the transposed shape is a view: one strided copy.
  EXPECT_EQ(reshape_strides({2, 24, 5, 6}, {720, 1, 144, 24}, {2, 12, 2, 5, 6}), (Strides{720, 2, 1, 144, 24}));
  // Flatten of NHWC [N,C,1,1] (after global pooling) is plain row-major [N,C].
  EXPECT_EQ(reshape_strides({4, 8, 1, 1}, {8, 1, 8, 8}, {4, 8}), (Strides{8, 1}));
  EXPECT_FALSE(reshape_strides({4, 8, 2, 2}, {32, 1, 16, 8}, {4, 32}));
  // Size-1 dims anywhere.
  EXPECT_EQ(reshape_strides({3, 1, 4}, {4, 99, 1}, {1, 3, 4, 1}), (Strides{12, 4, 1, 1}));
}

TEST(CudaViews, StridedViewsBecomePlainWhenDense) {
  int dummy = 0;
  // ConvNeXt's permute(0,2,3,1) of an NHWC [N,C,H,W]: the row-major [N,H,W,C].
  const Strides nhwc{3 * 4 * 8, 1, 4 * 8, 8};  // N,C,H,W = 2,8,3,4
  const Strides perm{nhwc[0], nhwc[2], nhwc[3], nhwc[1]};
  auto v = strided_view(&dummy, {2, 3, 4, 8}, cuda::Elem::kF16, perm);
  EXPECT_TRUE(v.strides.empty());
  EXPECT_FALSE(v.nhwc);
  // ... and permute(0,3,1,2) of that row-major tensor is NHWC [N,C,H,W] again.
  const Strides rm{96, 32, 8, 1};
  auto back = strided_view(&dummy, {2, 8, 3, 4}, cuda::Elem::kF16, {rm[0], rm[3], rm[1], rm[2]});
  EXPECT_TRUE(back.strides.empty());
  EXPECT_TRUE(back.nhwc);
  EXPECT_EQ(strides_of(back), nhwc);
  // A channel slice of NHWC keeps its strides; a batch slice is dense.
  auto ch = strided_view(&dummy, {2, 4, 3, 4}, cuda::Elem::kF16, nhwc);
  EXPECT_EQ(ch.strides, nhwc);
  auto batch = strided_view(&dummy, {1, 8, 3, 4}, cuda::Elem::kF16, nhwc);
  EXPECT_TRUE(batch.strides.empty());
  EXPECT_TRUE(batch.nhwc);
}

// Element-wise ops above rank 4 run on the 4-D kernel: extent-1 dims dropped, neighbours
// merged where every operand steps through both as one (or broadcasts over both).
TEST(CudaViews, ElementwiseIterationsCollapseToTheKernelsFourDims) {
  using cuda::collapse_iteration;
  using cuda::collapsed_rank;
  // Swin's masked attention: [1,nW,heads,49,49] + mask [1,nW,1,49,49].
  const Shape swin{1, 64, 3, 49, 49};
  const auto mask = cuda::broadcast_strides({1, 64, 1, 49, 49}, {64 * 2401, 2401, 2401, 49, 1}, swin);
  ASSERT_TRUE(mask);
  const auto it = collapse_iteration(swin, {{3 * 64 * 2401, 3 * 2401, 2401, 49, 1}, *mask});
  EXPECT_EQ(it.dims, (Strides{64, 3, 2401}));
  EXPECT_EQ(it.strides[0], (Strides{3 * 2401, 2401, 1}));
  EXPECT_EQ(it.strides[1], (Strides{2401, 0, 1}));
  // MaxViT's relative-position bias [heads,49,49] over [1,G,heads,49,49]; a scalar scale.
  EXPECT_EQ(collapsed_rank({1, 16, 4, 49, 49}, {{1, 16, 4, 49, 49}, {4, 49, 49}}), 2u);
  EXPECT_EQ(collapsed_rank({1, 16, 4, 49, 32}, {{1, 16, 4, 49, 32}, {}}), 1u);
  // Alternating broadcast dims leave 5: refused by the support check.
  EXPECT_EQ(collapsed_rank({2, 3, 4, 5, 6}, {{2, 3, 4, 5, 6}, {2, 1, 4, 1, 6}}), 5u);
  EXPECT_FALSE(collapsed_rank({2, 3, 4, 5, 6}, {{2, 3, 4, 5, 6}, {3, 1}}));
  // A transposed view does not merge across the swapped pair.
  EXPECT_EQ(collapse_iteration({2, 3, 4, 5, 6}, {{360, 120, 30, 6, 1}, {360, 120, 30, 1, 5}}).dims,
            (Strides{24, 5, 6}));
}

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

// What the backend hands cuBLAS for an operand: the stored data, or its packed copy.
std::vector<double> gemm_input(const cuda::EinsumOperand& p, const HostOperand& o) {
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

// cublasGemmStridedBatchedEx(op_b, op_a, n, m, k, B, ldb, k*n, A, lda, m*k, Y, n, m*n) on the
// host: column-major, as cuBLAS defines it.
std::vector<double> host_cublas(const cuda::EinsumGemm& g, const std::vector<double>& a, const std::vector<double>& b) {
  std::vector<double> y(static_cast<size_t>(g.count * g.m * g.n), 0.0);
  for (int64_t p = 0; p < g.count; ++p)
    for (int64_t j = 0; j < g.m; ++j)    // column of C = row of Y
      for (int64_t i = 0; i < g.n; ++i)  // row of C
        for (int64_t l = 0; l < g.k; ++l) {
          const double bv = b[static_cast<size_t>(p * g.k * g.n + (g.b.trans ? l + i * g.b.ld : i + l * g.b.ld))];
          const double av = a[static_cast<size_t>(p * g.m * g.k + (g.a.trans ? j + l * g.a.ld : l + j * g.a.ld))];
          y[static_cast<size_t>(p * g.m * g.n + i + j * g.n)] += bv * av;
        }
  return y;
}

// Lowers `eq` (A stored in `a_storage` order, B in `b_storage`) as the backend does and
// compares with the direct sum; returns the plan for the caller's checks.
cuda::EinsumGemm check_einsum(const std::vector<std::string>& terms, const std::string& out,
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
  const cuda::EinsumGemm g = cuda::einsum_gemm(d, a.strides, b.strides);
  EXPECT_TRUE(g.refusal.empty()) << g.refusal;
  const std::vector<double> y = host_cublas(g, gemm_input(g.a, a), gemm_input(g.b, b));
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

// The Einsum lowering's index arithmetic, checked on the host against the direct sum with
// cuBLAS's column-major definition: in-place, transposed (CUBLAS_OP_T) and copied operands,
// an output written in place or reordered from scratch.
// The strided copy as a host loop: `unit` bytes per element of `s` (the kernel's semantics).
std::vector<unsigned char> host_copy(const std::vector<unsigned char>& x, size_t y_bytes, const cuda::CopyShape& s,
                                     int unit) {
  std::vector<unsigned char> y(y_bytes, 0xEE);
  int64_t n = 1;
  for (int k = 0; k < s.rank; ++k) n *= s.dims[k];
  for (int64_t i = 0; i < n; ++i) {
    int64_t r = i, so = 0, dof = 0;
    for (int k = s.rank - 1; k >= 0; --k) {
      so += (r % s.dims[k]) * s.src_strides[k];
      dof += (r % s.dims[k]) * s.dst_strides[k];
      r /= s.dims[k];
    }
    std::memcpy(&y[static_cast<size_t>(dof * unit)], &x[static_cast<size_t>(so * unit)], static_cast<size_t>(unit));
  }
  return y;
}

// A copy into a dense output of `dims` reading the dense input of dims permuted by `perm`.
cuda::CopyShape permute_copy(const std::vector<int64_t>& dims, const std::vector<int>& perm) {
  const int r = static_cast<int>(dims.size());
  std::vector<int64_t> in_dims(dims.size()), in_strides(dims.size());
  for (int k = 0; k < r; ++k) in_dims[static_cast<size_t>(perm[static_cast<size_t>(k)])] = dims[static_cast<size_t>(k)];
  int64_t st = 1;
  for (int k = r - 1; k >= 0; --k) {
    in_strides[static_cast<size_t>(k)] = st;
    st *= in_dims[static_cast<size_t>(k)];
  }
  cuda::CopyShape s;
  s.rank = r;
  int64_t dst = 1;
  for (int k = r - 1; k >= 0; --k) {
    s.dims[k] = dims[static_cast<size_t>(k)];
    s.src_strides[k] = in_strides[static_cast<size_t>(perm[static_cast<size_t>(k)])];
    s.dst_strides[k] = dst;
    dst *= dims[static_cast<size_t>(k)];
  }
  return s;
}

// ViT's head split keeps the last dim: 16-byte units; a plain copy collapses to one dim; a
// misaligned start, a strided last dim or an odd run keep narrower units. Every plan moves
// the same bytes as the element-wise copy it replaces (random permutations, fp16 and fp32).
TEST(CudaViews, StridedCopyPlanMovesWideUnitsAndTheSameBytes) {
  alignas(16) static unsigned char base[64];
  const void* a16 = base;
  const void* a2 = base + 2;
  const void* a4 = base + 4;
  auto vit = permute_copy({2, 12, 197, 64}, {0, 2, 1, 3});  // [b, heads, tokens, d] from [b, tokens, heads, d]
  auto p = cuda::plan_strided_copy(vit, 2, a16, a16);
  EXPECT_EQ(p.unit_bytes, 16);
  EXPECT_EQ(p.shape.rank, 4);
  EXPECT_EQ(p.shape.dims[3], 8);
  auto plain = cuda::plan_strided_copy(permute_copy({4, 6, 8}, {0, 1, 2}), 2, a16, a16);
  EXPECT_EQ(plain.shape.rank, 1);
  EXPECT_EQ(plain.shape.dims[0], 4 * 6 * 8 / 8);
  EXPECT_EQ(cuda::plan_strided_copy(vit, 2, a4, a16).unit_bytes, 4);  // a 4-byte offset: 4-byte units
  EXPECT_EQ(cuda::plan_strided_copy(vit, 2, a16, a2).unit_bytes, 2);  // a 2-byte offset: elements
  EXPECT_EQ(cuda::plan_strided_copy(permute_copy({5, 3}, {1, 0}), 2, a16, a16).unit_bytes, 2);  // last dim strided
  EXPECT_EQ(cuda::plan_strided_copy(permute_copy({4, 6}, {1, 0}), 4, a16, a16).unit_bytes, 4);  // fp32 stays 4

  std::mt19937 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    const int rank = 1 + static_cast<int>(rng() % 5);
    std::vector<int64_t> dims;
    std::vector<int> perm(static_cast<size_t>(rank));
    int64_t n = 1;
    for (int k = 0; k < rank; ++k) {
      dims.push_back(1 + static_cast<int64_t>(rng() % 6) * (k == rank - 1 ? 4 : 1));
      n *= dims.back();
      perm[static_cast<size_t>(k)] = k;
    }
    std::shuffle(perm.begin(), perm.end() - (trial % 2 ? 0 : 1), rng);  // even trials keep the last dim
    const int elem = trial % 3 ? 2 : 4;
    const cuda::CopyShape s = permute_copy(dims, perm);
    std::vector<unsigned char> x(static_cast<size_t>(n * elem));
    for (auto& v : x) v = static_cast<unsigned char>(rng());
    const auto plan = cuda::plan_strided_copy(s, elem, a16, a16);
    EXPECT_EQ(host_copy(x, x.size(), plan.shape, plan.unit_bytes), host_copy(x, x.size(), s, elem))
        << "trial " << trial << ", unit " << plan.unit_bytes;
  }
}

TEST(CudaViews, EinsumLowersToOneBatchedGemm) {
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
#endif

// The repository: ROOFLENS_SOURCE_DIR from the environment (a bundle run on a GPU machine,
// scripts/gpu-corpus.sh, where the build's source path does not exist), else the build's.
std::string source_dir() {
  const char* env = std::getenv("ROOFLENS_SOURCE_DIR");
  return env && *env ? env : ROOFLENS_SOURCE_DIR;
}

std::string no_device_reason() {
  auto info = cuda_device_info();
  return info ? "" : info.status().message();
}

#define SKIP_WITHOUT_GPU()                         \
  do {                                             \
    const std::string why = no_device_reason();    \
    if (!why.empty()) {                            \
      GTEST_SKIP() << "needs a CUDA GPU: " << why; \
    }                                              \
  } while (0)

double rel_error(const std::vector<Tensor>& a, const std::vector<Tensor>& ref) {
  double worst = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    if (a.size() <= i || a[i].data.size() != ref[i].data.size()) return INFINITY;
    double num = 0, den = 0;
    for (size_t k = 0; k < ref[i].data.size(); ++k) {
      const double d = static_cast<double>(a[i].data[k]) - ref[i].data[k];
      num += d * d;
      den += static_cast<double>(ref[i].data[k]) * ref[i].data[k];
    }
    double e = den > 0 ? std::sqrt(num / den) : std::sqrt(num);
    if (std::isnan(e)) e = INFINITY;
    worst = std::max(worst, e);
  }
  return worst;
}

// Runs `g` on the reference backend once and on the CUDA backend in fp32, fp16 and fp16
// replayed as a CUDA graph; checks each against the reference.
void expect_matches_reference(Graph& g) {
  auto inferred = infer_shapes(g);
  ASSERT_TRUE(inferred) << inferred.status().message();
  ModelAnalysis m = analyze_graph(g, *inferred, {});
  std::vector<Tensor> inputs;
  const uint64_t seed = std::random_device{}();
  for (size_t i = 0; i < g.inputs.size(); ++i) inputs.push_back(random_input(g, g.inputs[i], seed + i));
  auto ref = make_reference_backend();
  ExecOptions eo;
  ASSERT_TRUE(ref->prepare(g, m, eo));
  std::vector<Tensor> want;
  ASSERT_TRUE(ref->run(inputs, &want));
  // The zoo's generated weights are not trained: in some models (ResNet-50) activations
  // grow towards fp16's largest value (65504) and overflow; fp16 is compared only where
  // the reference's outputs stay well inside its range.
  double largest = 0;
  for (const auto& t : want)
    for (float v : t.data) largest = std::max(largest, static_cast<double>(std::fabs(v)));
  // Without a device, this much still runs: the graph is valid, the reference runs it, and
  // the CUDA backend's rules accept every node.
  for (NodeId id = 0; id < static_cast<NodeId>(g.nodes.size()); ++id) {
    std::string reason;
    if (!g.node(id).folded && !cuda_supports(g, id, &reason) && reason.find("built without") == std::string::npos)
      ADD_FAILURE() << g.node(id).op_type << " '" << g.node(id).name << "': " << reason;
  }
  SKIP_WITHOUT_GPU();
  const bool fp16_in_range = largest < 1e4;
  if (!fp16_in_range)
    std::cout << "[   NOTE   ] fp16 not compared: the reference output reaches " << largest
              << " with these generated weights (fp16 overflows at 65504)\n";
  struct Case {
    DType dtype;
    bool graph;
    double tol;
  };
  for (const Case c : {Case{DType::kF32, false, 1e-3}, Case{DType::kF16, false, 3e-2}, Case{DType::kF16, true, 3e-2}}) {
    if (c.dtype == DType::kF16 && !fp16_in_range) continue;
    CudaBackendOptions o;
    o.dtype = c.dtype;
    o.graph = c.graph;
    auto be = make_cuda_backend(o);
    ASSERT_TRUE(be) << be.status().message();
    Status s = (*be)->prepare(g, m, eo);
    ASSERT_TRUE(s) << s.message();
    std::vector<Tensor> got;
    Status r = (*be)->run(inputs, &got);
    ASSERT_TRUE(r) << r.message();
    const double e = rel_error(got, want);
    EXPECT_LT(e, c.tol) << (c.dtype == DType::kF16 ? "fp16" : "fp32") << (c.graph ? " graph" : "");
    // Device-resident reruns give the same answer (no state leaks between runs).
    ASSERT_TRUE((*be)->run_resident());
    std::vector<Tensor> again;
    ASSERT_TRUE((*be)->run(inputs, &again));
    EXPECT_EQ(rel_error(again, got), 0.0);
    if (!c.graph) {
      EXPECT_EQ((*be)->layer_timings().size(), m.layers.size());
    }
  }
}

TEST(Cuda, NoDeviceIsReportedAsUnavailable) {
  auto info = cuda_device_info();
  if (info) {
    GTEST_SKIP() << "a CUDA device is present (" << info->name << ")";
  }
  EXPECT_EQ(info.status().code(), StatusCode::kUnavailable);
  EXPECT_FALSE(info.status().message().empty());
  auto be = make_cuda_backend({});
  ASSERT_FALSE(be);
  EXPECT_EQ(be.status().code(), StatusCode::kUnavailable);
}

TEST(Cuda, ConvFamiliesWithFusedEpilogues) {
  GraphBuilder b;
  ValueId x = b.input("x", {2, 16, 15, 15});
  ValueId c1 =
      b.add1("Relu", "r1", {b.batchnorm("bn1", b.conv("c1", x, 16, 32, 3, {.stride = 2, .pad = 1, .bias = true}), 32)});
  ValueId dw = b.add1("Clip", "relu6",
                      {b.batchnorm("bn2", b.conv("dw", c1, 32, 32, 3, {.group = 32}), 32), b.reals("lo", {}, {0.0}),
                       b.reals("hi", {}, {6.0})});
  ValueId g4 = b.conv("g4", dw, 32, 32, 3, {.pad = 2, .group = 4, .dilation = 2});
  // Depthwise 5x5 stride 2 with asymmetric pads, then HardSwish (own kernel, fused).
  ValueId dw5 = b.add1("HardSwish", "dw5.hs",
                       {b.add1("Conv", "dw5", {g4, b.weight("dw5.w", {32, 1, 5, 5})},
                               {{"group", int64_t{32}},
                                {"kernel_shape", std::vector<int64_t>{5, 5}},
                                {"strides", std::vector<int64_t>{2, 2}},
                                {"pads", std::vector<int64_t>{1, 2, 2, 1}}})});
  ValueId padded = b.add1("Pad", "pad", {dw5, b.ints("pads", {0, 0, 1, 0, 0, 0, 0, 1})});
  ValueId gap5 = b.add1("GlobalAveragePool", "gap5", {padded});
  ValueId sig = b.add1("Sigmoid", "sig", {g4});
  ValueId swish = b.add1("Add", "swish.plus", {b.add1("Mul", "swish", {g4, sig}), gap5});
  ValueId res = b.add1("Add", "res", {b.batchnorm("bn3", b.conv("pw", swish, 32, 32, 1), 32), c1});
  ValueId rr = b.add1("Relu", "res.relu", {res});
  ValueId hs = b.add1("HardSwish", "hs", {rr});
  b.output(b.add1("HardSigmoid", "hsig", {b.conv("last", hs, 32, 8, 1)}, {{"alpha", 1.0 / 6}, {"beta", 0.5}}));
  Graph g = b.finish();
  expect_matches_reference(g);
}

TEST(Cuda, PoolingNormalizationSqueezeExciteAndHead) {
  GraphBuilder b;
  ValueId x = b.input("x", {2, 8, 17, 17});
  ValueId bn = b.batchnorm("bn", x, 8);
  ValueId mp = b.add1("MaxPool", "mp", {bn},
                      {{"kernel_shape", std::vector<int64_t>{3, 3}},
                       {"strides", std::vector<int64_t>{2, 2}},
                       {"pads", std::vector<int64_t>{1, 1, 1, 1}}});
  // ceil_mode and asymmetric pads: rooflens's own max-pooling kernel (cuDNN cannot).
  ValueId mpc = b.add1("MaxPool", "mp.ceil", {bn},
                       {{"kernel_shape", std::vector<int64_t>{3, 3}},
                        {"strides", std::vector<int64_t>{2, 2}},
                        {"ceil_mode", int64_t{1}},
                        {"pads", std::vector<int64_t>{0, 1, 1, 0}}});
  // BatchNormalization + ReLU outside a convolution (DenseNet): one fused pass.
  ValueId bnr = b.add1("Relu", "bn2.relu", {b.batchnorm("bn2", x, 8)});
  ValueId ap = b.add1("AveragePool", "ap", {bnr},
                      {{"kernel_shape", std::vector<int64_t>{3, 3}},
                       {"strides", std::vector<int64_t>{2, 2}},
                       {"pads", std::vector<int64_t>{1, 1, 1, 1}}});
  ValueId sum = b.add1("Sub", "sub", {b.add1("Add", "mp.sum", {mp, mpc}), b.add1("Tanh", "tanh", {ap})});
  ValueId gap = b.add1("GlobalAveragePool", "gap", {sum});
  ValueId se = b.add1("Sigmoid", "gate", {b.conv("se.fc", b.add1("Relu", "se.r", {gap}), 8, 8, 1, {.bias = true})});
  ValueId scaled = b.add1("Mul", "scale", {sum, se});
  ValueId cat = b.add1("Concat", "cat", {scaled, b.add1("Neg", "neg", {scaled})}, {{"axis", int64_t{1}}});
  ValueId rm = b.add1("ReduceMean", "rm", {cat}, {{"axes", std::vector<int64_t>{2, 3}}, {"keepdims", int64_t{0}}});
  ValueId lr = b.add1("LeakyRelu", "lrelu", {rm}, {{"alpha", 0.1}});
  ValueId fc = b.add1("Gemm", "fc", {lr, b.weight("w", {10, 16}), b.weight("bias", {10})}, {{"transB", int64_t{1}}});
  b.output(b.add1("Softmax", "sm", {b.add1("Div", "div", {fc, b.reals("two", {}, {2.0})})}, {{"axis", int64_t{-1}}}));
  Graph g = b.finish();
  expect_matches_reference(g);
}

TEST(Cuda, ViewsThatChangeTheLayout) {
  GraphBuilder b;
  ValueId x = b.input("x", {2, 6, 5, 5});
  ValueId flat = b.add1("Flatten", "flat", {b.add1("Relu", "r", {x})}, {{"axis", int64_t{1}}});
  ValueId fc = b.add1("MatMul", "mm", {flat, b.weight("w", {150, 48})});
  ValueId back = b.add1("Reshape", "unflat", {fc, b.ints("s4", {2, 3, 4, 4})});
  b.output(b.add1("Add", "add", {back, b.weight("c", {1, 3, 1, 1})}));
  Graph g = b.finish();
  expect_matches_reference(g);
}

// ConvNeXt's block: a channels-last LayerNormalization and Linear layers between two
// Transposes (views of the NHWC convolution output), GELU written out with Erf, and
// LayerNormalization over C,H,W; Gelu as one op.
TEST(Cuda, TransposeLayerNormMatMulAndErf) {
  GraphBuilder b;
  ValueId x = b.input("x", {2, 16, 7, 9});
  ValueId dw = b.conv("dw", x, 16, 16, 3, {.pad = 1, .group = 16, .bias = true});
  ValueId t = b.add1("Transpose", "to_nhwc", {dw}, {{"perm", std::vector<int64_t>{0, 2, 3, 1}}});
  ValueId ln = b.add1("LayerNormalization", "ln", {t, b.weight("ln.s", {16}), b.weight("ln.b", {16})},
                      {{"axis", int64_t{-1}}, {"epsilon", 1e-6}});
  ValueId fc1 =
      b.add1("Add", "fc1.bias", {b.add1("MatMul", "fc1", {ln, b.weight("fc1.w", {16, 40})}), b.weight("fc1.b", {40})});
  ValueId half = b.add1("Mul", "g.half", {fc1, b.reals("g.c", {}, {0.5})});
  ValueId erf = b.add1("Erf", "g.erf", {b.add1("Div", "g.div", {fc1, b.reals("g.s2", {}, {1.4142135623730951})})});
  ValueId gelu = b.add1("Mul", "g.mul", {half, b.add1("Add", "g.one", {erf, b.reals("g.1", {}, {1.0})})});
  ValueId fc2 = b.add1("MatMul", "fc2", {gelu, b.weight("fc2.w", {40, 16})});
  ValueId back = b.add1("Transpose", "to_nchw", {fc2}, {{"perm", std::vector<int64_t>{0, 3, 1, 2}}});
  ValueId res = b.add1("Add", "res", {b.add1("Mul", "scale", {back, b.weight("gamma", {16, 1, 1})}), x});
  ValueId ln3 = b.add1("LayerNormalization", "ln.chw", {res, b.weight("l3.s", {16, 7, 9})}, {{"axis", int64_t{1}}});
  b.output(b.add1("Gelu", "gelu", {ln3}));
  Graph g = b.finish();
  expect_matches_reference(g);
}

// ShuffleNet's channel shuffle (rank-5 reshape and transpose) and channel split (Slice and
// Split views of an NHWC tensor), concatenated; Gather of channels and one scalar index.
TEST(Cuda, ChannelShuffleSliceSplitAndGather) {
  GraphBuilder b;
  ValueId x = b.input("x", {2, 24, 5, 6});
  ValueId c = b.conv("c", x, 24, 24, 1);
  ValueId lo = b.add1("Slice", "lo", {c, b.ints("s0", {0}), b.ints("e0", {12}), b.ints("a0", {1})});
  ValueId hi = b.add1("Slice", "hi", {c, b.ints("s1", {12}), b.ints("e1", {24}), b.ints("a1", {1})});
  ValueId hc = b.add1("Relu", "hi.relu", {b.conv("hc", hi, 12, 12, 3, {.pad = 1})});
  ValueId cat = b.add1("Concat", "cat", {lo, hc}, {{"axis", int64_t{1}}});
  ValueId r5 = b.add1("Reshape", "r5", {cat, b.ints("shape5", {2, 2, 12, 5, 6})});
  ValueId t5 = b.add1("Transpose", "t5", {r5}, {{"perm", std::vector<int64_t>{0, 2, 1, 3, 4}}});
  ValueId sh = b.add1("Reshape", "r4", {t5, b.ints("shape4", {2, 24, 5, 6})});
  auto parts = b.add("Split", "split", {sh, b.ints("sizes", {8, 16})}, {{"axis", int64_t{1}}}, 2);
  ValueId strided = b.add1("Slice", "every2",
                           {parts[1], b.ints("s2", {1}), b.ints("e2", {6}), b.ints("a2", {3}), b.ints("st2", {2})});
  b.output(b.add1("Sigmoid", "p0", {parts[0]}));
  b.output(b.add1("Tanh", "p1", {strided}));
  ValueId gi = b.ints("gi", {3, 0, 7, 7});
  b.output(b.add1("Gather", "gather", {sh, gi}, {{"axis", int64_t{1}}}));
  ValueId one = b.ints("one", {2});
  b.graph().value(one).shape = Shape{};  // a scalar index: the axis goes
  b.output(b.add1("Neg", "row", {b.add1("Gather", "gather1", {sh, one}, {{"axis", int64_t{2}}})}));
  Graph g = b.finish();
  expect_matches_reference(g);
}

// EfficientNet's swish (Sigmoid, then Mul with the convolution's output) and squeeze-excite
// gates (Sigmoid, HardSigmoid) applied in the bias pass, and the same ops unfused where
// another node reads the convolution's output.
TEST(Cuda, SwishAndGatesInTheBiasPass) {
  GraphBuilder b;
  ValueId x = b.input("x", {2, 16, 9, 9});
  ValueId c = b.batchnorm("bn", b.conv("c", x, 16, 24, 3, {.pad = 1}), 24);
  ValueId swish = b.add1("Mul", "swish", {c, b.add1("Sigmoid", "sig", {c})});
  ValueId dw = b.conv("dw", swish, 24, 24, 3, {.pad = 1, .group = 24, .bias = true});
  ValueId dws = b.add1("Mul", "dw.swish", {b.add1("Sigmoid", "dw.sig", {dw}), dw});
  ValueId gap = b.add1("GlobalAveragePool", "gap", {dws});
  ValueId fc1 = b.add1("Relu", "fc1.relu", {b.conv("fc1", gap, 24, 8, 1, {.bias = true})});
  ValueId gate = b.add1("Sigmoid", "gate", {b.conv("fc2", fc1, 8, 24, 1, {.bias = true})});
  ValueId se = b.add1("Mul", "se", {dws, gate});
  ValueId hgate = b.add1("HardSigmoid", "hgate", {b.conv("fc3", gap, 24, 24, 1, {.bias = true})},
                         {{"alpha", 1.0 / 6}, {"beta", 0.5}});
  ValueId two = b.add1("Mul", "se2", {se, hgate});
  ValueId shared = b.conv("shared", two, 24, 24, 1);  // read by the Sigmoid and the Add: not fused
  b.output(b.add1("Add", "out", {b.add1("Sigmoid", "s.sig", {shared}), shared}));
  Graph g = b.finish();
  expect_matches_reference(g);
}

TEST(Cuda, ResizeNearestLinearAndCubic) {
  GraphBuilder b;
  ValueId x = b.input("x", {2, 8, 6, 5});
  ValueId up =
      b.add1("Resize", "up", {x, kNoValue, b.reals("sc", {4}, {1, 1, 2, 2})}, {{"mode", std::string("nearest")}});
  ValueId lin =
      b.add1("Resize", "lin", {up, kNoValue, kNoValue, b.ints("sz", {2, 8, 7, 13})},
             {{"mode", std::string("linear")}, {"coordinate_transformation_mode", std::string("align_corners")}});
  b.output(b.add1("Resize", "cub", {lin, kNoValue, b.reals("sc2", {4}, {1, 1, 0.5, 1.5})},
                  {{"mode", std::string("cubic")}}));
  Graph g = b.finish();
  expect_matches_reference(g);
}

// ViT's encoder attention: the class token broadcast over the batch (Expand) and
// concatenated with the patch tokens, one QKV projection split into heads by rank-5 views
// (Reshape, Transpose, scalar Gather), Q K^T and attn V as rank-4 MatMuls of two computed
// operands (cuBLAS strided batched), the scaled Softmax over the last axis of a 4-D tensor,
// and the heads merged back for the output projection.
TEST(Cuda, VitAttentionBatchedMatMulSoftmaxAndExpand) {
  GraphBuilder b;
  ValueId x = b.input("x", {2, 5, 16});
  ValueId cls = b.add1("Expand", "cls.expand", {b.weight("cls", {1, 1, 16}), b.ints("cls.shape", {2, 1, 16})});
  ValueId tok = b.add1("Concat", "tokens", {cls, x}, {{"axis", int64_t{1}}});
  ValueId qkv = b.add1("MatMul", "qkv", {tok, b.weight("qkv.w", {16, 48})});
  ValueId r5 = b.add1("Reshape", "heads", {qkv, b.ints("s5", {2, 6, 3, 2, 8})});
  ValueId t5 = b.add1("Transpose", "t5", {r5}, {{"perm", std::vector<int64_t>{2, 0, 3, 1, 4}}});  // [3,2,2,6,8]
  ValueId part[3];
  for (int i = 0; i < 3; ++i) {
    ValueId idx = b.ints("i" + std::to_string(i), {i});
    b.graph().value(idx).shape = Shape{};  // a scalar index: a view without the axis
    part[i] = b.add1("Gather", "qkv" + std::to_string(i), {t5, idx}, {{"axis", int64_t{0}}});
  }
  ValueId kt = b.add1("Transpose", "kt", {part[1]}, {{"perm", std::vector<int64_t>{0, 1, 3, 2}}});
  ValueId scores = b.add1("Mul", "scale", {b.add1("MatMul", "qk", {part[0], kt}), b.reals("sc", {}, {0.35})});
  ValueId attn = b.add1("Softmax", "attn", {scores}, {{"axis", int64_t{-1}}});
  ValueId ctx = b.add1("MatMul", "av", {attn, part[2]});  // [2,2,6,8]
  ValueId merged = b.add1("Reshape", "merge",
                          {b.add1("Transpose", "t4", {ctx}, {{"perm", std::vector<int64_t>{0, 2, 1, 3}}}),
                           b.ints("s3", {2, 6, 16})});
  b.output(b.add1("Add", "res", {b.add1("MatMul", "proj", {merged, b.weight("proj.w", {16, 16})}), tok}));
  Graph g = b.finish();
  expect_matches_reference(g);
}

// The other MatMul shapes of two computed operands: rank 3 (torch's bmm over batch x heads)
// with a rank-3 Softmax, a computed matrix broadcast over the first operand's batch dims
// (stride 0), a computed matrix times a rank-3 operand (the first broadcast), and Expand to
// a rank-4 NHWC output and from a lower rank.
TEST(Cuda, BatchedMatMulBroadcastAndExpandOfEveryRank) {
  GraphBuilder b;
  ValueId q = b.input("q", {4, 6, 8});
  ValueId k = b.input("k", {4, 8, 7});
  ValueId attn = b.add1("Softmax", "attn3", {b.add1("MatMul", "qk3", {q, k})}, {{"axis", int64_t{2}}});  // [4,6,7]
  ValueId m = b.add1("Tanh", "m", {b.input("m", {7, 5})});  // computed at run time
  b.output(b.add1("MatMul", "by_matrix", {attn, m}));       // [4,6,5], m broadcast
  ValueId lhs = b.add1("Neg", "lhs", {b.input("l", {3, 6})});
  b.output(b.add1("MatMul", "matrix_by", {lhs, attn}));  // [4,3,7], lhs broadcast
  ValueId x4 = b.input("x4", {2, 3, 1, 5});
  b.output(b.add1("Expand", "e4", {x4, b.ints("s4", {2, 3, 4, 5})}));
  b.output(b.add1("Expand", "e3", {b.weight("col", {3, 1}), b.ints("s3", {2, 3, 4})}));
  b.output(b.add1("Softmax", "sm1", {b.input("v", {9})}, {{"axis", int64_t{0}}}));
  Graph g = b.finish();
  expect_matches_reference(g);
}

// Swin V2's cosine attention: q and k normalised by ReduceL2 over the last axis (and over the
// last two, rank 5), Q K^T, the window mask added at rank 5 ([1,nW,heads,N,N] + [1,nW,1,N,N],
// collapsed onto the 4-D element-wise kernel), Softmax at rank 4 and 5; a rank-6 Add of a
// transposed view (of an NHWC input) whose strides keep the iteration from collapsing
// (copied dense first), and that view as a graph output.
TEST(Cuda, SwinMaskedAttentionRank5AddSoftmaxAndReduceL2) {
  GraphBuilder b;
  ValueId q = b.input("q", {4, 3, 8, 6});
  ValueId k = b.input("k", {4, 3, 8, 6});
  ValueId eps = b.reals("eps", {}, {1e-3});
  const auto l2 = [&](const std::string& name, ValueId v) {
    ValueId n = b.add1("ReduceL2", name + ".l2", {v}, {{"axes", std::vector<int64_t>{-1}}, {"keepdims", int64_t{1}}});
    return b.add1("Div", name + ".norm", {v, b.add1("Add", name + ".eps", {n, eps})});
  };
  ValueId kt = b.add1("Transpose", "kt", {l2("k", k)}, {{"perm", std::vector<int64_t>{0, 1, 3, 2}}});
  ValueId scores = b.add1("MatMul", "qk", {l2("q", q), kt});  // [4,3,8,8]
  ValueId r5 = b.add1("Reshape", "windows", {scores, b.ints("s5", {1, 4, 3, 8, 8})});
  ValueId masked = b.add1("Add", "mask", {r5, b.weight("mask.w", {1, 4, 1, 8, 8})});
  b.output(b.add1("Softmax", "attn5", {masked}, {{"axis", int64_t{-1}}}));
  ValueId back = b.add1("Reshape", "merge", {masked, b.ints("s4", {4, 3, 8, 8})});
  b.output(b.add1("Softmax", "attn4", {back}, {{"axis", int64_t{-1}}}));
  b.output(b.add1("ReduceL2", "l2.last2", {masked}, {{"axes", std::vector<int64_t>{3, 4}}, {"keepdims", int64_t{0}}}));
  ValueId r6 = b.add1("Reshape", "r6", {b.input("x6", {2, 2, 3, 48}), b.ints("s6", {2, 2, 3, 8, 2, 3})});
  ValueId t6 = b.add1("Transpose", "t6", {r6}, {{"perm", std::vector<int64_t>{0, 2, 1, 4, 3, 5}}});  // [2,3,2,2,8,3]
  b.output(b.add1("Add", "add6", {t6, b.weight("w6", {1, 3, 1, 1, 8, 3})}));
  b.output(t6);  // a rank-6 view as a graph output: copied dense for the output staging
  Graph g = b.finish();
  expect_matches_reference(g);
}

// MaxViT's attention: rank-5 Q scaled (Mul by a scalar), Einsum Q K^T (K read transposed,
// CUBLAS_OP_T), the relative-position bias added at rank 5, Softmax at rank 5, Einsum attn V
// (both operands in place); an Einsum whose output letters are not batch, rows, columns
// (scratch, then a copy) and one whose operand's batch letters are out of order (copied).
TEST(Cuda, MaxvitEinsumAttentionAtRank5) {
  GraphBuilder b;
  const auto eq = [](const char* e) { return std::map<std::string, AttrValue>{{"equation", std::string(e)}}; };
  // Graph inputs are rank <= 4: rank-3 (row-major) inputs seen as [B,G,H,N,D].
  const auto r5 = [&](const std::string& name, const Shape& as) {
    return b.add1("Reshape", name + ".r5", {b.input(name, {8, 7, 8}), b.ints(name + ".s", as)});
  };
  ValueId q = r5("q", {1, 4, 2, 7, 8});
  ValueId k = r5("k", {1, 4, 2, 7, 8});
  ValueId v = r5("v", {1, 4, 2, 7, 8});
  ValueId qs = b.add1("Mul", "scale", {q, b.reals("sc", {}, {0.35})});
  ValueId s = b.add1("Einsum", "qk", {qs, k}, eq("bghid,bghjd->bghij"));
  ValueId biased = b.add1("Add", "bias", {s, b.weight("rel", {2, 7, 7})});
  ValueId attn = b.add1("Softmax", "attn", {biased}, {{"axis", int64_t{-1}}});
  b.output(b.add1("Einsum", "av", {attn, v}, eq("bghij,bghjd->bghid")));
  b.output(b.add1("Einsum", "qk.t", {q, k}, eq("bghid,bghjd->bgjhi")));
  b.output(b.add1("Einsum", "hg", {r5("x", {1, 2, 4, 7, 8}), k}, eq("bhgid,bghjd->bghij")));
  Graph g = b.finish();
  expect_matches_reference(g);
}

// The refusal comes before prepare, from the node's descriptor (no device needed); prepare
// refuses the same node by name.
TEST(Cuda, RefusesWhatItCannotRunWithAReason) {
  GraphBuilder b;
  ValueId x = b.input("x", {1, 4, 6, 6});
  b.output(b.add1("Slice", "tr", {x, b.ints("s", {5}), b.ints("e", {0}), b.ints("a", {3}), b.ints("st", {-1})}));
  ValueId y = b.input("y", {1, 2, 3, 4, 5, 1, 2, 3, 4});
  b.output(b.add1("Relu", "r9", {y}));
  Graph g = b.finish();
  auto inferred = infer_shapes(g);
  ASSERT_TRUE(inferred);
  std::string reason;
  {
    GraphBuilder p;
    p.output(p.add1("Relu", "r", {p.input("x", {1, 2})}));
    Graph pg = p.finish();
    ASSERT_TRUE(infer_shapes(pg));
    if (!cuda_supports(pg, 0, &reason)) GTEST_SKIP() << "the CUDA backend's rules are not in this build: " << reason;
  }
  EXPECT_FALSE(cuda_supports(g, 0, &reason));
  EXPECT_NE(reason.find("negative step"), std::string::npos) << reason;
  EXPECT_FALSE(cuda_supports(g, 1, &reason));
  EXPECT_NE(reason.find("rank 9"), std::string::npos) << reason;
  auto be = make_cuda_backend({});
  if (!be) {
    GTEST_SKIP() << "prepare's refusal needs a CUDA GPU: " << be.status().message();
  }
  Status s = (*be)->prepare(g, analyze_graph(g, *inferred, {}), {});
  EXPECT_EQ(s.code(), StatusCode::kUnsupported);
  EXPECT_NE(s.message().find("'tr'"), std::string::npos) << s.message();
}

class ZooOnCuda : public ::testing::TestWithParam<std::string> {};

TEST_P(ZooOnCuda, MatchesReferenceAtBatch2) {
  SKIP_WITHOUT_GPU();
  ImportOptions io;
  io.batch = 2;
  auto g = import_onnx_file(source_dir() + "/models/" + GetParam() + ".onnx", io);
  ASSERT_TRUE(g) << g.status().message();
  expect_matches_reference(*g);
}

INSTANTIATE_TEST_SUITE_P(Zoo, ZooOnCuda,
                         ::testing::Values("resnet50", "mobilenet_v2", "squeezenet1_0", "mobilenet_v3_small",
                                           "efficientnet_b0", "densenet121", "convnext_tiny", "shufflenet_v2_x1_0",
                                           "googlenet", "inception_v3", "regnet_y_400mf", "mnasnet0_5", "vit_b_32",
                                           "swin_t", "swin_v2_t", "maxvit_t"));

// The attention shapes the support check still refuses, with the reason (no device needed):
// Softmax over another axis than the last, batch dims that broadcast only partly, an Einsum
// that is not a product of two operands, element-wise broadcasting above rank 4 that does not
// collapse to 4 dims.
TEST(CudaSupport, RefusesAttentionShapesItCannotRun) {
  GraphBuilder b;
  ValueId x = b.input("x", {2, 3, 4});
  b.output(b.add1("Softmax", "sm.axis1", {x}, {{"axis", int64_t{1}}}));
  b.output(b.add1("Softmax", "sm.last", {x}, {{"axis", int64_t{-1}}}));
  ValueId p = b.input("p", {2, 3, 4, 5});
  b.output(b.add1("MatMul", "partial", {p, b.input("q", {2, 1, 5, 6})}));  // batch [2,3] x [2,1]
  b.output(b.add1("MatMul", "broadcast", {p, b.input("r", {1, 1, 5, 6})}));
  b.output(b.add1("Einsum", "transpose", {x}, {{"equation", std::string("bij->bji")}}));     // 4
  b.output(b.add1("Einsum", "rowsum", {x, x}, {{"equation", std::string("bij,bkj->bk")}}));  // 5
  b.output(b.add1("Einsum", "qk", {x, x}, {{"equation", std::string("bij,bkj->bik")}}));     // 6
  ValueId f = b.input("f", {2, 3, 4, 5, 6});
  b.output(b.add1("Add", "alternating", {f, b.input("m", {2, 1, 4, 1, 6})}));  // 7
  b.output(b.add1("Add", "trailing", {f, b.input("t", {4, 1, 6})}));           // 8
  Graph g = b.finish();
  ASSERT_TRUE(infer_shapes(g));
  std::string reason;
  if (!cuda_supports(g, 1, &reason)) {
    GTEST_SKIP() << "the CUDA backend's rules are not in this build: " << reason;
  }
  EXPECT_FALSE(cuda_supports(g, 0, &reason));
  EXPECT_NE(reason.find("last axis only"), std::string::npos) << reason;
  EXPECT_FALSE(cuda_supports(g, 2, &reason));
  EXPECT_NE(reason.find("broadcasting"), std::string::npos) << reason;
  EXPECT_TRUE(cuda_supports(g, 3, &reason)) << reason;
  EXPECT_FALSE(cuda_supports(g, 4, &reason));
  EXPECT_NE(reason.find("'bij->bji' of one operand"), std::string::npos) << reason;
  EXPECT_FALSE(cuda_supports(g, 5, &reason));
  EXPECT_NE(reason.find("sums letter 'i'"), std::string::npos) << reason;
  EXPECT_TRUE(cuda_supports(g, 6, &reason)) << reason;
  EXPECT_FALSE(cuda_supports(g, 7, &reason));
  EXPECT_NE(reason.find("leaves 5 dims"), std::string::npos) << reason;
  EXPECT_TRUE(cuda_supports(g, 8, &reason)) << reason;
}

// What the CUDA backend does not run yet, by model: the op types its support check refuses.
// Empty: every bundled model (the CNNs, the ViTs, Swin and Swin V2 with their rank-5 masked
// attention Add and ReduceL2, MaxViT with its rank-5 arithmetic, Softmax and Einsum) passes
// every node. The table is exact both ways, so a model that loses support, or a refusal
// listed here that goes, fails the test until the table says so.
const std::map<std::string, std::set<std::string>>& refused_by_cuda() {
  static const std::map<std::string, std::set<std::string>> table = {};
  return table;
}

// Without a device: the backend's own support check (what prepare refuses first) passes every
// node of every bundled model, as docs/generated/support.md lists, except what
// refused_by_cuda() names, each refused with a reason.
TEST(CudaSupport, EveryBundledModelPassesTheSupportCheck) {
  std::string why;
  {
    GraphBuilder b;
    b.output(b.add1("Relu", "r", {b.input("x", {1, 2})}));
    Graph g = b.finish();
    ASSERT_TRUE(infer_shapes(g));
    if (!cuda_supports(g, 0, &why)) GTEST_SKIP() << "the CUDA backend's rules are not in this build: " << why;
  }
  const std::string dir = source_dir() + "/models";
  int models = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().extension() != ".onnx") continue;
    ++models;
    const std::string name = e.path().stem().string();
    auto g = import_onnx_file(e.path().string(), ImportOptions{});
    ASSERT_TRUE(g) << e.path() << ": " << g.status().message();
    ASSERT_TRUE(infer_shapes(*g)) << e.path();
    std::set<std::string> refused;
    for (NodeId id = 0; id < static_cast<NodeId>(g->nodes.size()); ++id) {
      const Node& n = g->node(id);
      std::string reason;
      if (n.folded || cuda_supports(*g, id, &reason)) continue;
      EXPECT_FALSE(reason.empty()) << name << ": " << n.op_type << " '" << n.name << "' refused without a reason";
      refused.insert(n.op_type);
      if (!refused_by_cuda().count(name))
        ADD_FAILURE() << name << ": " << n.op_type << " '" << n.name << "': " << reason;
    }
    auto it = refused_by_cuda().find(name);
    const std::set<std::string> expected = it == refused_by_cuda().end() ? std::set<std::string>{} : it->second;
    EXPECT_EQ(refused, expected) << name;
  }
  EXPECT_GE(models, 68);
}

}  // namespace
}  // namespace rooflens
