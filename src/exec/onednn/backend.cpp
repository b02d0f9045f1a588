// oneDNN backend: memory management, prepare and run (see onednn_backend.h).
#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>

#include "denormals.h"
#include "onednn_backend.h"
#include "rooflens/exec/buffer_plan.h"
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

memory::desc md_blocked16(const Shape& s) {
  return memory::desc(memory::dims(s.begin(), s.end()), memory::data_type::f32, memory::format_tag::aBcd16b);
}

memory::desc OneDnnBackend::activation_md(const Shape& s) const {
  if (blocked() && s.size() == 4 && s[1] % 16 == 0) return md_blocked16(s);
  return md_channels_last(s);
}

bool is_rowmajor(const memory::desc& md, const Shape& s) { return md == md_rowmajor(s); }

// Element strides of a plain strided desc (no blocking, no padding, no offset); nullopt otherwise.
std::optional<memory::dims> plain_strides(const memory::desc& md) {
  const auto& d = md.data;
  if (d.format_kind != dnnl_blocked || d.format_desc.blocking.inner_nblks != 0 || d.offset0 != 0) return std::nullopt;
  for (int i = 0; i < d.ndims; ++i)
    if (d.padded_dims[i] != d.dims[i]) return std::nullopt;
  return memory::dims(d.format_desc.blocking.strides, d.format_desc.blocking.strides + d.ndims);
}

// Strides that let `to` alias a tensor of shape `from` with `strides` without a copy
// (PyTorch's view rule: only runs of dims contiguous with each other may be merged or split).
std::optional<memory::dims> reshape_strides(const Shape& from, const memory::dims& strides, const Shape& to) {
  if (from.empty() || to.empty()) return std::nullopt;
  memory::dims out(to.size());
  int64_t view_d = static_cast<int64_t>(to.size()) - 1, base = strides.back(), tensor_numel = 1, view_numel = 1;
  for (int64_t d = static_cast<int64_t>(from.size()) - 1; d >= 0; --d) {
    tensor_numel *= from[static_cast<size_t>(d)];
    if (d == 0 ||
        (from[static_cast<size_t>(d) - 1] != 1 && strides[static_cast<size_t>(d) - 1] != tensor_numel * base)) {
      while (view_d >= 0 && (view_numel < tensor_numel || to[static_cast<size_t>(view_d)] == 1)) {
        out[static_cast<size_t>(view_d)] = view_numel * base;
        view_numel *= to[static_cast<size_t>(view_d)];
        --view_d;
      }
      if (view_numel != tensor_numel) return std::nullopt;
      if (d > 0) {
        base = strides[static_cast<size_t>(d) - 1];
        tensor_numel = view_numel = 1;
      }
    }
  }
  if (view_d != -1) return std::nullopt;
  return out;
}

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
    if (is_view_op(p.kind) && !p.inputs.empty()) {
      // A Reshape aliases its input's layout when that needs no copy and the result is
      // row-major or channels-last, or any strided layout read only by Transposes.
      if (p.kind == OpKind::kReshape && g_->value(p.inputs[0]).shape) {
        auto in = mem(p.inputs[0]);
        if (!in) return in.status();
        auto st = plain_strides(in->get_desc());
        auto os = st ? reshape_strides(*g_->value(p.inputs[0]).shape, *st, *val.shape) : std::nullopt;
        if (os) {
          memory::desc md(memory::dims(val.shape->begin(), val.shape->end()), memory::data_type::f32, *os);
          bool ok = md == md_rowmajor(*val.shape) || md == md_channels_last(*val.shape);
          if (!ok) {
            ok = !val.consumers.empty();
            for (NodeId c : val.consumers) ok = ok && g_->node(c).kind == OpKind::kTranspose;
          }
          if (ok) {
            memory m(md, eng_, in->get_data_handle());
            mem_[v] = m;
            return m;
          }
        }
      }
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
  memory out = new_buffer(md);
  add_reorder(*m, out);
  converted_[{v, key}] = out;
  return out;
}

const std::vector<NodeId>& OneDnnBackend::layer_nodes_of(NodeId n) const {
  static const std::vector<NodeId> none;
  const int i = layer_index(n);
  return fused_ && i >= 0 ? fused_->layers[static_cast<size_t>(i)].nodes : none;
}

