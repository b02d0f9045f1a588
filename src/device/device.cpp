// Device database loading and lookup (see device.h).
#include "rooflens/device/device.h"

#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

namespace rooflens {
namespace {

using nlohmann::json;

const std::set<std::string> kDtypes = {"fp32", "tf32", "fp16", "bf16", "int8", "fp8"};

class Reader {
 public:
  Reader(const json& j, std::string file) : j_(j), file_(std::move(file)) {}

  Status err(const std::string& field, const std::string& msg) const {
    return Status::invalid(file_ + ": field '" + field + "': " + msg);
  }
  const std::string& file() const { return file_; }
  const json* get(const json& obj, const std::string& key, const std::string& path) const {
    if (!obj.is_object() || !obj.contains(key)) return nullptr;
    (void)path;
    return &obj.at(key);
  }
  Status number(const json& obj, const std::string& key, const std::string& path, double* out, bool required = true,
                bool positive = true) const {
    const json* v = get(obj, key, path);
    if (!v || v->is_null()) return required ? err(path, "missing") : Status::ok();
    if (!v->is_number()) return err(path, "must be a number, got " + std::string(v->type_name()));
    *out = v->get<double>();
    if (positive && !(*out > 0)) return err(path, "must be positive, got " + v->dump());
    return Status::ok();
  }
  Status integer(const json& obj, const std::string& key, const std::string& path, int* out,
                 bool required = true) const {
    double d = 0;
    ROOFLENS_RETURN_IF_ERROR(number(obj, key, path, &d, required));
    if (d != static_cast<double>(static_cast<int>(d))) return err(path, "must be an integer");
    *out = static_cast<int>(d);
    return Status::ok();
  }
  Status string(const json& obj, const std::string& key, const std::string& path, std::string* out,
                bool required = true) const {
    const json* v = get(obj, key, path);
    if (!v || v->is_null()) return required ? err(path, "missing") : Status::ok();
    if (!v->is_string()) return err(path, "must be a string");
    *out = v->get<std::string>();
    return Status::ok();
  }

