// Whole-graph shape inference through the op table (see infer_shapes.h).
#include "rooflens/passes/infer_shapes.h"

#include "rooflens/ops/op_hooks.h"

namespace rooflens {

namespace {

// Computed when the model loads: every input stored or of known contents, at least one
// stored, none derived from a graph input (not even from its shape: ViT's class token
// expanded to the batch runs per batch), no output a graph output.
bool load_time(const Graph& g, const Node& n, const std::vector<bool>& from_input) {
  bool stored = false;
  for (ValueId in : n.inputs) {
    if (in == kNoValue) continue;
    const Value& v = g.value(in);
    if (from_input[static_cast<size_t>(in)] || (!v.is_stored && !v.ints && !v.reals)) return false;
    stored = stored || v.is_stored;
  }
  for (ValueId out : n.outputs)
    if (out != kNoValue && g.is_output(out)) return false;
  return stored;
}

}  // namespace

Expected<InferResult> infer_shapes(Graph& g) {
  auto order = g.topo_order();
  if (!order) return order.status();
  InferResult r;
  r.order = *order;
  // Values derived from a graph input (its data or its shape); unknown ops count as such.
  std::vector<bool> from_input(g.values.size(), false);
  for (ValueId in : g.inputs) from_input[static_cast<size_t>(in)] = true;
  for (NodeId id : r.order) {
    Node& n = g.node(id);
    bool dep = n.kind == OpKind::kUnknown;
    for (ValueId in : n.inputs) dep = dep || (in != kNoValue && from_input[static_cast<size_t>(in)]);
    for (ValueId out : n.outputs)
      if (out != kNoValue) from_input[static_cast<size_t>(out)] = dep;
    bool inputs_ready = true;
    for (ValueId in : n.inputs)
      if (in != kNoValue && !g.value(in).shape) inputs_ready = false;
    if (n.kind == OpKind::kUnknown) {
      r.unknown_nodes.push_back(id);
      for (ValueId out : n.outputs)
        if (out != kNoValue && g.value(out).hint_shape) g.value(out).shape = g.value(out).hint_shape;
      continue;
    }
    if (!inputs_ready) {
      r.unresolved.push_back(id);
      continue;
    }
    n.desc = OpDesc{};  // the hook sets its family's descriptor
    InferContext ctx(g, id);
    ROOFLENS_RETURN_IF_ERROR(infer_node(n.kind, ctx));
    bool all_known = !n.outputs.empty();
    for (ValueId out : n.outputs) {
      if (out == kNoValue) continue;
      Value& v = g.value(out);
      if (!v.shape)
        return Status::internal(n.op_type + " node '" + n.name + "': shape inference left output '" + v.name +
                                "' without a shape");
      if (!v.ints && !v.reals) all_known = false;
    }
    const OpCategory cat = op_info(n.kind).category;
    n.folded = cat == OpCategory::kMeta || all_known;
    // Views of stored data are stored data (exporters alias shared weights through Identity),
    // and so is what a node computes from stored data and known contents alone: an engine
    // computes it once when it loads the model (Swin V2's position-bias MLP on its coordinate
    // table, its clamped and exponentiated logit scale), so it does no work at inference.
    if (cat != OpCategory::kMeta && load_time(g, n, from_input)) {
      n.folded = true;
      for (ValueId out : n.outputs)
        if (out != kNoValue) g.value(out).is_stored = true;
    }
    if (n.folded) ++r.folded_nodes;
    // A float Constant holds stored data as an initializer does (TResNet's blur filter is
    // one); its elements are the file's when present, else generated (exec/weights.h).
    if (n.kind == OpKind::kConstant && n.outputs.size() == 1 && n.outputs[0] != kNoValue &&
        dtype_is_float(g.value(n.outputs[0]).dtype))
      g.value(n.outputs[0]).is_stored = true;
    if (cat == OpCategory::kView && n.inputs.size() >= 1 && n.inputs[0] != kNoValue && g.value(n.inputs[0]).is_stored)
      for (ValueId out : n.outputs)
        if (out != kNoValue) g.value(out).is_stored = true;
  }
  return r;
}

}  // namespace rooflens
