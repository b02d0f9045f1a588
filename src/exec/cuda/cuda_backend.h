// CUDA backend internals (see include/rooflens/exec/cuda.h). Each fused layer becomes a
// list of steps queued on one stream; a step returns the status of the calls it queued.
// Device values: rank-4 activations are NHWC in the compute dtype; every other tensor
// (rank != 4, stored weights and constants used as operands) is row-major; views (Transpose,
// Slice, Split, reshapes that only split or merge dims) alias their source with explicit
// strides and are copied only when a consumer needs a dense layout (value_as).
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cudnn.h>

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "kernels.h"
#include "rooflens/exec/cuda.h"
#include "rooflens/exec/einsum_gemm.h"

namespace rooflens::cuda {

Status cuda_status(cudaError_t e, const std::string& what);
Status cudnn_status(cudnnStatus_t e, const std::string& what);
Status cublas_status(cublasStatus_t e, const std::string& what);

struct DevValue {
  void* ptr = nullptr;
  Shape shape;
  Elem elem = Elem::kF16;
  bool nhwc = false;  // meaningful for rank 4 only, when `strides` is empty
  // A view's element strides per logical dim (non-negative); empty: dense, row-major or
  // NHWC as `nhwc` says.
  std::vector<int64_t> strides;
};

// The element stride of each logical dim of `v`, whatever its rank and layout.
std::vector<int64_t> strides_of(const DevValue& v);
// A view of `ptr` with these strides, made plain (strides cleared) when they are those of
// a dense row-major tensor or, at rank 4, of a dense NHWC one.
DevValue strided_view(void* ptr, const Shape& shape, Elem e, std::vector<int64_t> strides);
// The strides of `to` over the elements of a tensor of shape `from` with `strides`, when a
// reshape needs no copy (numpy's rule: each group of dims it merges is contiguous).
std::optional<std::vector<int64_t>> reshape_strides(const Shape& from, const std::vector<int64_t>& strides,
                                                    const Shape& to);

// The element strides of a tensor of shape `s` (with `strides`) over the dims of `out`, as
// numpy broadcasts: left-padded, 0 along each broadcast dim; nullopt when it does not broadcast.
std::optional<std::vector<int64_t>> broadcast_strides(const Shape& s, const std::vector<int64_t>& strides,
                                                      const Shape& out);
// An element-wise iteration over `out` with its extent-1 dims dropped and each dim merged
// into the one before where every operand steps through both as one (contiguously, or
// broadcast over both): outermost first; strides per operand, in the order given.
struct EwIteration {
  std::vector<int64_t> dims;
  std::vector<std::vector<int64_t>> strides;
};
EwIteration collapse_iteration(const Shape& out, const std::vector<std::vector<int64_t>>& strides);
// The dims of that iteration for a dense row-major output and operands of these shapes
// (what the support check knows); nullopt when an operand does not broadcast to `out`.
std::optional<size_t> collapsed_rank(const Shape& out, const std::vector<Shape>& operands);

// Logical shape padded to rank 4 (leading 1s) and the element stride of each logical dim.
struct Layout {
  int64_t dims[4];
  int64_t strides[4];
};
Layout layout_of(const DevValue& v);
// The iteration (outermost first) that walks `out` in its physical order: for NHWC the
// logical dims (n, h, w, c), otherwise (d0, d1, d2, d3).
void physical_order(const DevValue& out, int order[4]);

using Step = std::function<Status(cudaStream_t)>;

struct LayerPlan {
  std::string name;
  std::vector<Step> steps;
  std::vector<std::string> impls;
};

class CudaBackend final : public Backend {
 public:
  explicit CudaBackend(const CudaBackendOptions& o);
  ~CudaBackend() override;
  Status init();  // device, stream, handles, workspace

  std::string name() const override { return opts_.graph ? "cuda-graph" : "cuda"; }
  bool supports(const Graph& g, NodeId n, std::string* reason) const override;
  Status prepare(const Graph& g, const ModelAnalysis& fused, const ExecOptions& o) override;
  Status run(const std::vector<Tensor>& inputs, std::vector<Tensor>* outputs) override;
  std::vector<LayerTiming> layer_timings() const override;
  bool has_resident_run() const override { return true; }
  Status run_resident() override;

  // Used by the layer builders (conv.cpp, nodes.cpp).
  const Graph& graph() const { return *g_; }
  const CudaBackendOptions& options() const { return opts_; }
  Elem elem() const { return opts_.dtype == DType::kF16 ? Elem::kF16 : Elem::kF32; }
  size_t elem_bytes() const { return elem() == Elem::kF16 ? 2 : 4; }
  cudnnDataType_t cudnn_type() const { return elem() == Elem::kF16 ? CUDNN_DATA_HALF : CUDNN_DATA_FLOAT; }
  cudnnHandle_t cudnn() const { return cudnn_; }
  cublasHandle_t cublas() const { return cublas_; }
  // cuBLAS's data type for this network's element type, and the compute type every GEMM uses
  // (fp32 accumulation; fp32 networks without TF32, as the reference backend computes).
  cudaDataType_t cublas_data_type() const { return elem() == Elem::kF16 ? CUDA_R_16F : CUDA_R_32F; }
  cublasComputeType_t cublas_compute_type() const {
    return elem() == Elem::kF16 ? CUBLAS_COMPUTE_32F : CUBLAS_COMPUTE_32F_PEDANTIC;
  }
  cudaStream_t stream() const { return stream_; }
  void* workspace() const { return workspace_; }
  size_t workspace_bytes() const { return opts_.workspace_bytes; }
  uint64_t seed() const { return seed_; }

