// The zoo study as JSON (rooflens.study/1), CSV and a plain-text summary.
#include "rooflens/report/study_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "rooflens/analysis/study_run.h"
#include "rooflens/report/svg_plot.h"

namespace rooflens::report {
namespace {

nlohmann::json opt(const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); }
nlohmann::json opt(const std::optional<int64_t>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); }

// Model names of valid indices, in the given order.
std::vector<std::string> names_of(const Study& s, const std::vector<size_t>& ids) {
  std::vector<std::string> out;
  for (size_t i : ids)
    if (i < s.models.size()) out.push_back(s.models[i].name);
  return out;
}

bool on(const std::vector<size_t>& v, size_t i) { return std::find(v.begin(), v.end(), i) != v.end(); }

std::string join(const std::vector<std::string>& v, const char* sep = ", ") {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) out += (i ? sep : "") + v[i];
  return out;
}

std::string list_or_none(const std::vector<std::string>& v) { return v.empty() ? "none" : join(v); }

}  // namespace

std::string study_source_sentence(const Study& s) {
  std::string t;
  switch (s.source) {
    case StudySource::kPredicted:
      t = "predicted by the rooflens performance model" + (s.device_name.empty() ? "" : " for " + s.device_name);
      break;
    case StudySource::kMeasured: return "measured on " + s.source_detail;  // where and how (measure_study_on)
    case StudySource::kMeasurements: t = "taken from a measurements file"; break;
  }
  if (!s.source_detail.empty()) t += " (" + s.source_detail + ")";
  return t;
}

std::pair<std::string, double> study_top_bound(const StudyModel& m) {
  std::pair<std::string, double> best{"", 0};
  for (const auto& [b, share] : m.time_by_bound)
    if (share > best.second) best = {b, share};
  return best;
}

