// Einsum of two operands on the CUDA backend as one cuBLAS strided batched GEMM (MaxViT's
// attention: "bghid,bghjd->bghij" and "bghij,bghjd->bghid"). Every letter of the node's
// EinsumDesc (resolved in ops/einsum.cpp) is a batch letter (in both inputs and the output),
// a row letter (first input and output), a column letter (second input and output) or a
// summed letter (both inputs, not the output). Each operand is used in place when its
// strides make it a packed [batch, rows, cols] matrix stack or the transpose of one (cuBLAS
// transposes it); any other layout is copied once. An output in another letter order than
// batch, rows, columns is computed into scratch and copied into place.
#include <limits>

#include "cuda_backend.h"

namespace rooflens::cuda {
namespace {

struct EinsumPlan {
  std::string batch, rows, cols, sum;  // batch/rows/cols in the output's order, sum in the first input's
  std::string refusal;
};

std::string equation(const EinsumDesc& d) {
  std::string eq;
  for (size_t i = 0; i < d.inputs.size(); ++i) eq += (i ? "," : "") + d.inputs[i];
  return eq + "->" + d.output;
}

bool has(const std::string& term, char c) { return term.find(c) != std::string::npos; }

EinsumPlan plan_einsum(const EinsumDesc& d) {
  EinsumPlan p;
  const std::string eq = "Einsum '" + equation(d) + "'";
  if (d.inputs.size() != 2) {
    p.refusal = eq + " of one operand (the CUDA backend runs products of two)";
    return p;
  }
  const std::string &a = d.inputs[0], &b = d.inputs[1], &y = d.output;
  for (char c : y) {
    if (has(a, c) && has(b, c))
      p.batch += c;
    else if (has(a, c))
      p.rows += c;
    else
      p.cols += c;
  }
  for (char c : a)
    if (has(b, c) && !has(y, c)) p.sum += c;
  for (char c : d.letters)
    if (!has(y, c) && !(has(a, c) && has(b, c)))
      p.refusal = eq + " sums letter '" + std::string(1, c) + "' within one operand (the CUDA backend: products only)";
  return p;
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

struct GemmOperand {
  const void* ptr = nullptr;
  bool trans = false;  // stored as [batch, inner, outer]
  int64_t ld = 0;      // row-major leading dimension of what is stored
};

// The operand as a stack of [outer, inner] matrices: in place when packed so or transposed,
// else a packed copy.
Expected<GemmOperand> gemm_operand(CudaBackend& b, const EinsumDesc& d, const std::string& term, const DevValue& v,
                                   const std::string& batch, const std::string& outer, const std::string& inner) {
  const std::vector<int64_t> st = strides_of(v);
  const Reordered plain = reorder(d, term, st, batch + outer + inner);
  if (packed(plain)) return GemmOperand{v.ptr, false, extent_of(d, inner)};
  if (packed(reorder(d, term, st, batch + inner + outer))) return GemmOperand{v.ptr, true, extent_of(d, outer)};
  auto copy = b.dense(DevValue{v.ptr, plain.shape, v.elem, false, plain.strides});
  if (!copy) return copy.status();
  return GemmOperand{copy->ptr, false, extent_of(d, inner)};
}

struct BatchedGemm {
  GemmOperand a, b;
  int m = 0, n = 0, k = 0, count = 0;
  void* y = nullptr;
};

// Row-major Y[M,N] = A[M,K] B[K,N] per batch is column-major Y^T = B^T A^T: B goes first, as
// in batched_matmul (tensor_nodes.cpp); a stored transpose is cuBLAS's CUBLAS_OP_T.
void add_batched_gemm(CudaBackend& be, const BatchedGemm& g, const std::string& what) {
  const bool f16 = be.elem() == Elem::kF16;
  const cudaDataType_t t = be.cublas_data_type();
  const cublasComputeType_t ct = be.cublas_compute_type();
  cublasHandle_t h = be.cublas();
  const long long sa = static_cast<long long>(g.m) * g.k, sb = static_cast<long long>(g.k) * g.n;
  const long long sy = static_cast<long long>(g.m) * g.n;
  const BatchedGemm p = g;
  be.add_step(
      [=](cudaStream_t) {
        const float one = 1.f, zero = 0.f;
        return cublas_status(cublasGemmStridedBatchedEx(h, p.b.trans ? CUBLAS_OP_T : CUBLAS_OP_N,
                                                        p.a.trans ? CUBLAS_OP_T : CUBLAS_OP_N, p.n, p.m, p.k, &one,
                                                        p.b.ptr, t, static_cast<int>(p.b.ld), sb, p.a.ptr, t,
                                                        static_cast<int>(p.a.ld), sa, &zero, p.y, t, p.n, sy, p.count,
                                                        ct, CUBLAS_GEMM_DEFAULT),
                             what);
      },
      f16 ? "cublas:gemm_batched_f16" : "cublas:gemm_batched_f32");
}

}  // namespace

std::string einsum_refusal(const Graph& g, const Node& n) {
  const auto& d = std::get<EinsumDesc>(n.desc);
  const EinsumPlan p = plan_einsum(d);
  if (!p.refusal.empty()) return p.refusal;
  for (ValueId v : n.inputs) {
    if (g.value(v).dtype != DType::kUnknown && !dtype_is_float(g.value(v).dtype))
      return "Einsum '" + equation(d) + "' of integer tensors";
    if (g.value(v).shape && g.value(v).shape->size() > static_cast<size_t>(kMaxCopyRank))
      return "Einsum '" + equation(d) + "' of a rank-" + std::to_string(g.value(v).shape->size()) + " operand";
  }
  constexpr int64_t kIntMax = std::numeric_limits<int>::max();
  for (const std::string* s : {&p.batch, &p.rows, &p.cols, &p.sum})
    if (extent_of(d, *s) > kIntMax) return "Einsum '" + equation(d) + "' with dims beyond cuBLAS's 32-bit sizes";
  return {};
}

Status lower_einsum(CudaBackend& b, const Node& n) {
  const Graph& g = b.graph();
  if (std::string why = einsum_refusal(g, n); !why.empty()) return Status::unsupported(why);
  const auto& d = std::get<EinsumDesc>(n.desc);
  const EinsumPlan p = plan_einsum(d);
  auto x0 = b.value(n.inputs[0]);
  if (!x0) return x0.status();
  auto x1 = b.value(n.inputs[1]);
  if (!x1) return x1.status();
  BatchedGemm gm;
  auto a = gemm_operand(b, d, d.inputs[0], *x0, p.batch, p.rows, p.sum);
  if (!a) return a.status();
  auto w = gemm_operand(b, d, d.inputs[1], *x1, p.batch, p.sum, p.cols);
  if (!w) return w.status();
  gm.a = *a;
  gm.b = *w;
  const auto I = [](int64_t v) { return static_cast<int>(v); };
  gm.m = I(extent_of(d, p.rows));
  gm.n = I(extent_of(d, p.cols));
  gm.k = I(extent_of(d, p.sum));
  gm.count = I(extent_of(d, p.batch));
  auto y = b.new_output(n.outputs[0], false);
  if (!y) return y.status();
  const std::string order = p.batch + p.rows + p.cols;
  if (order == d.output) {
    gm.y = y->ptr;
    add_batched_gemm(b, gm, "Einsum '" + n.name + "'");
  } else {
    // Computed as [batch, rows, cols], then copied into the output's letter order.
    auto scratch = b.alloc(static_cast<size_t>(checked_numel(y->shape).value_or(0)) * b.elem_bytes());
    if (!scratch) return scratch.status();
    gm.y = *scratch;
    add_batched_gemm(b, gm, "Einsum '" + n.name + "'");
    std::vector<int64_t> st(order.size(), 1), out;
    for (size_t k = order.size(); k-- > 1;) st[k - 1] = st[k] * extent_of(d, order[k]);
    for (char c : d.output) out.push_back(st[order.find(c)]);
    ROOFLENS_RETURN_IF_ERROR(b.add_copy(DevValue{*scratch, y->shape, y->elem, false, out}, *y, "layout:einsum"));
  }
  b.set_value(n.outputs[0], *y);
  return Status::ok();
}

}  // namespace rooflens::cuda
