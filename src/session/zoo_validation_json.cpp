// A zoo validation as JSON, schema rooflens.validate/1 (session/zoo_validation.h): the one
// writer of that schema, for `rooflens validate --format json` and the Python module.
#include <nlohmann/json.hpp>

#include "rooflens/session/zoo_validation.h"

namespace rooflens {

namespace {

nlohmann::json summary_json(const ValidationSummary& s) {
  return {{"n", s.n},
          {"spearman", s.spearman},
          {"median_abs_error", s.median_abs_error},
          {"within_10", s.within_10},
          {"within_25", s.within_25}};
}

nlohmann::json rates_json(const HostRates& h) {
  return {{"gemm_flops", h.gemm_flops}, {"stream_bytes", h.stream_bytes}, {"clock_hz", h.clock_hz},
          {"fma_flops", h.fma_flops},   {"kernels_s", h.kernels_s},       {"kernels8_s", h.kernels8_s},
          {"dispatch_s", h.dispatch_s}};
}

// A model's runs, spread and (with a host reference) normalised median and host readings.
void add_runs_json(const ModelRuns& mr, const ValidationPoint& p, double level, nlohmann::json* m) {
  (*m)["runs"] = mr.raw;
  (*m)["spread"] = spread(mr.raw).rel_range;
  (*m)["contended_runs"] = mr.contended;
  (*m)["flagged_runs"] = mr.flagged;
  if (mr.normalized.empty()) return;
  const Spread n = spread(mr.kept_normalized(level));
  (*m)["normalized"] = n.median;
  (*m)["error_normalized"] = n.median > 0 ? p.predicted / n.median - 1 : 0;
  (*m)["runs_normalized"] = mr.normalized;
  (*m)["spread_normalized"] = n.rel_range;
  (*m)["other_state_runs"] = mr.other_state(level);
  nlohmann::json h = nlohmann::json::array();
  for (const HostFigures& f : mr.host) {
    nlohmann::json one = rates_json(f.now);
    one["in_dispatch_state"] = in_dispatch_state(f, level);
    one["compute_share"] = f.compute_share;
    one["drift"] = f.drift;
    one["state_waited_s"] = f.state_waited_s;
    h.push_back(std::move(one));
  }
  (*m)["host_per_run"] = h;
}

nlohmann::json models_json(const ZooValidation& v) {
  nlohmann::json models = nlohmann::json::array();
  for (const auto& p : v.pts) {
    nlohmann::json m = {{"name", p.name}, {"measured", p.measured}, {"predicted", p.predicted}, {"error", p.error()}};
    if (auto it = v.second_mode_throughput.find(p.name); it != v.second_mode_throughput.end())
      m["measured_second_mode"] = it->second;
    if (auto it = v.runs.find(p.name); it != v.runs.end()) add_runs_json(it->second, p, v.dispatch_level, &m);
    models.push_back(std::move(m));
  }
  return models;
}

nlohmann::json classes_json(const ZooValidation& v) {
  nlohmann::json cls = nlohmann::json::array();
  for (const auto& c : v.classes)
    cls.push_back({{"class", c.cls},
                   {"models", c.models},
                   {"layers", c.layers},
                   {"measured_s", c.measured_s},
                   {"predicted_s", c.predicted_s},
                   {"median_measured_over_predicted", c.median_ratio}});
  return cls;
}

nlohmann::json class_times_json(const ZooValidation& v) {
  nlohmann::json per_model = nlohmann::json::array();
  for (const auto& t : v.class_times)
    per_model.push_back({{"model", t.model},
                         {"class", t.cls},
                         {"layers", t.layers},
                         {"measured_s", t.measured_s},
                         {"predicted_s", t.predicted_s}});
  return per_model;
}

// The elasticities fitted on every model's runs and what they did to the within-model spread;
// null where none could be fitted (the runs then carry host_drift's ratio).
nlohmann::json elasticity_json(const ZooValidation& v) {
  if (!v.elasticity) return nullptr;
  const HostElasticity& e = *v.elasticity;
  nlohmann::json exps, center;
  for (size_t i = 0; i < kElasticReadings; ++i) {
    exps[elastic_reading_names()[i]] = e.exponent[i];
    center[elastic_reading_names()[i]] = e.center[i];
  }
  return {{"exponents", exps},
          {"median_log_ratios", center},
          {"level", e.level},
          {"models", e.models},
          {"deviations", e.deviations},
          {"sd_raw", e.sd_raw},
          {"sd_fitted", e.sd_fitted},
          {"applied",
           "level x exp(sum exponent x (log ratio - median)), the exponents fitted on the other models' runs"}};
}

}  // namespace

std::string zoo_validation_json(const ZooValidationRequest& r, const ZooValidationLabels& labels,
                                const ZooValidation& v) {
  const DeviceSpec& dev = r.dev;
  nlohmann::json failures = nlohmann::json::array();
  for (const auto& [m, e] : v.failures) failures.push_back({{"model", m}, {"error", e}});
  nlohmann::json kt = nullptr;
  if (dev.kernel_table)
    kt = {{"file", dev.file},
          {"backend", dev.kernel_table->backend},
          {"threads", dev.kernel_table->threads},
          {"measured", dev.kernel_table->measured}};
  const ValidationSummary& s = v.summary;
  return nlohmann::json({{"schema", "rooflens.validate/1"},
                         {"backend", labels.backend},
                         {"dtype", labels.dtype},
                         {"modes", labels.modes},
                         {"gpu", labels.gpu},
                         {"device", dev.id},
                         {"batch", r.batch},
                         {"threads", labels.threads},
                         {"unit", "images/s"},
                         {"spearman", s.spearman},
                         {"median_abs_error", s.median_abs_error},
                         {"within_10", s.within_10},
                         {"within_25", s.within_25},
                         {"repeat", std::max(1, r.repeat)},
                         {"max_repeat", std::max(std::max(1, r.repeat), r.max_repeat)},
                         {"state_repeat", r.state_repeat},
                         {"state_wait_s", r.state_wait},
                         {"state_waited_s", v.state_waited_s},
                         {"state_waits_ran_out", v.state_waits_ran_out},
                         {"settle", r.settle},
                         {"normalized", v.pts_normed.empty() ? nlohmann::json(nullptr) : summary_json(v.normalized)},
                         {"dispatch_level_s", v.dispatch_level},
                         {"host_baseline", v.host_baseline},
                         {"host_baseline_rates", rates_json(v.host_baseline_rates)},
                         {"host_elasticity", elasticity_json(v)},
                         {"models", models_json(v)},
                         {"layer_classes", classes_json(v)},
                         {"layer_classes_per_model", class_times_json(v)},
                         {"failures", failures},
                         {"fitted_efficiency", v.fitted},
                         {"fitted_on", v.train},
                         {"kernel_table", kt}})
             .dump(2) +
         "\n";
}

}  // namespace rooflens
