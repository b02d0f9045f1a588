// oneDNN backend: memory management, prepare and run (see onednn_backend.h).
#include <omp.h>

#include <chrono>
#include <cstring>

#include "onednn_backend.h"
#include "rooflens/exec/weights.h"

namespace rooflens::onednn {

using dnnl::memory;

memory::desc md_rowmajor(const Shape& s) {
  memory::dims d(s.begin(), s.end());
  if (d.empty()) d = {1};
  memory::dims strides(d.size(), 1);
  for (size_t i = d.size() - 1; i-- > 0;) strides[i] = strides[i + 1] * d[i + 1];
  return memory::desc(d, memory::data_type::f32, strides);
}

memory::desc md_channels_last(const Shape& s) {
  if (s.size() != 4) return md_rowmajor(s);
  return memory::desc(memory::dims(s.begin(), s.end()), memory::data_type::f32, memory::format_tag::acdb);
}

bool is_rowmajor(const memory::desc& md, const Shape& s) { return md == md_rowmajor(s); }

OneDnnBackend::OneDnnBackend() : eng_(dnnl::engine::kind::cpu, 0), strm_(eng_) {}

bool OneDnnBackend::supports(const Graph& g, NodeId n, std::string* reason) const {
  return node_supported(g, n, reason);
}

Expected<Tensor> OneDnnBackend::stored(ValueId v) { return stored_tensor(*g_, v, opts_.seed); }

Expected<memory> OneDnnBackend::mem(ValueId v) {
  auto it = mem_.find(v);
  if (it != mem_.end()) return it->second;
  const Value& val = g_->value(v);
  if (val.is_stored || val.reals) {
    Tensor t;
    if (val.reals && !val.is_stored) {
      t.shape = *val.shape;
      t.data.assign(val.reals->begin(), val.reals->end());
    } else {
      auto st = stored(v);
      if (!st) return st.status();
      t = std::move(*st);
    }
    if (t.dtype != DType::kF32)
      return Status::unsupported("value '" + val.name + "': integer tensors are not executed by oneDNN");
    memory m(md_rowmajor(t.shape), eng_);
    std::memcpy(m.get_data_handle(), t.data.data(), t.data.size() * sizeof(float));
    mem_[v] = m;
    return m;
  }
  // Views are not layers of their own: alias the source in row-major order on first use.
  if (val.producer >= 0) {
    const Node& p = g_->node(val.producer);
    if (p.kind != OpKind::kUnknown && op_info(p.kind).category == OpCategory::kView && !p.inputs.empty()) {
      auto src = rowmajor(p.inputs[0]);
      if (!src) return src.status();
      memory m(md_rowmajor(*val.shape), eng_, src->get_data_handle());
      mem_[v] = m;
      return m;
    }
  }
  return Status::internal("value '" + val.name + "' is used before it is produced");
}

Expected<memory> OneDnnBackend::as_desc(ValueId v, const memory::desc& md) {
  auto m = mem(v);
  if (!m) return m.status();
  if (m->get_desc() == md) return *m;
  const std::string key = std::to_string(md.data.format_kind) + ":" +
                          std::to_string(md.data.format_desc.blocking.strides[0]) + ":" +
                          std::to_string(md.data.format_desc.blocking.strides[md.data.ndims - 1]) + ":" +
                          std::to_string(md.data.format_desc.blocking.inner_nblks);
  auto it = converted_.find({v, key});
  if (it != converted_.end() && it->second.get_desc() == md) return it->second;
  memory out(md, eng_);
  dnnl::reorder r(*m, out);
  memory src = *m;
  add_step([r, src, out](dnnl::stream& s) mutable { r.execute(s, src, out); }, "reorder");
  converted_[{v, key}] = out;
  return out;
}

Expected<memory> OneDnnBackend::rowmajor(ValueId v) {
  const Value& val = g_->value(v);
  if (!val.shape) return Status::internal("value '" + val.name + "' has no shape");
  return as_desc(v, md_rowmajor(*val.shape));
}

Status OneDnnBackend::prepare(const Graph& g, const ModelAnalysis& fused, const ExecOptions& o) {
  g_ = &g;
  opts_ = o;
  mem_.clear();
  converted_.clear();
  plans_.clear();
  input_mems_.clear();
  output_mems_.clear();
  if (o.threads > 0) omp_set_num_threads(o.threads);
  for (const Node& n : g.nodes) {
    std::string reason;
    if (!n.folded && !node_supported(g, static_cast<NodeId>(&n - g.nodes.data()), &reason))
      return Status::unsupported("oneDNN backend cannot run " + n.op_type + " node '" + n.name + "': " + reason);
  }
  for (ValueId in : g.inputs) {
    const Value& v = g.value(in);
    if (v.dtype != DType::kF32 && !dtype_is_float(v.dtype))
      return Status::unsupported("graph input '" + v.name + "' is not floating point");
    memory m(md_rowmajor(*v.shape), eng_);
    mem_[in] = m;
    input_mems_.push_back(m);
  }
  for (const LayerReport& L : fused.layers) {
    if (L.status != LayerStatus::kOk)
      return Status::unsupported("layer '" + L.name + "' (" + L.op + ") has no shapes or an unknown op");
    plans_.push_back(LayerPlan{L.name, {}, {}, 0});
    ROOFLENS_RETURN_IF_ERROR(build_fused_layer(*this, L).with_context("layer '" + L.name + "'"));
  }
  // Outputs in row-major; the conversion belongs to the last layer's time.
  if (plans_.empty()) plans_.push_back(LayerPlan{"outputs", {}, {}, 0});
  for (ValueId out : g.outputs) {
    auto m = rowmajor(out);
    if (!m) return m.status();
    output_mems_.push_back(*m);
  }
  return Status::ok();
}

Status OneDnnBackend::run(const std::vector<Tensor>& inputs, std::vector<Tensor>* outputs) {
  if (!g_) return Status::internal("run before prepare");
  if (inputs.size() != input_mems_.size())
    return Status::invalid("expected " + std::to_string(input_mems_.size()) + " inputs, got " + std::to_string(inputs.size()));
  for (size_t i = 0; i < inputs.size(); ++i) {
    const size_t n = input_mems_[i].get_desc().get_size() / sizeof(float);
    if (inputs[i].data.size() != n)
      return Status::invalid("input " + std::to_string(i) + " has " + std::to_string(inputs[i].data.size()) +
                             " elements, expected " + std::to_string(n));
    std::memcpy(input_mems_[i].get_data_handle(), inputs[i].data.data(), n * sizeof(float));
  }
  try {
    for (auto& p : plans_) {
      const auto t0 = std::chrono::steady_clock::now();
      for (auto& step : p.steps) step(strm_);
      strm_.wait();
      p.last_time_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    }
  } catch (const dnnl::error& e) {
    return Status::internal(std::string("oneDNN execution failed: ") + e.what());
  }
  outputs->resize(output_mems_.size());
  for (size_t i = 0; i < output_mems_.size(); ++i) {
    Tensor& t = (*outputs)[i];
    t.shape = *g_->value(g_->outputs[i]).shape;
    t.dtype = DType::kF32;
    const size_t n = output_mems_[i].get_desc().get_size() / sizeof(float);
    t.data.resize(n);
    std::memcpy(t.data.data(), output_mems_[i].get_data_handle(), n * sizeof(float));
  }
  return Status::ok();
}

std::vector<LayerTiming> OneDnnBackend::layer_timings() const {
  std::vector<LayerTiming> out;
  for (const auto& p : plans_) {
    std::string impl;
    for (const auto& i : p.impls) {
      if (i == "reorder" && p.impls.size() > 1) continue;
      if (impl.find(i) == std::string::npos) impl += (impl.empty() ? "" : "+") + i;
    }
    out.push_back({p.name, p.last_time_s, impl.empty() ? "none" : impl});
  }
  return out;
}

}  // namespace rooflens::onednn

namespace rooflens {
std::unique_ptr<Backend> make_onednn_backend() { return std::make_unique<onednn::OneDnnBackend>(); }
}  // namespace rooflens
