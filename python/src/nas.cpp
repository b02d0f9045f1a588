// NAS from Python: the NATS-Bench size space (one network, the whole space as numpy arrays),
// the NATS-Bench reader and the oracles, the four strategies as ask/tell objects, a logged
// search over a Python evaluation function (the simulated clock, logs and resume of
// run_logged_search), the experiment of `rooflens nas`, and the frontier metrics.
#include <pybind11/functional.h>
#include <pybind11/numpy.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <map>
#include <mutex>

#include "common.h"
#include "rooflens/nas/experiment.h"
#include "rooflens/nas/frontier_metrics.h"
#include "rooflens/nas/nats_data.h"
#include "rooflens/nas/oracle.h"
#include "rooflens/nas/search.h"
#include "rooflens/nas/search_log.h"
#include "rooflens/nas/sss_space.h"
#include "rooflens/nas/sss_study.h"
#include "rooflens/nas/strategy.h"

namespace rooflens::python {
namespace {

using namespace rooflens::nas;

SssBatch sss_batch_arg(std::optional<int64_t> batch) {
  batch_arg(batch);
  return batch ? SssBatch::fixed(*batch) : SssBatch::largest();
}

SssNetInput net_input_arg(const std::string& dataset) { return sss_net_input(unwrap(sss_dataset_from_name(dataset))); }

PerfOptions perf_arg(const std::string& dtype) {
  PerfOptions po;
  po.dtype = dtype;
  return po;
}

py::dict point_dict(const SssPoint& p) {
  py::dict d;
  d["index"] = p.index;
  d["arch"] = p.arch;
  d["macs_per_image"] = p.macs;
  d["flops_per_image"] = p.flops;
  d["flop_benchmark"] = p.flop_benchmark;
  d["params"] = p.params;
  d["ai_flop_per_byte"] = p.ai;
  d["throughput_img_per_s"] = p.throughput;
  d["utilization"] = p.utilization;
  d["batch"] = p.batch;
  return d;
}

py::dict sss_network(const std::string& arch, const std::string& device, const std::string& dtype,
                     std::optional<int64_t> batch, const std::string& dataset) {
  const SssWidths w = unwrap(sss_parse_arch(arch));
  unwrap(sss_index(w));
  const DeviceSpec dev = device_arg(device, dtype);
  const SssNetInput in = net_input_arg(dataset);
  const SssBatch b = sss_batch_arg(batch);
  return point_dict(unwrap(predict_sss_network(w, in, dev, perf_arg(dtype), b)));
}

// The space table a strategy and a search read, predicted on one device.
struct PySpace {
  SpaceTable table;
  std::string device, dtype, dataset;
};

PySpace sss_space(const std::string& device, const std::string& dtype, std::optional<int64_t> batch,
                  const std::string& dataset, int jobs) {
  const DeviceSpec dev = device_arg(device, dtype);
  const SssNetInput in = net_input_arg(dataset);
  const SssBatch b = sss_batch_arg(batch);
  const PerfOptions po = perf_arg(dtype);
  PySpace s{{}, dev.id, dtype, dataset};
  s.table.points = unwrap(without_gil([&] { return predict_sss_space(in, dev, po, b, jobs); }));
  s.table.source = "predicted by the rooflens performance model: NATS-SSS " + in.name + " on " + dev.id + ", " + dtype +
                   (b.max ? std::string(", max batch") : ", batch " + std::to_string(b.size));
  return s;
}

template <typename T, typename F>
py::array_t<T> column(const std::vector<SssPoint>& pts, F f) {
  py::array_t<T> a(static_cast<py::ssize_t>(pts.size()));
  auto r = a.template mutable_unchecked<1>();
  for (size_t i = 0; i < pts.size(); ++i) r(static_cast<py::ssize_t>(i)) = f(pts[i]);
  return a;
}

py::dict space_arrays(const PySpace& s) {
  const auto& p = s.table.points;
  py::dict d;
  d["index"] = column<int64_t>(p, [](const SssPoint& x) { return x.index; });
  d["macs_per_image"] = column<int64_t>(p, [](const SssPoint& x) { return x.macs; });
  d["flops_per_image"] = column<int64_t>(p, [](const SssPoint& x) { return x.flops; });
  d["params"] = column<int64_t>(p, [](const SssPoint& x) { return x.params; });
  d["ai_flop_per_byte"] = column<double>(p, [](const SssPoint& x) { return x.ai; });
  d["throughput_img_per_s"] = column<double>(p, [](const SssPoint& x) { return x.throughput; });
  d["utilization"] = column<double>(p, [](const SssPoint& x) { return x.utilization; });
  d["batch"] = column<int64_t>(p, [](const SssPoint& x) { return x.batch; });
  py::array_t<int64_t> widths({static_cast<py::ssize_t>(p.size()), static_cast<py::ssize_t>(kSssNumLayers)});
  auto w = widths.mutable_unchecked<2>();
  for (size_t i = 0; i < p.size(); ++i) {
    const SssWidths x = sss_widths(p[i].index);
    for (int k = 0; k < kSssNumLayers; ++k) w(static_cast<py::ssize_t>(i), k) = x[static_cast<size_t>(k)];
  }
  d["widths"] = widths;
  return d;
}

int64_t arch_arg(const py::object& arch) {
  if (py::isinstance<py::str>(arch)) return unwrap(sss_index(arch.cast<std::string>()));
  const int64_t i = arch.cast<int64_t>();
  if (!sss_index_valid(i))
    raise_status(Status::invalid("arch index " + std::to_string(i) + ": outside the size space (0.." +
                                 std::to_string(kSssSpaceSize - 1) + ")"));
  return i;
}

SearchConfig config_arg(const std::string& strategy, uint64_t seed, double budget_seconds, const std::string& reward,
                        double target_throughput, double w, int64_t max_evaluations, const std::string& filter_order) {
  SearchConfig c;
  c.strategy = unwrap(strategy_kind_from_name(strategy));
  c.seed = seed;
  c.budget_seconds = budget_seconds;
  c.reward.kind = unwrap(reward_kind_from_name(reward));
  c.reward.target_throughput = target_throughput;
  c.reward.w = w;
  c.max_evaluations = max_evaluations;
  c.filter_order = unwrap(filter_order_from_name(filter_order));
  check(validate_config(c));
  return c;
}

// A strategy driven from Python: ask() for a network, tell() its reward.
class PyStrategy {
 public:
  PyStrategy(const SearchConfig& c, const PySpace& space) : config_(c), rng_(c.seed), space_(space.table) {
    strategy_ = unwrap(make_strategy(config_, space_, rng_));
  }
  std::optional<int64_t> ask(bool time_left, int64_t in_flight) {
    auto a = strategy_->ask(rng_, AskContext{time_left, in_flight});
    if (a) asked_[*a] += 1;
    return a;
  }
  void tell(const py::object& arch, double reward) {
    const int64_t a = arch_arg(arch);
    auto it = asked_.find(a);
    if (it == asked_.end() || it->second == 0)
      raise_status(
          Status::invalid("tell(" + sss_arch_string(a) + "): the strategy did not ask for it (or was told already)"));
    it->second -= 1;
    strategy_->tell(a, reward);
  }
  double reward(double accuracy, double throughput) const {
    return compute_reward(config_.reward, accuracy, throughput);
  }
  double start_seconds() const { return strategy_->start_seconds(); }
  std::vector<int64_t> candidates() const { return strategy_->candidates(); }

