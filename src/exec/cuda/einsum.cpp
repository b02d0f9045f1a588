// Einsum of two operands on the CUDA backend as one cuBLAS strided batched GEMM (MaxViT's
// attention: "bghid,bghjd->bghij" and "bghij,bghjd->bghid"), from the shared plan
// (exec/einsum_gemm.h): an operand stored as the transpose of a packed stack is cuBLAS's
// transposed operand; any other layout is copied once; an output in another letter order
// than batch, rows, columns is computed into scratch and copied into place.
#include <limits>

#include "cuda_backend.h"

namespace rooflens::cuda {
namespace {

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

std::string einsum_refusal(const Graph& g, const Node& n) {
  const auto& d = std::get<EinsumDesc>(n.desc);
  if (std::string why = einsum_gemm_refusal(d); !why.empty()) return why;
  const std::string eq = "Einsum '" + einsum_equation(d) + "'";
  for (ValueId v : n.inputs) {
    if (g.value(v).dtype != DType::kUnknown && !dtype_is_float(g.value(v).dtype)) return eq + " of integer tensors";
    if (g.value(v).shape && g.value(v).shape->size() > static_cast<size_t>(kMaxCopyRank))
      return eq + " of a rank-" + std::to_string(g.value(v).shape->size()) + " operand";
  }
  // The sizes do not depend on the strides: plan with any.
  const EinsumGemm p =
      einsum_gemm(d, std::vector<int64_t>(d.inputs[0].size(), 1), std::vector<int64_t>(d.inputs[1].size(), 1));
  constexpr int64_t kIntMax = std::numeric_limits<int>::max();
  for (int64_t e : {p.m, p.n, p.k, p.count})
    if (e > kIntMax) return eq + " with dims beyond cuBLAS's 32-bit sizes";
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
