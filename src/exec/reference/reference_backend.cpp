// The reference backend: runs every op of the op table with plain, obviously correct loops
// (kernels in this directory, one file per op family). Single-threaded, fp32, NCHW. It is
// the oracle the other backends are tested against, not a fast path.
#include <array>
#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "kernels.h"
#include "rooflens/exec/backend.h"
#include "rooflens/exec/weights.h"

namespace rooflens {
namespace ref {

using KernelFn = Status (*)(KernelContext&);

static constexpr std::array<KernelFn, kOpCount> kKernels = {{
#define ROOFLENS_X(kind, name, family, cat) &run_##kind,
    ROOFLENS_OP_LIST(ROOFLENS_X)
#undef ROOFLENS_X
}};

Status run_kernel(OpKind kind, KernelContext& ctx) {
  ROOFLENS_ASSERT(kind != OpKind::kUnknown);
  return kKernels[static_cast<size_t>(kind)](ctx);
}

namespace {

bool holds_ints(const Value& v) { return dtype_is_integer(v.dtype) || v.dtype == DType::kBool; }

class ReferenceBackend final : public Backend {
 public:
  std::string name() const override { return "reference"; }
  std::unique_ptr<Backend> fresh() const override { return std::make_unique<ReferenceBackend>(); }

  bool supports(const Graph& g, NodeId n, std::string* reason) const override {
    const Node& node = g.node(n);
    if (node.kind != OpKind::kUnknown) return true;
    if (reason)
      *reason = "reference backend: op '" + node.op_type + "' (node '" + node.name + "') is not in the op table";
    return false;
  }

  Status prepare(const Graph& g, const ModelAnalysis& fused, const ExecOptions& o) override {
    prepared_ = false;
    g_ = g;
    seed_ = o.seed;
    for (NodeId n = 0; n < static_cast<NodeId>(g_.nodes.size()); ++n) {
      std::string reason;
      if (!supports(g_, n, &reason)) return Status::unsupported(reason);
      const Node& node = g_.node(n);
      for (const auto* ids : {&node.inputs, &node.outputs})
        for (ValueId v : *ids)
          if (v != kNoValue && !g_.value(v).shape)
            return Status::invalid("reference backend: value '" + g_.value(v).name + "' of " + node.op_type +
                                   " node '" + node.name + "' has no shape (run infer_shapes before prepare)");
    }
    auto order = g_.topo_order();
    if (!order) return order.status();
    order_ = *order;

    is_output_.assign(g_.values.size(), false);
    for (ValueId v : g_.outputs) is_output_[static_cast<size_t>(v)] = true;
    std::vector<bool> is_input(g_.values.size(), false);
    for (ValueId v : g_.inputs) is_input[static_cast<size_t>(v)] = true;
    uses_.assign(g_.values.size(), 0);
    for (const Node& node : g_.nodes)
      for (ValueId v : node.inputs)
        if (v != kNoValue) ++uses_[static_cast<size_t>(v)];

    // Everything no node produces and no caller feeds is stored: the file's data or
    // generated weights, materialised once here. So is what shape inference found computed
    // from stored data alone at load time (not a view, no known contents): generated like a
    // weight, as the other backends take it. Integer data missing from the file is an
    // error only if a node that is not folded reads it (folded nodes then take their
    // outputs from the contents shape inference computed).
    stored_.clear();
    missing_.clear();
    for (ValueId v = 0; v < static_cast<ValueId>(g_.values.size()); ++v) {
      const Value& val = g_.value(v);
      if (is_input[static_cast<size_t>(v)] || (val.producer >= 0 && !load_time_value(v))) continue;
      if (uses_[static_cast<size_t>(v)] == 0 && !is_output_[static_cast<size_t>(v)]) continue;
      if (!val.is_stored && !val.ints && !val.reals)
        return Status::invalid("reference backend: value '" + val.name +
                               "' has no producer, is not a graph input and holds no data");
      auto t = stored_tensor(g_, v, seed_);
      if (t)
        stored_.emplace(v, std::move(*t));
      else if (t.status().code() == StatusCode::kUnsupported)
        missing_.emplace(v, t.status());
      else
        return t.status();
    }

    layers_.clear();
    for (const LayerReport& l : fused.layers) {
      for (NodeId n : l.nodes)
        if (n < 0 || static_cast<size_t>(n) >= g_.nodes.size())
          return Status::invalid("reference backend: fused layer '" + l.name + "' names node " + std::to_string(n) +
                                 ", which the graph lacks");
      layers_.push_back({l.name, l.nodes});
    }
    node_time_s_.assign(g_.nodes.size(), 0.0);
    prepared_ = true;
    return Status::ok();
  }

