// zoo_index (zoo.h).
#include "rooflens/session/zoo.h"

#include <fstream>

#include <nlohmann/json.hpp>

namespace rooflens {
namespace {

std::optional<double> number(const nlohmann::json& m, const char* key) {
  if (m.contains(key) && m[key].is_number()) return m[key].get<double>();
  return std::nullopt;
}

}  // namespace

std::map<std::string, ZooModel> zoo_index(const std::string& models_dir) {
  std::map<std::string, ZooModel> idx;
  std::ifstream f(models_dir + "/zoo.json");
  if (!f) return idx;
  auto j = nlohmann::json::parse(f, nullptr, false);
  if (j.is_discarded() || !j.contains("models") || !j["models"].is_array()) return idx;
  for (const auto& m : j["models"]) {
    if (!m.is_object()) continue;
    ZooModel z;
    z.name = m.contains("name") && m["name"].is_string() ? m["name"].get<std::string>() : "";
    const std::string file =
        m.contains("file") && m["file"].is_string() ? m["file"].get<std::string>() : z.name + ".onnx";
    z.path = models_dir + "/" + file;
    z.acc1 = number(m, "acc1");
    z.acc5 = number(m, "acc5");
    idx[z.name] = std::move(z);
  }
  return idx;
}

}  // namespace rooflens
