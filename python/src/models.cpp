// Models from Python: load (file, bytes, zoo), analyze, predict, measure, fold, what-if,
// doctor, study, the device database. Results come back as small classes that keep the
// library's result (to draw it with the report writers) and give their numbers as dicts whose
// keys name their units (flops, bytes, time_s, throughput_img_per_s, ...).
#include <pybind11/functional.h>

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <thread>

#include "common.h"
#include "rooflens/analysis/doctor.h"
#include "rooflens/analysis/host_figures.h"
#include "rooflens/analysis/study_run.h"
#include "rooflens/analysis/whatif.h"
#include "rooflens/exec/backend.h"
#include "rooflens/exec/cuda.h"
#include "rooflens/exec/measure.h"
#include "rooflens/report/analyze_report.h"
#include "rooflens/report/doctor_report.h"
#include "rooflens/report/measure_report.h"
#include "rooflens/report/predict_report.h"
#include "rooflens/report/study_html.h"
#include "rooflens/report/study_report.h"
#include "rooflens/report/table.h"
#include "rooflens/session/model_session.h"
#include "rooflens/session/predict_request.h"
#include "rooflens/session/study_request.h"
#include "rooflens/session/whatif_request.h"
#include "rooflens/session/zoo.h"

namespace rooflens::python {
namespace {

py::list shapes_list(const std::vector<Shape>& shapes) {
  py::list l;
  for (const auto& s : shapes) l.append(py::tuple(py::cast(s)));
  return l;
}

py::dict layer_dict(const LayerReport& L) {
  py::dict d;
  d["name"] = L.name;
  d["op"] = L.op;
  d["desc"] = L.desc;
  d["status"] = L.status == LayerStatus::kOk ? "ok" : L.status == LayerStatus::kUnknownOp ? "unknown_op" : "unresolved";
  d["input_shapes"] = shapes_list(L.in_shapes);
  d["output_shapes"] = shapes_list(L.out_shapes);
  d["weight_shapes"] = shapes_list(L.weight_shapes);
  d["macs"] = L.cost.macs;
  d["flops"] = L.cost.flops;
  d["bytes"] = L.cost.bytes_in + L.cost.bytes_out + L.cost.bytes_weights;
  d["bytes_in"] = L.cost.bytes_in;
  d["bytes_out"] = L.cost.bytes_out;
  d["bytes_weights"] = L.cost.bytes_weights;
  d["ai_flop_per_byte"] = L.ai;
  d["flops_share"] = L.flops_share;
  return d;
}

py::dict analysis_dict(const ModelAnalysis& m) {
  py::dict d;
  d["model"] = m.model;
  d["dtype"] = std::string(dtype_name(m.dtype));
  d["batch"] = m.batch;
  d["fused"] = m.fused;
  d["input_shapes"] = shapes_list(m.input_shapes);
  d["macs"] = m.totals.macs;
  d["flops"] = m.totals.flops;
  d["bytes"] = m.totals.bytes_in + m.totals.bytes_out + m.totals.bytes_weights;
  d["bytes_weights"] = m.totals.bytes_weights;
  d["params"] = m.params;
  d["ai_flop_per_byte"] = m.ai;
  d["opset"] = m.opset;
  d["unknown_nodes"] = m.unknown_nodes;
  d["unresolved_nodes"] = m.unresolved_nodes;
  py::list layers;
  for (const auto& L : m.layers) layers.append(layer_dict(L));
  d["layers"] = layers;
  return d;
}

py::dict prediction_layer_dict(const LayerPrediction& L) {
  py::dict d;
  d["name"] = L.name;
  d["op"] = L.op;
  d["flops"] = L.flops;
  d["bytes"] = L.bytes;
  d["dram_bytes"] = L.dram_bytes;
  d["ai_flop_per_byte"] = L.ai;
  d["unit"] = std::string(compute_unit_name(L.unit));
  d["peak_flop_per_s"] = L.peak_used;
  d["t_compute_s"] = L.t_compute;
  d["t_memory_s"] = L.t_memory;
  d["t_launch_s"] = L.t_launch;
  d["t_gap_s"] = L.t_gap;
  d["time_s"] = L.time_s;
  d["time_share"] = L.time_share;
  d["achieved_flop_per_s"] = L.achieved_flops;
  d["bound"] = std::string(bound_name(L.bound));
  d["why"] = L.why;
  d["flags"] = L.flags;
  d["wave_efficiency"] = L.wave_efficiency;
  d["split_k"] = L.split_k;
  if (L.table_class.empty()) {
    d["kernel_table"] = py::none();
  } else {  // timed by a measured kernel table: its class and in-network level
    py::dict kt;
    kt["class"] = L.table_class;
    kt["level_class"] = L.level_class;
    kt["level_position"] = L.level_position;
    kt["level"] = L.level;
    d["kernel_table"] = kt;
  }
  return d;
}

py::dict prediction_dict(const Prediction& p) {
  py::dict d;
  d["model"] = p.model;
  d["device"] = p.device_id;
  d["engine"] = p.engine.empty() ? py::object(py::none()) : py::object(py::str(p.engine));
  d["device_name"] = p.device_name;
  d["dtype"] = p.dtype;
  d["batch"] = p.batch;
  d["images_per_input"] = p.images_per_input;
  d["time_s"] = p.time_s;
  d["throughput_img_per_s"] = p.throughput * p.images_per_input;
  d["flops_per_image"] = p.flops_per_image;
  d["peak_flop_per_s"] = p.peak_datasheet;
  d["peak_measured_flop_per_s"] = p.peak_measured ? py::cast(*p.peak_measured) : py::none();
  d["utilization"] = p.utilization;
  d["utilization_measured_peak"] = p.utilization_measured ? py::cast(*p.utilization_measured) : py::none();
  d["cmr_flop_per_byte"] = p.cmr;
  d["ai_flop_per_byte"] = p.ai;
  d["memory_bytes"] = p.memory_bytes;
  d["max_batch"] = p.max_batch ? py::cast(*p.max_batch) : py::none();
  d["notes"] = p.notes;
  py::list layers;
  for (const auto& L : p.layers) layers.append(prediction_layer_dict(L));
  d["layers"] = layers;
  return d;
}

struct PyAnalysis {
  ModelAnalysis a;
  py::dict to_dict() const { return analysis_dict(a); }
  std::string text() const { return report::render_text(report::layers_table(a, false)) + report::totals_text(a); }
  std::string json() const { return report::analyze_json({a}, false); }
};

struct PyPrediction {
  Prediction p;
  DeviceSpec device;
  py::dict to_dict() const { return prediction_dict(p); }
  std::string text() const {
    return report::render_text(report::predict_layers_table(p, false)) + "\n" + report::predict_summary_text(p, device);
  }
  std::string svg() const { return report::roofline_svg(p, device); }
  std::string json() const { return report::predict_json(p).dump(2); }
};

struct PyDoctor {
  DoctorReport r;
  py::object to_dict() const { return json_to_py(report::doctor_json(r)); }
  std::string text(bool verbose) const { return report::doctor_text(r, verbose); }
  std::string html() const {
    return report::doctor_section_html({report::DoctorZooRow{r.model, r, ""}}, r.baseline.device_id);
  }
};

struct PyStudy {
  Study s;
  py::object to_dict() const { return json_to_py(report::study_json(s)); }
  std::string text() const { return report::study_summary_text(s); }
  std::string html() const { return report::study_html(s); }
  std::vector<std::pair<std::string, std::string>> svgs() const { return report::study_svgs(s); }
  std::string csv() const { return report::study_csv(s); }
};

std::vector<InputShapeOverride> shapes_arg(const std::vector<std::string>& specs) {
  std::vector<InputShapeOverride> out;
  for (const auto& s : specs) out.push_back(unwrap(parse_input_shape(s)));
  return out;
}

// A model: its session (imported once), the batch and dtype it is analysed at by default.
class PyModel {
 public:
  PyModel(ModelSession s, std::optional<int64_t> batch, std::string dtype)
      : session_(std::move(s)), batch_(batch), dtype_(std::move(dtype)) {}