  Status run(const std::vector<Tensor>& inputs, std::vector<Tensor>* outputs) override {
    if (!prepared_) return Status::invalid("reference backend: run() before a successful prepare()");
    if (inputs.size() != g_.inputs.size())
      return Status::invalid("reference backend: got " + std::to_string(inputs.size()) + " inputs, the graph has " +
                             std::to_string(g_.inputs.size()));
    const size_t nv = g_.values.size();
    std::vector<const Tensor*> where(nv, nullptr);
    std::vector<Tensor> owned(nv);
    for (size_t i = 0; i < inputs.size(); ++i) {
      const ValueId v = g_.inputs[i];
      ROOFLENS_RETURN_IF_ERROR(check_input(g_.value(v), inputs[i]));
      where[static_cast<size_t>(v)] = &inputs[i];
    }
    for (const auto& [v, t] : stored_) where[static_cast<size_t>(v)] = &t;
    std::vector<int> left = uses_;

    for (NodeId id : order_) {
      const Node& node = g_.node(id);
      if (computed_at_load(node)) continue;
      std::vector<const Tensor*> ins(node.inputs.size(), nullptr);
      Status missing;
      for (size_t i = 0; i < node.inputs.size(); ++i) {
        const ValueId v = node.inputs[i];
        if (v == kNoValue) continue;
        ins[i] = where[static_cast<size_t>(v)];
        if (ins[i]) continue;
        auto m = missing_.find(v);
        if (m == missing_.end())
          return Status::invalid("reference backend: " + node.op_type + " node '" + node.name + "' reads '" +
                                 g_.value(v).name + "', which is neither produced, fed, nor stored");
        missing = m->second;
      }
      std::vector<Tensor> outs(node.outputs.size());
      const auto t0 = std::chrono::steady_clock::now();
      Status st;
      if (missing.is_ok()) {
        KernelContext ctx(g_, id, std::move(ins), &outs, seed_);
        st = run_kernel(node.kind, ctx);
      } else {
        st = known_outputs(node, missing, &outs);
      }
      const auto t1 = std::chrono::steady_clock::now();
      node_time_s_[static_cast<size_t>(id)] = std::chrono::duration<double>(t1 - t0).count();
      if (!st) return st;
      for (size_t i = 0; i < node.outputs.size(); ++i) {
        const ValueId v = node.outputs[i];
        if (v == kNoValue) continue;
        ROOFLENS_RETURN_IF_ERROR(check_output(node, g_.value(v), outs[i]));
        owned[static_cast<size_t>(v)] = std::move(outs[i]);
        where[static_cast<size_t>(v)] = &owned[static_cast<size_t>(v)];
      }
      // Release intermediates after their last reader.
      for (ValueId v : node.inputs) {
        if (v == kNoValue) continue;
        const auto k = static_cast<size_t>(v);
        if (--left[k] == 0 && !is_output_[k] && g_.value(v).producer >= 0) {
          owned[k] = Tensor{};
          where[k] = nullptr;
        }
      }
    }

    outputs->resize(g_.outputs.size());
    for (size_t i = 0; i < g_.outputs.size(); ++i) {
      const Tensor* t = where[static_cast<size_t>(g_.outputs[i])];
      if (!t)
        return Status::invalid("reference backend: graph output '" + g_.value(g_.outputs[i]).name +
                               "' was never computed");
      (*outputs)[i] = *t;
    }
    return Status::ok();
  }

