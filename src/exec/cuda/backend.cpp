// CUDA backend: device state, values and layouts, prepare, run and timing (see cuda_backend.h).
#include <cstring>

#include "cuda_backend.h"
#include "rooflens/exec/weights.h"

namespace rooflens::cuda {

Status cuda_status(cudaError_t e, const std::string& what) {
  if (e == cudaSuccess) return Status::ok();
  return Status::internal(what + ": CUDA error " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")");
}

Status cudnn_status(cudnnStatus_t e, const std::string& what) {
  if (e == CUDNN_STATUS_SUCCESS) return Status::ok();
  const std::string m = what + ": cuDNN " + cudnnGetErrorString(e);
  if (e == CUDNN_STATUS_NOT_SUPPORTED) return Status::unsupported(m);
  return Status::internal(m);
}

Status cublas_status(cublasStatus_t e, const std::string& what) {
  if (e == CUBLAS_STATUS_SUCCESS) return Status::ok();
  const std::string m = what + ": cuBLAS " + cublasGetStatusString(e);
  if (e == CUBLAS_STATUS_NOT_SUPPORTED) return Status::unsupported(m);
  return Status::internal(m);
}

Layout layout_of(const DevValue& v) {
  Layout l{};
  const size_t r = v.shape.size();
  const std::vector<int64_t> st = strides_of(v);
  for (size_t k = 0; k < 4; ++k) {
    l.dims[k] = k + r < 4 ? 1 : v.shape[k + r - 4];
    l.strides[k] = k + r < 4 ? 0 : st[k + r - 4];
  }
  return l;
}

void physical_order(const DevValue& out, int order[4]) {
  const bool nhwc = out.shape.size() == 4 && out.nhwc && out.strides.empty();
  const int o[4] = {0, nhwc ? 2 : 1, nhwc ? 3 : 2, nhwc ? 1 : 3};
  for (int k = 0; k < 4; ++k) order[k] = o[k];
}

namespace {

constexpr size_t kCublasWorkspaceBytes = size_t{32} << 20;

// NHWC and NCHW are the same bytes when H*W == 1 or C == 1.
bool layouts_coincide(const Shape& s) { return s.size() != 4 || s[2] * s[3] == 1 || s[1] == 1; }

// The iteration of an element-wise op whose output has rank <= 4, in the output's physical
// order (NHWC outputs walk n, h, w, c).
Expected<EwShape> ew_shape_rank4(const DevValue& a, const DevValue* b, const DevValue& out, const DevValue* c) {
  if (a.shape.size() > 4 || (b && b->shape.size() > 4) || (c && c->shape.size() > 4))
    return Status::unsupported("an operand of rank above 4 for an output of rank " + std::to_string(out.shape.size()));
  const Layout lo = layout_of(out), la = layout_of(a);
  Layout lb{}, lc{};
  if (b) lb = layout_of(*b);
  if (c) lc = layout_of(*c);
  int ord[4];
  physical_order(out, ord);
  EwShape s;
  for (int k = 0; k < 4; ++k) {
    const int d = ord[k];
    s.dims[k] = lo.dims[d];
    s.out_strides[k] = lo.strides[d];
    if (la.dims[d] != lo.dims[d] && la.dims[d] != 1)
      return Status::invalid("cannot broadcast " + shape_str(a.shape) + " to " + shape_str(out.shape));
    s.a_strides[k] = la.dims[d] == 1 ? 0 : la.strides[d];
    if (b) {
      if (lb.dims[d] != lo.dims[d] && lb.dims[d] != 1)
        return Status::invalid("cannot broadcast " + shape_str(b->shape) + " to " + shape_str(out.shape));
      s.b_strides[k] = lb.dims[d] == 1 ? 0 : lb.strides[d];
    }
    if (c) {
      if (lc.dims[d] != lo.dims[d] && lc.dims[d] != 1)
        return Status::invalid("cannot broadcast " + shape_str(c->shape) + " to " + shape_str(out.shape));
      s.c_strides[k] = lc.dims[d] == 1 ? 0 : lc.strides[d];
    }
  }
  return s;
}

// The iteration of an element-wise op whose output has rank 5 to kMaxCopyRank: its dims
// collapsed (collapse_iteration) to at most 4, right-aligned in the kernel's 4; unsupported
// when the operands' strides leave more (CudaBackend::add_elementwise then copies the views).
Expected<EwShape> ew_shape_collapsed(const DevValue& a, const DevValue* b, const DevValue& out, const DevValue* c) {
  if (out.shape.size() > static_cast<size_t>(kMaxCopyRank))
    return Status::unsupported("element-wise output of rank " + std::to_string(out.shape.size()) +
                               " (the CUDA backend: rank <= " + std::to_string(kMaxCopyRank) + ")");
  std::vector<std::vector<int64_t>> st{strides_of(out)};
  for (const DevValue* v : {&a, b, c}) {
    if (!v) continue;
    auto bs = broadcast_strides(v->shape, strides_of(*v), out.shape);
    if (!bs) return Status::invalid("cannot broadcast " + shape_str(v->shape) + " to " + shape_str(out.shape));
    st.push_back(std::move(*bs));
  }
  const EwIteration it = collapse_iteration(out.shape, st);
  if (it.dims.size() > 4)
    return Status::unsupported("an element-wise iteration over " + shape_str(out.shape) + " that collapses to " +
                               std::to_string(it.dims.size()) + " dims (the kernel walks 4)");
  EwShape s;
  const size_t lead = 4 - it.dims.size();
  for (size_t k = 0; k < it.dims.size(); ++k) {
    size_t o = 0;
    s.dims[lead + k] = it.dims[k];
    s.out_strides[lead + k] = it.strides[o++][k];
    s.a_strides[lead + k] = it.strides[o++][k];
    if (b) s.b_strides[lead + k] = it.strides[o++][k];
    if (c) s.c_strides[lead + k] = it.strides[o++][k];
  }
  return s;
}

Expected<Step> elementwise_step(EwOp op, float alpha, float beta, const DevValue& a, const DevValue* b,
                                const DevValue& out, const std::string& impl, EwPostOp post = {},
                                const DevValue* c = nullptr) {
  if ((b && b->elem != a.elem) || (c && c->elem != a.elem))
    return Status::internal("element-wise operands of different storage types");
  auto s = out.shape.size() <= 4 ? ew_shape_rank4(a, b, out, c) : ew_shape_collapsed(a, b, out, c);
  if (!s) return s.status();
  const EwShape shape = *s;
  const void* ap = a.ptr;
  const void* bp = b ? b->ptr : nullptr;
  const void* cp = c ? c->ptr : nullptr;
  void* yp = out.ptr;
  const Elem ein = a.elem, eout = out.elem;
  return Step([=](cudaStream_t st) {
    return cuda_status(launch_elementwise(op, alpha, beta, ein, eout, ap, bp, yp, shape, st, post, cp), impl);
  });
}

// IEEE binary16 bits of a float, rounded to nearest even (what __float2half_rn does).
uint16_t float_to_half(float f) {
  uint32_t x = 0;
  std::memcpy(&x, &f, 4);
  const uint32_t sign = (x >> 16) & 0x8000u;
  uint32_t mant = x & 0x7fffffu;
  const int32_t exp = static_cast<int32_t>((x >> 23) & 0xffu);
  if (exp == 0xff) return static_cast<uint16_t>(sign | 0x7c00u | (mant ? 0x200u : 0u));
  const int32_t e = exp - 127 + 15;
  if (e >= 0x1f) return static_cast<uint16_t>(sign | 0x7c00u);
  if (e <= 0) {
    if (e < -10) return static_cast<uint16_t>(sign);
    mant |= 0x800000u;
    const int shift = 14 - e;
    uint32_t m = mant >> shift;
    const uint32_t rem = mant & ((1u << shift) - 1), halfway = 1u << (shift - 1);
    if (rem > halfway || (rem == halfway && (m & 1u))) ++m;
    return static_cast<uint16_t>(sign | m);
  }
  const uint32_t m = mant >> 13, rem = mant & 0x1fffu;
  uint32_t h = sign | (static_cast<uint32_t>(e) << 10) | m;
  if (rem > 0x1000u || (rem == 0x1000u && (m & 1u))) ++h;
  return static_cast<uint16_t>(h);
}

std::vector<uint16_t> to_half_bits(const std::vector<float>& v) {
  std::vector<uint16_t> out(v.size());
  for (size_t i = 0; i < v.size(); ++i) out[i] = float_to_half(v[i]);
  return out;
}

}  // namespace

CudaBackend::CudaBackend(const CudaBackendOptions& o) : opts_(o) {}

CudaBackend::~CudaBackend() {
  if (graph_exec_) cudaGraphExecDestroy(graph_exec_);
  if (cuda_graph_) cudaGraphDestroy(cuda_graph_);
  for (auto e : events_) cudaEventDestroy(e);
  for (void* p : allocations_) cudaFree(p);
  if (workspace_) cudaFree(workspace_);
  if (cublas_) cublasDestroy(cublas_);
  if (cudnn_) cudnnDestroy(cudnn_);
  if (stream_) cudaStreamDestroy(stream_);
}

Status CudaBackend::init() {
  if (opts_.dtype != DType::kF16 && opts_.dtype != DType::kF32)
    return Status::unsupported("the CUDA backend runs fp16 or fp32, not " + std::string(dtype_name(opts_.dtype)));
  ROOFLENS_RETURN_IF_ERROR(cuda_status(cudaSetDevice(opts_.device), "cudaSetDevice"));
  ROOFLENS_RETURN_IF_ERROR(cuda_status(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate"));
  ROOFLENS_RETURN_IF_ERROR(cudnn_status(cudnnCreate(&cudnn_), "cudnnCreate"));
  ROOFLENS_RETURN_IF_ERROR(cudnn_status(cudnnSetStream(cudnn_, stream_), "cudnnSetStream"));
  ROOFLENS_RETURN_IF_ERROR(cublas_status(cublasCreate(&cublas_), "cublasCreate"));
  ROOFLENS_RETURN_IF_ERROR(cublas_status(cublasSetStream(cublas_, stream_), "cublasSetStream"));
  ROOFLENS_RETURN_IF_ERROR(cuda_status(cudaMalloc(&workspace_, opts_.workspace_bytes), "workspace allocation"));
  // cuBLAS gets its own scratch: nothing may be allocated while a CUDA graph is captured.
  auto cw = alloc(kCublasWorkspaceBytes);
  if (!cw) return cw.status();
  ROOFLENS_RETURN_IF_ERROR(
      cublas_status(cublasSetWorkspace(cublas_, *cw, kCublasWorkspaceBytes), "cublasSetWorkspace"));
  return Status::ok();
}

Expected<void*> CudaBackend::alloc(size_t bytes) {
  void* p = nullptr;
  ROOFLENS_RETURN_IF_ERROR(
      cuda_status(cudaMalloc(&p, bytes == 0 ? 16 : bytes), "cudaMalloc of " + std::to_string(bytes) + " bytes"));
  allocations_.push_back(p);
  return p;
}

Expected<void*> CudaBackend::upload(const std::vector<float>& host) {
  auto p = alloc(host.size() * elem_bytes());
  if (!p) return p.status();
  if (elem() == Elem::kF32) {
    ROOFLENS_RETURN_IF_ERROR(
        cuda_status(cudaMemcpy(*p, host.data(), host.size() * 4, cudaMemcpyHostToDevice), "upload"));
  } else {
    const auto bits = to_half_bits(host);
    ROOFLENS_RETURN_IF_ERROR(
        cuda_status(cudaMemcpy(*p, bits.data(), bits.size() * 2, cudaMemcpyHostToDevice), "upload"));
  }
  return p;
}

Expected<DevValue> CudaBackend::new_output(ValueId v, bool nhwc) {
  const Value& val = g_->value(v);
  if (!val.shape) return Status::internal("value '" + val.name + "' has no shape");
  const auto n = checked_numel(*val.shape);
  if (!n) return Status::invalid("value '" + val.name + "' is too large");
  auto p = alloc(static_cast<size_t>(*n) * elem_bytes());
  if (!p) return p.status();
  return DevValue{*p, *val.shape, elem(), nhwc && val.shape->size() == 4, {}};
}

void CudaBackend::add_step(Step s, std::string impl) {
  plans_.back().steps.push_back(std::move(s));
  plans_.back().impls.push_back(std::move(impl));
}

Status CudaBackend::add_elementwise(EwOp op, float alpha, float beta, const DevValue& a, const DevValue* b,
                                    const DevValue& out, const std::string& impl, EwPostOp post, const DevValue* c) {
  auto s = elementwise_step(op, alpha, beta, a, b, out, impl, post, c);
  if (!s && s.status().code() == StatusCode::kUnsupported && out.shape.size() > 4 &&
      out.shape.size() <= static_cast<size_t>(kMaxCopyRank)) {
    // Above rank 4 the iteration collapses to 4 dims for dense operands (the support check
    // counts on that): views that keep it from collapsing are copied first.
    auto da = dense(a);
    if (!da) return da.status();
    Expected<DevValue> db = b ? dense(*b) : Expected<DevValue>(DevValue{});
    if (!db) return db.status();
    Expected<DevValue> dc = c ? dense(*c) : Expected<DevValue>(DevValue{});
    if (!dc) return dc.status();
    s = elementwise_step(op, alpha, beta, *da, b ? &*db : nullptr, out, impl, post, c ? &*dc : nullptr);
  }
  if (!s) return s.status();
  add_step(std::move(*s), impl);
  return Status::ok();
}

Expected<DevValue> CudaBackend::value(ValueId v) {
  auto it = values_.find(v);
  if (it != values_.end()) return it->second;
  const Value& val = g_->value(v);
  if (!val.shape) return Status::internal("value '" + val.name + "' has no shape");
  if (val.is_stored || val.reals) {
    std::vector<float> host;
    if (val.reals && !val.is_stored) {
      host.assign(val.reals->begin(), val.reals->end());
    } else {
      auto t = stored_tensor(*g_, v, seed_);
      if (!t) return t.status();
      if (t->dtype != DType::kF32)
        return Status::unsupported("value '" + val.name + "': integer tensors are not run by the CUDA backend");
      host = std::move(t->data);
    }
    auto p = upload(host);
    if (!p) return p.status();
    DevValue d{*p, *val.shape, elem(), false, {}};
    values_[v] = d;
    return d;
  }
  if (val.producer >= 0) {
    const Node& p = g_->node(val.producer);
    if (is_view_op(p.kind) && !p.inputs.empty()) {
      // A reshape keeps the logical (row-major) element order: a view of its source when
      // the dims it merges are contiguous there, else one copy.
      auto src = value(p.inputs[0]);
      if (!src) return src.status();
      const Shape& ys = *val.shape;
      if (auto st = reshape_strides(src->shape, strides_of(*src), ys)) {
        values_[v] = strided_view(src->ptr, ys, elem(), std::move(*st));
        return values_[v];
      }
      if (plans_.empty()) return Status::internal("view '" + val.name + "' resolved outside a layer");
      // The copy writes the output's own layout when the output, seen in the source's
      // shape, has strides (it splits dims); else the source goes row-major first.
      auto out = new_output(v);
      if (!out) return out.status();
      if (auto dst = reshape_strides(ys, strides_of(*out), src->shape)) {
        DevValue as_src{out->ptr, src->shape, elem(), false, std::move(*dst)};
        ROOFLENS_RETURN_IF_ERROR(add_copy(*src, as_src, "layout:reshape"));
        values_[v] = *out;
        return *out;
      }
      auto dense = value_as(p.inputs[0], false);
      if (!dense) return dense.status();
      values_[v] = DevValue{dense->ptr, ys, elem(), false, {}};
      return values_[v];
    }
  }
  return Status::internal("value '" + val.name + "' is used before it is produced");
}

Expected<DevValue> CudaBackend::value_as(ValueId v, bool nhwc) {
  auto d = value(v);
  if (!d) return d;
  const bool rank4 = d->shape.size() == 4;
  if (d->strides.empty()) {
    if (!rank4 || d->nhwc == nhwc) return d;
    if (layouts_coincide(d->shape)) {
      DevValue same = *d;
      same.nhwc = nhwc;
      return same;
    }
  }
  auto it = converted_.find({v, nhwc});
  if (it != converted_.end()) return it->second;
  if (plans_.empty()) return Status::internal("layout conversion outside a layer");
  auto p = alloc(static_cast<size_t>(checked_numel(d->shape).value_or(0)) * elem_bytes());
  if (!p) return p.status();
  DevValue out{*p, d->shape, d->elem, nhwc && rank4, {}};
  const std::string impl = !d->strides.empty() ? "layout:view->dense"
                           : nhwc              ? "layout:nchw->nhwc"
                                               : "layout:nhwc->nchw";
  ROOFLENS_RETURN_IF_ERROR(add_copy(*d, out, impl));
  converted_[{v, nhwc}] = out;
  return out;
}

bool CudaBackend::supports(const Graph& g, NodeId n, std::string* reason) const { return node_supported(g, n, reason); }

Status CudaBackend::prepare(const Graph& g, const ModelAnalysis& fused, const ExecOptions& o) {
  if (prepared_) return Status::internal("the CUDA backend is prepared once; make a new one for another model");
  g_ = &g;
  seed_ = o.seed;
  for (const Node& n : g.nodes) {
    std::string reason;
    if (!n.folded && !node_supported(g, static_cast<NodeId>(&n - g.nodes.data()), &reason))
      return Status::unsupported("CUDA backend cannot run " + n.op_type + " node '" + n.name + "': " + reason);
  }
  // Inputs: fp32 row-major staging, converted to the compute dtype (NHWC when rank 4).
  for (ValueId in : g.inputs) {
    const Value& v = g.value(in);
    if (!v.shape || v.shape->size() > 4)
      return Status::unsupported("graph input '" + v.name + "' is not a tensor of rank <= 4");
    const size_t n = static_cast<size_t>(checked_numel(*v.shape).value_or(0));
    auto staging = alloc(n * 4);
    if (!staging) return staging.status();
    input_f32_.push_back(DevValue{*staging, *v.shape, Elem::kF32, false, {}});
    auto dev = new_output(in);
    if (!dev) return dev.status();
    auto step = elementwise_step(EwOp::kCopy, 0, 0, input_f32_.back(), nullptr, *dev, "input");
    if (!step) return step.status();
    input_steps_.push_back(std::move(*step));
    values_[in] = *dev;
    ROOFLENS_RETURN_IF_ERROR(cuda_status(cudaMemset(*staging, 0, n * 4), "input staging"));
  }
  for (const LayerReport& L : fused.layers) {
    if (L.status != LayerStatus::kOk)
      return Status::unsupported("layer '" + L.name + "' (" + L.op + ") has no shapes or an unknown op");
    plans_.push_back(LayerPlan{L.name, {}, {}});
    ROOFLENS_RETURN_IF_ERROR(build_fused_layer(*this, L).with_context("layer '" + L.name + "'"));
  }
  if (plans_.empty()) plans_.push_back(LayerPlan{"outputs", {}, {}});
  for (ValueId out : g.outputs) {
    auto d = value(out);
    if (!d) return d.status();
    // A view above rank 4 may not collapse onto the element-wise kernel: made dense first.
    if (d->shape.size() > 4 && !d->strides.empty()) d = value_as(out, false);
    if (!d) return d.status();
    auto staging = alloc(static_cast<size_t>(checked_numel(d->shape).value_or(0)) * 4);
    if (!staging) return staging.status();
    output_f32_.push_back(DevValue{*staging, d->shape, Elem::kF32, false, {}});
    auto step = elementwise_step(EwOp::kCopy, 0, 0, *d, nullptr, output_f32_.back(), "output");
    if (!step) return step.status();
    output_steps_.push_back(std::move(*step));
  }
  events_.resize(plans_.size() + 1);
  for (auto& e : events_) ROOFLENS_RETURN_IF_ERROR(cuda_status(cudaEventCreate(&e), "cudaEventCreate"));
  last_ms_.assign(plans_.size(), 0.f);
  // One untimed run proves every step queues and completes before anything is captured.
  for (auto& s : input_steps_) ROOFLENS_RETURN_IF_ERROR(s(stream_));
  ROOFLENS_RETURN_IF_ERROR(run_plans(false));
  ROOFLENS_RETURN_IF_ERROR(check_device_state("the first run"));
  if (opts_.graph) {
    ROOFLENS_RETURN_IF_ERROR(
        cuda_status(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture"));
    Status queued = Status::ok();
    for (auto& p : plans_)
      for (auto& s : p.steps)
        if (queued) queued = s(stream_).with_context("capturing layer '" + p.name + "'");
    const cudaError_t ended = cudaStreamEndCapture(stream_, &cuda_graph_);
    ROOFLENS_RETURN_IF_ERROR(queued);
    ROOFLENS_RETURN_IF_ERROR(
        cuda_status(ended, "cudaStreamEndCapture (a library call in the model cannot be captured)"));
    ROOFLENS_RETURN_IF_ERROR(cuda_status(cudaGraphInstantiate(&graph_exec_, cuda_graph_, 0), "cudaGraphInstantiate"));
    ROOFLENS_RETURN_IF_ERROR(cuda_status(cudaGraphLaunch(graph_exec_, stream_), "cudaGraphLaunch"));
    ROOFLENS_RETURN_IF_ERROR(check_device_state("the first graph replay"));
  }
  prepared_ = true;
  return Status::ok();
}

Status CudaBackend::check_device_state(const std::string& when) {
  ROOFLENS_RETURN_IF_ERROR(cuda_status(cudaStreamSynchronize(stream_), when));
  return cuda_status(cudaGetLastError(), when);
}

Status CudaBackend::run_plans(bool timed) {
  for (size_t i = 0; i < plans_.size(); ++i) {
    if (timed) ROOFLENS_RETURN_IF_ERROR(cuda_status(cudaEventRecord(events_[i], stream_), "cudaEventRecord"));
    for (auto& s : plans_[i].steps) ROOFLENS_RETURN_IF_ERROR(s(stream_).with_context("layer '" + plans_[i].name + "'"));
  }
  if (timed) ROOFLENS_RETURN_IF_ERROR(cuda_status(cudaEventRecord(events_.back(), stream_), "cudaEventRecord"));
  return Status::ok();
}

Status CudaBackend::run_resident() {
  if (!prepared_) return Status::internal("run before prepare");
  if (graph_exec_) {
    ROOFLENS_RETURN_IF_ERROR(cuda_status(cudaGraphLaunch(graph_exec_, stream_), "cudaGraphLaunch"));
    return check_device_state("graph replay");
  }
  ROOFLENS_RETURN_IF_ERROR(run_plans(true));
  ROOFLENS_RETURN_IF_ERROR(check_device_state("run"));
  for (size_t i = 0; i < plans_.size(); ++i)
    ROOFLENS_RETURN_IF_ERROR(
        cuda_status(cudaEventElapsedTime(&last_ms_[i], events_[i], events_[i + 1]), "cudaEventElapsedTime"));
  return Status::ok();
}

Status CudaBackend::run(const std::vector<Tensor>& inputs, std::vector<Tensor>* outputs) {
  if (!prepared_) return Status::internal("run before prepare");
  if (inputs.size() != input_f32_.size())
    return Status::invalid("expected " + std::to_string(input_f32_.size()) + " inputs, got " +
                           std::to_string(inputs.size()));
  for (size_t i = 0; i < inputs.size(); ++i) {
    const size_t n = static_cast<size_t>(checked_numel(input_f32_[i].shape).value_or(0));
    if (inputs[i].data.size() != n)
      return Status::invalid("input " + std::to_string(i) + " has " + std::to_string(inputs[i].data.size()) +
                             " elements, expected " + std::to_string(n));
    ROOFLENS_RETURN_IF_ERROR(
        cuda_status(cudaMemcpyAsync(input_f32_[i].ptr, inputs[i].data.data(), n * 4, cudaMemcpyHostToDevice, stream_),
                    "input copy"));
  }
  for (auto& s : input_steps_) ROOFLENS_RETURN_IF_ERROR(s(stream_));
  ROOFLENS_RETURN_IF_ERROR(run_resident());
  outputs->resize(output_f32_.size());
  for (size_t i = 0; i < output_f32_.size(); ++i) {
    // Poisoned first, so an output the model does not write reads as NaN.
    ROOFLENS_RETURN_IF_ERROR(cuda_status(launch_fill_nan(Elem::kF32, output_f32_[i].ptr,
                                                         checked_numel(output_f32_[i].shape).value_or(0), stream_),
                                         "output poison"));
    ROOFLENS_RETURN_IF_ERROR(output_steps_[i](stream_));
    Tensor& t = (*outputs)[i];
    t.shape = output_f32_[i].shape;
    t.dtype = DType::kF32;
    t.data.resize(static_cast<size_t>(checked_numel(t.shape).value_or(0)));
    ROOFLENS_RETURN_IF_ERROR(cuda_status(cudaMemcpyAsync(t.data.data(), output_f32_[i].ptr, t.data.size() * 4,
                                                         cudaMemcpyDeviceToHost, stream_),
                                         "output copy"));
  }
  return check_device_state("copying outputs");
}

std::vector<LayerTiming> CudaBackend::layer_timings() const {
  std::vector<LayerTiming> out;
  if (graph_exec_) return out;
  for (size_t i = 0; i < plans_.size(); ++i) {
    std::string impl;
    for (const auto& s : plans_[i].impls) {
      if (s.rfind("layout:", 0) == 0 && plans_[i].impls.size() > 1) continue;
      if (impl.find(s) == std::string::npos) impl += (impl.empty() ? "" : "+") + s;
    }
    out.push_back({plans_[i].name, last_ms_[i] * 1e-3, impl.empty() ? "none" : impl});
  }
  return out;
}

}  // namespace rooflens::cuda
