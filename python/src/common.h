// What the binding's files share: Status -> Python exception, the GIL released around long
// library calls, nlohmann JSON -> Python objects, and the bundled data directories.
#pragma once

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "rooflens/device/device.h"
#include "rooflens/exec/backend.h"
#include "rooflens/ir/dtype.h"
#include "rooflens/perf/engine.h"
#include "rooflens/util/status.h"

namespace rooflens::python {

namespace py = pybind11;

// The exception classes of the module (rooflens.Error and its subclasses), made at import and
// kept for the life of the process (handles: nothing to release after the interpreter ends).
struct Exceptions {
  py::handle error, unsupported, unavailable;
};
Exceptions& exceptions();

// Raises the Python exception of a failed Status: ValueError for invalid input,
// rooflens.Unsupported, rooflens.Unavailable, rooflens.Error (internal). Needs the GIL.
[[noreturn]] void raise_status(const Status& s);

template <typename T>
T unwrap(Expected<T>&& e) {
  if (!e) raise_status(e.status());
  return std::move(*e);
}
inline void check(const Status& s) {
  if (!s) raise_status(s);
}

// Runs `f` without the GIL (a long library call); the result is handled after it is retaken.
template <typename F>
auto without_gil(F&& f) {
  py::gil_scoped_release release;
  return f();
}

py::object json_to_py(const nlohmann::json& j);

// The bundled device database and zoo: beside the package (pip install) or in the source tree.
std::string devices_dir();
std::string models_dir();
void set_data_dirs(const std::string& devices, const std::string& models);

// Parsers for Python arguments, with the rule in the ValueError.
DType dtype_arg(const std::string& s);
std::optional<int64_t> batch_arg(std::optional<int64_t> b);
// The device database of devices_dir(), read once (again after set_data_dirs).
const std::vector<DeviceSpec>& device_db();
// A device by id, alias, file or custom spec with a peak for `dtype` (a valid dtype name).
DeviceSpec device_arg(const std::string& spec, const std::string& dtype);
// The engine a prediction on `dev` describes: an id of data/engines (beside devices_dir()),
// an engine .json file, or empty for the default (perf/engine.h, resolve_engine).
EngineProfile engine_arg(const std::string& engine, const DeviceSpec& dev);

// A fresh backend by name: onednn (cpu), reference, or cuda (the CUDA plugin) at `dtype`.
Expected<std::unique_ptr<Backend>> make_backend(const std::string& name, DType dtype);

void bind_models(py::module_& m);
void bind_validate(py::module_& m);
void bind_nas(py::module_& m);

}  // namespace rooflens::python
