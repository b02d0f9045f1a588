// The NAS report: its input (runs scored against the true frontier), the two tables and the
// HTML page. The plots are in nas_figures.cpp.
#include "rooflens/report/nas_report.h"

#include <fmt/format.h>

#include "rooflens/report/html_style.h"

#include <algorithm>
#include <cmath>

#include "nas_figures.h"
#include "rooflens/report/svg_plot.h"

namespace rooflens::report {

using nas_detail::final_known;
using nas_detail::Group;

namespace {

std::string esc(std::string_view s) { return xml_escape(s); }

// Mean and sample standard deviation (n - 1) of the values present.
struct Stat {
  size_t n = 0;
  double mean = 0, sd = 0;
};

Stat stat_of(const std::vector<double>& v) {
  Stat s;
  s.n = v.size();
  if (v.empty()) return s;
  for (double x : v) s.mean += x;
  s.mean /= static_cast<double>(v.size());
  if (v.size() > 1) {
    double ss = 0;
    for (double x : v) ss += (x - s.mean) * (x - s.mean);
    s.sd = std::sqrt(ss / static_cast<double>(v.size() - 1));
  }
  // An infinite value (IGD of an empty found set) makes the mean infinite and the sd meaningless.
  if (!std::isfinite(s.mean)) s.sd = std::nan("");
  return s;
}

std::string num(double v, int decimals) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return fmt_fixed(v, decimals);
}

// "mean +- sd" (ASCII) or "mean ± sd"; "n/a" when there are no values; the value alone for one.
std::string mean_sd(const std::vector<double>& v, int decimals, bool html) {
  if (v.empty()) return "n/a";
  const Stat s = stat_of(v);
  if (s.n == 1) return num(s.mean, decimals);
  return num(s.mean, decimals) + (html ? " \u00b1 " : " +- ") + num(s.sd, decimals);
}

// The columns of one summary row, each a list of values over the group's runs.
struct GroupColumns {
  std::vector<double> hv, igd, found, evals, clock, best_acc;
  int64_t frontier_size = -1;  // -1 when unknown or when runs disagree
};

GroupColumns columns_of(const NasReportInput& in, const Group& g) {
  GroupColumns c;
  for (size_t r : g.runs) {
    const NasRunSummary& run = in.runs[r];
    if (run.score) {
      c.hv.push_back(run.score->hypervolume_ratio);
      c.igd.push_back(run.score->igd);
      c.found.push_back(static_cast<double>(run.score->true_frontier_found));
      c.frontier_size = run.score->true_frontier_size;
    }
    c.evals.push_back(static_cast<double>(run.result.evaluations.size()));
    c.clock.push_back(run.result.clock_seconds);
    if (run.best_final_accuracy) c.best_acc.push_back(*run.best_final_accuracy);
  }
  return c;
}

Table summary_table(const NasReportInput& in, bool html) {
  Table t;
  t.headers = {"strategy",
               "reward",
               "runs",
               "HV ratio (mean +- sd)",
               "IGD (mean +- sd)",
               "true-frontier networks found (mean +- sd)",
               "evaluations (mean +- sd)",
               "clock (simulated s, mean +- sd)",
               "best final accuracy (%, mean +- sd)"};
  if (html)
    for (auto& h : t.headers) {
      const size_t p = h.find("+-");
      if (p != std::string::npos) h.replace(p, 2, "\u00b1");
    }
  t.numeric = {false, false, true, true, true, true, true, true, true};
  for (const Group& g : nas_detail::groups(in)) {
    const GroupColumns c = columns_of(in, g);
    std::string found = mean_sd(c.found, 1, html);
    if (!c.found.empty() && c.frontier_size >= 0) found += fmt::format(" of {}", c.frontier_size);
    t.rows.push_back({nas::strategy_kind_name(g.strategy), nas_detail::reward_words(g.reward),
                      std::to_string(g.runs.size()), mean_sd(c.hv, 3, html), mean_sd(c.igd, 4, html), found,
                      mean_sd(c.evals, 1, html), mean_sd(c.clock, 0, html), mean_sd(c.best_acc, 2, html)});
  }
  return t;
}

std::string table_html(const Table& t, const char* id) {
  std::string h = fmt::format("<table id=\"{}\">\n<thead><tr>", id);
  for (const auto& c : t.headers) h += "<th>" + esc(c) + "</th>";
  h += "</tr></thead>\n<tbody>\n";
  for (const auto& row : t.rows) {
    h += "<tr>";
    for (size_t i = 0; i < row.size(); ++i)
      h += fmt::format("<td{}>{}</td>", i < t.numeric.size() && t.numeric[i] ? " class=\"num\"" : "", esc(row[i]));
    h += "</tr>\n";
  }
  return h + "</tbody></table>\n";
}

// Page-specific rules, after the shared ones (report/html_style.h).
const char* kCss = R"css(svg.plot { max-width: 100%; height: auto; border: 1px solid #dee2e6; }
.single svg.plot { width: 760px; }
.multiples { display: grid; grid-template-columns: repeat(3, minmax(0, 1fr)); gap: 10px; max-width: 1360px; }
.multiples svg.plot { width: 100%; }
svg.legend-strip { display: block; margin: 4px 0 6px; max-width: 100%; height: auto; }
figure { margin: 10px 0 18px; }
figcaption { font-size: 13px; margin-top: 6px; max-width: 1360px; }
table { border-collapse: collapse; font-size: 12px; margin: 6px 0; }
th, td { border: 1px solid #dee2e6; padding: 2px 6px; }
th { background: #f1f3f5; vertical-align: bottom; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
tr:nth-child(even) td { background: #f8f9fa; }
.note { font-size: 12px; color: #495057; }
@media print {
  body { margin: 0; font-size: 9pt; max-width: none; }
  .source { background: none; border: 1px solid #000; }
  svg.plot { border: none; }
  .single svg.plot { width: 70%; }
  figure { break-inside: avoid; }
  table { font-size: 7pt; }
  tr:nth-child(even) td { background: none; }
}
)css";

std::string default_title(const NasReportInput& in) {
  return "rooflens nas: utilization-aware search on the NATS-Bench size space" +
         (in.device.empty() ? std::string() : " (" + in.device + ")");
}

// The sentence under every plot: where each number comes from.
std::string source_sentence(const NasReportInput& in) {
  std::string s =
      "Throughput and utilization: " + (in.space->source.empty() ? std::string("not described") : in.space->source) +
      ".";
  if (!in.oracle.empty()) s += " Accuracy a search sees: " + in.oracle + ".";
  if (nas_detail::final_partial(in))
    s += fmt::format(
        " Final accuracy (reference frontier, scores): known for {} of the {} networks (those trained or "
        "tabulated), so the frontier, the scores and the normalisation ranges are over those {} networks, "
        "not the whole space.",
        in.final_known_networks, in.final_accuracy.size(), in.final_known_networks);
  else
    s += final_known(in) ? " Final accuracy (true frontier, scores): the oracle's final accuracy for every network."
                         : " Final accuracy: not known for the whole space, so no true frontier and no scores.";
  if (!in.budget.empty()) s += " Budget: " + in.budget + ".";
  return s;
}

std::string figure3_title(const NasReportInput& /*in*/) {
  return std::string("Figure 3. Throughput vs utilization of every network");  // the device is in the subtitle
}

std::string figure3(const NasReportInput& in) {
  Figure3Options o;
  o.id = "fig3";
  o.title = figure3_title(in);
  o.source = in.space->source.empty() ? std::string("from the space table") : in.space->source;
  o.accuracy_label = "final accuracy";
  // Colour by fifths of the space only when the space is known throughout.
  static const std::vector<double> kNone;
  return sss_figure3_svg(in.space->points, in.space_frontier, nas_detail::final_partial(in) ? kNone : in.final_accuracy,
                         o);
}

std::string header_html(const NasReportInput& in, const std::vector<Group>& gs) {
  std::string h = "<h1>" + esc(in.title.empty() ? default_title(in) : in.title) + "</h1>\n";
  h += "<p class=\"source\"><b>Source of the numbers:</b> " + esc(source_sentence(in)) + "</p>\n<dl class=\"meta\">\n";
  auto row = [&](const std::string& k, const std::string& v) {
    if (!v.empty()) h += "<dt>" + esc(k) + "</dt><dd>" + esc(v) + "</dd>\n";
  };
  row("Device", in.device);
  row("Space", fmt::format("{} networks; {} on the throughput-utilization frontier", in.space->points.size(),
                           in.space_frontier.size()));
  row("Accuracy oracle", in.oracle);
  if (nas_detail::final_partial(in))
    row("Reference frontier",
        fmt::format("{} networks: the accuracy-throughput frontier of the {} networks whose final "
                    "accuracy is known (not the whole space; the tables' \"true-frontier\" "
                    "columns refer to it)",
                    in.true_frontier.size(), in.final_known_networks));
  else
    row("True frontier", final_known(in)
                             ? fmt::format("{} networks (accuracy-throughput, final accuracy)", in.true_frontier.size())
                             : std::string("unknown: the final accuracy does not cover the space"));
  if (in.utilization_accuracy_spearman)
    row("Utilization vs accuracy",
        fmt::format("Spearman {:.3f} over the {} distinct evaluated networks with a known final "
                    "accuracy (utilization from the space table)",
                    *in.utilization_accuracy_spearman, in.correlation_networks));
  row("Reward", in.reward);
  row("Budget", in.budget);
  std::string runs;
  for (const Group& g : gs)
    runs +=
        fmt::format("{}{} ({} run{})", runs.empty() ? "" : "; ", g.name, g.runs.size(), g.runs.size() == 1 ? "" : "s");
  row("Runs", runs.empty() ? "none" : runs);
  h += "</dl>\n";
  h +=
      std::string("<p class=\"note\"><b>Scores.</b> Both objectives are normalised to [0, 1] by their range over ") +
      (nas_detail::final_partial(in) ? "the networks whose final accuracy is known (the reference frontier stands for "
                                       "the true frontier below). "
                                     : "the whole space. ") +
      "Hypervolume (HV): the area a set dominates with the reference point at the worst throughput and worst accuracy; "
      "HV ratio = HV(found frontier) / HV(true frontier), 1 when the search reached the true frontier everywhere. IGD: "
      "the mean distance from each true-frontier network to the nearest found one, 0 when all were found. The found "
      "frontier is that of the distinct networks a run evaluated, under their final accuracy. Tables give the mean "
      "\u00b1 the sample standard deviation (n \u2212 1) over runs.</p>\n";
  return h;
}

}  // namespace

Expected<NasReportInput> make_nas_report_input(const nas::SpaceTable& space, std::vector<double> final_accuracy,
                                               std::vector<nas::SearchResult> results) {
  auto judged = nas::judge_experiment(space, std::move(final_accuracy), std::move(results));
  if (!judged) return judged.status();
  NasReportInput in;
  static_cast<nas::JudgedExperiment&>(in) = std::move(*judged);
  return in;
}

Table nas_summary_table(const NasReportInput& input) { return summary_table(input, false); }

Table nas_runs_table(const NasReportInput& in) {
  Table t;
  t.headers = {"strategy",
               "reward",
               "seed",
               "evaluations",
               "clock (simulated s)",
               "HV ratio",
               "IGD",
               "true-frontier networks found",
               "found frontier (networks)",
               "best arch",
               "best reward",
               "best final accuracy (%)"};
  t.numeric = {false, false, true, true, true, true, true, true, true, false, true, true};
  for (const auto& run : in.runs) {
    const nas::SearchResult& r = run.result;
    const bool has_best = r.best_arch >= 0 && in.space && static_cast<size_t>(r.best_arch) < in.space->points.size();
    const size_t found = final_known(in) ? run.found_frontier.size() : r.frontier.size();
    t.rows.push_back(
        {nas::strategy_kind_name(r.config.strategy), nas_detail::reward_words(r.config.reward),
         std::to_string(r.config.seed), std::to_string(r.evaluations.size()), num(r.clock_seconds, 0),
         run.score ? num(run.score->hypervolume_ratio, 3) : "n/a", run.score ? num(run.score->igd, 4) : "n/a",
         run.score ? fmt::format("{} of {}", run.score->true_frontier_found, run.score->true_frontier_size) : "n/a",
         std::to_string(found),
         has_best ? fmt::format("{} (#{})", in.space->points[r.best_arch].arch, r.best_arch) : std::string("-"),
         has_best ? num(r.best_reward, 3) : "-", run.best_final_accuracy ? num(*run.best_final_accuracy, 2) : "n/a"});
  }
  return t;
}

std::vector<std::pair<std::string, std::string>> nas_report_svgs(const NasReportInput& in) {
  std::vector<std::pair<std::string, std::string>> out;
  out.push_back({"fig3.svg", figure3(in)});
  for (const Group& g : nas_detail::groups(in))
    for (size_t k = 0; k < g.runs.size(); ++k) out.push_back({g.ids[k] + ".svg", nas_detail::panel_svg(in, g, k)});
  return out;
}

std::string nas_report_html(const NasReportInput& in) {
  ROOFLENS_ASSERT(in.space != nullptr);
  const std::vector<Group> gs = nas_detail::groups(in);
  const bool fin = final_known(in);
  const std::string source = esc(source_sentence(in));
  std::string h;
  h += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  h += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  h += "<title>" + esc(in.title.empty() ? default_title(in) : in.title) + "</title>\n";
  h += std::string("<style>") + kReportBaseCss + kCss + "</style>\n</head>\n<body>\n";
  h += header_html(in, gs);

  h += "<h2>Summary across strategies and seeds</h2>\n" + table_html(summary_table(in, true), "nas-summary-table");
  if (!fin) h += "<p class=\"note\">n/a: no score without the final accuracy of every network.</p>\n";

  h += "<h2>Figure 3: the space on the device</h2>\n<figure id=\"figure-3\" class=\"single\">\n" + figure3(in);
  h += fmt::format(
      "<figcaption><b>Figure 3.</b> Each mark is a network of the space; the black diamonds, joined, are the "
      "{} networks on the throughput-utilization Pareto frontier, the candidates approximate filtering "
      "evaluates. {}{}</figcaption>\n</figure>\n",
      in.space_frontier.size(),
      fin && !nas_detail::final_partial(in)
          ? "Colour: final accuracy by fifths of the space (darker is more accurate). "
          : "No accuracy colouring: the final accuracy does not cover the space. ",
      source);

  for (const Group& g : gs) {
    h += fmt::format("<h2>Figure {}{}: {}</h2>\n", g.figure, g.letter, esc(g.name));
    const bool single = g.runs.size() == 1;
    h += fmt::format("<figure id=\"figure-{}{}\" class=\"{}\">\n", g.figure, g.letter,
                     single ? "single" : "multiples-fig");
    if (!single) h += nas_detail::legend_strip_svg(in) + "<div class=\"multiples\">\n";
    for (size_t k = 0; k < g.runs.size(); ++k) h += nas_detail::panel_svg(in, g, k);
    if (!single) h += "</div>\n";
    h += fmt::format("<figcaption><b>Figure {}{}.</b> {}: {} ", g.figure, g.letter, esc(g.name),
                     single ? "one run." : fmt::format("{} runs, one panel per seed, same axes.", g.runs.size()));
    if (fin && nas_detail::final_partial(in))
      h += "The dashed black line is the reference frontier: the accuracy-throughput frontier of every network whose "
           "final accuracy is known (trained by any run, or found in the results), not of the whole space; the "
           "vermillion "
           "line joins the frontier of the networks this run evaluated (grey, faint), both under the final accuracy; a "
           "black star marks a found network on the reference frontier. Panel titles give the HV ratio and IGD against "
           "it. ";
    else if (fin)
      h += "The dashed black line is the true accuracy-throughput frontier of the space; the vermillion line joins the "
           "frontier of the networks the run evaluated (grey, faint), both under the final accuracy; a black star "
           "marks a "
           "found network on the true frontier. Panel titles give the HV ratio and IGD. ";
    else
      h +=
          "<b>No true frontier:</b> the final accuracy does not cover the space, so each panel shows only the frontier "
          "the run found, under the accuracy the search saw, among the networks it evaluated (grey, faint). ";
    if (g.strategy == nas::StrategyKind::kFilter)
      h += "The filter evaluates the throughput-utilization frontier of Figure 3 and nothing else. ";
    h += source + "</figcaption>\n</figure>\n";
  }
  if (gs.empty()) h += "<p class=\"note\">No search runs in this report.</p>\n";

  h += "<h2>Every run</h2>\n" + table_html(nas_runs_table(in), "nas-runs-table");
  h += "<p class=\"note\">Best arch: the network with the highest reward the run saw (what it returns); its final "
       "accuracy "
       "is the oracle's. Found frontier: networks on the frontier of what the run evaluated" +
       std::string(fin ? ", under the final accuracy." : ", under the accuracy the search saw.") + "</p>\n";
  if (!in.notes.empty()) {
    h += "<h2>Notes</h2>\n<ul class=\"note\">\n";
    for (const auto& n : in.notes) h += "<li>" + esc(n) + "</li>\n";
    h += "</ul>\n";
  }
  h +=
      "<p class=\"note\">Generated by rooflens. This page is self-contained: nothing is loaded from the network.</p>\n";
  h += "</body>\n</html>\n";
  return h;
}

}  // namespace rooflens::report