nlohmann::json study_json(const Study& s, bool with_layers) {
  nlohmann::json j;
  j["schema"] = kStudySchema;
  j["kind"] = "study";
  j["device"] = {{"id", s.device_id}, {"name", s.device_name}};
  j["dtype"] = s.dtype;
  j["batch"] = s.batch_spec;
  j["source"] = std::string(study_source_name(s.source));
  j["source_detail"] = s.source_detail;
  j["source_text"] = study_source_sentence(s);
  j["peak_flops"] = s.peak_datasheet;
  j["peak_flops_measured"] = opt(s.peak_measured);
  j["bandwidth"] = s.bandwidth;
  j["cmr"] = s.cmr;
  j["cmr_measured"] = opt(s.cmr_measured);
  j["utilization_uses_measured_peak"] = s.utilization_uses_measured_peak;
  j["units"] = {{"throughput", "images/s"},
                {"utilization", "fraction of peak_flops"},
                {"utilization_measured_peak", "fraction of peak_flops_measured"},
                {"acc1", "percent"},
                {"acc5", "percent"},
                {"peak_flops", "FLOP/s"},
                {"bandwidth", "B/s"},
                {"cmr", "FLOP/B"},
                {"ai", "FLOP/B"},
                {"flops_per_image", "FLOP (2 x MACs + other arithmetic)"},
                {"macs_per_image", "MAC"},
                {"batch", "images"},
                {"time_share", "fraction of predicted time"}};
  nlohmann::json models = nlohmann::json::array();
  const Frontiers& fr = s.frontiers;
  for (size_t i = 0; i < s.models.size(); ++i) {
    const StudyModel& m = s.models[i];
    nlohmann::json mj;
    mj["name"] = m.name;
    mj["acc1"] = opt(m.acc1);
    mj["acc5"] = opt(m.acc5);
    mj["accuracy_source"] = m.accuracy_source;
    mj["attention_layers"] = m.attention_layers;
    mj["batch"] = m.batch;
    mj["max_batch"] = opt(m.max_batch);
    mj["throughput"] = m.throughput;
    mj["throughput_q1"] = opt(m.throughput_q1);
    mj["throughput_q3"] = opt(m.throughput_q3);
    mj["utilization"] = m.utilization;
    mj["utilization_measured_peak"] = opt(m.utilization_measured);
    mj["utilization_plotted"] = plotted_utilization(s, m);
    mj["flops_per_image"] = m.flops_per_image;
    mj["macs_per_image"] = m.macs_per_image;
    mj["params"] = m.params;
    mj["ai"] = m.ai;
    mj["ai_above_cmr"] = m.ai_above_cmr;
    mj["time_by_bound"] = m.time_by_bound;
    std::vector<std::string> memberships;
    if (on(fr.throughput_utilization, i)) memberships.push_back("throughput_utilization");
    if (on(fr.acc_throughput, i)) memberships.push_back("acc_throughput");
    if (on(fr.acc_utilization, i)) memberships.push_back("acc_utilization");
    if (on(fr.all_three, i)) memberships.push_back("all_three");
    mj["frontiers"] = memberships;
    if (with_layers) {
      nlohmann::json layers = nlohmann::json::array();
      for (const auto& L : m.layers) layers.push_back({{"ai", L.ai}, {"time_share", L.time_share}, {"flops", L.flops}});
      mj["layers"] = std::move(layers);
    }
    models.push_back(std::move(mj));
  }
  j["models"] = std::move(models);
  j["frontiers"] = {{"throughput_utilization", names_of(s, fr.throughput_utilization)},
                    {"acc_throughput", names_of(s, fr.acc_throughput)},
                    {"acc_utilization", names_of(s, fr.acc_utilization)},
                    {"all_three", names_of(s, fr.all_three)}};
  j["spearman_utilization_accuracy"] =
      s.spearman_utilization_accuracy ? nlohmann::json(*s.spearman_utilization_accuracy) : nlohmann::json(nullptr);
  j["spearman_throughput_accuracy"] =
      s.spearman_throughput_accuracy ? nlohmann::json(*s.spearman_throughput_accuracy) : nlohmann::json(nullptr);
  nlohmann::json folds = nlohmann::json::array();
  for (const FoldResult& f : s.folds)
    folds.push_back({{"model", f.model},
                     {"factor", f.factor},
                     {"throughput_before", f.throughput_before},
                     {"throughput_after", f.throughput_after},
                     {"utilization_before", f.utilization_before},
                     {"utilization_after", f.utilization_after},
                     {"ai_before", f.ai_before},
                     {"ai_after", f.ai_after},
                     {"flops_per_image_before", f.flops_per_image_before},
                     {"flops_per_image_after", f.flops_per_image_after},
                     {"batch_after", f.batch_after},
                     {"capped_at_peak", f.capped_at_peak}});
  j["folds"] = std::move(folds);
  j["frontier_before_fold"] = names_of(s, s.frontier_before_fold);
  j["frontier_after_fold"] = names_of(s, s.frontier_after_fold);
  j["notes"] = s.notes;
  return j;
}

Table study_table(const Study& s) {
  Table t;
  t.headers = {"model",
               "acc@1 (%)",
               "acc@5 (%)",
               "batch (images)",
               "max batch (images)",
               "throughput (img/s)",
               "utilization datasheet peak (%)",
               "utilization measured peak (%)",
               "AI (FLOP/B)",
               "AI vs CMR",
               "top bound",
               "top bound time share (%)",
               "params (M)",
               "MACs/image (G)",
               "FLOPs/image (G)",
               "frontier throughput-utilization",
               "frontier accuracy-throughput",
               "frontier accuracy-utilization",
               "all three frontiers"};
  t.numeric = {false, true, true, true, true, true,  true,  true,  true, false,
               false, true, true, true, true, false, false, false, false};
  const Frontiers& fr = s.frontiers;
  auto o2 = [](const std::optional<double>& v, double scale, int d) { return v ? fmt_fixed(*v * scale, d) : ""; };
  for (size_t i = 0; i < s.models.size(); ++i) {
    const StudyModel& m = s.models[i];
    const auto [bound, share] = study_top_bound(m);
    t.rows.push_back({m.name, o2(m.acc1, 1, 2), o2(m.acc5, 1, 2), std::to_string(m.batch),
                      m.max_batch ? std::to_string(*m.max_batch) : "", fmt_fixed(m.throughput, 1),
                      fmt_fixed(100 * m.utilization, 2), o2(m.utilization_measured, 100, 2), fmt_fixed(m.ai, 1),
                      m.ai_above_cmr ? "above" : "below", bound, bound.empty() ? "" : fmt_fixed(100 * share, 1),
                      fmt_scaled(static_cast<double>(m.params), 1e6, 2), fmt_scaled(m.macs_per_image, 1e9, 3),
                      fmt_scaled(m.flops_per_image, 1e9, 3), on(fr.throughput_utilization, i) ? "yes" : "",
                      on(fr.acc_throughput, i) ? "yes" : "", on(fr.acc_utilization, i) ? "yes" : "",
                      on(fr.all_three, i) ? "yes" : ""});
  }
  return t;
}

