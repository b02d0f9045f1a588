// Model loading shared by predict, measure and validate (see loading.h).
#include "loading.h"

#include <filesystem>

#include "rooflens/passes/infer_shapes.h"

namespace rooflens::cli {

Expected<Loaded> load_model(const std::string& path, const std::vector<InputShapeOverride>& shapes,
                            DType dtype, std::optional<int64_t> batch) {
  ImportOptions io;
  io.batch = batch;
  io.input_shapes = shapes;
  auto g = import_onnx_file(path, io);
  if (!g) return g.status();
  auto inferred = infer_shapes(*g);
  if (!inferred) return inferred.status().with_context(path);
  AnalyzeOptions ao;
  ao.cost.dtype = dtype;
  ModelAnalysis m = analyze_graph(*g, *inferred, ao);
  m.model = std::filesystem::path(path).stem().string();
  if (!m.unknown_nodes.empty())
    return Status::unsupported(path + ": " + std::to_string(m.unknown_nodes.size()) +
                               " unknown op node(s) (first: " + m.unknown_nodes[0] +
                               "); this command needs every op costed (see `rooflens analyze`)");
  return Loaded{std::move(*g), std::move(m)};
}

}  // namespace rooflens::cli
