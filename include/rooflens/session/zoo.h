// The bundled model zoos' manifests: torchvision's CNNs (models/zoo.json) and timm's CNNs
// (models/timm/zoo.json), each model's file, family and accuracy.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "rooflens/util/status.h"

namespace rooflens {

// Which bundled zoo: torchvision's (models/), timm's (models/timm/), or both.
enum class ZooSet { kTorchvision, kTimm, kAll };

// "torchvision", "timm" or "all"; anything else is invalid input naming the value.
Expected<ZooSet> parse_zoo_set(const std::string& name);

struct ZooModel {
  std::string name;  // the key: torchvision's name, or "timm/<timm name>" for timm's zoo
  std::string path;  // the ONNX file: <manifest dir>/<file>, file defaulting to <name>.onnx
  std::string family;
  std::string manifest;               // the zoo.json it came from, relative: models/zoo.json, models/timm/zoo.json
  ZooSet zoo = ZooSet::kTorchvision;  // kTorchvision or kTimm
  std::optional<double> acc1, acc5;   // top-1 and top-5 accuracy (%) where the manifest has them
};

// The manifests under `models_dir` (its zoo.json for torchvision, timm/zoo.json for timm) by
// model name; a missing or unreadable manifest contributes nothing. timm's models are keyed
// "timm/<name>" so that names both zoos use (resnet50, densenet121, ...) stay apart.
std::map<std::string, ZooModel> zoo_index(const std::string& models_dir, ZooSet set = ZooSet::kTorchvision);

// The prefix of timm's keys.
inline constexpr const char* kTimmPrefix = "timm/";

}  // namespace rooflens
