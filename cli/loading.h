// What commands that load a model share: the --input-shape flag, and --device resolved with a
// peak for the dtype. Loading itself is the library's model session (session/model_session.h).
#pragma once

#include <string>
#include <vector>

#include "rooflens/device/device.h"
#include "rooflens/onnx/import.h"
#include "rooflens/perf/engine.h"
#include "rooflens/session/model_session.h"
#include "rooflens/session/zoo.h"

namespace CLI {
class App;
}

namespace rooflens::cli {

// The model-loading flag every command that loads one model file shares (analyze, predict,
// measure, doctor, whatif): --input-shape, repeatable, parsed by parse_input_shapes below.
void add_input_shape_option(CLI::App* cmd, std::vector<std::string>* specs);

// `--input-shape` values (see onnx/import.h), parsed; the first bad one is the error.
Expected<std::vector<InputShapeOverride>> parse_input_shapes(const std::vector<std::string>& specs);

// `--device` resolved against the database in `devices_dir_override` (or the bundled one),
// refused as unsupported when the device has no peak for `dtype`.
Expected<DeviceSpec> device_with_peak(const std::string& spec, const std::string& devices_dir_override,
                                      const std::string& dtype);

// --engine on predict, study, doctor, whatif, sss, nas and validate.
void add_engine_option(CLI::App* cmd, std::string* engine);

// The engine profile `flag` names for `dev`: an id in the bundled data/engines, or a
// rooflens.engine/1 .json file; empty: tensorrt on a GPU, the built-in default on a CPU (no
// engine applies there). Invalid input when the id is unknown or the engine does not apply to
// the device.
Expected<EngineProfile> resolve_engine(const std::string& flag, const DeviceSpec& dev);

}  // namespace rooflens::cli