std::string study_csv(const Study& s) { return render_csv(study_table(s)); }

std::string study_summary_text(const Study& s) {
  std::string o;
  const size_t n = s.models.size();
  size_t with_acc = 0, above = 0;
  std::set<std::string> acc_sources;
  for (const auto& m : s.models) {
    if (m.acc1) ++with_acc;
    if (m.ai_above_cmr) ++above;
    if (m.acc1 && !m.accuracy_source.empty()) acc_sources.insert(m.accuracy_source);
  }
  o += fmt::format("Study of {} model{} on {} ({}), {}, batch {}.\n", n, n == 1 ? "" : "s", s.device_name, s.device_id,
                   s.dtype, s.batch_spec);
  o += "Throughput " + study_source_sentence(s) + ".\n";
  o += fmt::format("Peak {} (datasheet)", si_number(s.peak_datasheet, "FLOP/s"));
  if (s.peak_measured) o += fmt::format(", {} (measured)", si_number(*s.peak_measured, "FLOP/s"));
  o += fmt::format("; bandwidth {}; CMR {:.1f} FLOP/B", si_number(s.bandwidth, "B/s"), s.cmr);
  if (s.cmr_measured) o += fmt::format(" ({:.1f} with the measured peak)", *s.cmr_measured);
  o += fmt::format(".\nUtilization in plots and frontiers: over the {} peak.\n",
                   s.utilization_uses_measured_peak ? "measured" : "datasheet");
  o += fmt::format("Accuracy: {} of {} models have top-1 accuracy{}.\n", with_acc, n,
                   acc_sources.empty() ? "" : " (from " + join({acc_sources.begin(), acc_sources.end()}) + ")");
  o += fmt::format("Aggregate AI above the CMR: {} of {} models.\n", above, n);
  const Frontiers& fr = s.frontiers;
  o += fmt::format("Frontier throughput-utilization ({}): {}\n", fr.throughput_utilization.size(),
                   list_or_none(names_of(s, fr.throughput_utilization)));
  o += fmt::format("Frontier accuracy-throughput ({}): {}\n", fr.acc_throughput.size(),
                   list_or_none(names_of(s, fr.acc_throughput)));
  o += fmt::format("Frontier accuracy-utilization ({}): {}\n", fr.acc_utilization.size(),
                   list_or_none(names_of(s, fr.acc_utilization)));
  o += fmt::format("On all three frontiers: {}\n", list_or_none(names_of(s, fr.all_three)));
  if (s.spearman_utilization_accuracy)
    o += fmt::format("Rank correlation with top-1 accuracy (Spearman): utilization {:+.2f}, throughput {:+.2f}\n",
                     *s.spearman_utilization_accuracy, *s.spearman_throughput_accuracy);
  if (!s.folds.empty()) {
    const FoldResult* best = nullptr;
    for (const auto& f : s.folds)
      if (f.throughput_before > 0 &&
          (!best || f.throughput_after / f.throughput_before > best->throughput_after / best->throughput_before))
        best = &f;
    o += fmt::format("Folded (FoldedCNN, f = {}): {} model{}", s.folds.front().factor, s.folds.size(),
                     s.folds.size() == 1 ? "" : "s");
    if (best)
      o += fmt::format("; largest gain {}: throughput x{:.2f}, utilization x{:.2f}", best->model,
                       best->throughput_after / best->throughput_before,
                       best->utilization_before > 0 ? best->utilization_after / best->utilization_before : 0.0);
    o += ".\n";
    o += fmt::format("Throughput-utilization frontier before folding: {}\n",
                     list_or_none(names_of(s, s.frontier_before_fold)));
    o += fmt::format("Throughput-utilization frontier after folding: {}\n",
                     list_or_none(names_of(s, s.frontier_after_fold)));
  }
  for (const auto& note : s.notes) o += "Note: " + note + "\n";
  return o;
}

}  // namespace rooflens::report