 private:
  SearchConfig config_;
  SearchRng rng_;
  SpaceTable space_;
  std::unique_ptr<Strategy> strategy_;
  std::map<int64_t, int64_t> asked_;
};

// An oracle answered by a Python function: evaluate(arch_index, seed) -> (accuracy %, cost s)
// or accuracy alone (cost 0); final(arch_index) -> accuracy %, optional.
class PyOracle : public AccuracyOracle {
 public:
  PyOracle(py::function evaluate, py::object final_accuracy, std::string description)
      : evaluate_(std::move(evaluate)), final_(std::move(final_accuracy)), description_(std::move(description)) {}
  ~PyOracle() override {
    py::gil_scoped_acquire gil;
    evaluate_ = py::function();
    final_ = py::object();
  }
  Expected<Evaluation> evaluate(int64_t arch, uint64_t seed) override {
    py::gil_scoped_acquire gil;
    try {
      py::object r = evaluate_(arch, seed);
      Evaluation e;
      if (py::isinstance<py::tuple>(r)) {
        auto t = r.cast<py::tuple>();
        if (t.size() != 2)
          return Status::invalid("evaluate() returned a tuple of " + std::to_string(t.size()) +
                                 " items; expected (accuracy_percent, cost_seconds)");
        e.accuracy = t[0].cast<double>();
        e.cost_seconds = t[1].cast<double>();
      } else {
        e.accuracy = r.cast<double>();
      }
      if (!std::isfinite(e.accuracy) || !std::isfinite(e.cost_seconds) || e.cost_seconds < 0)
        return Status::invalid("evaluate(" + sss_arch_string(arch) +
                               "): accuracy must be finite and cost_seconds finite and >= 0");
      e.detail = description_;
      return e;
    } catch (py::error_already_set& err) {
      error_ = std::make_shared<py::error_already_set>(std::move(err));
      return Status::internal("evaluate(" + sss_arch_string(arch) + ") raised: " + error_->what());
    } catch (const py::cast_error& err) {
      return Status::invalid("evaluate(" + sss_arch_string(arch) + "): " + err.what() +
                             " (return accuracy_percent or (accuracy_percent, cost_seconds))");
    }
  }
  Expected<double> final_accuracy(int64_t arch) override {
    py::gil_scoped_acquire gil;
    if (final_.is_none()) return Status::unavailable("no final accuracy function given");
    try {
      return final_(arch).cast<double>();
    } catch (py::error_already_set& err) {
      return Status::internal(std::string("final_accuracy raised: ") + err.what());
    }
  }
  std::string describe() const override { return description_; }
  // The Python exception evaluate() raised, re-raised by the caller once the GIL is held.
  std::shared_ptr<py::error_already_set> error_;