bool OneDnnBackend::dead_after(ValueId v, const std::vector<NodeId>& layer) const {
  const Value& val = g_->value(v);
  if (val.is_stored || val.reals || val.producer < 0) return false;
  const Node& p = g_->node(val.producer);
  if (p.kind == OpKind::kUnknown || is_view_op(p.kind)) return false;
  if (!read_by_now(v, layer)) return false;
  // A buffer that another value shares (a Concat of one input, a Pad of zeros) is dead only
  // when that value is dead too.
  auto own = mem_.find(v);
  if (own == mem_.end()) return true;
  const void* h = own->second.get_data_handle();
  for (const auto& [other, m] : mem_) {
    if (other == v || m.get_data_handle() != h) continue;
    const Value& o = g_->value(other);
    if (o.is_stored || o.reals || o.producer < 0 || !read_by_now(other, layer)) return false;
  }
  return true;
}

bool OneDnnBackend::read_by_now(ValueId v, const std::vector<NodeId>& layer) const {
  if (g_->is_output(v)) return false;
  for (NodeId c : g_->value(v).consumers) {
    const Node& cn = g_->node(c);
    if (cn.kind == OpKind::kUnknown || is_view_op(cn.kind)) return false;
    const bool here = std::find(layer.begin(), layer.end(), c) != layer.end();
    if (!here && !built_[static_cast<size_t>(c)]) return false;
  }
  return true;
}

Expected<memory> OneDnnBackend::rowmajor(ValueId v) {
  const Value& val = g_->value(v);
  if (!val.shape) return Status::internal("value '" + val.name + "' has no shape");
  return as_desc(v, md_rowmajor(*val.shape));
}

memory OneDnnBackend::new_buffer(const memory::desc& md) {
  memory m(md, eng_);
  if (opts_.reuse_buffers && md.get_size() > 0) {
    char* base = static_cast<char*>(m.get_data_handle());
    buffer_at_[base] = buffers_.size();
    buffers_.push_back(Buffer{base, md.get_size(), -1, -1});
  }
  return m;
}

std::optional<size_t> OneDnnBackend::buffer_of(const void* p) const {
  const char* c = static_cast<const char*>(p);
  auto it = buffer_at_.upper_bound(c);
  if (it == buffer_at_.begin()) return std::nullopt;
  --it;
  const Buffer& b = buffers_[it->second];
  if (c >= b.base + b.bytes) return std::nullopt;
  return it->second;
}

void OneDnnBackend::add_step(Step s, std::string impl, const std::vector<memory>& touched) {
  for (const memory& m : touched) {
    if (!m) continue;
    if (auto i = buffer_of(m.get_data_handle())) {
      Buffer& b = buffers_[*i];
      if (b.first < 0) b.first = step_count_;
      b.last = step_count_;
    }
    touched_.push_back(m);
  }
  ++step_count_;
  current().steps.push_back(std::move(s));
  current().impls.push_back(std::move(impl));
}

void OneDnnBackend::add_primitive(const dnnl::primitive& p, const std::unordered_map<int, memory>& args,
                                  std::string impl) {
  std::vector<memory> touched;
  for (const auto& [arg, m] : args) touched.push_back(m);
  add_step([p, args](dnnl::stream& s) { p.execute(s, args); }, std::move(impl), touched);
}

void OneDnnBackend::add_reorder(const memory& from, const memory& to) {
  add_primitive(dnnl::reorder(from, to), {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}}, "reorder");
}

