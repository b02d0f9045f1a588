// The study HTML report: header, Figures 1 and 2, the per-layer AI histogram and the model
// table. Plots come from SvgPlot; colours are the Okabe-Ito colour-blind-safe palette and
// every distinction that matters also has a shape, fill or dash so it survives grey print.
#include "rooflens/report/study_html.h"

#include <fmt/format.h>

#include "rooflens/report/html_style.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>

#include "rooflens/analysis/study_run.h"
#include "rooflens/report/study_report.h"
#include "rooflens/report/svg_plot.h"

namespace rooflens::report {
namespace {

constexpr const char* kBlue = "#0072B2";
constexpr const char* kVermillion = "#D55E00";
constexpr const char* kGreen = "#009E73";
constexpr const char* kOrange = "#E69F00";
constexpr const char* kBlack = "#000000";

constexpr double kPlotW = 680, kPlotH = 490;

std::string esc(std::string_view s) { return xml_escape(s); }

bool on(const std::vector<size_t>& v, size_t i) { return std::find(v.begin(), v.end(), i) != v.end(); }

std::string join(const std::vector<std::string>& v, const char* sep = ", ") {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) out += (i ? sep : "") + v[i];
  return out;
}

std::vector<std::string> names_of(const Study& s, const std::vector<size_t>& ids) {
  std::vector<std::string> out;
  for (size_t i : ids)
    if (i < s.models.size()) out.push_back(s.models[i].name);
  return out;
}

enum class Metric { kThroughput, kUtilization, kAccuracy };

struct View {
  const Study& s;
  double value(const StudyModel& m, Metric k) const {
    switch (k) {
      case Metric::kThroughput: return m.throughput;
      case Metric::kUtilization: return plotted_utilization(s, m);
      case Metric::kAccuracy: return m.acc1.value_or(0);
    }
    return 0;
  }
  std::string peak_words() const {
    return s.utilization_uses_measured_peak && s.peak_measured
               ? "measured peak " + si_number(*s.peak_measured, "FLOP/s")
               : "datasheet peak " + si_number(s.peak_datasheet, "FLOP/s");
  }
  AxisSpec axis(Metric k) const {
    AxisSpec a;
    switch (k) {
      case Metric::kThroughput: {
        a.label = "throughput (images/s)";
        double lo = 0, hi = 0;
        for (const auto& m : s.models)
          if (m.throughput > 0) {
            lo = lo == 0 ? m.throughput : std::min(lo, m.throughput);
            hi = std::max(hi, m.throughput);
          }
        for (const auto& f : s.folds) hi = std::max(hi, f.throughput_after);
        a.scale = (lo > 0 && hi / lo > 10) ? AxisScale::kLog : AxisScale::kLinear;
        a.include_zero = a.scale == AxisScale::kLinear;
        break;
      }
      case Metric::kUtilization:
        a.label = std::string("utilization (% of ") + (s.utilization_uses_measured_peak ? "measured" : "datasheet") +
                  " peak)";
        a.tick_factor = 100;
        a.tick_suffix = "%";
        a.include_zero = true;
        break;
      case Metric::kAccuracy: a.label = "top-1 accuracy (%)"; break;
    }
    return a;
  }
  std::string point_title(const StudyModel& m) const {
    std::string t = m.name;
    t += fmt::format("\nthroughput {:.1f} img/s (batch {})", m.throughput, m.batch);
    t += fmt::format("\nutilization {:.2f}% of the {}", 100 * plotted_utilization(s, m), peak_words());
    t += m.acc1 ? fmt::format("\nacc@1 {:.2f}%", *m.acc1) : std::string("\nacc@1 unknown");
    if (m.acc5) t += fmt::format(", acc@5 {:.2f}%", *m.acc5);
    t += fmt::format("\nAI {:.1f} FLOP/B, {} the CMR {:.1f}", m.ai, m.ai_above_cmr ? "above" : "below", s.cmr);
    t += fmt::format("\n{:.3f} GMACs/image, {:.2f} M params", m.macs_per_image / 1e9,
                     static_cast<double>(m.params) / 1e6);
    return t;
  }
  std::string subtitle() const {
    return "Throughput " + study_source_sentence(s) + "; " + s.dtype + ", batch " + s.batch_spec + ".";
  }
};

MarkerStyle marker(MarkerShape shape, const char* color, bool filled, double size = 4.5) {
  MarkerStyle m;
  m.shape = shape;
  m.color = color;
  m.filled = filled;
  m.size = size;
  return m;
}

LineStyle line(const char* color, double width, std::string dash = "") { return {color, width, std::move(dash)}; }

// AI above / below the CMR: filled triangle vs hollow circle (shape, fill and colour differ).
MarkerStyle ai_marker(bool above, double size = 4.5) {
  return above ? marker(MarkerShape::kTriangleUp, kVermillion, true, size)
               : marker(MarkerShape::kCircle, kBlue, false, size);
}

// A model with attention layers (ViT, Swin, MaxViT) in Figure 1: a filled green square.
MarkerStyle transformer_marker() { return marker(MarkerShape::kSquare, kGreen, true, 4.5); }

SvgAttrs model_attrs(const StudyModel& m) {
  SvgAttrs a = {{"data-model", m.name}, {"data-ai", m.ai_above_cmr ? "above" : "below"}};
  if (m.attention_layers > 0) a.push_back({"data-transformer", "1"});
  return a;
}

// The frontier as a polyline through its points, in order of x.
std::vector<std::pair<double, double>> frontier_line(std::vector<std::pair<double, double>> pts) {
  std::sort(pts.begin(), pts.end(), [](const auto& a, const auto& b) {
    return a.first < b.first || (a.first == b.first && a.second > b.second);
  });
  return pts;
}

// Figure 1 (a), (b), (c): every model, its frontier drawn and labelled.
std::string fig1(const Study& s, const char* id, const char* title, Metric xk, Metric yk,
                 const std::vector<size_t>& frontier) {
  const View v{s};
  const bool needs_acc = xk == Metric::kAccuracy || yk == Metric::kAccuracy;
  SvgPlot p(id, kPlotW, kPlotH);
  p.set_title(title);
  p.set_subtitle(v.subtitle());
  p.x_axis() = v.axis(xk);
  p.y_axis() = v.axis(yk);
  size_t shown = 0, left_out = 0, n_front = 0, n_all = 0, n_transformers = 0;
  std::vector<std::pair<double, double>> fpts;
  // Back to front: ordinary models, frontier models, models on all three frontiers. Models
  // with attention layers (transformers) off the frontier get a marker of their own.
  for (int layer = 0; layer < 3; ++layer)
    for (size_t i = 0; i < s.models.size(); ++i) {
      const StudyModel& m = s.models[i];
      if (needs_acc && !m.acc1) {
        if (layer == 0) ++left_out;
        continue;
      }
      const bool all = on(s.frontiers.all_three, i), front = on(frontier, i);
      const int want = all ? 2 : front ? 1 : 0;
      if (want != layer) continue;
      const double x = v.value(m, xk), y = v.value(m, yk);
      const bool transformer = m.attention_layers > 0 && !front && !all;
      const MarkerStyle st = all           ? marker(MarkerShape::kStar, kBlack, true, 5.5)
                             : front       ? marker(MarkerShape::kDiamond, kVermillion, true, 5)
                             : transformer ? transformer_marker()
                                           : marker(MarkerShape::kCircle, kBlue, false, 4);
      n_transformers += transformer ? 1 : 0;
      SvgAttrs attrs = model_attrs(m);
      if (front) attrs.push_back({"data-frontier", "1"});
      p.point(x, y, st, v.point_title(m), "pt", attrs);
      ++shown;
      if (front) {
        ++n_front;
        fpts.push_back({x, y});
        p.label(x, y, m.name);
      }
      if (all) ++n_all;
    }
  if (fpts.size() > 1) p.polyline(frontier_line(fpts), line(kVermillion, 1.8), "frontier", "Pareto frontier");
  p.legend_marker(marker(MarkerShape::kCircle, kBlue, false, 4),
                  fmt::format("model ({})", shown - n_front - n_transformers));
  if (n_transformers) p.legend_marker(transformer_marker(), fmt::format("transformer ({})", n_transformers));
  p.legend_marker(marker(MarkerShape::kDiamond, kVermillion, true, 5), fmt::format("on this frontier ({})", n_front));
  p.legend_marker(marker(MarkerShape::kStar, kBlack, true, 5.5), fmt::format("on all three frontiers ({})", n_all));
  p.legend_line(line(kVermillion, 1.8), "Pareto frontier (higher is better on both axes)");
  if (needs_acc && left_out)
    p.legend_note(fmt::format("{} model{} without accuracy left out", left_out, left_out == 1 ? "" : "s"));
  return p.render();
}

std::string fig2a(const Study& s) {
  const View v{s};
  SvgPlot p("fig2a", kPlotW, kPlotH);
  p.set_title("Figure 2(a). Accuracy vs throughput, aggregate AI against the CMR");
  p.set_subtitle(v.subtitle());
  p.x_axis() = v.axis(Metric::kThroughput);
  p.y_axis() = v.axis(Metric::kAccuracy);
  size_t above = 0, below = 0, left_out = 0;
  std::vector<std::pair<double, double>> fpts;
  for (size_t i = 0; i < s.models.size(); ++i) {
    const StudyModel& m = s.models[i];
    if (!m.acc1) {
      ++left_out;
      continue;
    }
    (m.ai_above_cmr ? above : below)++;
    p.point(m.throughput, *m.acc1, ai_marker(m.ai_above_cmr), v.point_title(m), "pt", model_attrs(m));
    if (on(s.frontiers.acc_throughput, i)) {
      fpts.push_back({m.throughput, *m.acc1});
      p.label(m.throughput, *m.acc1, m.name);
    }
  }
  if (fpts.size() > 1)
    p.polyline(frontier_line(fpts), line(kBlack, 1.4, "6,4"), "frontier", "accuracy-throughput frontier");
  p.legend_marker(ai_marker(true), fmt::format("AI > CMR ({})", above));
  p.legend_marker(ai_marker(false), fmt::format("AI \u2264 CMR ({})", below));
  p.legend_line(line(kBlack, 1.4, "6,4"), "accuracy-throughput frontier");
  p.legend_note(
      fmt::format("CMR {:.1f} FLOP/B ({} {}, datasheet peak / memory bandwidth)", s.cmr, s.device_name, s.dtype));
  if (left_out) p.legend_note(fmt::format("{} model{} without accuracy left out", left_out, left_out == 1 ? "" : "s"));
  return p.render();
}

std::string fig2b(const Study& s) {
  const View v{s};
  SvgPlot p("fig2b", kPlotW, kPlotH);
  const int f = s.folds.empty() ? 4 : s.folds.front().factor;
  p.set_title(fmt::format("Figure 2(b). Folding (FoldedCNN, f = {}): utilization vs throughput", f));
  p.set_subtitle(v.subtitle() + " Folded throughput counts original images.");
  p.x_axis() = v.axis(Metric::kThroughput);
  p.y_axis() = v.axis(Metric::kUtilization);
  auto fold_of = [&](const std::string& name) -> const FoldResult* {
    for (const auto& r : s.folds)
      if (r.model == name) return &r;
    return nullptr;
  };
  // Frontiers: before (dashed) and after (solid); after uses a folded model's folded point.
  std::vector<std::pair<double, double>> before, after;
  std::set<std::string> labelled;
  for (size_t i : s.frontier_before_fold)
    if (i < s.models.size()) before.push_back({s.models[i].throughput, plotted_utilization(s, s.models[i])});
  for (size_t i : s.frontier_after_fold) {
    if (i >= s.models.size()) continue;
    const StudyModel& m = s.models[i];
    const FoldResult* r = fold_of(m.name);
    const double x = r ? r->throughput_after : m.throughput, y = r ? r->utilization_after : plotted_utilization(s, m);
    after.push_back({x, y});
    p.label(x, y, r ? m.name + fmt::format(" (f{})", r->factor) : m.name);
    labelled.insert(m.name + (r ? "/after" : "/before"));
  }
  for (size_t i : s.frontier_before_fold)
    if (i < s.models.size() && !labelled.count(s.models[i].name + "/before"))
      p.label(s.models[i].throughput, plotted_utilization(s, s.models[i]), s.models[i].name);
  if (before.size() > 1)
    p.polyline(frontier_line(before), line(kBlack, 1.5, "6,4"), "frontier-before", "frontier before folding");
  if (after.size() > 1) p.polyline(frontier_line(after), line(kGreen, 2.2), "frontier-after", "frontier after folding");
  for (const auto& r : s.folds) {
    const std::string t = fmt::format(
        "{} folded with f = {}\nthroughput {:.1f} -> {:.1f} img/s (x{:.2f})\nutilization {:.2f}% -> {:.2f}%\n"
        "AI {:.1f} -> {:.1f} FLOP/B (CMR {:.1f})\nGFLOPs/image {:.3f} -> {:.3f}; batch after {} images",
        r.model, r.factor, r.throughput_before, r.throughput_after,
        r.throughput_before > 0 ? r.throughput_after / r.throughput_before : 0.0, 100 * r.utilization_before,
        100 * r.utilization_after, r.ai_before, r.ai_after, s.cmr, r.flops_per_image_before / 1e9,
        r.flops_per_image_after / 1e9, r.batch_after);
    p.arrow(r.throughput_before, r.utilization_before, r.throughput_after, r.utilization_after, line("#343a40", 1.1), t,
            "fold-arrow", 5);
    p.point(r.throughput_after, r.utilization_after, ai_marker(r.ai_after > s.cmr, 5), t, "pt-folded",
            {{"data-model", r.model}, {"data-ai", r.ai_after > s.cmr ? "above" : "below"}});
  }
  size_t above = 0, below = 0;
  for (const auto& m : s.models) {
    (m.ai_above_cmr ? above : below)++;
    p.point(m.throughput, plotted_utilization(s, m), ai_marker(m.ai_above_cmr, 4), v.point_title(m), "pt",
            model_attrs(m));
  }
  p.legend_marker(ai_marker(true, 4), fmt::format("AI > CMR ({:.0f} FLOP/B)", s.cmr));
  p.legend_marker(ai_marker(false, 4), "AI \u2264 CMR");
  p.legend_arrow(line("#343a40", 1.1), fmt::format("folded, original \u2192 folded ({} model{})", s.folds.size(),
                                                   s.folds.size() == 1 ? "" : "s"));
  p.legend_line(line(kBlack, 1.5, "6,4"), "frontier before folding");
  p.legend_line(line(kGreen, 2.2), "frontier after folding");
  p.legend_note("Arrow ends use the same shapes for the folded model's AI; labels name the frontier models.");
  return p.render();
}

std::string ai_histogram(const Study& s) {
  SvgPlot p("fig-ai-hist", 2 * kPlotW * 0.8, kPlotH * 0.85);
  size_t n_layers = 0;
  double lo = 0, hi = 0;
  for (const auto& m : s.models)
    for (const auto& L : m.layers)
      if (L.ai > 0 && std::isfinite(L.ai)) {
        lo = n_layers ? std::min(lo, L.ai) : L.ai;
        hi = n_layers ? std::max(hi, L.ai) : L.ai;
        ++n_layers;
      }
  p.set_title(
      fmt::format("Per-layer arithmetic intensity: {} layers of {} models, with the CMR", n_layers, s.models.size()));
  p.set_subtitle(
      "Fused layers at the study batch (" + s.batch_spec + "), " + s.dtype +
      " bytes; bins are a quarter decade wide. Layer AI does not depend on the source of the throughput numbers.");
  AxisSpec xa;
  xa.label = "per-layer arithmetic intensity (FLOP/B)";
  xa.scale = AxisScale::kLog;
  AxisSpec ya;
  ya.label = "share (%)";
  ya.tick_factor = 100;
  ya.tick_suffix = "%";
  ya.include_zero = true;
  if (n_layers == 0) {
    p.x_axis() = xa;
    p.y_axis() = ya;
    p.vline(s.cmr > 0 ? s.cmr : 1, line(kVermillion, 2), fmt::format("CMR {:.1f} FLOP/B", s.cmr), "cmr");
    p.legend_note("no per-layer data in this study");
    return p.render();
  }
  constexpr double kPerDecade = 4;
  const double e0 = std::floor(std::log10(std::min(lo, s.cmr > 0 ? s.cmr : lo)) * kPerDecade) / kPerDecade;
  const double e1 = std::ceil(std::log10(std::max(hi, s.cmr)) * kPerDecade + 1e-9) / kPerDecade;
  const size_t nb = std::max<size_t>(1, static_cast<size_t>(std::lround((e1 - e0) * kPerDecade)));
  std::vector<double> count(nb, 0), time(nb, 0);
  size_t models_with_time = 0, below_cmr = 0;
  for (const auto& m : s.models) {
    bool has_time = false;
    for (const auto& L : m.layers)
      if (L.time_share > 0) has_time = true;
    if (has_time) ++models_with_time;
  }
  for (const auto& m : s.models)
    for (const auto& L : m.layers) {
      if (!(L.ai > 0) || !std::isfinite(L.ai)) continue;
      const double e = std::log10(L.ai);
      size_t b = static_cast<size_t>(std::clamp((e - e0) * kPerDecade, 0.0, static_cast<double>(nb) - 1e-9));
      count[b] += 1;
      time[b] += L.time_share;
      if (L.ai < s.cmr) ++below_cmr;
    }
  xa.min = std::pow(10, e0);
  xa.max = std::pow(10, e1);
  p.x_axis() = xa;
  p.y_axis() = ya;
  std::vector<std::pair<double, double>> step;
  for (size_t b = 0; b < nb; ++b) {
    const double x0 = std::pow(10, e0 + static_cast<double>(b) / kPerDecade);
    const double x1 = std::pow(10, e0 + static_cast<double>(b + 1) / kPerDecade);
    const double share = count[b] / static_cast<double>(n_layers);
    const double tshare = models_with_time ? time[b] / static_cast<double>(models_with_time) : 0;
    p.bar(x0, x1, share, kBlue,
          fmt::format("AI {} to {} FLOP/B: {} layers ({:.1f}% of layers){}", compact_number(x0), compact_number(x1),
                      count[b], 100 * share,
                      models_with_time ? fmt::format(", {:.1f}% of predicted time", 100 * tshare) : std::string()),
          "bar", 0.6);
    step.push_back({x0, tshare});
    step.push_back({x1, tshare});
  }
  if (models_with_time) p.polyline(step, line(kBlack, 1.6, "5,3"), "time-share", "share of predicted time");
  p.vline(s.cmr, line(kVermillion, 2.2), fmt::format("CMR {:.1f} FLOP/B", s.cmr), "cmr");
  if (s.cmr_measured)
    p.vline(*s.cmr_measured, line(kOrange, 1.6, "3,3"), fmt::format("CMR {:.1f} (measured peak)", *s.cmr_measured),
            "cmr-measured");
  p.set_legend_width(210);
  p.legend_bar(kBlue, "share of layers (each layer counts once)");
  if (models_with_time)
    p.legend_line(line(kBlack, 1.6, "5,3"),
                  fmt::format("share of predicted time (each of {} models weighted equally)", models_with_time));
  p.legend_line(line(kVermillion, 2.2), fmt::format("CMR {:.1f} FLOP/B (datasheet peak / bandwidth)", s.cmr));
  if (s.cmr_measured)
    p.legend_line(line(kOrange, 1.6, "3,3"), fmt::format("CMR {:.1f} FLOP/B (measured peak)", *s.cmr_measured));
  p.legend_note(fmt::format("{:.1f}% of layers have AI below the CMR",
                            100.0 * static_cast<double>(below_cmr) / static_cast<double>(n_layers)));
  return p.render();
}

// --- page pieces ------------------------------------------------------------------------

// Page-specific rules, after the shared ones (report/html_style.h).
const char* kCss = R"css(.summary { font-size: 13px; }
.plots { display: flex; flex-wrap: wrap; gap: 14px; }
svg.plot { width: calc(50% - 9px); min-width: 520px; max-width: 100%; height: auto; border: 1px solid #dee2e6; }
#fig-ai-hist { width: 100%; max-width: 1100px; }
figure { margin: 10px 0 18px; }
figcaption { font-size: 13px; margin-top: 6px; max-width: 1380px; }
table { border-collapse: collapse; font-size: 12px; }
th, td { border: 1px solid #dee2e6; padding: 2px 6px; }
th { background: #f1f3f5; position: sticky; top: 0; cursor: pointer; user-select: none; vertical-align: bottom; }
th[aria-sort="ascending"]::after { content: " \25B2"; }
th[aria-sort="descending"]::after { content: " \25BC"; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
td.mark { text-align: center; }
tr:nth-child(even) td { background: #f8f9fa; }
.note { font-size: 12px; color: #495057; }
@media print {
  body { margin: 0; font-size: 9pt; max-width: none; }
  .source { background: none; border: 1px solid #000; }
  .plots { display: block; }
  svg.plot { width: 49%; border: none; break-inside: avoid; }
  figure { break-inside: avoid; }
  th { position: static; cursor: auto; }
  th::after { content: "" !important; }
  table { font-size: 7pt; }
  tr:nth-child(even) td { background: none; }
}
)css";

// Installed first: records script errors and console.error calls on <html> so a headless
// browser's DOM dump shows them.
const char* kErrorHook = R"js(
(function () {
  var root = document.documentElement;
  function record(msg) {
    root.setAttribute('data-js-errors', String((+root.getAttribute('data-js-errors') || 0) + 1));
    root.setAttribute('data-js-error-log', (root.getAttribute('data-js-error-log') || '') + msg + '\n');
  }
  window.addEventListener('error', function (e) { record('error: ' + (e.message || e.type)); }, true);
  window.addEventListener('unhandledrejection', function (e) { record('unhandled rejection: ' + e.reason); });
  var original = console.error;
  console.error = function () {
    record('console.error: ' + Array.prototype.join.call(arguments, ' '));
    return original.apply(console, arguments);
  };
})();
)js";

// Sortable columns: a click (or Enter) on a header sorts by that column; numbers by their
// data-v value, text otherwise; empty cells last.
const char* kSortScript = R"js(
(function () {
  var table = document.getElementById('models-table');
  if (table) {
    var heads = table.tHead.rows[0].cells;
    var keyOf = function (cell) {
      var v = cell.getAttribute('data-v');
      if (v === null) return cell.textContent.toLowerCase();
      if (v === '') return null;
      var n = parseFloat(v);
      return isNaN(n) ? v.toLowerCase() : n;
    };
    var sortBy = function (col) {
      var th = heads[col];
      var asc = th.getAttribute('aria-sort') !== 'ascending';
      for (var i = 0; i < heads.length; i++) heads[i].removeAttribute('aria-sort');
      th.setAttribute('aria-sort', asc ? 'ascending' : 'descending');
      var body = table.tBodies[0];
      var rows = Array.prototype.slice.call(body.rows);
      rows.sort(function (a, b) {
        var x = keyOf(a.cells[col]), y = keyOf(b.cells[col]);
        if (x === null && y === null) return 0;
        if (x === null) return 1;
        if (y === null) return -1;
        var c = (typeof x === 'number' && typeof y === 'number') ? x - y : String(x).localeCompare(String(y));
        return asc ? c : -c;
      });
      for (var r = 0; r < rows.length; r++) body.appendChild(rows[r]);
    };
    for (var i = 0; i < heads.length; i++) {
      (function (col) {
        heads[col].tabIndex = 0;
        heads[col].addEventListener('click', function () { sortBy(col); });
        heads[col].addEventListener('keydown', function (e) { if (e.key === 'Enter') sortBy(col); });
      })(i);
    }
  }
  document.documentElement.setAttribute('data-report-ready', '1');
})();
)js";

std::string header_html(const Study& s) {
  const View v{s};
  size_t with_acc = 0;
  std::set<std::string> acc_sources;
  for (const auto& m : s.models) {
    if (m.acc1) ++with_acc;
    if (m.acc1 && !m.accuracy_source.empty()) acc_sources.insert(m.accuracy_source);
  }
  std::string h;
  h += fmt::format("<h1>rooflens study: {} model{} on {}</h1>\n", s.models.size(), s.models.size() == 1 ? "" : "s",
                   esc(s.device_name));
  h += "<p class=\"source\"><b>Source of the numbers:</b> throughput " + esc(study_source_sentence(s)) +
       ". Utilization = throughput &times; FLOPs per image / peak FLOP/s.";
  for (const auto& n : s.notes)  // caveats that change how every number reads
    if (n.rfind("peaks and CMR", 0) == 0 || n.rfind("folded points are", 0) == 0) h += " <b>Note:</b> " + esc(n) + ".";
  h += "</p>\n";
  h += "<dl class=\"meta\">\n";
  auto row = [&](const std::string& k, const std::string& val_html) {
    h += "<dt>" + esc(k) + "</dt><dd>" + val_html + "</dd>\n";
  };
  row("Device", esc(s.device_name) + " (<code>" + esc(s.device_id) + "</code>)");
  row("Data type", esc(s.dtype));
  const bool numeric_batch = !s.batch_spec.empty() && std::isdigit(static_cast<unsigned char>(s.batch_spec[0]));
  row("Batch", s.batch_spec == "max" ? "max (each model at the largest batch that fits device memory)"
               : numeric_batch       ? esc(s.batch_spec) + " images"
                                     : esc(s.batch_spec) + " (see the table)");
  std::string peaks = esc(si_number(s.peak_datasheet, "FLOP/s")) + " datasheet";
  if (s.peak_measured) peaks += ", " + esc(si_number(*s.peak_measured, "FLOP/s")) + " measured";
  row("Peak (" + s.dtype + ")", peaks);
  row("Memory bandwidth", esc(si_number(s.bandwidth, "B/s")));
  std::string cmr = fmt::format("{:.1f} FLOP/B (datasheet peak / bandwidth)", s.cmr);
  if (s.cmr_measured) cmr += fmt::format("; {:.1f} FLOP/B with the measured peak", *s.cmr_measured);
  row("CMR", cmr);
  row("Utilization in plots",
      "over the " + esc(v.peak_words()) +
          (s.utilization_uses_measured_peak ? "" : " (the table also lists the measured-peak one where known)"));
  row("Accuracy",
      fmt::format("{} of {} models have top-1 accuracy", with_acc, s.models.size()) +
          (acc_sources.empty() ? "" : " (from " + esc(join({acc_sources.begin(), acc_sources.end()})) + ")"));
  h += "</dl>\n";
  const Frontiers& fr = s.frontiers;
  auto lst = [&](const std::vector<size_t>& ids) {
    auto n = names_of(s, ids);
    return n.empty() ? std::string("none") : esc(join(n));
  };
  h += "<div class=\"summary\"><ul>\n";
  h += fmt::format("<li>Throughput-utilization frontier ({}): {}</li>\n", fr.throughput_utilization.size(),
                   lst(fr.throughput_utilization));
  h +=
      fmt::format("<li>Accuracy-throughput frontier ({}): {}</li>\n", fr.acc_throughput.size(), lst(fr.acc_throughput));
  h += fmt::format("<li>Accuracy-utilization frontier ({}): {}</li>\n", fr.acc_utilization.size(),
                   lst(fr.acc_utilization));
  h += fmt::format("<li><b>On all three frontiers:</b> {}</li>\n", lst(fr.all_three));
  if (s.spearman_utilization_accuracy)
    h += fmt::format(
        "<li>Rank correlation with top-1 accuracy (Spearman): utilization {:+.2f}, throughput {:+.2f}</li>\n",
        *s.spearman_utilization_accuracy, *s.spearman_throughput_accuracy);
  h += "</ul></div>\n";
  return h;
}

std::string cell_num(double v, int decimals, double scale = 1) {
  return fmt::format("<td class=\"num\" data-v=\"{}\">{}</td>", v, fmt_fixed(v * scale, decimals));
}
std::string cell_opt(const std::optional<double>& v, int decimals, double scale = 1) {
  return v ? cell_num(*v, decimals, scale) : "<td class=\"num\" data-v=\"\">&mdash;</td>";
}
std::string cell_mark(bool yes) {
  return yes ? "<td class=\"mark\" data-v=\"1\">&#9679;</td>" : "<td class=\"mark\" data-v=\"0\"></td>";
}

std::string table_html(const Study& s) {
  std::string h;
  h += "<table id=\"models-table\">\n<thead><tr>";
  const std::pair<const char*, const char*> cols[] = {{"model", "model"},
                                                      {"acc1", "acc@1 (%)"},
                                                      {"acc5", "acc@5 (%)"},
                                                      {"batch", "batch (images)"},
                                                      {"max_batch", "max batch (images)"},
                                                      {"throughput", "throughput (img/s)"},
                                                      {"util", "utilization, datasheet peak (%)"},
                                                      {"util_measured", "utilization, measured peak (%)"},
                                                      {"ai", "AI (FLOP/B)"},
                                                      {"ai_vs_cmr", "AI vs CMR"},
                                                      {"top_bound", "top bound (% of time)"},
                                                      {"params", "params (M)"},
                                                      {"gmacs", "GMACs/image"},
                                                      {"f_tu", "frontier T-U"},
                                                      {"f_at", "frontier A-T"},
                                                      {"f_au", "frontier A-U"},
                                                      {"f_all", "all three"}};
  for (const auto& [key, text] : cols)
    h += fmt::format("<th data-key=\"{}\" title=\"click to sort\">{}</th>", key, esc(text));
  h += "</tr></thead>\n<tbody>\n";
  const Frontiers& fr = s.frontiers;
  for (size_t i = 0; i < s.models.size(); ++i) {
    const StudyModel& m = s.models[i];
    const auto [bound, share] = study_top_bound(m);
    h += fmt::format("<tr data-model=\"{}\"><td>{}</td>", esc(m.name), esc(m.name));
    h += cell_opt(m.acc1, 2) + cell_opt(m.acc5, 2);
    h += cell_num(static_cast<double>(m.batch), 0);
    h += m.max_batch ? cell_num(static_cast<double>(*m.max_batch), 0) : "<td class=\"num\" data-v=\"\">&mdash;</td>";
    h += cell_num(m.throughput, 1);
    h += cell_num(m.utilization, 2, 100);
    h += cell_opt(m.utilization_measured, 2, 100);
    h += cell_num(m.ai, 1);
    h += fmt::format("<td data-v=\"{}\">{}</td>", m.ai_above_cmr ? "above" : "below",
                     m.ai_above_cmr ? "above" : "below");
    h += bound.empty() ? "<td data-v=\"\">&mdash;</td>"
                       : fmt::format("<td data-v=\"{}\">{} ({:.0f}%)</td>", esc(bound), esc(bound), 100 * share);
    h += cell_num(static_cast<double>(m.params), 2, 1e-6);
    h += cell_num(m.macs_per_image, 3, 1e-9);
    h += cell_mark(on(fr.throughput_utilization, i)) + cell_mark(on(fr.acc_throughput, i)) +
         cell_mark(on(fr.acc_utilization, i)) + cell_mark(on(fr.all_three, i));
    h += "</tr>\n";
  }
  h += "</tbody></table>\n";
  h += "<p class=\"note\">T-U: throughput-utilization, A-T: accuracy-throughput, A-U: accuracy-utilization frontier "
       "(&#9679; = on it). AI is the aggregate arithmetic intensity (all FLOPs / all bytes of the fused layers). "
       "Click a column header to sort.</p>\n";
  return h;
}

std::string folds_table_html(const Study& s) {
  if (s.folds.empty()) return "";
  std::string h =
      "<table id=\"folds-table\">\n<thead><tr><th>model</th><th>f</th><th>throughput before (img/s)</th>"
      "<th>throughput after (img/s)</th><th>speedup (&times;)</th><th>utilization before (%)</th>"
      "<th>utilization after (%)</th><th>AI before (FLOP/B)</th><th>AI after (FLOP/B)</th>"
      "<th>GFLOPs/image before</th><th>GFLOPs/image after</th><th>batch after (images)</th></tr></thead>\n<tbody>\n";
  for (const auto& r : s.folds) {
    h += fmt::format("<tr data-model=\"{}\"><td>{}</td>", esc(r.model), esc(r.model));
    h += cell_num(r.factor, 0) + cell_num(r.throughput_before, 1) + cell_num(r.throughput_after, 1);
    h += cell_num(r.throughput_before > 0 ? r.throughput_after / r.throughput_before : 0, 2);
    h += cell_num(r.utilization_before, 2, 100) + cell_num(r.utilization_after, 2, 100);
    h += cell_num(r.ai_before, 1) + cell_num(r.ai_after, 1);
    h += cell_num(r.flops_per_image_before, 3, 1e-9) + cell_num(r.flops_per_image_after, 3, 1e-9);
    h += cell_num(static_cast<double>(r.batch_after), 0) + "</tr>\n";
  }
  h += "</tbody></table>\n";
  return h;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> study_svgs(const Study& s) {
  return {
      {"fig1a", fig1(s, "fig1a", "Figure 1(a). Utilization vs throughput", Metric::kThroughput, Metric::kUtilization,
                     s.frontiers.throughput_utilization)},
      {"fig1b", fig1(s, "fig1b", "Figure 1(b). Accuracy vs throughput", Metric::kThroughput, Metric::kAccuracy,
                     s.frontiers.acc_throughput)},
      {"fig1c", fig1(s, "fig1c", "Figure 1(c). Accuracy vs utilization", Metric::kUtilization, Metric::kAccuracy,
                     s.frontiers.acc_utilization)},
      {"fig2a", fig2a(s)},
      {"fig2b", fig2b(s)},
      {"fig-ai-hist", ai_histogram(s)},
  };
}

std::string study_html(const Study& s, const std::string& sections) {
  const auto svgs = study_svgs(s);
  auto svg = [&](const char* id) -> const std::string& {
    for (const auto& [k, v] : svgs)
      if (k == id) return v;
    return svgs.front().second;
  };
  size_t no_acc = 0;
  for (const auto& m : s.models)
    if (!m.acc1) ++no_acc;
  const std::string source = "Throughput " + esc(study_source_sentence(s)) + ".";
  std::string h;
  h += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  h += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  h += fmt::format("<meta name=\"generator\" content=\"rooflens {}\">\n", kStudySchema);
  h += fmt::format("<title>rooflens study: {} on {}</title>\n", s.models.size(), esc(s.device_name));
  h += std::string("<script>") + kErrorHook + "</script>\n";
  h += std::string("<style>") + kReportBaseCss + kCss + "</style>\n</head>\n<body>\n";
  h += header_html(s);

  h += "<h2>Figure 1: accuracy, throughput and utilization, two at a time</h2>\n";
  h += "<figure id=\"figure-1\">\n<div class=\"plots\">\n" + svg("fig1a") + svg("fig1b") + svg("fig1c") + "</div>\n";
  auto all3 = names_of(s, s.frontiers.all_three);
  h += "<figcaption><b>Figure 1.</b> Each mark is one model; the line joins the Pareto frontier of the two metrics "
       "(higher is better on both), and frontier models are named. " +
       source + fmt::format(" <b>On all three frontiers:</b> {}.", all3.empty() ? "none" : esc(join(all3)));
  if (no_acc)
    h += fmt::format(" {} model{} without accuracy {} left out of (b) and (c).", no_acc, no_acc == 1 ? "" : "s",
                     no_acc == 1 ? "is" : "are");
  h += "</figcaption>\n</figure>\n";

  h += "<h2>Figure 2: arithmetic intensity against the CMR, and folding</h2>\n";
  h += "<figure id=\"figure-2\">\n<div class=\"plots\">\n" + svg("fig2a") + svg("fig2b") + "</div>\n";
  h += fmt::format(
      "<figcaption><b>Figure 2.</b> (a) The accuracy-throughput plot of Figure 1(b), each model marked by whether its "
      "aggregate {} AI is above (filled triangle) or at/below (hollow circle) the CMR of {:.1f} FLOP/B. (b) ",
      esc(s.dtype), s.cmr);
  if (s.folds.empty())
    h += "No model was folded in this study, so (b) shows the throughput-utilization plot without arrows. ";
  else
    h += fmt::format(
        "{} model{} folded with FoldedCNN (f = {}): each arrow runs from the original throughput and utilization to "
        "the folded one; the dashed line is the throughput-utilization frontier before folding, the solid one after "
        "(a folded model takes its folded point). Marker shapes at both ends show AI against the CMR. ",
        s.folds.size(), s.folds.size() == 1 ? " was" : "s were", s.folds.front().factor);
  h += source + "</figcaption>\n</figure>\n";
  if (!s.folds.empty()) h += "<h3>Folded models</h3>\n" + folds_table_html(s);

  h += "<h2>Per-layer arithmetic intensity</h2>\n<figure id=\"figure-ai-hist\">\n" + svg("fig-ai-hist");
  h += fmt::format(
      "<figcaption>Histogram of the arithmetic intensity of every fused layer of every model "
      "(quarter-decade bins), with the device CMR ({:.1f} FLOP/B) marked. A layer left of the line cannot "
      "reach the compute peak however well it is implemented.</figcaption>\n</figure>\n",
      s.cmr);

  h += "<h2>Models</h2>\n" + table_html(s);
  h += sections;
  if (!s.notes.empty()) {
    h += "<h2>Notes</h2>\n<ul class=\"note\">\n";
    for (const auto& n : s.notes) h += "<li>" + esc(n) + "</li>\n";
    h += "</ul>\n";
  }
  h += fmt::format(
      "<p class=\"note\">Generated by rooflens ({}). This page is self-contained: nothing is loaded from "
      "the network.</p>\n",
      kStudySchema);
  h += std::string("<script>") + kSortScript + "</script>\n</body>\n</html>\n";
  return h;
}

}  // namespace rooflens::report