 private:
  py::function evaluate_;
  py::object final_;
  std::string description_;
};

py::dict record_dict(const EvalRecord& r) {
  py::dict d;
  d["step"] = r.step;
  d["arch_index"] = r.arch;
  d["arch"] = sss_arch_string(r.arch);
  d["accuracy_percent"] = r.accuracy;
  d["cost_s"] = r.cost_seconds;
  d["clock_s"] = r.clock_seconds;
  d["throughput_img_per_s"] = r.throughput;
  d["utilization"] = r.utilization;
  d["reward"] = r.reward;
  d["oracle_seed"] = r.oracle_seed;
  return d;
}

py::dict result_dict(const SearchResult& r, int64_t replayed, bool was_complete) {
  py::dict d;
  d["strategy"] = strategy_kind_name(r.config.strategy);
  d["seed"] = r.config.seed;
  py::list evals;
  for (const auto& e : r.evaluations) evals.append(record_dict(e));
  d["evaluations"] = evals;
  d["best_arch_index"] = r.best_arch >= 0 ? py::cast(r.best_arch) : py::none();
  d["best_arch"] = r.best_arch >= 0 ? py::cast(sss_arch_string(r.best_arch)) : py::none();
  d["best_reward"] = r.best_reward;
  d["clock_s"] = r.clock_seconds;
  d["frontier"] = r.frontier;
  d["replayed_steps"] = replayed;
  d["was_complete"] = was_complete;
  return d;
}

py::dict search(const SearchConfig& c, const PySpace& space, py::function evaluate, const std::string& log, bool resume,
                const std::string& description) {
  PyOracle oracle(std::move(evaluate), py::none(), description);
  auto r = without_gil([&] { return run_logged_search(c, space.table, oracle, description, log, resume); });
  if (oracle.error_) throw *oracle.error_;
  auto v = unwrap(std::move(r));
  return result_dict(v.result, v.replayed_steps, v.was_complete);
}

// Python oracles for the experiment: make_oracle("python:N") answers with the N-th registered.
std::mutex py_oracles_mutex;
std::map<int64_t, std::pair<py::function, py::object>> py_oracles;
std::atomic<int64_t> py_oracle_next{0};

void register_python_scheme() {
  static std::once_flag once;
  std::call_once(once, [] {
    register_oracle_scheme("python", [](const std::string& spec) -> Expected<std::unique_ptr<AccuracyOracle>> {
      const int64_t id = std::stoll(spec.substr(7));
      py::gil_scoped_acquire gil;
      std::lock_guard<std::mutex> lock(py_oracles_mutex);
      auto it = py_oracles.find(id);
      if (it == py_oracles.end()) return Status::internal("python oracle " + std::to_string(id) + " is gone");
      return std::unique_ptr<AccuracyOracle>(
          std::make_unique<PyOracle>(it->second.first, it->second.second, "a Python evaluation function"));
    });
  });
}

py::dict experiment(const std::vector<std::string>& strategies, int seeds, uint64_t seed_base, const std::string& out,
                    const SearchConfig& base, const PySpace& space, const py::object& oracle, const py::object& final,
                    bool resume, int threads) {
  ExperimentSpec xs;
  xs.strategies = strategies;
  xs.seeds = seeds;
  xs.seed_base = seed_base;
  xs.out = out;
  xs.base = base;
  auto x = unwrap(NasExperiment::plan(xs));
  check(x.prepare_output(resume));
  std::string spec, description;
  int64_t id = -1;
  if (py::isinstance<py::str>(oracle)) {
    spec = oracle.cast<std::string>();
  } else {
    register_python_scheme();
    id = py_oracle_next++;
    {
      std::lock_guard<std::mutex> lock(py_oracles_mutex);
      py_oracles[id] = {oracle.cast<py::function>(), final};
    }
    spec = "python:" + std::to_string(id);
  }
  auto made = unwrap(make_oracle(spec));
  description = made->describe();
  ExperimentOptions o;
  o.threads = id >= 0 ? 1 : threads;
  o.resume = resume;
  auto r = without_gil([&] { return x.run(space.table, spec, description, o); });
  std::vector<SearchResult> runs;
  py::list results;
  if (r) {
    for (auto& l : *r) {
      results.append(result_dict(l.result, l.replayed_steps, l.was_complete));
      runs.push_back(l.result);
    }
  }
  std::string why_not;
  std::vector<double> truth;
  if (r) truth = without_gil([&] { return NasExperiment::final_accuracies(*made, runs, why_not); });
  if (id >= 0) {
    std::lock_guard<std::mutex> lock(py_oracles_mutex);
    py_oracles.erase(id);
  }
  made.reset();
  if (!r) raise_status(r.status());
  py::dict d;
  d["runs"] = results;
  py::list logs;
  for (const auto& t : x.runs()) logs.append(t.log);
  d["logs"] = logs;
  d["oracle"] = description;
  if (!truth.empty()) {
    py::list scores;
    std::vector<double> thr;
    for (const auto& p : space.table.points) thr.push_back(p.throughput);
    for (const auto& run : runs) {
      std::vector<int64_t> evaluated;
      for (const auto& e : run.evaluations) evaluated.push_back(e.arch);
      auto s = score_search(evaluated, thr, truth);
      if (!s) {
        scores.append(py::none());
        continue;
      }
      py::dict sd;
      sd["hypervolume_ratio"] = s->hypervolume_ratio;
      sd["igd"] = s->igd;
      sd["true_frontier_size"] = s->true_frontier_size;
      sd["true_frontier_found"] = s->true_frontier_found;
      scores.append(sd);
    }
    d["scores"] = scores;
  } else {
    d["scores"] = py::none();
    d["no_truth_reason"] = why_not;
  }
  return d;
}

std::vector<ObjPoint> points_arg(const std::vector<std::pair<double, double>>& pts) {
  std::vector<ObjPoint> out;
  for (const auto& [t, a] : pts) out.push_back(ObjPoint{t, a});
  return out;
}

Bounds bounds_arg(const std::optional<std::vector<std::pair<double, double>>>& space,
                  const std::vector<std::pair<double, double>>& fallback) {
  return unwrap(bounds_of(points_arg(space ? *space : fallback)));
}

// The oracles of `rooflens nas --oracle` (nats:PATH, csv:FILE) as a Python object.
struct PyNamedOracle {
  std::unique_ptr<AccuracyOracle> o;
};

py::dict nats_network(const std::string& path) {
  NatsNetwork n = unwrap(without_gil([&] { return read_nats_network(path); }));
  py::dict d;
  for (const auto& hp : n.hps) {
    py::dict h;
    h["arch_index"] = hp.arch_index;
    h["arch"] = hp.arch_str;
    py::list results;
    for (const auto& r : hp.results) {
      py::dict x;
      x["dataset"] = r.dataset;
      x["seed"] = r.seed;
      x["epochs"] = r.epochs;
      x["flop_m"] = r.flop;
      x["params_m"] = r.params;
      x["latency_s"] = r.latency;
      x["train_acc1es_percent"] = r.train_acc1es;
      x["train_times_s"] = r.train_times;
      x["eval_acc1es_percent"] = r.eval_acc1es;
      x["eval_times_s"] = r.eval_times;
      results.append(x);
    }
    h["results"] = results;
    d[py::str(hp.hp)] = h;
  }
  return d;
}

// bench/python_overhead.py: the library call sss_network() makes, timed `n` times in C++
// (device resolved once, as the Python call's cache does): seconds per call.
double time_sss_network_cpp(const std::string& arch, const std::string& device, const std::string& dtype,
                            std::optional<int64_t> batch, int n) {
  const SssWidths w = unwrap(sss_parse_arch(arch));
  const DeviceSpec dev = device_arg(device, dtype);
  const SssNetInput in = sss_net_input(SssDataset::kCifar10);
  const SssBatch b = sss_batch_arg(batch);
  const PerfOptions po = perf_arg(dtype);
  return without_gil([&] {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < n; ++i) (void)predict_sss_network(w, in, dev, po, b);
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / std::max(1, n);
  });
}

}  // namespace

