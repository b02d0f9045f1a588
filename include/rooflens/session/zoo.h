// The bundled model zoo's manifest (models/zoo.json): each model's file and accuracy.
#pragma once

#include <map>
#include <optional>
#include <string>

namespace rooflens {

struct ZooModel {
  std::string name;
  std::string path;                  // the ONNX file: <models_dir>/<file>, file defaulting to <name>.onnx
  std::optional<double> acc1, acc5;  // top-1 and top-5 accuracy (%) where the manifest has them
};

// The manifest in `models_dir` by model name; empty when it is missing or unreadable.
std::map<std::string, ZooModel> zoo_index(const std::string& models_dir);

}  // namespace rooflens
