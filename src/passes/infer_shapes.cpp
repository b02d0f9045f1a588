// Whole-graph shape inference through the op table (see infer_shapes.h).
#include "rooflens/passes/infer_shapes.h"

#include "rooflens/ops/op_hooks.h"

namespace rooflens {

Expected<InferResult> infer_shapes(Graph& g) {
  auto order = g.topo_order();
  if (!order) return order.status();
  InferResult r;
  r.order = *order;
  for (NodeId id : r.order) {
    Node& n = g.node(id);
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
    if (n.folded) ++r.folded_nodes;
    // Views of stored data are stored data (exporters alias shared weights through Identity).
    if (cat == OpCategory::kView && n.inputs.size() >= 1 && n.inputs[0] != kNoValue && g.value(n.inputs[0]).is_stored)
      for (ValueId out : n.outputs)
        if (out != kNoValue) g.value(out).is_stored = true;
  }
  return r;
}

}  // namespace rooflens