void bind_nas(py::module_& m) {
  using namespace rooflens::nas;
  m.def("_time_sss_network_cpp", &time_sss_network_cpp, py::arg("arch"), py::arg("device"), py::arg("dtype"),
        py::arg("batch"), py::arg("n"));
  m.attr("sss_space_size") = kSssSpaceSize;
  m.attr("sss_width_choices") = std::vector<int64_t>(kSssWidthChoices.begin(), kSssWidthChoices.end());
  m.def("sss_index", [](const std::string& arch) { return unwrap(sss_index(arch)); });
  m.def("sss_arch", [](int64_t i) { return sss_arch_string(arch_arg(py::int_(i))); });
  m.def("sss_network", &sss_network, py::arg("arch"), py::arg("device"), py::arg("dtype"), py::arg("batch"),
        py::arg("dataset"));
  py::class_<PySpace>(m, "Space")
      .def_property_readonly("source", [](const PySpace& s) { return s.table.source; })
      .def_property_readonly("device", [](const PySpace& s) { return s.device; })
      .def_property_readonly("dtype", [](const PySpace& s) { return s.dtype; })
      .def("__len__", [](const PySpace& s) { return s.table.points.size(); })
      .def("arrays", &space_arrays)
      .def("point", [](const PySpace& s, const py::object& a) { return point_dict(s.table.points.at(arch_arg(a))); });
  m.def("sss_space", &sss_space, py::arg("device"), py::arg("dtype"), py::arg("batch"), py::arg("dataset"),
        py::arg("jobs"));
  py::class_<SearchConfig>(m, "SearchConfig");
  m.def("search_config", &config_arg, py::arg("strategy"), py::arg("seed"), py::arg("budget_seconds"),
        py::arg("reward"), py::arg("target_throughput"), py::arg("w"), py::arg("max_evaluations"),
        py::arg("filter_order"));
  py::class_<PyStrategy>(m, "Strategy")
      .def(py::init<const SearchConfig&, const PySpace&>())
      .def("ask", &PyStrategy::ask, py::arg("time_left") = true, py::arg("in_flight") = 0)
      .def("tell", &PyStrategy::tell, py::arg("arch"), py::arg("reward"))
      .def("reward", &PyStrategy::reward, py::arg("accuracy"), py::arg("throughput"))
      .def_property_readonly("start_seconds", &PyStrategy::start_seconds)
      .def_property_readonly("candidates", &PyStrategy::candidates);
  m.def("search", &search, py::arg("config"), py::arg("space"), py::arg("evaluate"), py::arg("log"), py::arg("resume"),
        py::arg("description"));
  m.def("experiment", &experiment, py::arg("strategies"), py::arg("seeds"), py::arg("seed_base"), py::arg("out"),
        py::arg("base"), py::arg("space"), py::arg("oracle"), py::arg("final"), py::arg("resume"), py::arg("threads"));
  m.def("read_search_log", [](const std::string& path) {
    auto r = unwrap(read_search_log(path));
    py::list l;
    for (const auto& e : r.evaluations) l.append(record_dict(e));
    return py::make_tuple(l, r.done);
  });
  m.def(
      "hypervolume",
      [](const std::vector<std::pair<double, double>>& pts,
         const std::optional<std::vector<std::pair<double, double>>>& space) {
        return hypervolume(points_arg(pts), bounds_arg(space, pts));
      },
      py::arg("points"), py::arg("space") = py::none());
  m.def(
      "igd",
      [](const std::vector<std::pair<double, double>>& truth, const std::vector<std::pair<double, double>>& found,
         const std::optional<std::vector<std::pair<double, double>>>& space) {
        return unwrap(igd(points_arg(truth), points_arg(found), bounds_arg(space, truth)));
      },
      py::arg("truth"), py::arg("found"), py::arg("space") = py::none());
  m.def("true_frontier",
        [](const std::vector<double>& thr, const std::vector<double>& acc) { return unwrap(true_frontier(thr, acc)); });
  m.def("score_search",
        [](const std::vector<int64_t>& evaluated, const std::vector<double>& thr, const std::vector<double>& acc) {
          auto s = unwrap(score_search(evaluated, thr, acc));
          py::dict d;
          d["hypervolume_ratio"] = s.hypervolume_ratio;
          d["igd"] = s.igd;
          d["true_frontier_size"] = s.true_frontier_size;
          d["true_frontier_found"] = s.true_frontier_found;
          return d;
        });
  py::class_<PyNamedOracle>(m, "Oracle")
      .def("evaluate",
           [](PyNamedOracle& o, const py::object& arch, uint64_t seed) {
             const int64_t a = arch_arg(arch);
             auto e = unwrap(without_gil([&] { return o.o->evaluate(a, seed); }));
             return py::make_tuple(e.accuracy, e.cost_seconds);
           })
      .def("final_accuracy",
           [](PyNamedOracle& o, const py::object& arch) {
             const int64_t a = arch_arg(arch);
             return unwrap(without_gil([&] { return o.o->final_accuracy(a); }));
           })
      .def("describe", [](const PyNamedOracle& o) { return o.o->describe(); });
  m.def("make_oracle",
        [](const std::string& spec) { return PyNamedOracle{unwrap(without_gil([&] { return make_oracle(spec); }))}; });
  m.def("nats_network", &nats_network, py::arg("path"));
  m.def("nats_meta", [](const std::string& path) { return unwrap(read_nats_meta(path)); });
}

}  // namespace rooflens::python
