// The model-loading flags (see loading.h).
#include "loading.h"

#include <CLI/CLI.hpp>

#include <filesystem>

#include "common.h"
#include "rooflens/session/predict_request.h"

namespace rooflens::cli {

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
  return rooflens::device_with_peak(spec, *db, dtype);
}

void add_engine_option(CLI::App* cmd, std::string* engine) {
  cmd->add_option("--engine", *engine,
                  "the execution GPU predictions describe: tensorrt (default), rooflens-cuda, pytorch-eager, "
                  "pytorch-graph, pytorch-compile (data/engines), or an engine .json file");
}

Expected<EngineProfile> resolve_engine(const std::string& flag, const DeviceSpec& dev) {
  return ::rooflens::resolve_engine(flag, dev, bundled_dir("data/engines", "tensorrt.json", ""));
}

}  // namespace rooflens::cli
