// `rooflens doctor --zoo`: the whole zoo ranked by the largest single gain the doctor finds
// (report/doctor_report.h).
#include <fmt/format.h>

#include <algorithm>

#include "rooflens/report/doctor_report.h"
#include "rooflens/report/svg_plot.h"
#include "rooflens/report/table.h"

namespace rooflens::report {
namespace {

double saved(const DoctorZooRow& r) {
  if (!r.report) return -1;
  auto b = best_remedy(*r.report);
  return b ? b->remedy.time_saved() : 0;
}

void rank(std::vector<DoctorZooRow>& rows) {
  std::stable_sort(rows.begin(), rows.end(), [](const DoctorZooRow& a, const DoctorZooRow& b) {
    const double sa = saved(a), sb = saved(b);
    return sa != sb ? sa > sb : a.model < b.model;
  });
}

const Finding* first_applying(const DoctorReport& r) {
  for (const Finding& f : r.findings)
    if (f.verdict == Verdict::kApplies) return &f;
  return nullptr;
}

}  // namespace

std::string doctor_zoo_text(std::vector<DoctorZooRow> rows, const std::string& setting) {
  rank(rows);
  Table t;
  t.headers = {"model",
               "throughput (img/s)",
               "utilization (%)",
               "largest gain: remedy",
               "item",
               "speedup",
               "remedy's before -> after (img/s)",
               "first finding"};
  t.numeric = {false, true, true, false, false, true, true, false};
  size_t failed = 0;
  for (const auto& r : rows) {
    if (!r.report) {
      ++failed;
      t.rows.push_back({r.model, "-", "-", "not diagnosed: " + r.error, "", "", "", ""});
      continue;
    }
    const auto& base = r.report->baseline;
    const auto best = best_remedy(*r.report);
    const Finding* f = first_applying(*r.report);
    t.rows.push_back(
        {r.model, fmt_fixed(base.throughput, 0), fmt_fixed(100 * base.utilization, 1),
         best ? best->remedy.name : "none helps", best ? fmt::format("{} {}", best->item, best->finding) : "",
         best ? fmt_fixed(best->remedy.speedup, 2) + "x" : "",
         best ? fmt_fixed(best->remedy.throughput_before, 0) + " -> " + fmt_fixed(best->remedy.throughput_after, 0)
              : "",
         f ? f->key : "none applies"});
  }
  std::string out =
      fmt::format("doctor --zoo: {} ({} model(s); every gain predicted on the changed model or setting)\n\n", setting,
                  rows.size());
  out += render_text(t);
  if (failed) out += fmt::format("\n{} model(s) could not be diagnosed (reasons in the table).\n", failed);
  return out;
}

std::string doctor_section_html(std::vector<DoctorZooRow> rows, const std::string& setting) {
  rank(rows);
  const auto esc = [](const std::string& x) { return xml_escape(x); };
  std::string h = "<section id=\"doctor\">\n<h2>The doctor: the largest gain for each model</h2>\n";
  h += "<p>The checklist of Iandola et al. run on every model of this study (" + esc(setting) +
       "): the remedy that saves the most of each model's time, with the checklist item it answers. Every gain is a "
       "prediction of the performance model on the changed model or setting; a remedy's <i>before</i> differs from the "
       "model's throughput when it answers a problem the prediction leaves out (a serial copy loop, a slow host "
       "link). <code>rooflens doctor MODEL</code> shows the evidence and every remedy.</p>\n";
  h += "<table id=\"doctor-table\">\n<thead><tr><th>model</th><th>throughput (img/s)</th><th>utilization (%)</th>"
       "<th>largest gain: remedy</th><th>item</th><th>speedup</th><th>remedy's before &rarr; after (img/s)</th>"
       "<th>time saved (%)</th>"
       "<th>findings that apply</th></tr></thead>\n<tbody>\n";
  for (const auto& r : rows) {
    h += "<tr data-model=\"" + esc(r.model) + "\"><td>" + esc(r.model) + "</td>";
    if (!r.report) {
      h += "<td colspan=\"8\">not diagnosed: " + esc(r.error) + "</td></tr>\n";
      continue;
    }
    const auto& base = r.report->baseline;
    const auto best = best_remedy(*r.report);
    std::string applies;
    for (const Finding& f : r.report->findings)
      if (f.verdict == Verdict::kApplies) applies += (applies.empty() ? "" : ", ") + f.key;
    h += fmt::format("<td class=\"num\">{:.0f}</td><td class=\"num\">{:.1f}</td>", base.throughput,
                     100 * base.utilization);
    if (best)
      h += fmt::format(
          "<td>{}</td><td>{} {}</td><td class=\"num\">{:.2f}x</td><td class=\"num\">{:.0f} &rarr; {:.0f}</td>"
          "<td class=\"num\">{:.1f}</td>",
          esc(best->remedy.name), best->item, esc(best->finding), best->remedy.speedup, best->remedy.throughput_before,
          best->remedy.throughput_after, 100 * best->remedy.time_saved());
    else
      h += "<td>none helps</td><td></td><td></td><td></td><td></td>";
    h += "<td>" + esc(applies.empty() ? "none" : applies) + "</td></tr>\n";
  }
  h += "</tbody>\n</table>\n</section>\n";
  return h;
}

nlohmann::json doctor_zoo_json(std::vector<DoctorZooRow> rows, const std::string& device, const std::string& dtype,
                               const std::string& batch) {
  rank(rows);
  nlohmann::json models = nlohmann::json::array();
  for (const auto& r : rows) {
    nlohmann::json m = {{"model", r.model}};
    if (!r.report) {
      m["error"] = r.error;
    } else {
      m["throughput"] = r.report->baseline.throughput;
      m["utilization"] = r.report->baseline.utilization;
      m["batch"] = r.report->baseline.batch;
      if (auto b = best_remedy(*r.report)) {
        m["best"] = {{"item", b->item},
                     {"finding", b->finding},
                     {"remedy", b->remedy.name},
                     {"how", b->remedy.how},
                     {"speedup", b->remedy.speedup},
                     {"time_saved", b->remedy.time_saved()},
                     {"throughput_after", b->remedy.throughput_after},
                     {"utilization_after", b->remedy.utilization_after}};
      } else {
        m["best"] = nullptr;
      }
      nlohmann::json applies = nlohmann::json::array();
      for (const Finding& f : r.report->findings)
        if (f.verdict == Verdict::kApplies) applies.push_back(f.key);
      m["applies"] = applies;
    }
    models.push_back(m);
  }
  return {
      {"schema", "rooflens.doctor-zoo/1"}, {"device", device}, {"dtype", dtype}, {"batch", batch}, {"models", models}};
}

}  // namespace rooflens::report