Status OneDnnBackend::place_buffers() {
  // The outputs are read after the last step.
  for (const memory& m : output_mems_)
    if (auto i = buffer_of(m.get_data_handle())) buffers_[*i].last = std::numeric_limits<int>::max();
  std::vector<size_t> which;
  std::vector<BufferLife> lives;
  for (size_t i = 0; i < buffers_.size(); ++i)
    if (buffers_[i].first >= 0) {  // a buffer no step touches keeps its own allocation
      which.push_back(i);
      lives.push_back(BufferLife{buffers_[i].bytes, buffers_[i].first, buffers_[i].last});
    }
  if (lives.empty()) return Status::ok();
  const BufferPlan plan = plan_buffers(lives, 64);
  const size_t bytes = (plan.arena_bytes + 4095) / 4096 * 4096;
  void* p = std::aligned_alloc(4096, bytes);
  if (!p) return Status::unavailable("cannot allocate the " + std::to_string(bytes) + "-byte activation arena");
  arena_.reset(static_cast<char*>(p));
  arena_bytes_ = plan.arena_bytes;
  unplanned_bytes_ = plan.unplanned_bytes;
  std::vector<char*> dest(buffers_.size(), nullptr);
  for (size_t k = 0; k < which.size(); ++k) dest[which[k]] = arena_.get() + plan.offsets[k];
  // Every memory object that may point into a buffer: new places are found for all of them
  // before any moves (moving a buffer's owner frees its old allocation).
  std::vector<memory> all = touched_;
  for (const auto& [v, m] : mem_) all.push_back(m);
  for (const auto& [k, m] : converted_) all.push_back(m);
  all.insert(all.end(), output_mems_.begin(), output_mems_.end());
  std::map<dnnl_memory_t, std::pair<memory, char*>> moves;
  for (const memory& m : all) {
    if (!m) continue;
    char* h = static_cast<char*>(m.get_data_handle());
    auto i = buffer_of(h);
    if (!i || !dest[*i]) continue;
    moves.emplace(m.get(), std::make_pair(m, dest[*i] + (h - buffers_[*i].base)));
  }
  for (auto& [raw, move] : moves) move.first.set_data_handle(move.second);
  buffers_.clear();  // the old addresses are gone
  buffer_at_.clear();
  touched_.clear();  // the steps hold what they need
  return Status::ok();
}

Status OneDnnBackend::prepare(const Graph& g, const ModelAnalysis& fused, const ExecOptions& o) {
  g_ = &g;
  opts_ = o;
  if (o.threads > 0) omp_set_num_threads(o.threads);
  const DenormalsFlushed flushed(o.flush_denormals);  // tactics are timed as runs run
  for (const Node& n : g.nodes) {
    std::string reason;
    if (!n.folded && !node_supported(g, static_cast<NodeId>(&n - g.nodes.data()), &reason))
      return Status::unsupported("oneDNN backend cannot run " + n.op_type + " node '" + n.name + "': " + reason);
  }
  per_layer_layouts_ = o.layout == ActivationLayout::kAuto;
  if (!per_layer_layouts_) {
    layout_summary_ =
        o.layout == ActivationLayout::kBlocked ? "blocked (nChw16c) where channels allow" : "channels-last";
    return build(fused, std::vector<char>(fused.layers.size(), o.layout == ActivationLayout::kBlocked ? 1 : 0));
  }
  if (!o.blocked_layers.empty()) {
    if (o.blocked_layers.size() != fused.layers.size())
      return Status::invalid("ExecOptions::blocked_layers names " + std::to_string(o.blocked_layers.size()) +
                             " layers; the model has " + std::to_string(fused.layers.size()));
    layout_summary_ = "given per layer";
    return build(fused, o.blocked_layers);
  }
  auto choice = choose_layer_layouts(g, fused, o);
  if (!choice) return choice.status();
  layout_summary_ = choice->summary;
  return build(fused, choice->blocked);
}

Status OneDnnBackend::build(const ModelAnalysis& fused, const std::vector<char>& blocked) {
  const Graph& g = *g_;
  mem_.clear();
  converted_.clear();
  plans_.clear();
  input_mems_.clear();
  output_mems_.clear();
  touched_.clear();
  buffers_.clear();
  buffer_at_.clear();
  step_count_ = 0;
  arena_.reset();
  arena_bytes_ = unplanned_bytes_ = 0;
  built_.assign(g.nodes.size(), 0);
  fused_ = &fused;
  layer_of_.assign(g.nodes.size(), -1);
  for (size_t i = 0; i < fused.layers.size(); ++i)
    for (NodeId n : fused.layers[i].nodes) layer_of_[static_cast<size_t>(n)] = static_cast<int>(i);
  layer_blocked_ = blocked;
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
    if (!L.nodes.empty() &&
        std::all_of(L.nodes.begin(), L.nodes.end(), [&](NodeId n) { return built_[static_cast<size_t>(n)]; })) {
      plans_.back().impls.push_back("in the concat's pass");  // built by an earlier layer (mark_built)
      continue;
    }
    if (per_layer_layouts_) ROOFLENS_RETURN_IF_ERROR(convert_inputs(L).with_context("layer '" + L.name + "'"));
    ROOFLENS_RETURN_IF_ERROR(build_fused_layer(*this, L).with_context("layer '" + L.name + "'"));
    for (NodeId n : L.nodes) built_[static_cast<size_t>(n)] = 1;
  }
  // Outputs in row-major; the conversion belongs to the last layer's time.
  if (plans_.empty()) plans_.push_back(LayerPlan{"outputs", {}, {}, 0});
  for (ValueId out : g.outputs) {
    auto m = rowmajor(out);
    if (!m) return m.status();
    output_mems_.push_back(*m);
  }
  if (opts_.reuse_buffers) ROOFLENS_RETURN_IF_ERROR(place_buffers());
  return Status::ok();
}

