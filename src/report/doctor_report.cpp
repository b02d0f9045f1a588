// Text and JSON of a doctor report (doctor_report.h).
#include "rooflens/report/doctor_report.h"

#include <fmt/format.h>

namespace rooflens::report {
namespace {

std::string pct(double v) { return fmt::format("{:.1f}%", 100 * v); }

// Remedies predicted slower than this multiple of the baseline are counted, not listed (text).
constexpr double kShownBelow = 0.95;

nlohmann::json remedy_json(const Remedy& m) {
  nlohmann::json j = {{"name", m.name}, {"how", m.how}, {"ok", m.ok}};
  if (m.ok)
    j.update({{"throughput_before", m.throughput_before},
              {"throughput_after", m.throughput_after},
              {"utilization_before", m.utilization_before},
              {"utilization_after", m.utilization_after},
              {"speedup", m.speedup},
              {"time_saved", m.time_saved()}});
  if (!m.note.empty()) j["note"] = m.note;
  return j;
}

}  // namespace

std::string doctor_text(const DoctorReport& r, bool verbose) {
  const Prediction& p = r.baseline;
  std::string out = fmt::format(
      "rooflens doctor: {} on {} ({}{}), {}, batch {}\npredicted {:.0f} img/s, utilization {} of the datasheet peak{}; "
      "AI {:.1f} FLOP/B against a CMR of {:.1f}\n(every gain below is a prediction of the performance model on the "
      "changed model or setting, unless it says measured)\n",
      r.model, p.device_name, p.device_id, p.engine.empty() ? "" : ", engine " + p.engine, p.dtype, p.batch,
      p.throughput, pct(p.utilization),
      p.utilization_measured ? fmt::format(" ({} of the measured peak)", pct(*p.utilization_measured)) : "", p.ai,
      p.cmr);
  for (const std::string& w : r.warnings) out += "warning: " + w + "\n";
  int shown = 0;
  for (const Finding& f : r.findings) {
    if (f.verdict == Verdict::kDoesNotApply && !verbose) continue;
    ++shown;
    out += fmt::format("\n{}. [{}] {} (checklist item {})", shown, verdict_name(f.verdict), f.title, f.item);
    if (f.best_time_saved() > 0) out += fmt::format(": up to {} of the time saved", pct(f.best_time_saved()));
    out += "\n   " + f.summary + "\n";
    if (!f.layers.empty()) {
      out += fmt::format("   layers ({} shown of {}):\n", f.layers.size(), f.layers_total);
      for (const DoctorLayer& l : f.layers)
        out += fmt::format("     {:<36} {:<18} {:>6}  {}\n", l.name, l.op, pct(l.time_share), l.detail);
    }
    for (const std::string& e : f.evidence) out += "   " + e + "\n";
    if (!f.measurement_needed.empty()) out += "   would tell: " + f.measurement_needed + "\n";
    int slower = 0;
    for (const Remedy& m : f.remedies) slower += m.ok && m.speedup < kShownBelow;
    if (!f.remedies.empty()) out += "   remedies:\n";
    for (const Remedy& m : f.remedies) {
      if (m.ok && m.speedup < kShownBelow && !verbose) continue;  // clearly slower: counted below
      if (!m.ok) {
        out += fmt::format("     {:<44} not computed: {}\n", m.name, m.note);
        continue;
      }
      out += fmt::format("     {:<44} {:>9.0f} -> {:>9.0f} img/s ({:.2f}x), util. {} -> {}  [{}]{}\n", m.name,
                         m.throughput_before, m.throughput_after, m.speedup, pct(m.utilization_before),
                         pct(m.utilization_after), m.how, m.note.empty() ? "" : "; " + m.note);
    }
    if (slower > 0 && !verbose)
      out +=
          fmt::format("     ({} more variant{} predicted more than 5% slower; --verbose or --format json lists them)\n",
                      slower, slower == 1 ? "" : "s");
  }
  if (!verbose) {
    int hidden = 0;
    for (const Finding& f : r.findings) hidden += f.verdict == Verdict::kDoesNotApply;
    if (hidden > 0) out += fmt::format("\n{} more items do not apply (--verbose lists them)\n", hidden);
  }
  return out;
}

nlohmann::json doctor_json(const DoctorReport& r) {
  const Prediction& p = r.baseline;
  nlohmann::json j = {{"schema", "rooflens.doctor/1"},
                      {"model", r.model},
                      {"device", p.device_id},
                      {"engine", p.engine.empty() ? nlohmann::json(nullptr) : nlohmann::json(p.engine)},
                      {"dtype", p.dtype},
                      {"batch", p.batch},
                      {"kind", "prediction"},
                      {"throughput", p.throughput},
                      {"utilization", p.utilization},
                      {"ai", p.ai},
                      {"cmr", p.cmr},
                      {"findings", nlohmann::json::array()}};
  for (const Finding& f : r.findings) {
    nlohmann::json fj = {{"item", f.item},
                         {"key", f.key},
                         {"title", f.title},
                         {"verdict", std::string(verdict_name(f.verdict))},
                         {"summary", f.summary},
                         {"time_share", f.time_share},
                         {"best_time_saved", f.best_time_saved()},
                         {"layers_total", f.layers_total},
                         {"layers", nlohmann::json::array()},
                         {"evidence", f.evidence},
                         {"remedies", nlohmann::json::array()}};
    for (const DoctorLayer& l : f.layers)
      fj["layers"].push_back({{"name", l.name}, {"op", l.op}, {"time_share", l.time_share}, {"detail", l.detail}});
    for (const Remedy& m : f.remedies) fj["remedies"].push_back(remedy_json(m));
    if (!f.measurement_needed.empty()) fj["measurement_needed"] = f.measurement_needed;
    j["findings"].push_back(fj);
  }
  if (!r.warnings.empty()) j["warnings"] = r.warnings;  // absent when the batch fits
  return j;
}

}  // namespace rooflens::report
