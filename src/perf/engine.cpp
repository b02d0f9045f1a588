// Engine profiles (perf/engine.h): the one reader and writer of data/engines/*.json.
#include "rooflens/perf/engine.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace rooflens {
namespace {

using nlohmann::json;
constexpr const char* kSchema = "rooflens.engine/1";

Expected<FusionMode> fusion_from_name(const std::string& s) {
  if (s == "engine") return FusionMode::kEngine;
  if (s == "none") return FusionMode::kNone;
  if (s == "pointwise") return FusionMode::kPointwise;
  return Status::invalid("fusion '" + s + "' is not engine, pointwise or none");
}

Expected<MisalignedTactic> tactic_from_name(const std::string& s) {
  if (s == "cuda-cores") return MisalignedTactic::kCudaCores;
  if (s == "fastest") return MisalignedTactic::kFastest;
  if (s == "heuristic") return MisalignedTactic::kHeuristic;
  return Status::invalid("misaligned '" + s + "' is not cuda-cores, fastest or heuristic");
}

// A number field in [lo, hi]; missing fields keep the default.
Status read_number(const json& j, const char* key, double lo, double hi, double& out) {
  if (!j.contains(key)) return Status::ok();
  if (!j[key].is_number()) return Status::invalid(fmt::format("'{}' must be a number", key));
  const double v = j[key].get<double>();
  if (!(v >= lo && v <= hi)) return Status::invalid(fmt::format("'{}' = {} is outside [{}, {}]", key, v, lo, hi));
  out = v;
  return Status::ok();
}

Status parse_into(const json& j, EngineProfile& e) {
  if (!j.is_object() || j.value("schema", "") != kSchema)
    return Status::invalid(std::string("not a ") + kSchema + " object (field 'schema')");
  if (!j.contains("id") || !j["id"].is_string() || j["id"].get<std::string>().empty())
    return Status::invalid("'id' must be a non-empty string");
  e.id = j["id"].get<std::string>();
  e.name = j.value("name", e.id);
  if (j.contains("applies_to")) {
    if (!j["applies_to"].is_array()) return Status::invalid("'applies_to' must be a list of device kinds");
    e.applies_to.clear();
    for (const auto& k : j["applies_to"]) {
      if (!k.is_string() || (k != "gpu" && k != "cpu"))
        return Status::invalid("'applies_to' lists device kinds: gpu, cpu");
      e.applies_to.push_back(k.get<std::string>());
    }
  }
  const json rules = j.value("rules", json::object());
  if (rules.contains("fusion")) {
    auto f = fusion_from_name(rules["fusion"].get<std::string>());
    if (!f) return f.status();
    e.fusion = *f;
  }
  if (rules.contains("misaligned")) {
    auto t = tactic_from_name(rules["misaligned"].get<std::string>());
    if (!t) return t.status();
    e.misaligned = *t;
  }
  e.pseudo_half = rules.value("pseudo_half", e.pseudo_half);
  e.captured = rules.value("captured", e.captured);
  const json c = j.value("constants", json::object());
  double rows_min = static_cast<double>(e.padded_rows_min), rows_max = static_cast<double>(e.padded_rows_max);
  double tc_channels = e.tc_full_rate_channels;
  for (Status s :
       {read_number(c, "padded_rows_min", 0, 1e12, rows_min), read_number(c, "padded_rows_max", 0, 1e12, rows_max),
        read_number(c, "small_channel_efficiency", 1e-3, 1, e.small_channel_efficiency),
        read_number(c, "tc_full_rate_channels", 0, 1024, tc_channels),
        read_number(c, "gemm_efficiency", 1e-3, 1, e.gemm_efficiency),
        read_number(c, "cuda_core_efficiency", 1e-3, 1, e.cuda_core_efficiency),
        read_number(c, "depthwise_efficiency", 1e-3, 1, e.depthwise_efficiency),
        read_number(c, "memory_efficiency", 0, 1, e.memory_efficiency),
        read_number(c, "kernel_gap_s", 0, 1e-2, e.kernel_gap_s),
        read_number(c, "host_library_call_s", 0, 1e-2, e.host_library_call_s),
        read_number(c, "host_kernel_call_s", 0, 1e-2, e.host_kernel_call_s)})
    if (!s) return s;
  e.padded_rows_min = static_cast<int64_t>(rows_min);
  e.padded_rows_max = static_cast<int64_t>(rows_max);
  e.tc_full_rate_channels = static_cast<int>(tc_channels);
  if (j.contains("sources")) {
    if (!j["sources"].is_object()) return Status::invalid("'sources' must be an object of strings");
    for (const auto& [k, v] : j["sources"].items()) {
      if (!v.is_string()) return Status::invalid("sources." + k + " must be a string");
      e.sources[k] = v.get<std::string>();
    }
  }
  return Status::ok();
}

}  // namespace

std::string_view misaligned_tactic_name(MisalignedTactic t) {
  switch (t) {
    case MisalignedTactic::kCudaCores: return "cuda-cores";
    case MisalignedTactic::kFastest: return "fastest";
    case MisalignedTactic::kHeuristic: return "heuristic";
  }
  return "?";
}

std::string_view fusion_mode_name(FusionMode m) {
  switch (m) {
    case FusionMode::kEngine: return "engine";
    case FusionMode::kNone: return "none";
    case FusionMode::kPointwise: return "pointwise";
  }
  return "?";
}

