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

// How one operand enters the GEMM as a stack of [outer, inner] matrices.
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

// The operand's device pointer for the GEMM: the value itself, or its packed copy.
Expected<const void*> operand_ptr(CudaBackend& b, const EinsumOperand& o, const DevValue& v) {
  if (!o.copy) return static_cast<const void*>(v.ptr);
  auto c = b.dense(DevValue{v.ptr, o.shape, v.elem, false, o.strides});
  if (!c) return c.status();
  return static_cast<const void*>(c->ptr);
}

struct BatchedGemm {
  EinsumGemm plan;
  const void* a = nullptr;
  const void* b = nullptr;
  void* y = nullptr;
};

// Row-major Y[M,N] = A[M,K] B[K,N] per batch is column-major Y^T = B^T A^T: B goes first, as
// in batched_matmul (tensor_nodes.cpp); a stored transpose is cuBLAS's CUBLAS_OP_T.
void add_batched_gemm(CudaBackend& be, const BatchedGemm& g, const std::string& what) {
  const bool f16 = be.elem() == Elem::kF16;
  const cudaDataType_t t = be.cublas_data_type();
  const cublasComputeType_t ct = be.cublas_compute_type();
  cublasHandle_t h = be.cublas();
  const EinsumGemm& p = g.plan;
  const long long sa = p.m * p.k, sb = p.k * p.n, sy = p.m * p.n;
  const auto I = [](int64_t v) { return static_cast<int>(v); };
  const cublasOperation_t op_a = p.a.trans ? CUBLAS_OP_T : CUBLAS_OP_N, op_b = p.b.trans ? CUBLAS_OP_T : CUBLAS_OP_N;
  const int m = I(p.m), n = I(p.n), k = I(p.k), lda = I(p.a.ld), ldb = I(p.b.ld), count = I(p.count);
  const void* ap = g.a;
  const void* bp = g.b;
  void* yp = g.y;
  be.add_step(
      [=](cudaStream_t) {
        const float one = 1.f, zero = 0.f;
        return cublas_status(cublasGemmStridedBatchedEx(h, op_b, op_a, n, m, k, &one, bp, t, ldb, sb, ap, t, lda, sa,
                                                        &zero, yp, t, n, sy, count, ct, CUBLAS_GEMM_DEFAULT),
                             what);
      },
      f16 ? "cublas:gemm_batched_f16" : "cublas:gemm_batched_f32");
}

}  // namespace

EinsumGemm einsum_gemm(const EinsumDesc& d, const std::vector<int64_t>& a_strides,
                       const std::vector<int64_t>& b_strides) {
  EinsumGemm g;
  const EinsumPlan p = plan_einsum(d);
  g.refusal = p.refusal;
  if (!g.refusal.empty()) return g;
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
  auto x0 = b.value(n.inputs[0]);
  if (!x0) return x0.status();
  auto x1 = b.value(n.inputs[1]);
  if (!x1) return x1.status();
  BatchedGemm gm;
  gm.plan = einsum_gemm(d, strides_of(*x0), strides_of(*x1));
  auto a = operand_ptr(b, gm.plan.a, *x0);
  if (!a) return a.status();
  auto w = operand_ptr(b, gm.plan.b, *x1);
  if (!w) return w.status();
  gm.a = *a;
  gm.b = *w;
  auto y = b.new_output(n.outputs[0], false);
  if (!y) return y.status();
  if (gm.plan.scratch_strides.empty()) {
    gm.y = y->ptr;
    add_batched_gemm(b, gm, "Einsum '" + n.name + "'");
  } else {
    // Computed as [batch, rows, cols], then copied into the output's letter order.
    auto scratch = b.alloc(static_cast<size_t>(checked_numel(y->shape).value_or(0)) * b.elem_bytes());
    if (!scratch) return scratch.status();
    gm.y = *scratch;
    add_batched_gemm(b, gm, "Einsum '" + n.name + "'");
    const DevValue from{*scratch, y->shape, y->elem, false, gm.plan.scratch_strides};
    ROOFLENS_RETURN_IF_ERROR(b.add_copy(from, *y, "layout:einsum"));
  }
  b.set_value(n.outputs[0], *y);
  return Status::ok();
}

}  // namespace rooflens::cuda
