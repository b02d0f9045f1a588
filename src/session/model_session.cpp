// ModelSession and the transforms of a loaded model (see model_session.h).
#include "rooflens/session/model_session.h"

#include <filesystem>
#include <mutex>
#include <utility>

#include "rooflens/passes/batch.h"
#include "rooflens/passes/folded_cnn.h"
#include "rooflens/passes/infer_shapes.h"
#include "rooflens/passes/pad_channels.h"

namespace rooflens {
namespace {

enum class SourceKind { kFile, kBytes, kGraph };

// Where a session's model comes from, until it is imported.
struct Source {
  SourceKind kind = SourceKind::kFile;
  std::string path;              // kFile
  std::string name;              // display name: the file stem, or the name given
  std::string bytes, model_dir;  // kBytes
  std::vector<InputShapeOverride> input_shapes;
  Graph graph;  // kGraph
  // What errors name: the file, or the model's name.
  const std::string& label() const { return kind == SourceKind::kFile ? path : name; }
};

// The imported graph with its shapes inferred, at the batch it was imported at.
struct Imported {
  Graph graph;
  InferResult inferred;
  int64_t batch = 1;
};

int64_t batch_of(const Graph& g) {
  if (g.inputs.empty()) return 1;
  const auto& shape = g.value(g.inputs[0]).shape;
  return shape && !shape->empty() ? (*shape)[0] : 1;
}

// Imports (at `batch`; a built graph keeps its own) and infers shapes. Consumes the source's
// bytes or graph.
Expected<Imported> import_source(Source& s, std::optional<int64_t> batch) {
  Graph g;
  if (s.kind == SourceKind::kGraph) {
    g = std::move(s.graph);
  } else {
    ImportOptions io;
    io.batch = batch;
    io.input_shapes = s.input_shapes;
    auto imported =
        s.kind == SourceKind::kFile ? import_onnx_file(s.path, io) : import_onnx_bytes(s.bytes, s.model_dir, io);
    std::string().swap(s.bytes);
    if (!imported) return imported.status();
    g = std::move(*imported);
  }
  auto inferred = infer_shapes(g);
  if (!inferred) return inferred.status().with_context(s.label());
  const int64_t b = batch_of(g);
  return Imported{std::move(g), std::move(*inferred), b};
}

ModelAnalysis analyse(const Graph& g, const InferResult& inferred, const std::string& name, const AnalyzeOptions& ao) {
  ModelAnalysis m = analyze_graph(g, inferred, ao);
  m.model = name;
  return m;
}

// The graph analysed fused at `dtype`, refused when an op is unknown.
Expected<LoadedModel> loaded(Graph g, const InferResult& inferred, const Source& s, DType dtype) {
  AnalyzeOptions ao;
  ao.cost.dtype = dtype;
  ModelAnalysis m = analyse(g, inferred, s.name, ao);
  if (!m.unknown_nodes.empty())
    return Status::unsupported(s.label() + ": " + std::to_string(m.unknown_nodes.size()) +
                               " unknown op node(s): " + unknown_ops_summary(m.unknown_nodes) +
                               "; this command needs every op costed (see `rooflens analyze`)");
  return LoadedModel{std::move(g), std::move(m)};
}

// Imports a source once and hands out the result.
Expected<LoadedModel> load_once(Source s, std::optional<int64_t> batch, DType dtype) {
  auto base = import_source(s, batch);
  if (!base) return base.status();
  return loaded(std::move(base->graph), base->inferred, s, dtype);
}

}  // namespace

struct ModelSession::State {
  Source source;
  std::mutex mu;
  std::optional<Expected<Imported>> imported;  // set once, by the first call; never changed after

