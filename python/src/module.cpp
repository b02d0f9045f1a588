// The extension module rooflens._core: exceptions, data directories, and the bindings of
// models (models.cpp) and NAS (nas.cpp). The Python package (python/rooflens/) wraps it.
#include <dlfcn.h>

#include <filesystem>
#include <memory>
#include <mutex>

#include "common.h"
#include "rooflens/session/predict_request.h"

namespace rooflens::python {

Exceptions& exceptions() {
  static Exceptions e;
  return e;
}

void raise_status(const Status& s) {
  const Exceptions& e = exceptions();
  PyObject* type = e.error.ptr();
  switch (s.code()) {
    case StatusCode::kInvalidInput: type = PyExc_ValueError; break;
    case StatusCode::kUnsupported: type = e.unsupported.ptr(); break;
    case StatusCode::kUnavailable: type = e.unavailable.ptr(); break;
    default: break;
  }
  PyErr_SetString(type, s.message().c_str());
  throw py::error_already_set();
}

py::object json_to_py(const nlohmann::json& j) {
  switch (j.type()) {
    case nlohmann::json::value_t::null: return py::none();
    case nlohmann::json::value_t::boolean: return py::bool_(j.get<bool>());
    case nlohmann::json::value_t::number_integer: return py::int_(j.get<int64_t>());
    case nlohmann::json::value_t::number_unsigned: return py::int_(j.get<uint64_t>());
    case nlohmann::json::value_t::number_float: return py::float_(j.get<double>());
    case nlohmann::json::value_t::string: return py::str(j.get_ref<const std::string&>());
    case nlohmann::json::value_t::array: {
      py::list l;
      for (const auto& v : j) l.append(json_to_py(v));
      return l;
    }
    case nlohmann::json::value_t::object: {
      py::dict d;
      for (auto it = j.begin(); it != j.end(); ++it) d[py::str(it.key())] = json_to_py(it.value());
      return d;
    }
    default: return py::none();
  }
}

namespace {
std::string& devices_dir_ref() {
  static std::string d = (std::filesystem::path(ROOFLENS_SOURCE_DIR) / "data/devices").string();
  return d;
}
std::string& models_dir_ref() {
  static std::string d = (std::filesystem::path(ROOFLENS_SOURCE_DIR) / "models").string();
  return d;
}

// Makes this extension's symbols (the core's) visible to the plugins it loads with dlopen,
// which take the core from the process (src/plugin/plugin.map), however Python opened it.
void promote_to_global() {
  Dl_info info;
  if (dladdr(reinterpret_cast<void*>(&promote_to_global), &info) && info.dli_fname)
    dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_GLOBAL);
}
}  // namespace

namespace {
std::mutex db_mutex;
std::shared_ptr<const std::vector<DeviceSpec>> db_cache;
}  // namespace

std::string devices_dir() { return devices_dir_ref(); }
std::string models_dir() { return models_dir_ref(); }
void set_data_dirs(const std::string& devices, const std::string& models) {
  if (!devices.empty()) devices_dir_ref() = devices;
  if (!models.empty()) models_dir_ref() = models;
  std::lock_guard<std::mutex> lock(db_mutex);
  db_cache.reset();
}

const std::vector<DeviceSpec>& device_db() {
  std::lock_guard<std::mutex> lock(db_mutex);
  if (!db_cache) {
    auto db = load_device_dir(devices_dir());
    if (!db) raise_status(db.status());
    db_cache = std::make_shared<const std::vector<DeviceSpec>>(std::move(*db));
  }
  return *db_cache;
}

DeviceSpec device_arg(const std::string& spec, const std::string& dtype) {
  dtype_arg(dtype);
  return unwrap(device_with_peak(spec, device_db(), dtype));
}

EngineProfile engine_arg(const std::string& engine, const DeviceSpec& dev) {
  const auto dir = std::filesystem::path(devices_dir()).parent_path() / "engines";
  return unwrap(resolve_engine(engine, dev, dir.string()));
}

std::optional<int64_t> batch_arg(std::optional<int64_t> b) {
  if (b && *b < 1) raise_status(Status::invalid("batch " + std::to_string(*b) + ": must be >= 1"));
  return b;
}

DType dtype_arg(const std::string& s) {
  auto d = parse_dtype_arg("dtype", s);
  if (!d) raise_status(d.status());
  return *d;
}

}  // namespace rooflens::python

PYBIND11_MODULE(_core, m) {
  namespace py = pybind11;
  using namespace rooflens::python;
  m.doc() = "rooflens: roofline and utilization analysis of neural networks (the C++ library's binding)";
  promote_to_global();
  Exceptions& e = exceptions();
  e.error = PyErr_NewExceptionWithDoc("rooflens.Error",
                                      "An error of the rooflens library (internal errors are raised as this class).",
                                      PyExc_RuntimeError, nullptr);
  e.unsupported =
      PyErr_NewExceptionWithDoc("rooflens.Unsupported",
                                "Valid input that uses something rooflens does not handle (an op, a feature, a dtype).",
                                e.error.ptr(), nullptr);
  e.unavailable =
      PyErr_NewExceptionWithDoc("rooflens.Unavailable",
                                "Missing hardware, plugin or data (a GPU, the CUDA plugin, a benchmark file).",
                                e.error.ptr(), nullptr);
  m.attr("Error") = e.error;
  m.attr("Unsupported") = e.unsupported;
  m.attr("Unavailable") = e.unavailable;
  m.attr("__version__") = ROOFLENS_VERSION;
  m.attr("source_dir") = ROOFLENS_SOURCE_DIR;
  m.def("set_data_dirs", &set_data_dirs, py::arg("devices_dir") = "", py::arg("models_dir") = "",
        "Directories of the device database (*.json) and of the zoo (zoo.json); empty keeps the current one.");
  m.def("data_dirs", [] { return py::make_tuple(devices_dir(), models_dir()); });
  bind_models(m);
  bind_validate(m);
  bind_nas(m);
}