 private:
  const json& j_;
  std::string file_;
};

Status parse_unit(const Reader& r, const std::string& s, const std::string& path, ComputeUnit* u) {
  auto unit = compute_unit_from_name(s);
  if (!unit) return r.err(path, "unknown unit '" + s + "' (expected cuda, tensor or simd)");
  *u = *unit;
  return Status::ok();
}

Status parse_peaks(const Reader& r, const json& j, const std::string& key, std::vector<Peak>* out, bool required) {
  if (!j.contains(key) || j[key].is_null()) return required ? r.err(key, "missing") : Status::ok();
  if (!j[key].is_array()) return r.err(key, "must be a list");
  for (size_t i = 0; i < j[key].size(); ++i) {
    const json& p = j[key][i];
    const std::string path = key + "[" + std::to_string(i) + "]";
    Peak pk;
    std::string unit;
    ROOFLENS_RETURN_IF_ERROR(r.string(p, "dtype", path + ".dtype", &pk.dtype));
    if (!kDtypes.count(pk.dtype)) return r.err(path + ".dtype", "unknown dtype '" + pk.dtype + "'");
    ROOFLENS_RETURN_IF_ERROR(r.string(p, "unit", path + ".unit", &unit));
    ROOFLENS_RETURN_IF_ERROR(parse_unit(r, unit, path + ".unit", &pk.unit));
    ROOFLENS_RETURN_IF_ERROR(r.string(p, "accumulator", path + ".accumulator", &pk.accumulator, false));
    ROOFLENS_RETURN_IF_ERROR(r.number(p, "flops", path + ".flops", &pk.flops));
    ROOFLENS_RETURN_IF_ERROR(r.string(p, "source", path + ".source", &pk.source, false));
    out->push_back(pk);
  }
  return Status::ok();
}

// The accumulator inference engines use: fp32 for float dtypes (cuDNN, TensorRT and AMP
// accumulate fp16/bf16/fp8 products in fp32; GeForce cards run that at half rate), int32
// for int8. Peaks with another accumulator count only when none has this one.
bool engine_accumulator(const Peak& p) {
  if (p.accumulator.empty()) return true;
  if (p.dtype == "int8") return p.accumulator == "int32";
  return p.accumulator == "fp32";
}

std::optional<Peak> best_of(const std::vector<Peak>& peaks, const std::string& dtype,
                            std::optional<ComputeUnit> unit = std::nullopt) {
  std::optional<Peak> best, fallback;
  for (const Peak& p : peaks) {
    if (p.dtype != dtype || (unit && p.unit != *unit)) continue;
    auto& slot = engine_accumulator(p) ? best : fallback;
    if (!slot || p.flops > slot->flops) slot = p;
  }
  return best ? best : fallback;
}

// host_link: {"name": string, "bandwidth": B/s per direction} or null. A PCIe name must carry
// the theoretical rate of its generation and width, so that a bidirectional datasheet figure
// ("PCIe Gen4: 64 GB/s") is refused instead of doubling every input-bound prediction.
Status parse_host_link(const Reader& r, const json& j, bool gpu, std::optional<HostLink>* out) {
  if (!j.contains("host_link") || j["host_link"].is_null()) return Status::ok();
  const json& h = j["host_link"];
  if (!h.is_object()) return r.err("host_link", "must be an object {name, bandwidth} or null");
  if (!gpu)
    return r.err("host_link", "a cpu device has no host link (its inputs are already in host memory); use null");
  for (const auto& [k, v] : h.items())
    if (k != "name" && k != "bandwidth")
      return r.err("host_link." + k, "unknown key (expected name and bandwidth; the source goes in sources.host_link)");
  HostLink link;
  ROOFLENS_RETURN_IF_ERROR(r.string(h, "name", "host_link.name", &link.name));
  if (link.name.empty()) return r.err("host_link.name", "must not be empty (e.g. \"PCIe 4.0 x16\")");
  ROOFLENS_RETURN_IF_ERROR(r.number(h, "bandwidth", "host_link.bandwidth", &link.bandwidth_bytes_per_s));
  if (link.name.rfind("PCIe", 0) == 0) {
    auto expected = pcie_bandwidth(link.name);
    if (!expected) return r.err("host_link.name", expected.status().message());
    const double got = link.bandwidth_bytes_per_s;
    if (std::fabs(got - *expected) > 0.01 * *expected) {
      // Datasheets round the sum ("PCIe Gen4: 64 GB/s" for 2 x 31.5).
      std::string hint = std::fabs(got - 2 * *expected) <= 0.03 * 2 * *expected
                             ? " (the bidirectional sum datasheets quote; store one direction)"
                             : "";
      return r.err("host_link.bandwidth",
                   fmt::format("{} carries {:.2f} GB/s per direction ({:.4g} B/s, within 1%), got {:.4g}{}", link.name,
                               *expected / 1e9, *expected, got, hint));
    }
  }
  if (j.contains("sources") && j["sources"].is_object() && j["sources"].contains("host_link")) {
    const json& s = j["sources"]["host_link"];
    if (!s.is_string()) return r.err("sources.host_link", "must be a string");
    link.source = s.get<std::string>();
  }
  *out = link;
  return Status::ok();
}

}  // namespace

Expected<double> pcie_bandwidth(const std::string& name) {
  // Per lane, one direction, B/s: transfer rate x encoding efficiency / 8 bits.
  static const std::map<std::string, double> kPerLane = {{"1.0", 2.5e9 * 8 / 10 / 8},   {"2.0", 5e9 * 8 / 10 / 8},
                                                         {"3.0", 8e9 * 128 / 130 / 8},  {"4.0", 16e9 * 128 / 130 / 8},
                                                         {"5.0", 32e9 * 128 / 130 / 8}, {"6.0", 64e9 / 8}};
  const std::string rule = "'" + name +
                           "' is not a PCIe link name of the form \"PCIe <generation> x<lanes>\" "
                           "(generation 1.0 to 6.0, lanes 1, 2, 4, 8, 16 or 32), e.g. \"PCIe 4.0 x16\"";
  std::stringstream ss(name);
  std::string pcie, gen, width, rest;
  ss >> pcie >> gen >> width;
  if (pcie != "PCIe" || !kPerLane.count(gen) || width.size() < 2 || width[0] != 'x' || (ss >> rest))
    return Status::invalid(rule);
  const std::string lanes_text = width.substr(1);
  if (lanes_text != "1" && lanes_text != "2" && lanes_text != "4" && lanes_text != "8" && lanes_text != "16" &&
      lanes_text != "32")
    return Status::invalid(rule);
  const double per_lane = kPerLane.at(gen);
  // The 3.0/4.0/5.0 x16 figures everyone quotes are rounded: 15.75, 31.5, 63.0 GB/s.
  return per_lane * std::stoi(lanes_text);
}

std::string_view compute_unit_name(ComputeUnit u) {
  switch (u) {
    case ComputeUnit::kCuda: return "cuda";
    case ComputeUnit::kTensor: return "tensor";
    case ComputeUnit::kSimd: return "simd";
  }
  return "?";
}

std::optional<ComputeUnit> compute_unit_from_name(std::string_view name) {
  for (ComputeUnit u : {ComputeUnit::kCuda, ComputeUnit::kTensor, ComputeUnit::kSimd})
    if (compute_unit_name(u) == name) return u;
  return std::nullopt;
}

std::optional<Peak> DeviceSpec::best_peak(const std::string& dtype) const { return best_of(peaks, dtype); }
std::string DeviceSpec::no_peak_message(const std::string& dtype) const {
  std::vector<std::string> have;
  for (const Peak& p : peaks)
    if (std::find(have.begin(), have.end(), p.dtype) == have.end()) have.push_back(p.dtype);
  std::string msg = "device '" + id + "' has no " + dtype + " peak";
  if (have.empty()) return msg + " (it has no peaks)";
  msg += " (its peaks: ";
  for (size_t i = 0; i < have.size(); ++i) msg += (i ? ", " : "") + have[i];
  return msg + ")";
}
std::optional<Peak> DeviceSpec::best_measured_peak(const std::string& dtype) const {
  return best_of(measured_peaks, dtype);
}
std::optional<Peak> DeviceSpec::unit_peak(const std::string& dtype, ComputeUnit unit) const {
  return best_of(peaks, dtype, unit);
}
double DeviceSpec::bandwidth_for(double bytes) const {
  for (const MemoryLevel& l : mem_levels)
    if (bytes <= l.bytes) return std::max(l.bandwidth, mem_bandwidth);
  return mem_bandwidth;
}

double DeviceSpec::cmr(const std::string& dtype) const {
  auto p = best_peak(dtype);
  return p && mem_bandwidth > 0 ? p->flops / mem_bandwidth : 0;
}

Expected<DeviceSpec> parse_device_json(const std::string& text, const std::string& file) {
  json j = json::parse(text, nullptr, false);
  if (j.is_discarded()) return Status::invalid(file + ": not valid JSON");
  if (!j.is_object()) return Status::invalid(file + ": top level must be an object");
  Reader r(j, file);
  DeviceSpec d;
  d.file = file;
  std::string schema;
  ROOFLENS_RETURN_IF_ERROR(r.string(j, "schema", "schema", &schema));
  if (schema != "rooflens.device/1") return r.err("schema", "expected 'rooflens.device/1', got '" + schema + "'");
  ROOFLENS_RETURN_IF_ERROR(r.string(j, "id", "id", &d.id));
  if (d.id.empty()) return r.err("id", "must not be empty");
  ROOFLENS_RETURN_IF_ERROR(r.string(j, "name", "name", &d.name));
  ROOFLENS_RETURN_IF_ERROR(r.string(j, "kind", "kind", &d.kind));
  if (d.kind != "gpu" && d.kind != "cpu") return r.err("kind", "must be 'gpu' or 'cpu', got '" + d.kind + "'");
  ROOFLENS_RETURN_IF_ERROR(r.string(j, "arch", "arch", &d.arch, false));
  ROOFLENS_RETURN_IF_ERROR(r.string(j, "compute_capability", "compute_capability", &d.compute_capability, false));
  if (j.contains("aliases") && !j["aliases"].is_null()) {
    if (!j["aliases"].is_array()) return r.err("aliases", "must be a list of strings");
    for (const auto& a : j["aliases"]) {
      if (!a.is_string()) return r.err("aliases", "must be a list of strings");
      d.aliases.push_back(a.get<std::string>());
    }
  }
  const bool gpu = d.kind == "gpu";
  ROOFLENS_RETURN_IF_ERROR(r.integer(j, "sm_count", "sm_count", &d.sm_count, gpu));
  if (j.contains("clock_hz") && j["clock_hz"].is_object()) {
    ROOFLENS_RETURN_IF_ERROR(r.number(j["clock_hz"], "base", "clock_hz.base", &d.clock_base_hz, false));
    ROOFLENS_RETURN_IF_ERROR(r.number(j["clock_hz"], "boost", "clock_hz.boost", &d.clock_boost_hz, false));
  }
  if (!j.contains("memory") || !j["memory"].is_object()) return r.err("memory", "missing (needs bytes and bandwidth)");
  ROOFLENS_RETURN_IF_ERROR(r.number(j["memory"], "bytes", "memory.bytes", &d.mem_bytes));
  ROOFLENS_RETURN_IF_ERROR(r.number(j["memory"], "bandwidth", "memory.bandwidth", &d.mem_bandwidth));
  ROOFLENS_RETURN_IF_ERROR(r.string(j["memory"], "type", "memory.type", &d.mem_type, false));
  if (j["memory"].contains("levels") && !j["memory"]["levels"].is_null()) {
    const json& lv = j["memory"]["levels"];
    if (!lv.is_array()) return r.err("memory.levels", "must be a list of {name, bytes, bandwidth}");
    for (size_t i = 0; i < lv.size(); ++i) {
      const std::string path = "memory.levels[" + std::to_string(i) + "]";
      MemoryLevel m;
      ROOFLENS_RETURN_IF_ERROR(r.string(lv[i], "name", path + ".name", &m.name));
      ROOFLENS_RETURN_IF_ERROR(r.number(lv[i], "bytes", path + ".bytes", &m.bytes));
      ROOFLENS_RETURN_IF_ERROR(r.number(lv[i], "bandwidth", path + ".bandwidth", &m.bandwidth));
      if (!d.mem_levels.empty() && m.bytes <= d.mem_levels.back().bytes)
        return r.err(path + ".bytes", "levels must be in ascending size");
      d.mem_levels.push_back(m);
    }
  }
  ROOFLENS_RETURN_IF_ERROR(r.number(j, "l2_bytes", "l2_bytes", &d.l2_bytes, false));
  ROOFLENS_RETURN_IF_ERROR(parse_peaks(r, j, "peaks", &d.peaks, true));
  if (d.peaks.empty()) return r.err("peaks", "needs at least one peak");
  ROOFLENS_RETURN_IF_ERROR(parse_peaks(r, j, "measured_peaks", &d.measured_peaks, false));
  if (j.contains("tensor_core") && j["tensor_core"].is_object() && j["tensor_core"].contains("channel_multiple")) {
    const json& cm = j["tensor_core"]["channel_multiple"];
    if (!cm.is_object()) return r.err("tensor_core.channel_multiple", "must be an object dtype -> multiple");
    for (const auto& [k, v] : cm.items()) {
      if (!v.is_number_integer() || v.get<int>() <= 0)
        return r.err("tensor_core.channel_multiple." + k, "must be a positive integer");
      d.tc_channel_multiple[k] = v.get<int>();
    }
  }
  ROOFLENS_RETURN_IF_ERROR(r.number(j, "launch_overhead_s", "launch_overhead_s", &d.launch_overhead_s, false));
  ROOFLENS_RETURN_IF_ERROR(r.integer(j, "max_threads_per_sm", "max_threads_per_sm", &d.max_threads_per_sm, gpu));
  ROOFLENS_RETURN_IF_ERROR(r.integer(j, "max_blocks_per_sm", "max_blocks_per_sm", &d.max_blocks_per_sm, gpu));
  ROOFLENS_RETURN_IF_ERROR(r.number(j, "workspace_bytes", "workspace_bytes", &d.workspace_bytes, false, false));
  ROOFLENS_RETURN_IF_ERROR(r.number(j, "reserved_bytes", "reserved_bytes", &d.reserved_bytes, false, false));
  if (j.contains("cpu") && j["cpu"].is_object()) {
    const json& c = j["cpu"];
    CpuInfo ci;
    ROOFLENS_RETURN_IF_ERROR(r.integer(c, "cores", "cpu.cores", &ci.cores));
    ROOFLENS_RETURN_IF_ERROR(r.integer(c, "threads", "cpu.threads", &ci.threads, false));
    ROOFLENS_RETURN_IF_ERROR(r.integer(c, "simd_bits", "cpu.simd_bits", &ci.simd_bits));
    ROOFLENS_RETURN_IF_ERROR(r.integer(c, "fma_units", "cpu.fma_units", &ci.fma_units));
    ROOFLENS_RETURN_IF_ERROR(r.number(c, "l1d_bytes", "cpu.l1d_bytes", &ci.l1d_bytes, false));
    ROOFLENS_RETURN_IF_ERROR(r.number(c, "l2_bytes", "cpu.l2_bytes", &ci.l2_bytes, false));
    ROOFLENS_RETURN_IF_ERROR(r.number(c, "l3_bytes", "cpu.l3_bytes", &ci.l3_bytes, false));
    if (c.contains("isa") && c["isa"].is_array())
      for (const auto& s : c["isa"])
        if (s.is_string()) ci.isa.push_back(s.get<std::string>());
    d.cpu = ci;
  } else if (!gpu) {
    return r.err("cpu", "missing (a cpu device needs cores, simd_bits, fma_units)");
  }
  ROOFLENS_RETURN_IF_ERROR(parse_host_link(r, j, gpu, &d.host_link));
  if (j.contains("efficiency") && !j["efficiency"].is_null()) {
    if (!j["efficiency"].is_object()) return r.err("efficiency", "must be an object class -> share of the roof");
    for (const auto& [k, v] : j["efficiency"].items()) {
      if (k != "gemm" && k != "depthwise" && k != "memory")
        return r.err("efficiency." + k, "unknown class (gemm, depthwise, memory)");
      if (!v.is_number() || v.get<double>() <= 0 || v.get<double>() > 1)
        return r.err("efficiency." + k, "must be a number in (0, 1]");
      d.efficiency[k] = v.get<double>();
    }
  }
  if (j.contains("kernel_table") && !j["kernel_table"].is_null()) {
    auto kt = parse_kernel_table(j["kernel_table"].dump(), r.file());
    if (!kt) return kt.status();
    d.kernel_table = std::move(*kt);
  }
  if (j.contains("sources") && j["sources"].is_object())
    for (const auto& [k, v] : j["sources"].items())
      if (v.is_string()) d.sources[k] = v.get<std::string>();
  return d;
}

// ---------------------------------------------------------------------------------------
// The writer: DeviceSpec -> rooflens.device/1, read back by parse_device_json above.

namespace {

using ojson = nlohmann::ordered_json;

ojson positive_or_null(double v) { return v > 0 ? ojson(v) : ojson(nullptr); }
ojson count_or_null(int v) { return v > 0 ? ojson(v) : ojson(nullptr); }
ojson text_or_null(const std::string& s) { return s.empty() ? ojson(nullptr) : ojson(s); }
// workspace_bytes and reserved_bytes are sizes set by hand: whole numbers stay integers.
ojson size_json(double v) {
  return v == std::floor(v) && std::fabs(v) < 9e15 ? ojson(static_cast<int64_t>(v)) : ojson(v);
}

ojson peaks_json(const std::vector<Peak>& peaks) {
  ojson out = ojson::array();
  for (const Peak& p : peaks) {
    ojson j = {{"dtype", p.dtype}, {"unit", std::string(compute_unit_name(p.unit))}};
    if (!p.accumulator.empty()) j["accumulator"] = p.accumulator;
    j["flops"] = p.flops;
    if (!p.source.empty()) j["source"] = p.source;
    out.push_back(std::move(j));
  }
  return out;
}

ojson memory_json(const DeviceSpec& d) {
  ojson m = {{"bytes", positive_or_null(d.mem_bytes)},
             {"bandwidth", d.mem_bandwidth},
             {"type", text_or_null(d.mem_type)}};
  if (!d.mem_levels.empty()) {
    m["levels"] = ojson::array();
    for (const MemoryLevel& l : d.mem_levels)
      m["levels"].push_back({{"name", l.name}, {"bytes", l.bytes}, {"bandwidth", l.bandwidth}});
  }
  return m;
}

ojson cpu_json(const std::optional<CpuInfo>& cpu) {
  if (!cpu) return nullptr;
  return {{"cores", cpu->cores},
          {"threads", count_or_null(cpu->threads)},
          {"simd_bits", cpu->simd_bits},
          {"fma_units", cpu->fma_units},
          {"isa", cpu->isa},
          {"l1d_bytes", positive_or_null(cpu->l1d_bytes)},
          {"l2_bytes", positive_or_null(cpu->l2_bytes)},
          {"l3_bytes", positive_or_null(cpu->l3_bytes)}};
}

// Sources in the order of the fields they are for, then any others by name.
ojson sources_json(const DeviceSpec& d) {
  static const char* const kOrder[] = {"peaks",
                                       "measured_peaks",
                                       "memory",
                                       "sm_count",
                                       "clock_hz",
                                       "l2_bytes",
                                       "tensor_core",
                                       "launch_overhead_s",
                                       "max_threads_per_sm",
                                       "max_blocks_per_sm",
                                       "cpu",
                                       "workspace_bytes",
                                       "reserved_bytes",
                                       "host_link"};
  std::map<std::string, std::string> all = d.sources;
  if (d.host_link && !d.host_link->source.empty()) all.emplace("host_link", d.host_link->source);
  ojson out = ojson::object();
  for (const char* k : kOrder)
    if (auto it = all.find(k); it != all.end()) {
      out[k] = it->second;
      all.erase(it);
    }
  for (const auto& [k, v] : all) out[k] = v;
  return out;
}

}  // namespace

nlohmann::ordered_json device_json(const DeviceSpec& d) {
  ojson tensor_core = nullptr;
  if (!d.tc_channel_multiple.empty()) {
    ojson m = ojson::object();
    for (const auto& [dtype, multiple] : d.tc_channel_multiple) m[dtype] = multiple;
    tensor_core = {{"channel_multiple", m}};
  }
  ojson j = {{"schema", "rooflens.device/1"},
             {"id", d.id},
             {"aliases", d.aliases},
             {"name", d.name},
             {"kind", d.kind},
             {"arch", text_or_null(d.arch)},
             {"compute_capability", text_or_null(d.compute_capability)},
             {"sm_count", count_or_null(d.sm_count)},
             {"clock_hz", {{"base", positive_or_null(d.clock_base_hz)}, {"boost", positive_or_null(d.clock_boost_hz)}}},
             {"memory", memory_json(d)},
             {"l2_bytes", positive_or_null(d.l2_bytes)},
             {"peaks", peaks_json(d.peaks)},
             {"measured_peaks", peaks_json(d.measured_peaks)},
             {"tensor_core", tensor_core},
             {"launch_overhead_s", positive_or_null(d.launch_overhead_s)},
             {"max_threads_per_sm", count_or_null(d.max_threads_per_sm)},
             {"max_blocks_per_sm", count_or_null(d.max_blocks_per_sm)},
             {"cpu", cpu_json(d.cpu)},
             {"workspace_bytes", size_json(d.workspace_bytes)},
             {"reserved_bytes", size_json(d.reserved_bytes)}};
  if (d.host_link) j["host_link"] = {{"name", d.host_link->name}, {"bandwidth", d.host_link->bandwidth_bytes_per_s}};
  if (!d.efficiency.empty()) j["efficiency"] = d.efficiency;
  j["sources"] = sources_json(d);
  if (d.kernel_table) j["kernel_table"] = ojson::parse(kernel_table_json(*d.kernel_table));
  return j;
}

Expected<DeviceSpec> load_device_file(const std::string& path) {
  std::ifstream f(path);
  if (!f) return Status::invalid(path + ": cannot open device file");
  std::stringstream ss;
  ss << f.rdbuf();
  return parse_device_json(ss.str(), path);
}

Expected<std::vector<DeviceSpec>> load_device_dir(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return Status::unavailable(dir + ": device database directory not found");
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.path().extension() == ".json") files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  std::vector<DeviceSpec> out;
  std::set<std::string> names;
  for (const auto& f : files) {
    auto d = load_device_file(f);
    if (!d) return d.status();
    for (const auto& n : [&] {
           auto v = d->aliases;
           v.push_back(d->id);
           return v;
         }())
      if (!names.insert(n).second) return Status::invalid(f + ": id or alias '" + n + "' is used by another device");
    out.push_back(std::move(*d));
  }
  std::sort(out.begin(), out.end(), [](const DeviceSpec& a, const DeviceSpec& b) { return a.id < b.id; });
  return out;
}

