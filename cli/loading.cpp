// Model loading shared by predict, measure, validate, study and whatif (see loading.h).
#include "loading.h"

#include <CLI/CLI.hpp>

#include "common.h"

#include <filesystem>
#include <fstream>

#include "rooflens/passes/batch.h"
#include "rooflens/passes/fold.h"
#include "rooflens/passes/infer_shapes.h"

namespace rooflens::cli {
namespace {

Expected<Loaded> analyse(Graph g, const InferResult& inferred, const std::string& model, DType dtype,
                         const std::string& label) {
  AnalyzeOptions ao;
  ao.cost.dtype = dtype;
  ModelAnalysis m = analyze_graph(g, inferred, ao);
  m.model = model;
  if (!m.unknown_nodes.empty())
    return Status::unsupported(label + ": " + std::to_string(m.unknown_nodes.size()) +
                               " unknown op node(s) (first: " + m.unknown_nodes[0] +
                               "); this command needs every op costed (see `rooflens analyze`)");
  return Loaded{std::move(g), std::move(m)};
}

}  // namespace

Expected<Loaded> load_model(const std::string& path, const std::vector<InputShapeOverride>& shapes,
                            DType dtype, std::optional<int64_t> batch) {
  ImportOptions io;
  io.batch = batch;
  io.input_shapes = shapes;
  auto g = import_onnx_file(path, io);
  if (!g) return g.status();
  auto inferred = infer_shapes(*g);
  if (!inferred) return inferred.status().with_context(path);
  return analyse(std::move(*g), *inferred, std::filesystem::path(path).stem().string(), dtype, path);
}

Expected<Loaded> load_model_rebatched(const std::string& path, DType dtype, int64_t batch,
                                      std::optional<Expected<Loaded>>& cache,
                                      const std::vector<InputShapeOverride>& shapes) {
  if (!cache) cache = load_model(path, shapes, dtype, batch);
  if (!*cache) return cache->status();
  const Loaded& base = **cache;
  if (base.analysis.batch == batch) return Loaded{base.graph, base.analysis};
  auto r = rebatch(base.graph, batch);
  if (!r) return r.status().with_context(path);
  return analyse(std::move(r->graph), r->inferred, base.analysis.model, dtype, path);
}

Expected<Loaded> analyse_loaded_graph(Graph g, const std::string& model, DType dtype) {
  auto inferred = infer_shapes(g);
  if (!inferred) return inferred.status().with_context(model);
  return analyse(std::move(g), *inferred, model, dtype, model);
}

Expected<LoadedModel> fold_loaded(const LoadedModel& l, int factor, int align) {
  FoldOptions fo;
  fo.factor = factor;
  fo.align = align;
  auto g = fold_graph(l.graph, fo);
  if (!g) return g.status();
  auto a = analyse_loaded_graph(std::move(*g), l.analysis.model, l.analysis.dtype);
  if (!a) return a.status();
  return LoadedModel{std::move(a->graph), std::move(a->analysis)};
}

void add_input_shape_option(CLI::App* cmd, std::vector<std::string>* specs) {
  cmd->add_option("--input-shape", *specs,
                  "input shape: 3x299x299 (all but the batch, first input) or NAME:1x3x299x299 (a whole shape, "
                  "one named input); repeatable, one per input");
}

Expected<std::vector<InputShapeOverride>> parse_input_shapes(const std::vector<std::string>& specs) {
  std::vector<InputShapeOverride> shapes;
  for (const auto& spec : specs) {
    auto o = parse_input_shape(spec);
    if (!o) return o.status();
    shapes.push_back(*o);
  }
  return shapes;
}

Expected<DeviceSpec> device_with_peak(const std::string& spec, const std::string& devices_dir_override,
                                      const std::string& dtype) {
  auto db = load_device_dir(devices_dir(devices_dir_override));
  if (!db) return db.status();
  auto dev = resolve_device(spec, *db);
  if (!dev) return dev.status();
  if (!dev->best_peak(dtype)) return Status::unsupported("device '" + dev->id + "' has no " + dtype + " peak");
  return dev;
}

std::map<std::string, nlohmann::json> zoo_index(const std::string& dir) {
  std::map<std::string, nlohmann::json> idx;
  std::ifstream f(dir + "/zoo.json");
  if (!f) return idx;
  auto j = nlohmann::json::parse(f, nullptr, false);
  if (j.is_discarded() || !j.contains("models") || !j["models"].is_array()) return idx;
  for (const auto& m : j["models"]) idx[m.value("name", "")] = m;
  return idx;
}

}  // namespace rooflens::cli