  Expected<void*> alloc(size_t bytes);
  // Uploads host fp32 values converted to the compute dtype (no layout change).
  Expected<void*> upload(const std::vector<float>& host);
  // The device value of `v` (activations as produced; stored values and constants
  // uploaded row-major on first use; views resolved, converting layout if needed).
  Expected<DevValue> value(ValueId v);
  // `v` in the requested physical order (NHWC when `nhwc` and rank 4, else row-major),
  // adding a conversion step to the current layer when needed.
  Expected<DevValue> value_as(ValueId v, bool nhwc);
  // A fresh device buffer for a layer's output value `v` (NHWC when rank 4, unless
  // `nhwc` is false: row-major).
  Expected<DevValue> new_output(ValueId v, bool nhwc = true);
  // Queues a copy of `src` into `dst` (same logical shape, any strides, rank <= 8).
  Status add_copy(const DevValue& src, const DevValue& dst, const std::string& impl);
  // `v` itself when dense row-major, else a row-major copy of it queued in the current layer.
  Expected<DevValue> dense(const DevValue& v);
  void set_value(ValueId v, DevValue d) { values_[v] = std::move(d); }
  void add_step(Step s, std::string impl);
  // Queues y = post(op(a[, b[, c]])) with broadcasting, writing `out` (all in logical terms).
  Status add_elementwise(EwOp op, float alpha, float beta, const DevValue& a, const DevValue* b, const DevValue& out,
                         const std::string& impl, EwPostOp post = {}, const DevValue* c = nullptr);

 private:
  Status run_plans(bool timed);
  Status check_device_state(const std::string& when);

  CudaBackendOptions opts_;
  const Graph* g_ = nullptr;
  uint64_t seed_ = 0;
  cudaStream_t stream_ = nullptr;
  cudnnHandle_t cudnn_ = nullptr;
  cublasHandle_t cublas_ = nullptr;
  void* workspace_ = nullptr;
  std::vector<void*> allocations_;
  std::map<ValueId, DevValue> values_;
  std::map<std::pair<ValueId, bool>, DevValue> converted_;
  std::vector<LayerPlan> plans_;
  std::vector<cudaEvent_t> events_;               // one before each layer and one after the last
  std::vector<float> last_ms_;                    // per layer, last timed run
  std::vector<DevValue> input_f32_, output_f32_;  // host-facing fp32 row-major staging
  std::vector<Step> input_steps_, output_steps_;  // conversions outside the timed runs
  cudaGraph_t cuda_graph_ = nullptr;
  cudaGraphExec_t graph_exec_ = nullptr;
  bool prepared_ = false;
};

// Clip's bounds when known before run time (inputs 1/2 or the min/max attributes).
std::pair<float, float> clip_bounds(const Node& n);

// The activation node that reads `tip` as node `next` of the layer, when an element-wise
// pass can apply it on the way (ReLU, Clip, HardSwish; Sigmoid and HardSigmoid when nothing
// else reads `tip`; Sigmoid and the Mul after it as one Swish); kind kNone otherwise.
struct Activation {
  EwPostOp post;
  ValueId out = kNoValue;
  size_t nodes = 1;  // layer nodes it covers
};
Activation activation_after(const Graph& g, const LayerReport& L, size_t next, ValueId tip);
const char* post_name(EwPostOp p);  // "+relu", "+clip", "+hardswish", "+swish", ... or ""

// Builds one fused layer (nodes.cpp). Conv layers: conv.cpp.
Status build_fused_layer(CudaBackend& b, const LayerReport& layer);
Expected<size_t> build_conv(CudaBackend& b, const LayerReport& layer);
// Transpose, Slice and Split as views (views.cpp); LayerNormalization, Gather, Resize, the
// activations without a post-op form, Expand, ReduceL2 and MatMul of two computed operands
// (tensor_nodes.cpp). Unsupported for other ops.
Status lower_view_node(CudaBackend& b, const Node& n);
Status lower_tensor_node(CudaBackend& b, const Node& n);
// A MatMul whose second operand is a stored (or known) matrix: one cuBLAS GEMM over the
// first operand's rows (gemm in nodes.cpp); any other MatMul is batched (tensor_nodes.cpp).
bool matmul_by_weights(const Graph& g, const Node& n);
// The product of dims [from, to) of `s`.
int64_t ops_prod(const Shape& s, size_t from, size_t to);
// Einsum of two operands as one strided batched GEMM (einsum.cpp, from exec/einsum_gemm.h).
Status lower_einsum(CudaBackend& b, const Node& n);
// What those refuse in a node's parameters before prepare; empty when nothing.
std::string view_node_refusal(const Graph& g, const Node& n);
std::string tensor_node_refusal(const Graph& g, const Node& n);
std::string einsum_refusal(const Graph& g, const Node& n);
bool node_supported(const Graph& g, NodeId n, std::string* reason);

}  // namespace rooflens::cuda