Status OneDnnBackend::convert_inputs(const LayerReport& L) {
  const Node& anchor = g_->node(L.nodes[0]);
  switch (anchor.kind) {
    case OpKind::kMaxPool:
    case OpKind::kAveragePool:
    case OpKind::kGlobalAveragePool:
    case OpKind::kGlobalMaxPool:
    case OpKind::kRelu:
    case OpKind::kLeakyRelu:
    case OpKind::kSigmoid:
    case OpKind::kTanh:
    case OpKind::kHardSwish:
    case OpKind::kHardSigmoid:
    case OpKind::kClip:
    case OpKind::kAdd:
    case OpKind::kSub:
    case OpKind::kMul:
    case OpKind::kDiv:
    case OpKind::kBatchNormalization:
    case OpKind::kConcat: break;
    default: return Status::ok();
  }
  if (anchor.outputs.empty() || !g_->value(anchor.outputs[0]).shape) return Status::ok();
  const Shape& ys = *g_->value(anchor.outputs[0]).shape;
  for (ValueId v : anchor.inputs) {
    if (v == kNoValue || g_->value(v).is_stored || !g_->value(v).shape) continue;
    const Shape& s = *g_->value(v).shape;
    if (s.size() != 4 || s[1] % 16 != 0 || (anchor.kind != OpKind::kConcat && s != ys)) continue;
    auto m = mem(v);
    if (!m) return m.status();
    const memory::desc cl = md_channels_last(s), bl = md_blocked16(s), want = blocked() ? bl : cl;
    if (m->get_desc() == want || (m->get_desc() != cl && m->get_desc() != bl)) continue;
    auto c = as_desc(v, want);
    if (!c) return c.status();
    mem_[v] = *c;  // later readers take the converted copy too
  }
  return Status::ok();
}

Status OneDnnBackend::run(const std::vector<Tensor>& inputs, std::vector<Tensor>* outputs) {
  if (!g_) return Status::internal("run before prepare");
  // OpenMP's thread count belongs to the calling thread, not to a backend: two backends
  // prepared on different counts and run in turn by one thread (the thread trial) each run on
  // their own.
  if (opts_.threads > 0 && omp_get_max_threads() != opts_.threads) omp_set_num_threads(opts_.threads);
  if (inputs.size() != input_mems_.size())
    return Status::invalid("expected " + std::to_string(input_mems_.size()) + " inputs, got " +
                           std::to_string(inputs.size()));
  for (size_t i = 0; i < inputs.size(); ++i) {
    const size_t n = input_mems_[i].get_desc().get_size() / sizeof(float);
    if (inputs[i].data.size() != n)
      return Status::invalid("input " + std::to_string(i) + " has " + std::to_string(inputs[i].data.size()) +
                             " elements, expected " + std::to_string(n));
    std::memcpy(input_mems_[i].get_data_handle(), inputs[i].data.data(), n * sizeof(float));
  }
  try {
    const DenormalsFlushed flushed(opts_.flush_denormals);
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
std::unique_ptr<Backend> onednn::OneDnnBackend::fresh() const { return make_onednn_backend(); }
std::unique_ptr<Backend> make_onednn_backend() { return std::make_unique<onednn::OneDnnBackend>(); }
}  // namespace rooflens