  const Expected<Imported>& import_at(std::optional<int64_t> batch) {
    std::lock_guard<std::mutex> lock(mu);
    if (!imported) imported.emplace(import_source(source, batch));
    return *imported;
  }
};

ModelSession::ModelSession(std::shared_ptr<State> state) : state_(std::move(state)) {}

ModelSession ModelSession::from_file(const std::string& path, std::vector<InputShapeOverride> input_shapes) {
  auto s = std::make_shared<State>();
  s->source.kind = SourceKind::kFile;
  s->source.path = path;
  s->source.name = std::filesystem::path(path).stem().string();
  s->source.input_shapes = std::move(input_shapes);
  return ModelSession(std::move(s));
}

ModelSession ModelSession::from_bytes(std::string bytes, const std::string& name, const std::string& model_dir,
                                      std::vector<InputShapeOverride> input_shapes) {
  auto s = std::make_shared<State>();
  s->source.kind = SourceKind::kBytes;
  s->source.name = name;
  s->source.bytes = std::move(bytes);
  s->source.model_dir = model_dir;
  s->source.input_shapes = std::move(input_shapes);
  return ModelSession(std::move(s));
}

ModelSession ModelSession::from_graph(Graph graph, const std::string& name) {
  auto s = std::make_shared<State>();
  s->source.kind = SourceKind::kGraph;
  s->source.name = name;
  s->source.graph = std::move(graph);
  return ModelSession(std::move(s));
}

const std::string& ModelSession::name() const { return state_->source.name; }

Expected<LoadedModel> ModelSession::model(std::optional<int64_t> batch, DType dtype) const {
  const Expected<Imported>& base = state_->import_at(batch);
  if (!base) return base.status();
  if (!batch || *batch == base->batch) return loaded(base->graph, base->inferred, state_->source, dtype);
  auto r = rebatch(base->graph, *batch);
  if (!r) return r.status().with_context(state_->source.label());
  return loaded(std::move(r->graph), r->inferred, state_->source, dtype);
}

Expected<ModelAnalysis> ModelSession::analysis(std::optional<int64_t> batch, const AnalyzeOptions& options) const {
  const Expected<Imported>& base = state_->import_at(batch);
  if (!base) return base.status();
  if (!batch || *batch == base->batch) return analyse(base->graph, base->inferred, state_->source.name, options);
  auto r = rebatch(base->graph, *batch);
  if (!r) return r.status().with_context(state_->source.label());
  return analyse(r->graph, r->inferred, state_->source.name, options);
}

ModelLoader ModelSession::loader(DType dtype) const {
  return [session = *this, dtype](int64_t batch) { return session.model(batch, dtype); };
}

TypedLoader ModelSession::typed_loader() const {
  return [session = *this](int64_t batch, DType dtype) { return session.model(batch, dtype); };
}

Expected<LoadedModel> load_model(const std::string& path, const std::vector<InputShapeOverride>& input_shapes,
                                 DType dtype, std::optional<int64_t> batch) {
  Source s;
  s.path = path;
  s.name = std::filesystem::path(path).stem().string();
  s.input_shapes = input_shapes;
  return load_once(std::move(s), batch, dtype);
}

Expected<LoadedModel> analyse_loaded_graph(Graph g, const std::string& model, DType dtype) {
  Source s;
  s.kind = SourceKind::kGraph;
  s.name = model;
  s.graph = std::move(g);
  return load_once(std::move(s), std::nullopt, dtype);
}

Expected<LoadedModel> fold_model(const LoadedModel& m, int factor, int align) {
  FoldedCnnOptions fo;
  fo.factor = factor;
  fo.align = align;
  auto g = folded_cnn(m.graph, fo);
  if (!g) return g.status();
  return analyse_loaded_graph(std::move(*g), m.analysis.model, m.analysis.dtype);
}

Expected<LoadedModel> pad_model_channels(const LoadedModel& m, int multiple) {
  auto g = pad_channels(m.graph, multiple);
  if (!g) return g.status();
  return analyse_loaded_graph(std::move(*g), m.analysis.model, m.analysis.dtype);
}

}  // namespace rooflens
