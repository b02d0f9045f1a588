// zoo_index and parse_zoo_set (zoo.h).
#include "rooflens/session/zoo.h"

#include <fstream>

#include <nlohmann/json.hpp>

namespace rooflens {
namespace {

std::optional<double> number(const nlohmann::json& m, const char* key) {
  if (m.contains(key) && m[key].is_number()) return m[key].get<double>();
  return std::nullopt;
}

std::string text(const nlohmann::json& m, const char* key) {
  return m.contains(key) && m[key].is_string() ? m[key].get<std::string>() : "";
}

// One manifest: dir/zoo.json, its names prefixed with `prefix`.
void read_manifest(const std::string& dir, const std::string& prefix, const std::string& manifest, ZooSet zoo,
                   std::map<std::string, ZooModel>& idx) {
  std::ifstream f(dir + "/zoo.json");
  if (!f) return;
  auto j = nlohmann::json::parse(f, nullptr, false);
  if (j.is_discarded() || !j.contains("models") || !j["models"].is_array()) return;
  for (const auto& m : j["models"]) {
    if (!m.is_object()) continue;
    const std::string name = text(m, "name");
    if (name.empty()) continue;
    ZooModel z;
    z.name = prefix + name;
    const std::string file = text(m, "file");
    z.path = dir + "/" + (file.empty() ? name + ".onnx" : file);
    z.family = text(m, "family");
    z.manifest = manifest;
    z.zoo = zoo;
    z.acc1 = number(m, "acc1");
    z.acc5 = number(m, "acc5");
    idx[z.name] = std::move(z);
  }
}

}  // namespace

Expected<ZooSet> parse_zoo_set(const std::string& name) {
  if (name == "torchvision") return ZooSet::kTorchvision;
  if (name == "timm") return ZooSet::kTimm;
  if (name == "all") return ZooSet::kAll;
  return Status::invalid("--zoo '" + name + "': expected torchvision, timm or all");
}

std::map<std::string, ZooModel> zoo_index(const std::string& models_dir, ZooSet set) {
  std::map<std::string, ZooModel> idx;
  if (set != ZooSet::kTimm) read_manifest(models_dir, "", "models/zoo.json", ZooSet::kTorchvision, idx);
  if (set != ZooSet::kTorchvision)
    read_manifest(models_dir + "/timm", kTimmPrefix, "models/timm/zoo.json", ZooSet::kTimm, idx);
  return idx;
}

}  // namespace rooflens