bool EngineProfile::applies_to_kind(const std::string& kind) const {
  return std::find(applies_to.begin(), applies_to.end(), kind) != applies_to.end();
}

std::string EngineProfile::describe() const {
  std::string s = "engine: " + id + " (" + name + "; fusion " + std::string(fusion_mode_name(fusion));
  if (!captured && (host_library_call_s > 0 || host_kernel_call_s > 0))
    s += fmt::format("; host {:.0f} us per library call, {:.0f} us per kernel", host_library_call_s * 1e6,
                     host_kernel_call_s * 1e6);
  return s + ")";
}

Expected<EngineProfile> parse_engine_json(const std::string& text, const std::string& file) {
  json j;
  try {
    j = json::parse(text);
  } catch (const std::exception& ex) {
    return Status::invalid(file + ": not JSON: " + ex.what());
  }
  EngineProfile e;
  try {
    if (Status s = parse_into(j, e); !s) return s.with_context(file);
  } catch (const std::exception& ex) {
    return Status::invalid(file + ": " + ex.what());
  }
  e.file = file;
  return e;
}

Expected<EngineProfile> load_engine_file(const std::string& path) {
  std::ifstream f(path);
  if (!f) return Status::invalid(path + ": cannot read the engine file");
  std::stringstream ss;
  ss << f.rdbuf();
  return parse_engine_json(ss.str(), path);
}

nlohmann::ordered_json engine_json(const EngineProfile& e) {
  nlohmann::ordered_json j;
  j["schema"] = kSchema;
  j["id"] = e.id;
  j["name"] = e.name;
  j["applies_to"] = e.applies_to;
  j["rules"] = {{"fusion", fusion_mode_name(e.fusion)},
                {"misaligned", misaligned_tactic_name(e.misaligned)},
                {"pseudo_half", e.pseudo_half},
                {"captured", e.captured}};
  j["constants"] = {{"padded_rows_min", e.padded_rows_min},
                    {"padded_rows_max", e.padded_rows_max},
                    {"small_channel_efficiency", e.small_channel_efficiency},
                    {"tc_full_rate_channels", e.tc_full_rate_channels},
                    {"gemm_efficiency", e.gemm_efficiency},
                    {"cuda_core_efficiency", e.cuda_core_efficiency},
                    {"depthwise_efficiency", e.depthwise_efficiency},
                    {"memory_efficiency", e.memory_efficiency},
                    {"kernel_gap_s", e.kernel_gap_s},
                    {"host_library_call_s", e.host_library_call_s},
                    {"host_kernel_call_s", e.host_kernel_call_s}};
  nlohmann::ordered_json src = nlohmann::ordered_json::object();
  for (const auto& [k, v] : e.sources) src[k] = v;
  j["sources"] = src;
  return j;
}

Expected<std::vector<EngineProfile>> load_engine_dir(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return Status::unavailable(dir + ": engine profile directory not found");
  std::vector<std::string> files;
  for (const auto& ent : fs::directory_iterator(dir, ec))
    if (ent.path().extension() == ".json") files.push_back(ent.path().string());
  std::sort(files.begin(), files.end());
  std::vector<EngineProfile> out;
  for (const auto& f : files) {
    auto e = load_engine_file(f);
    if (!e) return e.status();
    for (const auto& o : out)
      if (o.id == e->id) return Status::invalid(f + ": engine id '" + e->id + "' is used by " + o.file);
    out.push_back(std::move(*e));
  }
  std::sort(out.begin(), out.end(), [](const EngineProfile& a, const EngineProfile& b) { return a.id < b.id; });
  return out;
}

Expected<EngineProfile> find_engine(const std::string& id, const std::vector<EngineProfile>& db) {
  std::string known;
  for (const auto& e : db) {
    if (e.id == id) return e;
    known += (known.empty() ? "" : ", ") + e.id;
  }
  return Status::invalid("--engine '" + id + "': no such engine profile (known: " + known + ")");
}

Status check_engine_applies(const EngineProfile& e, const DeviceSpec& d) {
  const std::string kind = d.is_gpu() ? "gpu" : "cpu";
  if (e.applies_to_kind(kind)) return Status::ok();
  std::string kinds;
  for (const auto& k : e.applies_to) kinds += (kinds.empty() ? "" : ", ") + k;
  return Status::invalid("--engine '" + e.id + "' does not apply to device '" + d.id + "' (a " + kind +
                         "; it applies to: " + kinds + ")");
}

Expected<EngineProfile> resolve_engine(const std::string& id_or_file, const DeviceSpec& dev,
                                       const std::string& engines_dir) {
  if (id_or_file.empty() && !dev.is_gpu()) return EngineProfile{};
  const std::string id = id_or_file.empty() ? "tensorrt" : id_or_file;
  auto e = [&]() -> Expected<EngineProfile> {
    if (std::filesystem::path(id).extension() == ".json") return load_engine_file(id);
    auto db = load_engine_dir(engines_dir);
    if (!db) return db.status();
    return find_engine(id, *db);
  }();
  if (!e) return e.status();
  if (Status s = check_engine_applies(*e, dev); !s) return s;
  return e;
}

}  // namespace rooflens