  const std::string& name() const { return session_.name(); }
  std::optional<int64_t> batch() const { return batch_; }
  const std::string& dtype() const { return dtype_; }
  const ModelSession& session() const { return session_; }

  LoadedModel loaded(std::optional<int64_t> batch, const std::string& dtype) const {
    const DType dt = dtype_arg(dtype);
    const auto b = batch_arg(batch ? batch : batch_);
    return unwrap(without_gil([&] { return session_.model(b, dt); }));
  }

  PyAnalysis analyze(std::optional<int64_t> batch, const std::optional<std::string>& dtype, bool fused) const {
    AnalyzeOptions o;
    o.cost.dtype = dtype_arg(dtype.value_or(dtype_));
    o.fusion = fused ? FusionMode::kEngine : FusionMode::kNone;
    const auto b = batch_arg(batch ? batch : batch_);
    return PyAnalysis{unwrap(without_gil([&] { return session_.analysis(b, o); }))};
  }

  std::vector<PyPrediction> predict(const std::string& device, const std::string& dtype,
                                    const std::vector<int64_t>& batches, bool max, bool datasheet_peak,
                                    const std::string& engine) const {
    const DType dt = dtype_arg(dtype);
    const DeviceSpec dev = device_arg(device, dtype);
    PredictRequest r;
    r.perf.engine = engine_arg(engine, dev);
    r.batches = batches;
    r.max = max;
    r.perf.dtype = dtype;
    r.perf.use_measured_peak = !datasheet_peak;
    auto ps = unwrap(without_gil([&] { return predict_session(session_, dt, dev, r); }));
    std::vector<PyPrediction> out;
    for (auto& p : ps) out.push_back(PyPrediction{std::move(p), dev});
    return out;
  }

