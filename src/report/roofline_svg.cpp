// Roofline chart as a standalone SVG (no dependencies): log-log axes, one roof per
// compute unit, ridge points marked, layers as circles sized by time share.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "rooflens/report/predict_report.h"

namespace rooflens::report {
namespace {

constexpr double kW = 900, kH = 600, kLeft = 90, kRight = 200, kTop = 50, kBottom = 70;

const std::map<Bound, const char*> kColors = {
    {Bound::kCompute, "#2b8a3e"}, {Bound::kMemory, "#1c7ed6"}, {Bound::kStarved, "#e8590c"},
    {Bound::kMisaligned, "#c2255c"}, {Bound::kCudaCores, "#7048e8"}, {Bound::kLaunch, "#868e96"}};

std::string esc(const std::string& s) {
  std::string r;
  for (char c : s) {
    if (c == '<') r += "&lt;";
    else if (c == '>') r += "&gt;";
    else if (c == '&') r += "&amp;";
    else if (c == '"') r += "&quot;";
    else r += c;
  }
  return r;
}

std::string si(double v, const char* unit) {
  const char* p[] = {"", "k", "M", "G", "T", "P"};
  int i = 0;
  while (v >= 1000 && i < 5) {
    v /= 1000;
    ++i;
  }
  return fmt::format("{:g} {}{}", v, p[i], unit);
}

}  // namespace

std::string roofline_svg(const Prediction& p, const DeviceSpec& d) {
  // Axis ranges in decades, covering every layer and the roofs.
  double ai_min = 1e9, ai_max = 0, f_min = 1e30, f_max = 0;
  for (const auto& L : p.layers) {
    if (L.bound == Bound::kNone || L.ai <= 0 || L.achieved_flops <= 0) continue;
    ai_min = std::min(ai_min, L.ai);
    ai_max = std::max(ai_max, L.ai);
    f_min = std::min(f_min, L.achieved_flops);
  }
  std::vector<Peak> roofs;
  for (const auto& pk : d.peaks)
    if (pk.dtype == p.dtype) roofs.push_back(pk);
  if (roofs.empty())
    if (auto b = d.best_peak("fp32")) roofs.push_back(*b);
  // One roof per (unit, peak): accumulators with the same rate share a line.
  std::vector<std::pair<Peak, std::string>> merged;
  for (const auto& r : roofs) {
    bool found = false;
    for (auto& [m, acc] : merged)
      if (m.unit == r.unit && m.flops == r.flops) {
        acc += "/" + r.accumulator;
        found = true;
      }
    if (!found) merged.push_back({r, r.accumulator});
  }
  for (const auto& r : roofs) f_max = std::max(f_max, r.flops);
  const double ridge_max = f_max / d.mem_bandwidth;
  ai_min = std::min(ai_min, 1.0);
  ai_max = std::max(ai_max, ridge_max * 4);
  f_min = std::min(f_min, f_max / 1e4);
  const double x0 = std::floor(std::log10(ai_min)), x1 = std::ceil(std::log10(ai_max));
  const double y0 = std::floor(std::log10(f_min)), y1 = std::ceil(std::log10(f_max * 1.5));
  const double pw = kW - kLeft - kRight, ph = kH - kTop - kBottom;
  auto X = [&](double ai) { return kLeft + (std::log10(ai) - x0) / (x1 - x0) * pw; };
  auto Y = [&](double f) { return kTop + ph - (std::log10(f) - y0) / (y1 - y0) * ph; };

  std::string s;
  s += fmt::format("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\" "
                   "font-family=\"sans-serif\" font-size=\"12\">\n", kW, kH, kW, kH);
  s += fmt::format("<rect width=\"{}\" height=\"{}\" fill=\"white\"/>\n", kW, kH);
  s += fmt::format("<text x=\"{}\" y=\"24\" font-size=\"15\" font-weight=\"bold\">{}</text>\n", kLeft,
                   esc(fmt::format("Roofline: {} on {}, {}, batch {} (predicted)", p.model, d.name, p.dtype, p.batch)));
  // Grid and ticks.
  for (double e = x0; e <= x1; ++e) {
    const double x = X(std::pow(10, e));
    s += fmt::format("<line x1=\"{:.1f}\" y1=\"{}\" x2=\"{:.1f}\" y2=\"{}\" stroke=\"#e9ecef\"/>\n", x, kTop, x, kTop + ph);
    s += fmt::format("<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", x, kTop + ph + 18, esc(fmt::format("{:g}", std::pow(10, e))));
  }
  for (double e = y0; e <= y1; ++e) {
    const double y = Y(std::pow(10, e));
    s += fmt::format("<line x1=\"{}\" y1=\"{:.1f}\" x2=\"{}\" y2=\"{:.1f}\" stroke=\"#e9ecef\"/>\n", kLeft, y, kLeft + pw, y);
    s += fmt::format("<text x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>\n", kLeft - 6, y + 4, esc(si(std::pow(10, e), "FLOP/s")));
  }
  s += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#495057\"/>\n", kLeft, kTop, pw, ph);
  s += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">arithmetic intensity (FLOP/byte, log scale)</text>\n",
                   kLeft + pw / 2, kH - 25);
  s += fmt::format("<text transform=\"translate(20,{}) rotate(-90)\" text-anchor=\"middle\">attainable / achieved FLOP/s (log scale)</text>\n",
                   kTop + ph / 2);
  // Roofs: memory slope up to each unit's ridge, then flat.
  const double ai_lo = std::pow(10, x0), ai_hi = std::pow(10, x1);
  for (const auto& [r, acc] : merged) {
    const double ridge = r.flops / d.mem_bandwidth;
    const double start_f = ai_lo * d.mem_bandwidth;
    const bool dashed = r.flops < f_max;
    s += fmt::format("<polyline fill=\"none\" stroke=\"#212529\" stroke-width=\"{}\" {} points=\"{:.1f},{:.1f} {:.1f},{:.1f} {:.1f},{:.1f}\"/>\n",
                     dashed ? 1.2 : 2, dashed ? "stroke-dasharray=\"6,4\"" : "", X(ai_lo), Y(std::max(start_f, std::pow(10, y0))),
                     X(ridge), Y(r.flops), X(ai_hi), Y(r.flops));
    s += fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{}\" stroke=\"#adb5bd\" stroke-dasharray=\"2,3\"/>\n",
                     X(ridge), Y(r.flops), X(ridge), kTop + ph);
    s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"11\" text-anchor=\"end\">{}</text>\n", X(ai_hi) - 4, Y(r.flops) - 5,
                     esc(fmt::format("{} {} ({} acc) {}, ridge {:.0f} FLOP/B", r.dtype, compute_unit_name(r.unit), acc,
                                     si(r.flops, "FLOP/s"), ridge)));
  }
  if (p.peak_measured) {
    const double mf = *p.peak_measured;
    s += fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#e03131\" stroke-dasharray=\"1,3\" stroke-width=\"1.5\"/>\n",
                     X(mf / d.mem_bandwidth), Y(mf), X(ai_hi), Y(mf));
    s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"11\" text-anchor=\"end\" fill=\"#e03131\">{}</text>\n", X(ai_hi) - 4,
                     Y(mf) + 14, esc("measured peak " + si(mf, "FLOP/s")));
  }
  s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"11\" transform=\"rotate(-28 {:.1f} {:.1f})\">{}</text>\n",
                   X(ai_lo) + 30, Y(ai_lo * 30 * d.mem_bandwidth / ai_lo) - 8, X(ai_lo) + 30,
                   Y(ai_lo * 30 * d.mem_bandwidth / ai_lo) - 8, esc("memory " + si(d.mem_bandwidth, "B/s")));
  // Layers, largest first so small ones stay visible.
  std::vector<const LayerPrediction*> pts;
  for (const auto& L : p.layers)
    if (L.bound != Bound::kNone && L.ai > 0 && L.achieved_flops > 0) pts.push_back(&L);
  std::sort(pts.begin(), pts.end(), [](auto* a, auto* b) { return a->time_share > b->time_share; });
  for (const auto* L : pts) {
    const double r = 2.5 + 28 * std::sqrt(L->time_share);
    s += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"{:.1f}\" fill=\"{}\" fill-opacity=\"0.55\" stroke=\"{}\"><title>{}</title></circle>\n",
                     X(L->ai), Y(L->achieved_flops), r, kColors.at(L->bound), kColors.at(L->bound),
                     esc(fmt::format("{} ({}): AI {:.1f}, {}, {:.1f}% of time, {}", L->name, L->op, L->ai,
                                     si(L->achieved_flops, "FLOP/s"), 100 * L->time_share, bound_name(L->bound))));
  }
  // Legend.
  double ly = kTop + 10;
  const double lx = kLeft + pw + 20;
  s += fmt::format("<text x=\"{}\" y=\"{}\" font-weight=\"bold\">bound (layer count)</text>\n", lx, ly);
  std::map<Bound, int> counts;
  for (const auto* L : pts) ++counts[L->bound];
  for (const auto& [b, color] : kColors) {
    ly += 20;
    s += fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"6\" fill=\"{}\" fill-opacity=\"0.55\" stroke=\"{}\"/>\n", lx + 6, ly - 4, color, color);
    s += fmt::format("<text x=\"{}\" y=\"{}\">{} ({})</text>\n", lx + 18, ly, bound_name(b), counts[b]);
  }
  ly += 30;
  s += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"11\">circle area ~ share of time</text>\n", lx, ly);
  s += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"11\">{:.0f} img/s predicted</text>\n", lx, ly + 16, p.throughput);
  s += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"11\">utilization {:.1f}% of {}</text>\n", lx, ly + 32,
                   100 * p.utilization, si(p.peak_datasheet, "FLOP/s"));
  s += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"11\">aggregate AI {:.1f}, CMR {:.1f}</text>\n", lx, ly + 48, p.ai, p.cmr);
  s += "</svg>\n";
  return s;
}

}  // namespace rooflens::report
