// Graph patterns (see patterns.h).
#include "rooflens/ir/patterns.h"

#include <variant>

namespace rooflens {

NodeId concat_feeding_norm_relu(const Graph& g, NodeId concat) {
  const Node& c = g.node(concat);
  if (c.kind != OpKind::kConcat || c.inputs.size() < 2 || c.outputs.size() != 1) return -1;
  const Value& y = g.value(c.outputs[0]);
  if (!y.shape || y.shape->size() != 4 || g.is_output(c.outputs[0]) || y.consumers.size() != 1) return -1;
  const auto* ad = std::get_if<AxisDesc>(&c.desc);  // axis normalised by shape inference
  if (!ad || ad->axis != 1) return -1;
  for (ValueId in : c.inputs)
    if (in == kNoValue || !g.value(in).shape || g.value(in).shape->size() != 4) return -1;
  const NodeId bn_id = y.consumers[0];
  const Node& bn = g.node(bn_id);
  if (bn.kind != OpKind::kBatchNormalization || bn.inputs.size() < 5 || bn.inputs[0] != c.outputs[0] ||
      bn.outputs.empty())
    return -1;
  for (size_t i = 1; i < 5; ++i)
    if (bn.inputs[i] == kNoValue || !g.value(bn.inputs[i]).is_stored) return -1;
  const Value& z = g.value(bn.outputs[0]);
  if (g.is_output(bn.outputs[0]) || z.consumers.size() != 1) return -1;
  const Node& relu = g.node(z.consumers[0]);
  if (relu.kind != OpKind::kRelu || relu.outputs.empty() || g.is_output(relu.outputs[0])) return -1;
  return bn_id;
}

}  // namespace rooflens