 private:
  ModelSession session_;
  std::optional<int64_t> batch_;
  std::string dtype_;
};

PyModel open_file(const std::string& path, const std::vector<std::string>& input_shapes, std::optional<int64_t> batch,
                  const std::string& dtype) {
  dtype_arg(dtype);
  PyModel m(ModelSession::from_file(path, shapes_arg(input_shapes)), batch_arg(batch), dtype);
  m.loaded(std::nullopt, dtype);  // imports now: a bad file fails at load()
  return m;
}

PyModel open_bytes(const py::bytes& data, const std::string& name, const std::vector<std::string>& input_shapes,
                   std::optional<int64_t> batch, const std::string& dtype) {
  dtype_arg(dtype);
  PyModel m(ModelSession::from_bytes(std::string(data), name, "", shapes_arg(input_shapes)), batch_arg(batch), dtype);
  m.loaded(std::nullopt, dtype);
  return m;
}

PyModel fold(const PyModel& m, int factor, int align, std::optional<int64_t> batch) {
  if (factor < 2) raise_status(Status::invalid("fold factor " + std::to_string(factor) + ": must be >= 2"));
  const LoadedModel l = m.loaded(batch ? batch : std::optional<int64_t>(factor), m.dtype());
  auto f = unwrap(without_gil([&] { return fold_model(l, factor, align); }));
  std::string name = m.name() + "-fold" + std::to_string(factor);
  return PyModel(ModelSession::from_graph(std::move(f.graph), name), std::nullopt, m.dtype());
}

// The host-state reference around the timed runs and, with a device, the measurement set
// against its baseline (analysis/host_figures.h).
void add_host_figures(py::dict& d, const Measurement& r, const LoadedModel& l, const DeviceSpec* dev,
                      HostContext& host) {
  if (!r.host) return;
  const auto& h = *r.host;
  d["host_reference"] = json_to_py(report::host_reading_json(h));
  if (!dev) return;
  PerfOptions po;
  po.dtype = "fp32";
  const Prediction p = unwrap(predict(l.graph, l.analysis, *dev, po));
  const HostFigures f = host_figures(r, p, host);
  d["predicted_img_per_s"] = p.throughput;
  d["host_baseline"] = host.baseline_source;
  d["drift"] = f.drift;
  d["same_dispatch_state"] = f.same_state;
  d["normalized_throughput_img_per_s"] = f.normalized_throughput;
  d["predicted_at_host_state_img_per_s"] = f.predicted_at_state;
}

py::dict measure(const PyModel& m, const std::string& backend, std::optional<int64_t> batch, int threads,
                 double max_seconds, bool tune, const std::string& tactic_cache, bool fixed_threads,
                 const std::string& device, bool host_reference, double reference_max_move, const std::string& layout,
                 bool flush_denormals, bool paired_reference, double state_wait) {
  if (!(max_seconds > 0)) raise_status(Status::invalid("max_seconds must be > 0"));
  if (!(state_wait >= 0 && state_wait <= 3600))
    raise_status(Status::invalid("state_wait must be in [0, 3600] seconds"));
  const ActivationLayout activation_layout = unwrap(parse_activation_layout(layout));
  if (!(reference_max_move >= 0 && reference_max_move <= 10))
    raise_status(Status::invalid("reference_max_move must be in [0, 10] (a share: 0.1 is 10%)"));
  const bool cpu = backend != "cuda";
  const std::string dtype = cpu ? "fp32" : m.dtype();
  const std::optional<DeviceSpec> dev =
      cpu && !device.empty() ? std::optional(device_arg(device, dtype)) : std::nullopt;
  const LoadedModel l = m.loaded(batch ? batch : std::optional<int64_t>(1), dtype);
  auto b = unwrap(make_backend(backend, dtype_arg(dtype)));
  MeasureOptions mo;
  mo.exec.threads = measure_threads(threads);
  mo.exec.tune = tune;
  mo.exec.tactic_cache = tactic_cache;
  mo.exec.layout = activation_layout;
  mo.exec.flush_denormals = flush_denormals;
  mo.timing = model_timing(!cpu, max_seconds);
  HostContext host =
      make_host_context(cpu && host_reference, reference_max_move, mo.exec.threads, dev ? *dev : DeviceSpec{});
  host.adapt_threads = !fixed_threads;
  host.paired_reference = paired_reference;
  host.state_wait_s = state_wait;
  if (cpu) attach_host(mo, host);
  auto r = unwrap(without_gil([&] { return measure_model(l.graph, l.analysis, *b, mo); }));
  py::dict d;
  d["model"] = m.name();
  d["backend"] = r.backend;
  d["dtype"] = dtype;
  d["batch"] = r.batch;
  d["threads"] = r.threads;
  d["threads_asked"] = mo.exec.threads;
  d["streams"] = r.streams;
  d["thread_choice"] = r.thread_choice ? py::object(py::str(r.thread_choice->summary)) : py::object(py::none());
  d["contended"] = r.contention ? py::object(py::bool_(r.contention->contended)) : py::object(py::none());
  d["contention"] = r.contention ? py::object(py::str(r.contention->summary)) : py::object(py::none());
  add_host_figures(d, r, l, dev ? &*dev : nullptr, host);
  d["latency_s"] = r.timing.median;
  d["latency_min_s"] = r.timing.min;
  d["runs"] = r.timing.samples.size();
  d["throughput_img_per_s"] = r.throughput;
  d["throughput_q1_img_per_s"] = r.throughput_q1;
  d["throughput_q3_img_per_s"] = r.throughput_q3;
  d["achieved_flop_per_s"] = r.achieved_flops;
  d["noisy"] = r.timing.noisy;
  d["layout"] = r.layout;
  d["denormals_flushed"] = r.denormals_flushed;
  py::list layers;
  for (const auto& L : r.layers) {
    py::dict x;
    x["name"] = L.name;
    x["op"] = L.op;
    x["implementation"] = L.impl;
    x["time_s"] = L.time_s;
    layers.append(x);
  }
  d["layers"] = layers;
  return d;
}

WhatIfOptions whatif_setup(const std::string& device, const std::string& dtype, std::optional<int64_t> batch,
                           const std::vector<std::string>& devices, const std::string& engine) {
  const DeviceSpec dev = device_arg(device, dtype);
  return unwrap(whatif_options(dev, dtype, batch_arg(batch), device_db(), devices, engine_arg(engine, dev)));
}

py::list whatif(const PyModel& m, const std::string& device, const std::string& dtype, std::optional<int64_t> batch,
                const std::vector<std::string>& devices, const std::string& engine) {
  WhatIfOptions o = whatif_setup(device, dtype, batch, devices, engine);
  const TypedLoader load = m.session().typed_loader();
  auto rows = unwrap(without_gil([&] { return run_whatif(load, o); }));
  py::list out;
  for (const auto& r : rows) {
    py::dict d;
    d["group"] = r.group;
    d["variant"] = r.variant;
    d["device"] = r.device_id;
    d["dtype"] = r.dtype;
    d["batch"] = r.batch;
    d["throughput_img_per_s"] = r.throughput;
    d["speedup"] = r.speedup;
    d["utilization"] = r.utilization;
    d["ai_flop_per_byte"] = r.ai;
    d["cmr_flop_per_byte"] = r.cmr;
    d["flops_per_image"] = r.flops_per_image;
    d["note"] = r.note;
    d["ok"] = r.ok;
    out.append(d);
  }
  return out;
}

PyDoctor doctor(const PyModel& m, const std::string& device, const std::string& dtype, std::optional<int64_t> batch,
                const std::string& engine) {
  WhatIfOptions w = whatif_setup(device, dtype, batch, {}, engine);
  DoctorOptions o = doctor_options(w, static_cast<int>(std::thread::hardware_concurrency()));
  const TypedLoader load = m.session().typed_loader();
  return PyDoctor{unwrap(without_gil([&] { return run_doctor(m.name(), load, o); }))};
}

// A study measured on `backend` (cuda: the GPU at hand, else this CPU in fp32).
void set_measured(StudyOptions& o, const std::string& backend, int threads, double max_seconds,
                  const std::string& tactic_cache) {
  const DType dt = dtype_arg(o.dtype);
  const bool gpu = backend == "cuda";
  unwrap(make_backend(backend, dt));  // an unknown or unbuilt backend, or no GPU, fails here
  if (gpu != o.device.is_gpu())
    check(Status::invalid("device '" + o.device.id + "' " +
                          (gpu ? "is not a GPU: backend 'cuda' measures on the GPU at hand"
                               : "is a GPU: backend '" + backend + "' measures on this CPU")));
  if (!gpu && dt != DType::kF32)
    check(Status::unsupported("a measured study runs fp32 on this CPU; dtype " + o.dtype + " cannot be measured here"));
  ExecOptions exec;
  exec.threads = measure_threads(threads);
  exec.tactic_cache = tactic_cache;
  measure_study_on(
      o, [backend, dt] { return make_backend(backend, dt); }, gpu, exec, max_seconds,
      gpu ? fmt::format("{} through the cuda backend ({}, layer by layer)", o.device.name, o.dtype)
          : fmt::format("this CPU through the {} backend ({} thread(s))", backend, exec.threads));
}

PyStudy study(const std::vector<std::string>& files, const std::vector<std::string>& models, bool zoo,
              const std::string& device, const std::string& dtype, std::optional<int64_t> batch,
              const std::vector<std::string>& fold, bool fold_below_cmr, int fold_factor, int jobs,
              const std::string& source, const std::string& backend, int threads, double max_seconds,
              const std::string& tactic_cache) {
  if (source != "predicted" && source != "measured")
    check(Status::invalid("source '" + source + "': expected predicted or measured"));
  StudyRequest req;
  req.files = files;
  req.models = models;
  req.zoo = zoo;
  req.fold = fold;
  req.dtype = dtype_arg(dtype);
  req.models_dir = models_dir();
  auto resolved = unwrap(resolve_study_request(req));
  StudyOptions o;
  const bool defaulted_cpu = source == "measured" && device.empty();  // this-cpu, the database's entry
  o.device = device_arg(defaulted_cpu ? "this-cpu" : device, dtype);
  o.dtype = dtype;
  o.batch = batch_arg(batch);
  o.perf.dtype = dtype;
  o.fold_factor = fold_factor;
  o.fold_below_cmr = fold_below_cmr;
  o.jobs = jobs > 0 ? jobs : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  o.fold = [](const LoadedModel& l, int f) { return fold_model(l, f); };
  o.source = StudySource::kPredicted;
  o.source_detail = "performance model over the device database; not measured";
  if (source == "measured") set_measured(o, backend, threads, max_seconds, tactic_cache);
  Study s = unwrap(without_gil([&] { return run_study(resolved.entries, o); }));
  if (defaulted_cpu) note_database_peaks(s, o.device.id);
  return PyStudy{std::move(s)};
}

py::object devices() { return json_to_py(report::devices_json(device_db())); }

py::dict zoo_models() {
  py::dict d;
  for (const auto& [name, z] : zoo_index(models_dir())) {
    py::dict e;
    e["path"] = z.path;
    e["acc1_percent"] = z.acc1 ? py::cast(*z.acc1) : py::none();
    e["acc5_percent"] = z.acc5 ? py::cast(*z.acc5) : py::none();
    d[py::str(name)] = e;
  }
  return d;
}

}  // namespace

Expected<std::unique_ptr<Backend>> make_backend(const std::string& name, DType dtype) {
  if (name == "cuda") {
    CudaBackendOptions o;
    o.dtype = dtype;
    return make_cuda_backend(o);
  }
  std::unique_ptr<Backend> b;
  if (name == "cpu" || name == "onednn")
    b = make_onednn_backend();
  else if (name == "reference")
    b = make_reference_backend();
  else
    return Status::invalid("backend '" + name + "': expected onednn (cpu), cuda or reference");
  if (!b) return Status::unavailable("backend '" + name + "' is not available in this build");
  return b;
}

void bind_models(py::module_& m) {
  py::class_<PyAnalysis>(m, "Analysis")
      .def("to_dict", &PyAnalysis::to_dict)
      .def("text", &PyAnalysis::text)
      .def("json", &PyAnalysis::json);
  py::class_<PyPrediction>(m, "Prediction")
      .def("to_dict", &PyPrediction::to_dict)
      .def("text", &PyPrediction::text)
      .def("svg", &PyPrediction::svg)
      .def("json", &PyPrediction::json);
  py::class_<PyDoctor>(m, "Doctor")
      .def("to_dict", &PyDoctor::to_dict)
      .def("text", &PyDoctor::text, py::arg("verbose") = false)
      .def("html", &PyDoctor::html);
  py::class_<PyStudy>(m, "Study")
      .def("to_dict", &PyStudy::to_dict)
      .def("text", &PyStudy::text)
      .def("html", &PyStudy::html)
      .def("svgs", &PyStudy::svgs)
      .def("csv", &PyStudy::csv);
  py::class_<PyModel>(m, "Model")
      .def_property_readonly("name", &PyModel::name)
      .def_property_readonly("batch", &PyModel::batch)
      .def_property_readonly("dtype", &PyModel::dtype)
      .def("analyze", &PyModel::analyze, py::arg("batch") = py::none(), py::arg("dtype") = py::none(),
           py::arg("fused") = true)
      .def("predict", &PyModel::predict, py::arg("device"), py::arg("dtype"), py::arg("batches"), py::arg("max"),
           py::arg("datasheet_peak") = false, py::arg("engine") = "");
  m.def("open_file", &open_file, py::arg("path"), py::arg("input_shapes"), py::arg("batch"), py::arg("dtype"));
  m.def("open_bytes", &open_bytes, py::arg("data"), py::arg("name"), py::arg("input_shapes"), py::arg("batch"),
        py::arg("dtype"));
  m.def("fold", &fold, py::arg("model"), py::arg("factor"), py::arg("align"), py::arg("batch"));
  m.def("measure", &measure, py::arg("model"), py::arg("backend"), py::arg("batch"), py::arg("threads"),
        py::arg("max_seconds"), py::arg("tune"), py::arg("tactic_cache"), py::arg("fixed_threads") = false,
        py::arg("device") = "", py::arg("host_reference") = true,
        py::arg("reference_max_move") = kDefaultReferenceMaxMove, py::arg("layout") = "channels-last",
        py::arg("flush_denormals") = true, py::arg("paired_reference") = true, py::arg("state_wait") = 0.0);
  m.def("whatif", &whatif, py::arg("model"), py::arg("device"), py::arg("dtype"), py::arg("batch"), py::arg("devices"),
        py::arg("engine") = "");
  m.def("doctor", &doctor, py::arg("model"), py::arg("device"), py::arg("dtype"), py::arg("batch"),
        py::arg("engine") = "");
  m.def("study", &study, py::arg("files"), py::arg("models"), py::arg("zoo"), py::arg("device"), py::arg("dtype"),
        py::arg("batch"), py::arg("fold"), py::arg("fold_below_cmr"), py::arg("fold_factor"), py::arg("jobs"),
        py::arg("source"), py::arg("backend"), py::arg("threads"), py::arg("max_seconds"), py::arg("tactic_cache"));
  m.def("devices", &devices);
  m.def("zoo_models", &zoo_models);
}

}  // namespace rooflens::python
