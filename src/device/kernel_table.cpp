// The measured kernel table of a device file (see kernel_table.h).
#include "rooflens/device/kernel_table.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

namespace rooflens {

using nlohmann::json;

const std::map<std::string, std::vector<std::string>>& kernel_class_features() {
  static const std::map<std::string, std::vector<std::string>> m = {
      {"conv",
       {"log_rows", "log_cols", "log_k", "residual", "transcendental", "log_cols_fill", "grouped",
        "transcendental_log_k"}},
      {"stem", {"log_rows", "log_cols", "log_k", "transcendental"}},
      {"pointwise",
       {"log_rows", "log_cols", "log_k", "residual", "transcendental", "log_cols_fill", "transcendental_log_k"}},
      {"depthwise", {"log_out", "log_in", "log_window", "transcendental"}},
      {"gemm", {"log_rows", "log_cols", "log_k", "transcendental"}},
      {"gemm_skinny", {"log_rows", "log_cols", "log_k"}},
      {"attention", {"log_matrices", "log_q", "log_kv", "log_d", "score_ops"}},
      {"pool", {"log_out", "log_in", "log_window", "max"}},
      {"eltwise", {"log_bytes", "binary"}},
      {"move", {"log_bytes", "transpose"}},
      {"reorder", {"log_bytes", "to_rowmajor"}},
  };
  return m;
}

double KernelFit::kernel_seconds(const std::vector<double>& x) const {
  double s = coef.empty() ? 0 : coef[0];
  for (size_t i = 0; i < x.size() && i + 1 < coef.size(); ++i) s += coef[i + 1] * x[i];
  return fixed_s + std::exp(s);
}

namespace {

Status field_error(const std::string& file, const std::string& field, const std::string& msg) {
  return Status::invalid(file + ": field 'kernel_table." + field + "': " + msg);
}

Expected<double> finite(const json& j, const std::string& file, const std::string& field) {
  if (!j.is_number()) return field_error(file, field, "must be a number, got " + std::string(j.type_name()));
  const double v = j.get<double>();
  if (!std::isfinite(v)) return field_error(file, field, "must be finite");
  return v;
}

Expected<KernelFit> parse_fit(const json& c, const std::string& file, const std::string& path,
                              const std::vector<std::string>& want) {
  if (!c.is_object()) return field_error(file, path, "must be an object");
  KernelFit f;
  if (!c.contains("features") || !c["features"].is_array())
    return field_error(file, path + ".features", "missing or not a list");
  for (const auto& s : c["features"]) {
    if (!s.is_string()) return field_error(file, path + ".features", "must be a list of names");
    f.features.push_back(s.get<std::string>());
  }
  // A table fitted before a feature was appended to its class reads with that feature's
  // coefficient 0: it predicts as it did.
  const size_t fitted = f.features.size();
  const bool older =
      fitted > 0 && fitted < want.size() && std::equal(f.features.begin(), f.features.end(), want.begin());
  if (f.features != want && !older) {
    std::string w;
    for (const auto& s : want) w += (w.empty() ? "" : ", ") + s;
    return field_error(file, path + ".features", "foreign feature list; this version fits [" + w + "]");
  }
  if (!c.contains("coef") || !c["coef"].is_array()) return field_error(file, path + ".coef", "missing or not a list");
  if (c["coef"].size() != fitted + 1)
    return field_error(file, path + ".coef",
                       "expected " + std::to_string(fitted + 1) + " coefficients (intercept + one per feature), got " +
                           std::to_string(c["coef"].size()));
  for (size_t i = 0; i < c["coef"].size(); ++i) {
    auto v = finite(c["coef"][i], file, path + ".coef[" + std::to_string(i) + "]");
    if (!v) return v.status();
    f.coef.push_back(*v);
  }
  f.features = want;
  f.coef.resize(want.size() + 1, 0.0);
  if (!c.contains("samples") || !c["samples"].is_number_integer() ||
      c["samples"].get<int>() < static_cast<int>(fitted) + 1)
    return field_error(file, path + ".samples", "must be an integer of at least " + std::to_string(fitted + 1));
  f.samples = c["samples"].get<int>();
  if (c.contains("fixed_s")) {
    auto v = finite(c["fixed_s"], file, path + ".fixed_s");
    if (!v) return v.status();
    if (*v < 0) return field_error(file, path + ".fixed_s", "must not be negative");
    f.fixed_s = *v;
  }
  for (auto [k, out] : {std::pair<const char*, double*>{"median_abs_error", &f.median_abs_error},
                        {"max_abs_error", &f.max_abs_error}}) {
    if (!c.contains(k)) continue;
    auto v = finite(c[k], file, path + "." + k);
    if (!v) return v.status();
    *out = *v;
  }
  if (c.contains("range")) {
    if (!c["range"].is_object()) return field_error(file, path + ".range", "must be an object");
    for (const auto& [k, r] : c["range"].items()) {
      if (!r.is_array() || r.size() != 2 || !r[0].is_number() || !r[1].is_number())
        return field_error(file, path + ".range." + k, "must be [min, max]");
      f.range[k] = {r[0].get<double>(), r[1].get<double>()};
    }
  }
  return f;
}

// A key of NetworkLevel::classes: a kernel class or one of the level classes of its own
// (conv_grouped, move_copy, pool_global, eltwise_norm), optionally "@N" (N > 0).
bool is_level_key(const std::string& key) {
  const auto p = split_level_key(key);
  if (!p) return false;
  for (const char* own : {kGroupedLevelClass, kCopyLevelClass, kGlobalPoolLevelClass, kNormLevelClass})
    if (p->cls == own) return true;
  return kernel_class_features().count(p->cls) > 0;
}

// "network_levels": [{batch, level, networks, spread}], batches ascending and distinct.
Expected<std::vector<NetworkLevel>> parse_network_levels(const json& a, const std::string& file) {
  if (!a.is_array()) return field_error(file, "network_levels", "must be an array of {batch, level, networks, spread}");
  std::vector<NetworkLevel> out;
  for (size_t i = 0; i < a.size(); ++i) {
    const std::string path = "network_levels[" + std::to_string(i) + "]";
    const auto& e = a[i];
    if (!e.is_object()) return field_error(file, path, "must be an object");
    NetworkLevel l;
    if (!e.contains("batch") || !e["batch"].is_number_integer() || e["batch"].get<int64_t>() < 1)
      return field_error(file, path + ".batch", "must be a positive integer");
    l.batch = e["batch"].get<int64_t>();
    if (!out.empty() && l.batch <= out.back().batch)
      return field_error(file, path + ".batch", "batches must ascend, each once");
    if (!e.contains("level")) return field_error(file, path + ".level", "missing");
    auto v = finite(e["level"], file, path + ".level");
    if (!v) return v.status();
    if (*v <= 0) return field_error(file, path + ".level", "must be positive");
    l.level = *v;
    if (e.contains("networks")) {
      if (!e["networks"].is_number_integer() || e["networks"].get<int>() < 1)
        return field_error(file, path + ".networks", "must be a positive integer");
      l.networks = e["networks"].get<int>();
    }
    if (e.contains("classes")) {
      if (!e["classes"].is_object()) return field_error(file, path + ".classes", "must be an object class -> level");
      for (const auto& [name, x] : e["classes"].items()) {
        if (!is_level_key(name))
          return field_error(
              file, path + ".classes." + name,
              "not a level class (a kernel class, conv_grouped, move_copy, pool_global or eltwise_norm, optionally @ a "
              "positive integer)");
        auto c = finite(x, file, path + ".classes." + name);
        if (!c) return c.status();
        if (*c <= 0) return field_error(file, path + ".classes." + name, "must be positive");
        l.classes[name] = *c;
      }
    }
    if (e.contains("stream_latency_s")) {
      auto s = finite(e["stream_latency_s"], file, path + ".stream_latency_s");
      if (!s) return s.status();
      if (*s < 0) return field_error(file, path + ".stream_latency_s", "must not be negative");
      l.stream_latency_s = *s;
      if (e.contains("stream_layers")) {
        if (!e["stream_layers"].is_number_integer() || e["stream_layers"].get<int>() < 1)
          return field_error(file, path + ".stream_layers", "must be a positive integer");
        l.stream_layers = e["stream_layers"].get<int>();
      }
    }
    if (e.contains("spread")) {
      auto sp = finite(e["spread"], file, path + ".spread");
      if (!sp) return sp.status();
      if (*sp < 0) return field_error(file, path + ".spread", "must not be negative");
      l.spread = *sp;
    }
    out.push_back(l);
  }
  return out;
}

}  // namespace

Expected<KernelTable> parse_kernel_table(const std::string& json_text, const std::string& file) {
  const json j = json::parse(json_text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return field_error(file, "", "must be a JSON object");
  if (!j.contains("schema") || !j["schema"].is_string())
    return field_error(file, "schema",
                       "missing (a kernel table names its schema, " + std::string(kKernelTableSchema) + ")");
  if (j["schema"].get<std::string>() != kKernelTableSchema)
    return field_error(file, "schema",
                       "'" + j["schema"].get<std::string>() + "' is foreign; this version reads " + kKernelTableSchema);
  KernelTable t;
  for (auto [key, out] : {std::pair<const char*, std::string*>{"backend", &t.backend},
                          {"host", &t.host},
                          {"measured", &t.measured},
                          {"dtype", &t.dtype}}) {
    if (!j.contains(key)) continue;
    if (!j[key].is_string()) return field_error(file, key, "must be a string");
    *out = j[key].get<std::string>();
  }
  if (t.dtype != "fp32") return field_error(file, "dtype", "only fp32 tables are measured, got '" + t.dtype + "'");
  if (!j.contains("threads") || !j["threads"].is_number_integer() || j["threads"].get<int>() < 1)
    return field_error(file, "threads", "must be a positive integer");
  t.threads = j["threads"].get<int>();
  if (!j.contains("dispatch_s")) return field_error(file, "dispatch_s", "missing");
  auto disp = finite(j["dispatch_s"], file, "dispatch_s");
  if (!disp) return disp.status();
  if (*disp < 0) return field_error(file, "dispatch_s", "must not be negative");
  t.dispatch_s = *disp;
  if (j.contains("simd_lanes")) {  // optional: tables probed before 2026-12-04 15:00 UTC have none
    const auto& l = j["simd_lanes"];
    if (!l.is_number_integer() || l.get<int>() < 1 || l.get<int>() > 64)
      return field_error(file, "simd_lanes", "must be an integer from 1 to 64");
    t.simd_lanes = l.get<int>();
  }
  if (!j.contains("classes") || !j["classes"].is_object() || j["classes"].empty())
    return field_error(file, "classes", "missing or empty");
  const auto& known = kernel_class_features();
  for (const char* group : {"classes", "classes_cold"}) {
    if (!j.contains(group)) continue;
    if (!j[group].is_object()) return field_error(file, group, "must be an object class -> fit");
    auto& into = std::string(group) == "classes" ? t.classes : t.cold;
    for (const auto& [name, c] : j[group].items()) {
      auto it = known.find(name);
      if (it == known.end()) {
        std::string names;
        for (const auto& [k, v] : known) names += (names.empty() ? "" : ", ") + k;
        return field_error(file, std::string(group) + "." + name, "unknown kernel class (known: " + names + ")");
      }
      auto f = parse_fit(c, file, std::string(group) + "." + name, it->second);
      if (!f) return f.status();
      into[name] = std::move(*f);
    }
  }
  if (!t.cold.empty()) {
    if (!j.contains("cache_bytes")) return field_error(file, "cache_bytes", "missing (needed with classes_cold)");
    auto cb = finite(j["cache_bytes"], file, "cache_bytes");
    if (!cb) return cb.status();
    if (*cb <= 0) return field_error(file, "cache_bytes", "must be positive");
    t.cache_bytes = *cb;
  }
  if (j.contains("host_reference")) {
    const auto& h = j["host_reference"];
    for (const char* k : {"gemm_flops", "stream_bytes"}) {
      if (!h.is_object() || !h.contains(k)) return field_error(file, std::string("host_reference.") + k, "missing");
      auto v = finite(h[k], file, std::string("host_reference.") + k);
      if (!v) return v.status();
      if (*v <= 0) return field_error(file, std::string("host_reference.") + k, "must be positive");
      (std::string(k) == "gemm_flops" ? t.host_gemm_flops : t.host_stream_bytes) = *v;
    }
    // Optional: older tables have none of these.
    for (auto [k, out] : {std::pair<const char*, double*>{"clock_hz", &t.host_clock_hz},
                          {"fma_flops", &t.host_fma_flops},
                          {"dispatch_s", &t.host_dispatch_s},
                          {"kernels_s", &t.host_kernels_s},
                          {"kernels8_s", &t.host_kernels8_s}}) {
      if (!h.contains(k)) continue;
      auto v = finite(h[k], file, std::string("host_reference.") + k);
      if (!v) return v.status();
      if (*v <= 0) return field_error(file, std::string("host_reference.") + k, "must be positive");
      *out = *v;
    }
  }
  if (j.contains("network_levels")) {
    auto levels = parse_network_levels(j["network_levels"], file);
    if (!levels) return levels.status();
    t.network_levels = std::move(*levels);
  }
  return t;
}

std::string level_point_key(const std::string& cls, double position) {
  return cls + "@" + std::to_string(std::llround(position));
}

std::optional<LevelPoint> split_level_key(const std::string& key) {
  const size_t at = key.find('@');
  if (at == std::string::npos) return LevelPoint{key, 0};
  const std::string n = key.substr(at + 1);
  if (n.empty() || n.size() > 6 || n.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  const int position = std::stoi(n);
  if (position <= 0) return std::nullopt;
  return LevelPoint{key.substr(0, at), position};
}

namespace {

// The class's levels by position in `l` (position, level), ascending.
std::vector<std::pair<double, double>> level_points(const NetworkLevel& l, const std::string& cls) {
  std::vector<std::pair<double, double>> out;
  for (const auto& [key, level] : l.classes) {
    const auto p = split_level_key(key);
    if (p && p->position > 0 && p->cls == cls) out.emplace_back(p->position, level);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Interpolated on log position, the nearest point's outside them.
double at_position(const std::vector<std::pair<double, double>>& pts, double position) {
  if (position <= pts.front().first) return pts.front().second;
  if (position >= pts.back().first) return pts.back().second;
  size_t i = 1;
  while (pts[i].first < position) ++i;
  const auto [x0, y0] = pts[i - 1];
  const auto [x1, y1] = pts[i];
  return y0 + (y1 - y0) * std::log(position / x0) / std::log(x1 / x0);
}

double level_in(const NetworkLevel& l, const std::string& cls, double position) {
  if (cls.empty()) return l.level;
  if (position > 0) {
    const auto pts = level_points(l, cls);
    if (!pts.empty()) return at_position(pts, position);
  }
  if (cls == kGroupedLevelClass) return l.level;
  auto it = l.classes.find(cls);
  return it != l.classes.end() ? it->second : l.level;
}

}  // namespace

double network_level_at(const KernelTable& t, int64_t batch, const std::string& cls, double position) {
  const auto& v = t.network_levels;
  if (v.empty()) return 1;
  auto of = [&](const NetworkLevel& l) { return level_in(l, cls, position); };
  if (batch <= v.front().batch) return of(v.front());
  if (batch >= v.back().batch) return of(v.back());
  size_t i = 1;
  while (v[i].batch < batch) ++i;
  const double a = std::log(static_cast<double>(v[i - 1].batch)), b = std::log(static_cast<double>(v[i].batch));
  const double w = (std::log(static_cast<double>(batch)) - a) / (b - a);
  return of(v[i - 1]) + w * (of(v[i]) - of(v[i - 1]));
}

std::optional<double> stream_latency_at(const KernelTable& t, int64_t batch) {
  std::vector<std::pair<double, double>> pts;  // batch -> latency, ascending
  for (const NetworkLevel& l : t.network_levels)
    if (l.stream_latency_s) pts.emplace_back(static_cast<double>(l.batch), *l.stream_latency_s);
  if (pts.empty()) return std::nullopt;
  return at_position(pts, static_cast<double>(std::max<int64_t>(batch, 1)));  // on log batch
}

std::string kernel_table_json(const KernelTable& t) {
  nlohmann::ordered_json j;
  j["schema"] = kKernelTableSchema;
  j["backend"] = t.backend;
  j["host"] = t.host;
  j["measured"] = t.measured;
  j["threads"] = t.threads;
  j["dtype"] = t.dtype;
  j["model"] = "t = dispatch_s + fixed_s + exp(coef[0] + sum_i coef[i] * feature_i), per class";
  j["dispatch_s"] = t.dispatch_s;
  if (t.simd_lanes > 0) j["simd_lanes"] = t.simd_lanes;
  if (!t.cold.empty()) j["cache_bytes"] = t.cache_bytes;
  if (t.host_gemm_flops > 0 && t.host_stream_bytes > 0) {
    j["host_reference"] = {{"gemm_flops", t.host_gemm_flops}, {"stream_bytes", t.host_stream_bytes}};
    if (t.host_clock_hz > 0) j["host_reference"]["clock_hz"] = t.host_clock_hz;
    if (t.host_fma_flops > 0) j["host_reference"]["fma_flops"] = t.host_fma_flops;
    if (t.host_dispatch_s > 0) j["host_reference"]["dispatch_s"] = t.host_dispatch_s;
    if (t.host_kernels_s > 0) j["host_reference"]["kernels_s"] = t.host_kernels_s;
    if (t.host_kernels8_s > 0) j["host_reference"]["kernels8_s"] = t.host_kernels8_s;
  }
  auto fits_json = [](const std::map<std::string, KernelFit>& fits) {
    nlohmann::ordered_json classes = nlohmann::ordered_json::object();
    for (const auto& [name, f] : fits) {
      nlohmann::ordered_json c;
      c["features"] = f.features;
      c["coef"] = f.coef;
      c["fixed_s"] = f.fixed_s;
      c["samples"] = f.samples;
      c["median_abs_error"] = f.median_abs_error;
      c["max_abs_error"] = f.max_abs_error;
      nlohmann::ordered_json r = nlohmann::ordered_json::object();
      for (const auto& [k, mm] : f.range) r[k] = {mm.first, mm.second};
      c["range"] = r;
      classes[name] = c;
    }
    return classes;
  };
  if (!t.network_levels.empty()) {
    j["network_levels"] = nlohmann::ordered_json::array();
    for (const NetworkLevel& l : t.network_levels) {
      nlohmann::ordered_json e = {
          {"batch", l.batch}, {"level", l.level}, {"networks", l.networks}, {"spread", l.spread}};
      if (!l.classes.empty()) e["classes"] = l.classes;
      if (l.stream_latency_s) {
        e["stream_latency_s"] = *l.stream_latency_s;
        if (l.stream_layers > 0) e["stream_layers"] = l.stream_layers;
      }
      j["network_levels"].push_back(std::move(e));
    }
  }
  j["classes"] = fits_json(t.classes);
  if (!t.cold.empty()) j["classes_cold"] = fits_json(t.cold);
  return j.dump(2);
}

}  // namespace rooflens
