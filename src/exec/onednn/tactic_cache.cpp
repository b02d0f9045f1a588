// Persistent cache of tactic choices (see tactic_cache.h).
#include "tactic_cache.h"

#include <omp.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>

#include "rooflens/util/file.h"

namespace rooflens::onednn {
namespace {

constexpr const char* kSchema =
    "rooflens.tactics/4";  // 2: split-off eltwise; 3: transcendental only; 4: margin, settled only

std::string cpu_identity() {
  std::ifstream in("/proc/cpuinfo");
  std::string line, out;
  int found = 0;
  while (found < 4 && std::getline(in, line)) {
    for (const char* k : {"vendor_id", "cpu family", "model", "model name"}) {
      const std::string key(k);
      if (line.rfind(key, 0) == 0 && line.find(':') != std::string::npos &&
          line.substr(0, line.find(':')).find_last_not_of(" \t") + 1 == key.size()) {
        out += line.substr(line.find(':') + 1) + ";";
        ++found;
      }
    }
  }
  return out;
}

void write_cache(const std::string& path, const std::map<std::string, std::string>& entries) {
  nlohmann::json j = {{"schema", kSchema}, {"entries", entries}};
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
  (void)write_file_atomic(path, j.dump(1));  // a cache that cannot be written only costs time
}

// The entries of the cache file; `damaged` when a file is there but not one of ours.
std::map<std::string, std::string> read_cache(const std::string& path, bool* damaged = nullptr) {
  std::map<std::string, std::string> out;
  std::ifstream in(path);
  if (!in) return out;
  try {
    const nlohmann::json j = nlohmann::json::parse(in);
    if (!j.is_object() || j.value("schema", "") != kSchema || !j.contains("entries") || !j["entries"].is_object()) {
      if (damaged) *damaged = true;
      return out;
    }
    for (const auto& [k, v] : j["entries"].items())
      if (v.is_string()) out[k] = v.get<std::string>();
  } catch (const std::exception&) {
    out.clear();
    if (damaged) *damaged = true;
  }
  return out;
}

struct Cache {
  std::mutex mu;
  bool loaded = false;
  std::string path;  // the file loaded (a later caller may name another)
  std::map<std::string, std::string> entries;
};

// The key as stored: the machine, the thread count, then the primitive.
std::string full_key(const std::string& key) {
  return machine_key() + std::to_string(omp_get_max_threads()) + "|" + key;
}

Cache& cache() {
  static Cache c;
  return c;
}

}  // namespace

const std::string& machine_key() {
  static const std::string k = [] {
    const dnnl::version_t* v = dnnl::version();
    std::ostringstream s;
    s << cpu_identity() << "isa " << static_cast<int>(dnnl::get_effective_cpu_isa()) << ";onednn " << v->major << "."
      << v->minor << "." << v->patch << ";";
    return s.str();
  }();
  return k;
}

std::string desc_key(const dnnl::memory::desc& md) {
  std::ostringstream s;
  s << static_cast<int>(md.data_type()) << ":";
  for (auto d : md.dims()) s << d << "x";
  const dnnl_memory_desc_t& c = md.data;
  if (c.format_kind == dnnl_blocked) {
    s << " s";
    for (int i = 0; i < c.ndims; ++i) s << c.format_desc.blocking.strides[i] << ",";
    s << " b";
    for (int i = 0; i < c.format_desc.blocking.inner_nblks; ++i)
      s << c.format_desc.blocking.inner_idxs[i] << "/" << c.format_desc.blocking.inner_blks[i] << ",";
  } else {
    s << " fk" << static_cast<int>(c.format_kind);
  }
  return s.str();
}

std::string post_ops_key(const dnnl::post_ops& ops) {
  std::ostringstream s;
  for (int i = 0; i < ops.len(); ++i) {
    const auto kind = ops.kind(i);
    s << "[" << static_cast<int>(kind);
    if (kind == dnnl::primitive::kind::eltwise) {
      float scale = 0, alpha = 0, beta = 0;
      dnnl::algorithm alg;
      ops.get_params_eltwise(i, scale, alg, alpha, beta);
      s << " " << static_cast<int>(alg) << " " << alpha << " " << beta;
    } else if (kind == dnnl::primitive::kind::binary) {
      dnnl::algorithm alg;
      dnnl::memory::desc src1;
      ops.get_params_binary(i, alg, src1);
      s << " " << static_cast<int>(alg) << " " << desc_key(src1);
    }
    s << "]";
  }
  return s.str();
}

std::optional<std::string> cached_tactic(const std::string& p, const std::string& key) {
  Cache& c = cache();
  std::lock_guard<std::mutex> lock(c.mu);
  if (!c.loaded || p != c.path) {
    c.entries.clear();
    if (!p.empty()) {
      bool damaged = false;
      c.entries = read_cache(p, &damaged);
      if (damaged) write_cache(p, {});  // a damaged or older cache is replaced, never trusted
    }
    c.loaded = true;
    c.path = p;
  }
  auto it = c.entries.find(full_key(key));
  if (it == c.entries.end()) return std::nullopt;
  return it->second;
}

void remember_tactic(const std::string& p, const std::string& key, const std::string& impl) {
  Cache& c = cache();
  std::lock_guard<std::mutex> lock(c.mu);
  const std::string full = full_key(key);
  c.entries[full] = impl;
  if (p.empty()) return;
  // Another process may have added entries since this one loaded: merge, then replace.
  auto on_disk = read_cache(p);
  on_disk[full] = impl;
  for (const auto& [k, v] : on_disk) c.entries.emplace(k, v);
  write_cache(p, on_disk);
}

}  // namespace rooflens::onednn