  std::vector<LayerTiming> layer_timings() const override {
    std::vector<LayerTiming> out;
    for (const auto& [name, nodes] : layers_) {
      LayerTiming t{name, 0.0, "reference"};
      for (NodeId n : nodes) t.time_s += node_time_s_[static_cast<size_t>(n)];
      out.push_back(std::move(t));
    }
    return out;
  }

 private:
  // A value computed from stored data alone when the model loads: materialised in prepare().
  bool load_time_value(ValueId v) const {
    const Value& val = g_.value(v);
    return val.producer >= 0 && val.is_stored && !val.ints && !val.reals && g_.node(val.producer).folded &&
           !is_view_op(g_.node(val.producer).kind);
  }
  bool computed_at_load(const Node& node) const {
    bool any = false;
    for (ValueId v : node.outputs) {
      if (v == kNoValue) continue;
      if (!load_time_value(v)) return false;
      any = true;
    }
    return any;
  }

  // Outputs of a node that cannot run (an input's data is missing) from the contents shape
  // inference folded; `why` when it folded none.
  Status known_outputs(const Node& node, const Status& why, std::vector<Tensor>* outs) const {
    for (size_t i = 0; i < node.outputs.size(); ++i) {
      const ValueId v = node.outputs[i];
      if (v == kNoValue) continue;
      if (!node.folded || (!g_.value(v).ints && !g_.value(v).reals))
        return why.with_context("reference backend: " + node.op_type + " node '" + node.name + "'");
      auto t = stored_tensor(g_, v, seed_);
      if (!t) return t.status();
      (*outs)[i] = std::move(*t);
    }
    return Status::ok();
  }

  static Status check_input(const Value& v, const Tensor& t) {
    if (t.shape != *v.shape)
      return Status::invalid("reference backend: input '" + v.name + "' has shape " + shape_str(t.shape) +
                             ", the graph expects " + shape_str(*v.shape));
    const bool want_ints = holds_ints(v);
    const auto n = static_cast<size_t>(t.numel());
    if (want_ints && (t.dtype != DType::kI64 || t.ints.size() != n))
      return Status::invalid("reference backend: input '" + v.name + "' (" + std::string(dtype_name(v.dtype)) +
                             ") needs " + std::to_string(n) + " int64 elements in Tensor::ints");
    if (!want_ints && (t.dtype != DType::kF32 || t.data.size() != n))
      return Status::invalid("reference backend: input '" + v.name + "' needs " + std::to_string(n) +
                             " fp32 elements in Tensor::data");
    return Status::ok();
  }

  // Internal invariant: a kernel filled its output with the inferred shape.
  static Status check_output(const Node& node, const Value& v, const Tensor& t) {
    const auto n = static_cast<size_t>(checked_numel(*v.shape).value_or(0));
    const size_t have = t.dtype == DType::kI64 ? t.ints.size() : t.data.size();
    if (t.shape != *v.shape || have != n)
      return Status::internal("reference backend: " + node.op_type + " node '" + node.name + "' produced '" + v.name +
                              "' as " + shape_str(t.shape) + " with " + std::to_string(have) +
                              " elements, inference says " + shape_str(*v.shape));
    return Status::ok();
  }

  Graph g_;
  uint64_t seed_ = 0;
  bool prepared_ = false;
  std::vector<NodeId> order_;
  std::map<ValueId, Tensor> stored_;
  std::map<ValueId, Status> missing_;  // stored integer values without data
  std::vector<bool> is_output_;
  std::vector<int> uses_;
  std::vector<std::pair<std::string, std::vector<NodeId>>> layers_;
  std::vector<double> node_time_s_;
};

}  // namespace
}  // namespace ref

std::unique_ptr<Backend> make_reference_backend() { return std::make_unique<ref::ReferenceBackend>(); }

}  // namespace rooflens
