// validate(): the library's zoo validation (session/zoo_validation.h) from Python, its result
// the rooflens.validate/1 document `rooflens validate --format json` writes.
#include <cstdio>

#include "common.h"
#include "rooflens/exec/measure.h"
#include "rooflens/session/zoo_validation.h"

namespace rooflens::python {

namespace {

ZooValidationRequest validate_request(const std::vector<std::string>& models, const std::string& device,
                                      const std::string& backend, int64_t batch, int threads, double max_seconds,
                                      int repeat, int max_repeat, double settle, bool keep_going, bool host_reference,
                                      bool progress, const std::string& tactic_cache, bool paired_reference,
                                      int state_repeat, double state_wait) {
  if (backend == "cuda")
    raise_status(
        Status::invalid("validate: backend 'cuda' from Python is not offered; `rooflens validate "
                        "--backend cuda` runs it"));
  if (batch < 1) raise_status(Status::invalid("validate: batch must be >= 1"));
  if (!(max_seconds > 0)) raise_status(Status::invalid("validate: max_seconds must be > 0"));
  if (repeat < 1 || repeat > 1000) raise_status(Status::invalid("validate: repeat must be in [1, 1000]"));
  if (max_repeat < 0 || max_repeat > 1000) raise_status(Status::invalid("validate: max_repeat must be in [0, 1000]"));
  if (state_repeat < 0 || state_repeat > 1000)
    raise_status(Status::invalid("validate: state_repeat must be in [0, 1000]"));
  if (!(state_wait >= 0 && state_wait <= 3600))
    raise_status(Status::invalid("validate: state_wait must be in [0, 3600] seconds"));
  if (!(settle > 0 && settle <= 1)) raise_status(Status::invalid("validate: settle must be in (0, 1]"));
  unwrap(make_backend(backend, DType::kF32));  // an unknown or unbuilt backend fails here, not per model
  ZooValidationRequest r;
  r.models = models;
  r.models_dir = models_dir();
  r.modes.push_back({backend, [backend] { return make_backend(backend, DType::kF32); }, false});
  r.dev = device_arg(device, "fp32");
  r.batch = batch;
  r.exec.threads = measure_threads(threads);
  r.exec.tactic_cache = tactic_cache;
  r.max_seconds = max_seconds;
  r.repeat = repeat;
  r.max_repeat = max_repeat;
  r.state_repeat = state_repeat;
  r.settle = settle;
  r.keep_going = keep_going;
  r.host_reference = host_reference;
  r.paired_reference = paired_reference;
  r.state_wait = state_wait;
  if (progress) r.progress = [](const std::string& line) { std::fprintf(stderr, "validate: %s\n", line.c_str()); };
  return r;
}

py::object validate(const std::vector<std::string>& models, const std::string& device, const std::string& backend,
                    int64_t batch, int threads, double max_seconds, int repeat, int max_repeat, double settle,
                    bool keep_going, bool host_reference, bool progress, const std::string& tactic_cache,
                    bool paired_reference, int state_repeat, double state_wait) {
  const ZooValidationRequest r =
      validate_request(models, device, backend, batch, threads, max_seconds, repeat, max_repeat, settle, keep_going,
                       host_reference, progress, tactic_cache, paired_reference, state_repeat, state_wait);
  const ZooValidation v = unwrap(without_gil([&] { return validate_zoo(r); }));
  const ZooValidationLabels labels{backend, "fp32", "eager", "", r.exec.threads};
  return json_to_py(nlohmann::json::parse(zoo_validation_json(r, labels, v)));
}

}  // namespace

void bind_validate(py::module_& m) {
  m.def("validate", &validate, py::arg("models"), py::arg("device"), py::arg("backend"), py::arg("batch"),
        py::arg("threads"), py::arg("max_seconds"), py::arg("repeat"), py::arg("max_repeat"), py::arg("settle"),
        py::arg("keep_going"), py::arg("host_reference"), py::arg("progress"), py::arg("tactic_cache"),
        py::arg("paired_reference") = true, py::arg("state_repeat") = 0,
        py::arg("state_wait") = kDefaultValidateStateWait);
}

}  // namespace rooflens::python