Expected<DeviceSpec> find_gpu_by_name(const std::string& gpu_name, const std::vector<DeviceSpec>& db) {
  const DeviceSpec* found = nullptr;
  for (const DeviceSpec& d : db)
    if (d.is_gpu() && d.name.rfind(gpu_name, 0) == 0) found = &d;
  if (!found)
    return Status::invalid("no device entry matches the GPU '" + gpu_name +
                           "': give --device with its database id or a device file");
  return *found;
}

Expected<DeviceSpec> resolve_device(const std::string& spec, const std::vector<DeviceSpec>& db) {
  for (const DeviceSpec& d : db) {
    if (d.id == spec) return d;
    for (const auto& a : d.aliases)
      if (a == spec) return d;
  }
  if (spec.rfind("custom:", 0) == 0) {
    DeviceSpec d;
    d.id = "custom";
    d.name = "custom device";
    d.kind = "gpu";
    d.file = "inline";
    d.max_threads_per_sm = 2048;
    d.max_blocks_per_sm = 32;
    std::stringstream ss(spec.substr(7));
    std::string kv;
    while (std::getline(ss, kv, ',')) {
      auto eq = kv.find('=');
      if (eq == std::string::npos) return Status::invalid("--device '" + spec + "': '" + kv + "' is not key=value");
      const std::string k = kv.substr(0, eq), v = kv.substr(eq + 1);
      if (k == "name") {
        d.name = v;
        continue;
      }
      if (k == "kind") {
        if (v != "gpu" && v != "cpu") return Status::invalid("--device '" + spec + "': kind must be gpu or cpu");
        d.kind = v;
        continue;
      }
      char* end = nullptr;
      double x = std::strtod(v.c_str(), &end);
      if (v.empty() || *end != '\0' || !(x > 0))
        return Status::invalid("--device '" + spec + "': " + k + "='" + v + "' is not a positive number");
      if (kDtypes.count(k)) {
        Peak p;
        p.dtype = k;
        p.unit = (k == "fp32") ? ComputeUnit::kCuda : ComputeUnit::kTensor;
        p.accumulator = k == "int8" ? "int32" : "fp32";
        p.flops = x;
        d.peaks.push_back(p);
      } else if (k == "bw")
        d.mem_bandwidth = x;
      else if (k == "mem")
        d.mem_bytes = x;
      else if (k == "sms")
        d.sm_count = static_cast<int>(x);
      else if (k == "launch")
        d.launch_overhead_s = x;
      else if (k == "l2")
        d.l2_bytes = x;
      else
        return Status::invalid("--device '" + spec + "': unknown key '" + k +
                               "' (fp32, tf32, fp16, bf16, int8, fp8, bw, mem, sms, launch, l2, name, kind)");
    }
    if (d.peaks.empty()) return Status::invalid("--device '" + spec + "': needs at least one peak, e.g. fp16=125e12");
    if (d.mem_bandwidth <= 0) return Status::invalid("--device '" + spec + "': needs bw=<bytes/s>");
    if (d.mem_bytes <= 0) return Status::invalid("--device '" + spec + "': needs mem=<bytes>");
    if (d.sm_count <= 0) d.sm_count = 80;
    d.sources["all"] = "given on the command line";
    for (const Peak& p : d.peaks)
      if (p.unit == ComputeUnit::kTensor)
        d.tc_channel_multiple[p.dtype] = p.dtype == "int8" || p.dtype == "fp8" ? 16 : 8;
    return d;
  }
  if (spec.size() > 5 && spec.substr(spec.size() - 5) == ".json") return load_device_file(spec);
  std::string known;
  for (const DeviceSpec& d : db) known += (known.empty() ? "" : ", ") + d.id;
  return Status::invalid("--device '" + spec + "': unknown device (known: " + known +
                         "; or a .json file, or custom:fp16=...,bw=...,mem=...)");
}

}  // namespace rooflens
