// The NAS report's plots: Figure 3 (the space on a device) and the per-run frontier panels of
// Figures 5-8. Colours: viridis quintiles for accuracy (luminance falls as accuracy rises, so
// the order survives grey print), Okabe-Ito vermillion for what a search found, black for the
// truth; every distinction also has a shape or dash.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <unordered_map>

#include "nas_figures.h"
#include "rooflens/report/svg_plot.h"

namespace rooflens::report {
namespace {

constexpr const char* kVermillion = "#D55E00";
constexpr const char* kBlack = "#000000";
constexpr const char* kGrey = "#868e96";
// Viridis at 0.9, 0.7, 0.5, 0.3, 0.05 (yellow to dark violet): the lowest accuracy fifth is
// the lightest, the highest the darkest.
constexpr const char* kQuintile[5] = {"#bddf26", "#5ec962", "#21918c", "#3b528b", "#440154"};

// Marks closer than this (px) in the plot area are drawn once.
constexpr double kDedupePx = 2;

MarkerStyle marker(MarkerShape shape, const char* color, bool filled, double size, double opacity = 0.8,
                   double stroke = 1.3) {
  MarkerStyle m;
  m.shape = shape;
  m.color = color;
  m.filled = filled;
  m.size = size;
  m.fill_opacity = opacity;
  m.stroke_width = stroke;
  return m;
}

// A grid over (log10 x, y) of about kDedupePx-px cells for a plot area of w x h px spanning
// [x0, x1] x [y0, y1]: the cell key of a point.
struct DedupeGrid {
  double lx0, lx1, y0, y1, nx, ny;
  DedupeGrid(double x_lo, double x_hi, double y_lo, double y_hi, double w_px, double h_px)
      : lx0(std::log10(std::max(x_lo, 1e-300))),
        lx1(std::log10(std::max(x_hi, 1e-300))),
        y0(y_lo),
        y1(y_hi),
        nx(std::max(1.0, w_px / kDedupePx)),
        ny(std::max(1.0, h_px / kDedupePx)) {}
  int64_t key(double x, double y) const {
    const double fx = lx1 > lx0 ? (std::log10(std::max(x, 1e-300)) - lx0) / (lx1 - lx0) : 0;
    const double fy = y1 > y0 ? (y - y0) / (y1 - y0) : 0;
    const auto cx = static_cast<int64_t>(std::floor(std::clamp(fx, 0.0, 1.0) * nx));
    const auto cy = static_cast<int64_t>(std::floor(std::clamp(fy, 0.0, 1.0) * ny));
    return cx * 1000003 + cy;
  }
};

// Quintile edges of the finite values (6 edges, ascending); empty when there are none.
std::vector<double> quintile_edges(const std::vector<double>& v) {
  std::vector<double> s;
  for (double a : v)
    if (std::isfinite(a)) s.push_back(a);
  if (s.empty()) return {};
  std::sort(s.begin(), s.end());
  std::vector<double> e;
  for (int k = 0; k <= 5; ++k)
    e.push_back(s[std::min(s.size() - 1, static_cast<size_t>(k * (s.size() - 1) / 5.0 + 0.5))]);
  return e;
}

int quintile_of(double v, const std::vector<double>& e) {
  int b = 0;
  while (b < 4 && v > e[b + 1]) ++b;
  return b;
}

const char* kFifth[5] = {"lowest fifth", "2nd fifth", "middle fifth", "4th fifth", "highest fifth"};

}  // namespace

std::string sss_figure3_svg(const std::vector<SssPoint>& pts, const std::vector<size_t>& front,
                            const std::vector<double>& accuracy, const Figure3Options& opt) {
  constexpr double kW = 760, kH = 520;
  SvgPlot plot(opt.id, kW, kH);
  plot.set_title(opt.title);
  auto acc_of = [&](size_t i) { return i < accuracy.size() ? accuracy[i] : std::nan(""); };
  size_t known = 0;
  for (size_t i = 0; i < pts.size(); ++i) known += std::isfinite(acc_of(i)) ? 1 : 0;
  const std::vector<double> edges = quintile_edges(accuracy);
  plot.set_subtitle(fmt::format("{} networks, throughput {}; {} on the throughput-utilization Pareto frontier{}",
                                pts.size(), opt.source, front.size(),
                                known ? fmt::format("; colour: {} by fifths of the {} networks that have one",
                                                    opt.accuracy_label, known)
                                      : std::string()));
  plot.x_axis().label = "throughput (images/s)";
  plot.x_axis().scale = AxisScale::kLog;
  plot.y_axis().label = "utilization (% of datasheet peak)";
  plot.y_axis().tick_factor = 100;
  plot.y_axis().tick_suffix = "%";

  double x0 = 0, x1 = 0, y0 = 0, y1 = 0;
  for (size_t i = 0; i < pts.size(); ++i) {
    const double x = pts[i].throughput, y = pts[i].utilization;
    x0 = i ? std::min(x0, x) : x, x1 = i ? std::max(x1, x) : x;
    y0 = i ? std::min(y0, y) : y, y1 = i ? std::max(y1, y) : y;
  }
  // The plot area is about 490 x 400 px at this size with the legend column.
  const DedupeGrid grid(x0, x1, y0, y1, kW - 66 - 204, kH - 120);
  const bool titled_colours = known > 0 && known <= 1000;
  const std::set<size_t> on(front.begin(), front.end());
  // One entry per cell: grey cells (no accuracy) and coloured cells (the highest quintile).
  std::map<int64_t, size_t> grey;
  std::map<int64_t, std::pair<int, size_t>> coloured;
  std::vector<std::pair<int, size_t>> every_coloured;
  for (size_t i = 0; i < pts.size(); ++i) {
    if (on.count(i)) continue;
    const int64_t k = grid.key(pts[i].throughput, pts[i].utilization);
    const double a = acc_of(i);
    if (!std::isfinite(a)) {
      grey.emplace(k, i);
      continue;
    }
    const int b = quintile_of(a, edges);
    if (titled_colours) {
      every_coloured.push_back({b, i});
      continue;
    }
    auto [it, fresh] = coloured.emplace(k, std::pair<int, size_t>{b, i});
    if (!fresh && b > it->second.first) it->second = {b, i};
  }
  for (const auto& [k, v] : coloured) every_coloured.push_back(v);
  std::sort(every_coloured.begin(), every_coloured.end());  // low quintiles first, high on top
  const MarkerStyle base = marker(MarkerShape::kCircle, "#999999", true, 1.6, 0.35, 0);
  for (const auto& [k, i] : grey) plot.point(pts[i].throughput, pts[i].utilization, base, "", "net");
  for (const auto& [b, i] : every_coloured) {
    MarkerStyle m = marker(MarkerShape::kCircle, kQuintile[b], true, titled_colours ? 2.5 : 2.1, 0.85, 0);
    plot.point(pts[i].throughput, pts[i].utilization, m,
               titled_colours
                   ? fmt::format("{} (#{}): {:.2f}% {}", pts[i].arch, pts[i].index, acc_of(i), opt.accuracy_label)
                   : std::string(),
               "net");
  }
  std::vector<std::pair<double, double>> line;
  const MarkerStyle fm = marker(MarkerShape::kDiamond, kBlack, true, 3.5);
  for (size_t i : front) {
    const SssPoint& p = pts[i];
    line.emplace_back(p.throughput, p.utilization);
    const double a = acc_of(i);
    plot.point(p.throughput, p.utilization, fm,
               fmt::format("{} (#{}): {:.0f} img/s, {:.2f}% utilization, {:.2f} MMAC/img{}", p.arch, p.index,
                           p.throughput, 100 * p.utilization, static_cast<double>(p.macs) / 1e6,
                           std::isfinite(a) ? fmt::format(", {:.2f}% {}", a, opt.accuracy_label) : std::string()),
               "frontier");
  }
  plot.polyline(line, LineStyle{kBlack, 1, ""}, "frontier-line");

  MarkerStyle lm = base;
  lm.size = 3;
  lm.fill_opacity = 0.8;
  if (known < pts.size()) plot.legend_marker(lm, known ? "network (no accuracy)" : "network");
  plot.legend_marker(fm, fmt::format("throughput-utilization Pareto frontier ({})", front.size()));
  if (known) {
    for (int b = 4; b >= 0; --b) {
      lm.color = kQuintile[b];
      plot.legend_marker(lm,
                         fmt::format("{} {:.1f}-{:.1f}% ({})", opt.accuracy_label, edges[b], edges[b + 1], kFifth[b]));
    }
  }
  const size_t marks = grey.size() + every_coloured.size() + front.size();
  plot.legend_note(
      fmt::format("{} marks for {} networks: networks within {} px of each other share one mark{}; hover "
                  "titles on {}",
                  marks, pts.size(), kDedupePx, known && !titled_colours ? " (the highest accuracy shows)" : "",
                  titled_colours ? "coloured and frontier networks" : "frontier networks only"));
  return plot.render();
}

namespace nas_detail {
namespace {

constexpr int kFigureOf[] = {8, 7, 6, 5};  // indexed by StrategyKind: random, rea, reinforce, filter

struct Axes {
  double x_lo = 1, x_hi = 10, y_lo = 0, y_hi = 100;
};

// Shared by every panel of the report: throughput over the space, accuracy over everything drawn.
Axes axes(const NasReportInput& in) {
  Axes a;
  bool first = true;
  for (const auto& p : in.space->points)
    if (p.throughput > 0) {
      a.x_lo = first ? p.throughput : std::min(a.x_lo, p.throughput);
      a.x_hi = first ? p.throughput : std::max(a.x_hi, p.throughput);
      first = false;
    }
  a.x_lo /= 1.15;
  a.x_hi *= 1.15;
  bool any = false;
  auto take = [&](double v) {
    if (!std::isfinite(v)) return;
    a.y_lo = any ? std::min(a.y_lo, v) : v;
    a.y_hi = any ? std::max(a.y_hi, v) : v;
    any = true;
  };
  const bool fin = final_known(in);
  for (int64_t i : in.true_frontier) take(in.final_accuracy[i]);
  for (const auto& r : in.runs)
    for (const auto& e : r.result.evaluations) take(fin ? in.final_accuracy[e.arch] : e.accuracy);
  if (!any) a.y_lo = 0, a.y_hi = 100;
  const double pad = std::max(0.5, 0.04 * (a.y_hi - a.y_lo));
  a.y_lo -= pad;
  a.y_hi += pad;
  return a;
}

std::string run_words(const NasRunSummary& r) {
  return fmt::format("{} evaluations, {:.0f} simulated s", r.result.evaluations.size(), r.result.clock_seconds);
}

std::string score_words(const NasReportInput& in, const NasRunSummary& r, bool small) {
  if (!r.score)
    return small ? "no true frontier (final accuracy unknown)"
                 : "no score: the final accuracy does not cover the space";
  const auto& s = *r.score;
  return fmt::format("HV ratio {:.3f}, IGD {:.4f}, {} of {} {} networks found", s.hypervolume_ratio, s.igd,
                     s.true_frontier_found, s.true_frontier_size, frontier_noun(in));
}

}  // namespace

const char* strategy_display_name(nas::StrategyKind k) {
  switch (k) {
    case nas::StrategyKind::kRandom: return "Random search";
    case nas::StrategyKind::kRea: return "Regularized evolution (REA)";
    case nas::StrategyKind::kReinforce: return "REINFORCE";
    case nas::StrategyKind::kFilter: return "Approximate filter";
  }
  return "?";
}

std::string reward_words(const nas::RewardSpec& r) {
  switch (r.kind) {
    case nas::RewardKind::kAccuracy: return "accuracy";
    case nas::RewardKind::kSoft:
      return fmt::format("soft (G_T {} img/s, w = {})", compact_number(r.target_throughput), r.w);
    case nas::RewardKind::kHard: return fmt::format("hard (G_T {} img/s)", compact_number(r.target_throughput));
  }
  return "?";
}

std::vector<Group> groups(const NasReportInput& in) {
  std::vector<Group> out;
  auto same_reward = [](const nas::RewardSpec& a, const nas::RewardSpec& b) {
    return a.kind == b.kind &&
           (a.kind == nas::RewardKind::kAccuracy ||
            (a.target_throughput == b.target_throughput && (a.kind == nas::RewardKind::kHard || a.w == b.w)));
  };
  for (size_t i = 0; i < in.runs.size(); ++i) {
    const nas::SearchConfig& c = in.runs[i].result.config;
    auto it = std::find_if(out.begin(), out.end(),
                           [&](const Group& g) { return g.strategy == c.strategy && same_reward(g.reward, c.reward); });
    if (it == out.end()) {
      Group g;
      g.strategy = c.strategy;
      g.reward = c.reward;
      g.figure = kFigureOf[static_cast<int>(c.strategy)];
      out.push_back(g);
      it = out.end() - 1;
    }
    it->runs.push_back(i);
  }
  std::stable_sort(out.begin(), out.end(), [](const Group& a, const Group& b) { return a.figure < b.figure; });
  for (size_t i = 0; i < out.size(); ++i) {
    Group& g = out[i];
    const size_t same = std::count_if(out.begin(), out.end(), [&](const Group& h) { return h.figure == g.figure; });
    if (same > 1) {
      const size_t before = std::count_if(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(i),
                                          [&](const Group& h) { return h.figure == g.figure; });
      g.letter = std::string(1, static_cast<char>('a' + std::min<size_t>(before, 25)));
    }
    g.name = std::string(strategy_display_name(g.strategy)) + ", " + reward_words(g.reward) + " reward";
    std::set<std::string> used;
    const std::string stem = fmt::format("fig{}{}-{}{}", g.figure, g.letter, nas::strategy_kind_name(g.strategy),
                                         g.reward.kind == nas::RewardKind::kAccuracy
                                             ? std::string()
                                             : std::string("-") + nas::reward_kind_name(g.reward.kind));
    for (size_t r : g.runs) {
      std::string id = fmt::format("{}-seed{}", stem, in.runs[r].result.config.seed);
      for (int n = 2; used.count(id); ++n) id = fmt::format("{}-seed{}-{}", stem, in.runs[r].result.config.seed, n);
      used.insert(id);
      g.ids.push_back(id);
    }
  }
  return out;
}

std::string panel_svg(const NasReportInput& in, const Group& g, size_t k) {
  const NasRunSummary& run = in.runs[g.runs[k]];
  const nas::SearchResult& res = run.result;
  const auto& space = in.space->points;
  const bool large = g.runs.size() == 1, fin = final_known(in);
  const double w = large ? 760 : 440, h = large ? 500 : 330;
  SvgPlot p(g.ids[k], w, h);
  const Axes ax = axes(in);
  if (large) {
    p.set_title(fmt::format("Figure {}{}. {}: found vs {} accuracy-throughput frontier", g.figure, g.letter,
                            strategy_display_name(g.strategy), final_partial(in) ? "reference" : "true"));
    p.set_subtitle(fmt::format("Seed {}; {}; {}; reward {}.", res.config.seed, score_words(in, run, false),
                               run_words(run), reward_words(res.config.reward)));
  } else {
    p.set_title(run.score ? fmt::format("seed {}: HV ratio {:.3f}, IGD {:.4f}", res.config.seed,
                                        run.score->hypervolume_ratio, run.score->igd)
                          : fmt::format("seed {}", res.config.seed));
    p.set_subtitle(run.score ? fmt::format("{} of {} {} networks found; {}", run.score->true_frontier_found,
                                           run.score->true_frontier_size, frontier_noun(in), run_words(run))
                             : score_words(in, run, true) + "; " + run_words(run));
  }
  p.x_axis().label = "throughput (images/s)";
  p.x_axis().scale = AxisScale::kLog;
  p.x_axis().min = ax.x_lo;
  p.x_axis().max = ax.x_hi;
  p.y_axis().label = fin ? "final accuracy (%)" : "accuracy seen by the search (%)";
  p.y_axis().min = ax.y_lo;
  p.y_axis().max = ax.y_hi;

  // Evaluated networks, faint, one mark per ~2 px cell.
  const DedupeGrid grid(ax.x_lo, ax.x_hi, ax.y_lo, ax.y_hi, large ? w - 66 - 204 : w - 86, large ? h - 120 : h - 110);
  std::set<int64_t> cells;
  std::unordered_map<int64_t, size_t> first_eval;  // arch -> first position in evaluations
  const MarkerStyle em = marker(MarkerShape::kCircle, kGrey, true, large ? 2.2 : 1.8, 0.3, 0);
  for (size_t e = 0; e < res.evaluations.size(); ++e) {
    const nas::EvalRecord& r = res.evaluations[e];
    first_eval.emplace(r.arch, e);
    const double y = fin ? in.final_accuracy[r.arch] : r.accuracy;
    if (cells.insert(grid.key(r.throughput, y)).second) p.point(r.throughput, y, em, "", "eval");
  }

  // The true frontier: dashed black; its networks marked (with titles) on a large panel only.
  const std::set<int64_t> truth(in.true_frontier.begin(), in.true_frontier.end());
  if (fin && !in.true_frontier.empty()) {
    std::vector<std::pair<double, double>> line;
    for (int64_t i : in.true_frontier) line.emplace_back(space[i].throughput, in.final_accuracy[i]);
    p.polyline(line, LineStyle{kBlack, 1.3, "5,3"}, "true-frontier",
               fmt::format("{} of accuracy and throughput ({} networks)", frontier_noun(in), in.true_frontier.size()));
    if (large)
      for (int64_t i : in.true_frontier)
        p.point(space[i].throughput, in.final_accuracy[i], marker(MarkerShape::kCircle, kBlack, false, 2.6, 0.8, 0.9),
                fmt::format("{} (#{}): {}, {:.0f} img/s, {:.2f}% final accuracy", space[i].arch, i, frontier_noun(in),
                            space[i].throughput, in.final_accuracy[i]),
                "true");
  }

  // The found frontier: solid vermillion diamonds; black stars where it hits the true frontier.
  std::vector<std::pair<double, double>> line;
  const MarkerStyle fm = marker(MarkerShape::kDiamond, kVermillion, true, large ? 4 : 3.2, 0.9);
  const MarkerStyle tm = marker(MarkerShape::kStar, kBlack, true, large ? 3.6 : 3, 0.9, 0.6);
  auto mark_found = [&](int64_t arch, double x, double y, const std::string& title) {
    line.emplace_back(x, y);
    p.point(x, y, fm, title, "found");
    if (truth.count(arch)) p.point(x, y, tm, title + " (on the " + frontier_noun(in) + ")", "found-true");
  };
  if (fin) {
    for (int64_t i : run.found_frontier) {
      auto it = first_eval.find(i);
      const std::string seen =
          it == first_eval.end() ? std::string()
                                 : fmt::format("; the search saw {:.2f}% at step {}",
                                               res.evaluations[it->second].accuracy, res.evaluations[it->second].step);
      mark_found(i, space[i].throughput, in.final_accuracy[i],
                 fmt::format("{} (#{}): found, {:.0f} img/s, {:.2f}% final accuracy{}", space[i].arch, i,
                             space[i].throughput, in.final_accuracy[i], seen));
    }
  } else {
    for (size_t pos : res.frontier) {
      const nas::EvalRecord& r = res.evaluations[pos];
      const std::string arch = r.arch >= 0 && static_cast<size_t>(r.arch) < space.size() ? space[r.arch].arch : "?";
      mark_found(r.arch, r.throughput, r.accuracy,
                 fmt::format("{} (#{}): found, {:.0f} img/s, {:.2f}% accuracy seen by the search (step {})", arch,
                             r.arch, r.throughput, r.accuracy, r.step));
    }
  }
  if (line.size() > 1) p.polyline(line, LineStyle{kVermillion, 1.8, ""}, "found-frontier", "found frontier");

  if (large) {
    p.set_legend_width(190);
    p.legend_marker(em, fmt::format("evaluated network ({} distinct)", first_eval.size()));
    const std::string noun = frontier_noun(in);
    if (fin) p.legend_line(LineStyle{kBlack, 1.3, "5,3"}, fmt::format("{} ({})", noun, in.true_frontier.size()));
    if (fin) p.legend_marker(marker(MarkerShape::kCircle, kBlack, false, 2.6, 0.8, 0.9), noun + " network");
    p.legend_marker(fm, fmt::format("found frontier ({}){}", line.size(), fin ? ", final accuracy" : ""));
    if (fin) p.legend_marker(tm, "found and on the " + noun);
    if (!fin) p.legend_note("No true frontier: the final accuracy does not cover the space.");
  }
  return p.render();
}

std::string legend_strip_svg(const NasReportInput& in) {
  const bool fin = final_known(in);
  struct Entry {
    int kind;  // 0 marker, 1 line
    MarkerStyle m;
    LineStyle l;
    std::string text;
  };
  std::vector<Entry> es;
  es.push_back({0, marker(MarkerShape::kCircle, kGrey, true, 2.2, 0.5, 0), {}, "evaluated network"});
  if (fin) es.push_back({1, {}, LineStyle{kBlack, 1.3, "5,3"}, frontier_noun(in)});
  es.push_back({0, marker(MarkerShape::kDiamond, kVermillion, true, 4, 0.9), {}, "found frontier"});
  if (fin)
    es.push_back({0,
                  marker(MarkerShape::kStar, kBlack, true, 3.6, 0.9, 0.6),
                  {},
                  std::string("found and on the ") + frontier_noun(in)});
  std::string body;
  double x = 8;
  for (const auto& e : es) {
    if (e.kind == 0) {
      body += svg_marker(x + 10, 14, e.m, "", {}, "");
    } else {
      body += fmt::format("<line x1=\"{:.0f}\" y1=\"14\" x2=\"{:.0f}\" y2=\"14\" stroke=\"{}\" stroke-width=\"{}\"{}/>",
                          x, x + 20, e.l.color, e.l.width,
                          e.l.dash.empty() ? std::string() : " stroke-dasharray=\"" + e.l.dash + "\"");
    }
    body += fmt::format("<text x=\"{:.0f}\" y=\"18\">{}</text>", x + 26, xml_escape(e.text));
    x += 26 + 7.0 * static_cast<double>(e.text.size()) + 22;
  }
  return fmt::format(
      "<svg class=\"legend-strip\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {0:.0f} 28\" "
      "width=\"{0:.0f}\" height=\"28\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\" "
      "font-size=\"12\">{1}</svg>",
      x, body);
}

}  // namespace nas_detail
}  // namespace rooflens::report
