// validate_zoo: the rounds over the models, the runs each keeps, the settle rounds, the fit on
// half the models (session/zoo_validation.h).
#include "rooflens/session/zoo_validation.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include "rooflens/exec/timing.h"
#include "rooflens/ir/dtype.h"
#include "rooflens/ir/graph.h"
#include "rooflens/session/model_session.h"
#include "rooflens/session/zoo.h"

namespace rooflens {

std::vector<double> ModelRuns::kept_normalized(double level) const {
  return runs_in_dispatch_state(normalized, host, level);
}

int ModelRuns::other_state(double level) const {
  int n = 0;
  for (const auto& h : host) n += !in_dispatch_state(h, level);
  return n;
}

bool ModelRuns::none_in_state(double level) const {
  return !host.empty() && other_state(level) == static_cast<int>(host.size());
}

namespace {

// "NAME 1x3x224x224, ..." of a loaded graph's run-time inputs.
std::string input_shapes_text(const Graph& g) {
  std::string s;
  for (ValueId id : g.inputs) {
    const Value& v = g.value(id);
    std::string dims;
    if (v.shape)
      for (int64_t d : *v.shape) dims += (dims.empty() ? "" : "x") + std::to_string(d);
    s += (s.empty() ? "" : ", ") + v.name + " " + (dims.empty() ? std::string("?") : dims);
  }
  return s;
}

}  // namespace

Expected<MeasuredAndPredicted> measure_and_predict(const std::string& path,
                                                   const std::vector<InputShapeOverride>& shapes,
                                                   const BackendFactory& make, bool gpu, DType dtype, int64_t batch,
                                                   const ExecOptions& exec, double max_seconds, double warmup_seconds,
                                                   const DeviceSpec& dev, HostContext* host) {
  auto loaded = load_model(path, shapes, dtype, batch);
  if (!loaded) return loaded.status();
  auto backend = make();
  if (!backend) return backend.status();
  MeasureOptions mo;
  mo.exec = exec;
  mo.timing = model_timing(gpu, max_seconds, warmup_seconds);
  if (host && !gpu) attach_host(mo, *host);
  auto m = measure_model(loaded->graph, loaded->analysis, **backend, mo);
  if (!m) return m.status().with_context(path);
  PerfOptions po;
  po.dtype = std::string(dtype_name(dtype));
  auto p = predict(loaded->graph, loaded->analysis, dev, po);
  if (!p) return p.status();
  MeasuredAndPredicted c{std::move(*m), std::move(*p), 0, "", input_shapes_text(loaded->graph), {}};
  if (host && !gpu) c.host = host_figures(c.m, c.p, *host);
  if (auto mp = dev.best_measured_peak(po.dtype)) {
    c.peak = mp->flops;
    c.peak_label = "measured";
  } else if (auto bp = dev.best_peak(po.dtype)) {
    c.peak = bp->flops;
    c.peak_label = "datasheet";
  }
  return c;
}

namespace {

void say(const ZooValidationRequest& r, const std::string& line) {
  if (r.progress) r.progress(line);
}

// One model in each mode: the first mode's measurement is returned, the others' throughput kept.
Expected<MeasuredAndPredicted> measure_modes(const ZooValidationRequest& r, const ZooModel& model, ZooValidation* v,
                                             HostContext* host) {
  std::optional<MeasuredAndPredicted> first;
  for (size_t i = 0; i < r.modes.size(); ++i) {
    const ValidationMode& mode = r.modes[i];
    auto m = measure_and_predict(model.path, {}, mode.make, mode.gpu, r.dtype, r.batch, r.exec, r.max_seconds,
                                 r.warmup_seconds, r.dev, mode.gpu ? nullptr : host);
    if (!m) return m.status();
    if (r.on_measurement) ROOFLENS_RETURN_IF_ERROR(r.on_measurement(model.name, i, *m));
    if (first)
      v->second_mode_throughput[model.name] = m->m.throughput;
    else
      first = std::move(*m);
  }
  return std::move(*first);
}

// One measurement into its model's runs; the first round's layers also go to the layer classes.
void add_run(const MeasuredAndPredicted& c, bool first_round, ModelRuns* mr, ZooValidation* v) {
  mr->predicted = c.p.throughput;
  mr->raw.push_back(c.m.throughput);
  if (c.host.has_reference) {
    mr->normalized.push_back(c.host.normalized_throughput);
    mr->host.push_back(c.host);
    const double d = c.host.now.dispatch_s;
    if (d > 0 && (v->dispatch_level == 0 || d < v->dispatch_level)) v->dispatch_level = d;
  }
  mr->contended += c.m.contention && c.m.contention->contended;
  mr->flagged += c.m.host && c.m.host->flagged;
  v->state_waited_s += c.host.state_waited_s;
  v->state_waits_ran_out += c.m.host && c.m.host->state_wait_ran_out;
  if (!first_round) return;
  std::vector<std::pair<std::string, double>> measured;
  for (const auto& ml : c.m.layers) measured.emplace_back(ml.name, ml.time_s);
  for (auto& t : layer_class_times(c.p, measured)) v->class_times.push_back(std::move(t));
}

// One round over `models` (every other round in reverse order); a model that failed in the
// first round is skipped. Err only without keep_going.
Status measure_round(const ZooValidationRequest& r, const std::vector<ZooModel>& models, int round, int rounds,
                     ZooValidation* v, HostContext* host) {
  for (size_t k = 0; k < models.size(); ++k) {
    const ZooModel& model = models[round % 2 ? models.size() - 1 - k : k];
    say(r, fmt::format("{} ({}/{}, round {}/{})", model.name, k + 1, models.size(), round + 1, rounds));
    if (round > 0 && !v->runs.count(model.name)) continue;  // failed in the first round
    auto c = measure_modes(r, model, v, host);
    if (!c) {
      if (!r.keep_going) return c.status();
      say(r, model.name + " failed: " + c.status().message());
      if (round == 0) v->failures.emplace_back(model.name, c.status().message());
      continue;
    }
    add_run(*c, round == 0, &v->runs[model.name], v);
    if (c->host.state_waited_s >= 1)
      say(r,
          fmt::format("{}: waited {:.0f} s for the kernel table's dispatch state{}", model.name, c->host.state_waited_s,
                      c->m.host->state_wait_ran_out ? " (ran out; measured in the other)" : ""));
  }
  return Status::ok();
}

// The models measured so far whose runs `keep` selects.
template <class Keep>
std::vector<ZooModel> measured_models_where(const std::vector<ZooModel>& models, const ZooValidation& v, Keep keep) {
  std::vector<ZooModel> out;
  for (const auto& model : models)
    if (auto it = v.runs.find(model.name); it != v.runs.end() && keep(it->second)) out.push_back(model);
  return out;
}

// The models measured so far whose median (normalised where there is a host reference) is not
// settled within +-tolerance (median_settled).
std::vector<ZooModel> unsettled_models(const std::vector<ZooModel>& models, const ZooValidation& v, double tolerance) {
  return measured_models_where(models, v, [&](const ModelRuns& mr) {
    // A model whose every normalised run read another dispatch state is not settled either:
    // more rounds may catch the baseline's.
    return mr.none_in_state(v.dispatch_level) ||
           !median_settled(mr.normalized.empty() ? mr.raw : mr.kept_normalized(v.dispatch_level), tolerance);
  });
}

// The models measured so far with no run in the faster dispatch state.
std::vector<ZooModel> models_outside_state(const std::vector<ZooModel>& models, const ZooValidation& v) {
  return measured_models_where(models, v, [&](const ModelRuns& mr) { return mr.none_in_state(v.dispatch_level); });
}

// Rounds after the `*done` so far, up to `upto` in all, each over the models `pick` selects
// then, until it selects none (--max-repeat, --state-repeat).
template <class Pick>
Status more_rounds(const ZooValidationRequest& r, int upto, Pick pick, int* done, ZooValidation* v, HostContext* host) {
  for (; *done < upto; ++*done) {
    const std::vector<ZooModel> picked = pick(*v);
    if (picked.empty()) break;
    ROOFLENS_RETURN_IF_ERROR(measure_round(r, picked, *done, upto, v, host));
  }
  return Status::ok();
}

Expected<std::vector<ZooModel>> zoo_models(const ZooValidationRequest& r) {
  if (r.models.empty()) return Status::invalid("validate: no models to measure");
  if (r.modes.empty()) return Status::invalid("validate: no backend mode to measure in");
  const auto index = zoo_index(r.models_dir, ZooSet::kAll);
  std::vector<ZooModel> out;
  std::vector<std::string> missing;
  for (const auto& n : r.models) {
    const auto it = index.find(n);
    if (it == index.end())
      missing.push_back(n);
    else
      out.push_back(it->second);
  }
  if (!missing.empty())
    return Status::invalid(
        fmt::format("validate: not in the bundled zoo ({}): {}", r.models_dir, fmt::join(missing, ", ")));
  return out;
}

// Fit on the even positions, validate on the odd ones: no model is both.
Status fit_on_half(const ZooValidationRequest& r, std::vector<ZooModel>* test, ZooValidation* v) {
  std::vector<ZooModel> all = std::move(*test);
  test->clear();
  std::vector<ZooModel> train;
  for (size_t i = 0; i < all.size(); ++i) (i % 2 ? *test : train).push_back(all[i]);
  std::vector<MeasuredAndPredicted> measured;
  for (size_t i = 0; i < train.size(); ++i) {
    say(r, fmt::format("fitting on {} ({}/{})", train[i].name, i + 1, train.size()));
    auto c = measure_modes(r, train[i], v, nullptr);
    if (!c) return c.status();
    measured.push_back(std::move(*c));
    v->train.push_back(train[i].name);
  }
  v->fitted = fit_efficiencies(measured);
  return Status::ok();
}

// The models whose every run has a host reading, and those runs as the elasticity fit takes them.
struct ElasticInput {
  std::vector<std::string> names;
  std::vector<RunsWithReadings> runs;
  std::vector<double> log_drifts;  // every run's own drift (host_drift), logged
};
ElasticInput elastic_input(const ZooValidation& v) {
  ElasticInput in;
  for (const auto& [name, mr] : v.runs) {
    if (mr.raw.empty() || mr.host.size() != mr.raw.size()) continue;
    RunsWithReadings r;
    r.throughput = mr.raw;
    for (const HostFigures& f : mr.host) {
      r.readings.push_back(f.now);
      in.log_drifts.push_back(std::log(f.drift));
    }
    in.names.push_back(name);
    in.runs.push_back(std::move(r));
  }
  return in;
}

void summarize_runs(const std::vector<ZooModel>& test, ZooValidation* v) {
  for (const auto& model : test) {
    const auto it = v->runs.find(model.name);
    if (it == v->runs.end()) continue;
    v->pts.push_back({model.name, spread(it->second.raw).median, it->second.predicted});
    if (!it->second.normalized.empty())
      v->pts_normed.push_back(
          {model.name, spread(it->second.kept_normalized(v->dispatch_level)).median, it->second.predicted});
  }
  v->summary = summarize(v->pts);
  if (!v->pts_normed.empty()) v->normalized = summarize(v->pts_normed);
  v->classes = summarize_layer_classes(v->class_times);
}

}  // namespace

void normalize_by_elasticity(const HostRates& baseline, ZooValidation* v) {
  const ElasticInput in = elastic_input(*v);
  v->elasticity = fit_host_elasticity(in.runs, baseline);
  if (!v->elasticity) return;
  v->elasticity->center = median_log_ratios(in.runs, baseline);
  v->elasticity->level = std::exp(quantile(in.log_drifts, 0.5));
  for (size_t i = 0; i < in.runs.size(); ++i) {
    auto e = fit_host_elasticity(in.runs, baseline, i);
    if (!e) continue;
    e->center = v->elasticity->center;
    e->level = v->elasticity->level;
    ModelRuns& mr = v->runs.at(in.names[i]);
    for (size_t k = 0; k < mr.host.size(); ++k) {
      HostFigures& f = mr.host[k];
      f.drift = elastic_drift(f.now, baseline, *e);
      f.normalized_throughput = mr.raw[k] / f.drift;
      f.predicted_at_state = mr.predicted * f.drift;
      mr.normalized[k] = f.normalized_throughput;
    }
  }
}

Expected<ZooValidation> validate_zoo(const ZooValidationRequest& r) {
  auto models = zoo_models(r);
  if (!models) return models.status();
  std::vector<ZooModel> test = std::move(*models);
  ZooValidation v;
  if (r.fit_half) ROOFLENS_RETURN_IF_ERROR(fit_on_half(r, &test, &v));
  const bool gpu = r.modes.front().gpu;
  HostContext host = make_host_context(r.host_reference && !gpu, r.reference_max_move, r.exec.threads, r.dev);
  host.paired_reference = r.paired_reference;
  host.state_wait_s = r.state_wait;
  v.dispatch_level = v.baseline_dispatch = host.baseline.dispatch_s;
  const int rounds = std::max(1, r.repeat);
  for (int round = 0; round < rounds; ++round)
    ROOFLENS_RETURN_IF_ERROR(measure_round(r, test, round, rounds, &v, &host));
  int done = rounds;
  ROOFLENS_RETURN_IF_ERROR(more_rounds(
      r, r.max_repeat, [&](const ZooValidation& s) { return unsettled_models(test, s, r.settle); }, &done, &v, &host));
  ROOFLENS_RETURN_IF_ERROR(more_rounds(
      r, r.state_repeat, [&](const ZooValidation& s) { return models_outside_state(test, s); }, &done, &v, &host));
  v.host_baseline = host.baseline_source;
  v.host_baseline_rates = host.baseline;
  normalize_by_elasticity(host.baseline, &v);
  summarize_runs(test, &v);
  if (v.pts.empty() && !v.failures.empty()) {
    std::vector<std::string> why;
    for (const auto& [model, error] : v.failures) why.push_back(model + ": " + error);
    return Status::invalid(fmt::format("validate: every model failed ({})", fmt::join(why, "; ")));
  }
  return v;
}

std::map<std::string, double> fit_efficiencies(const std::vector<MeasuredAndPredicted>& measured) {
  std::map<std::string, std::vector<double>> ratios;
  for (const MeasuredAndPredicted& c : measured) {
    std::map<std::string, double> predicted, taken;
    for (const auto& L : c.p.layers) {
      if (L.bound == Bound::kNone) continue;
      double measured_s = 0;
      for (const auto& ml : c.m.layers)
        if (ml.name == L.name) measured_s = ml.time_s;
      const double work = measured_s - L.t_launch;
      if (work <= 0) continue;
      const bool compute = L.t_compute >= L.t_memory;
      const std::string cls = compute ? L.kernel_class : "memory";
      if (cls == "other") continue;
      predicted[cls] += compute ? L.t_compute : L.t_memory;
      taken[cls] += work;
    }
    for (const auto& [cls, p] : predicted)
      if (taken[cls] > 0) ratios[cls].push_back(p / taken[cls]);
  }
  std::map<std::string, double> e;
  for (const auto& [cls, r] : ratios)
    if (!r.empty()) e[cls] = std::clamp(quantile(r, 0.5), 0.01, 1.0);
  return e;
}

}  // namespace rooflens
