// Rebatching a graph without re-importing it (see batch.h).
#include "rooflens/passes/batch.h"

#include <string>

namespace rooflens {

Expected<Rebatched> rebatch(const Graph& g, int64_t batch) {
  if (batch < 1) return Status::invalid("batch " + std::to_string(batch) + ": must be at least 1");
  Rebatched r{g, {}};
  Graph& out = r.graph;
  for (ValueId in : out.inputs) {
    Value& v = out.value(in);
    if (!v.shape || v.shape->empty()) return Status::invalid("graph input '" + v.name + "' has no shape to rebatch");
    (*v.shape)[0] = batch;
  }
  for (Value& v : out.values) {
    if (v.kind != ValueKind::kActivation) continue;
    v.shape.reset();
    v.ints.reset();
    v.reals.reset();
    v.is_stored = false;
  }
  for (Node& n : out.nodes) n.folded = false;
  auto inf = infer_shapes(out);
  if (!inf) return inf.status();
  r.inferred = std::move(*inf);
  return r;
}

}  // namespace rooflens
