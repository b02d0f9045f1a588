// Roofline chart as a standalone SVG, drawn with SvgPlot: log-log axes, one roof per compute
// unit, ridge points marked, layers as circles sized by time share.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "rooflens/report/predict_report.h"
#include "rooflens/report/svg_plot.h"

namespace rooflens::report {
namespace {

const std::map<Bound, const char*> kColors = {{Bound::kCompute, "#2b8a3e"},   {Bound::kMemory, "#1c7ed6"},
                                              {Bound::kStarved, "#e8590c"},   {Bound::kMisaligned, "#c2255c"},
                                              {Bound::kCudaCores, "#7048e8"}, {Bound::kLaunch, "#868e96"}};

// One roof per (unit, peak) for the prediction's dtype (fp32's best when the device has none):
// accumulators with the same rate share a line, named "fp32/fp16".
std::vector<std::pair<Peak, std::string>> roofs_of(const Prediction& p, const DeviceSpec& d) {
  std::vector<Peak> roofs;
  for (const auto& pk : d.peaks)
    if (pk.dtype == p.dtype) roofs.push_back(pk);
  if (roofs.empty())
    if (auto b = d.best_peak("fp32")) roofs.push_back(*b);
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
  return merged;
}

// The layers drawn (bound, with an intensity and a rate), largest share of time first so
// that small ones stay visible on top.
std::vector<const LayerPrediction*> plotted_layers(const Prediction& p) {
  std::vector<const LayerPrediction*> pts;
  for (const auto& L : p.layers)
    if (L.bound != Bound::kNone && L.ai > 0 && L.achieved_flops > 0) pts.push_back(&L);
  std::sort(pts.begin(), pts.end(), [](auto* a, auto* b) { return a->time_share > b->time_share; });
  return pts;
}

// The axes in whole decades, covering every layer and the roofs, with room right of the
// highest ridge and below the roof.
void fit_axes(SvgPlot& plot, const std::vector<const LayerPrediction*>& layers, double f_max, double bandwidth) {
  double ai_min = 1.0, ai_max = f_max / bandwidth * 4, f_min = f_max / 1e4;
  for (const auto* L : layers) {
    ai_min = std::min(ai_min, L->ai);
    ai_max = std::max(ai_max, L->ai);
    f_min = std::min(f_min, L->achieved_flops);
  }
  AxisSpec& x = plot.x_axis();
  x.label = "arithmetic intensity (FLOP/byte)";
  x.scale = AxisScale::kLog;
  x.min = std::pow(10, std::floor(std::log10(ai_min)));
  x.max = std::pow(10, std::ceil(std::log10(ai_max)));
  AxisSpec& y = plot.y_axis();
  y.label = "attainable / achieved FLOP/s";
  y.scale = AxisScale::kLog;
  y.min = std::pow(10, std::floor(std::log10(f_min)));
  y.max = std::pow(10, std::ceil(std::log10(f_max * 1.5)));
}

}  // namespace

std::string roofline_svg(const Prediction& p, const DeviceSpec& d) {
  const auto roofs = roofs_of(p, d);
  const auto layers = plotted_layers(p);
  double f_max = 0;
  for (const auto& [r, acc] : roofs) f_max = std::max(f_max, r.flops);
  const double bw = d.mem_bandwidth;

  SvgPlot plot("roofline", 900, 600);
  plot.set_title(fmt::format("Roofline: {} on {}, {}, batch {} (predicted)", p.model, d.name, p.dtype, p.batch));
  plot.set_legend_width(210);
  fit_axes(plot, layers, f_max, bw);
  const double ai_lo = *plot.x_axis().min, ai_hi = *plot.x_axis().max, f_lo = *plot.y_axis().min;

  // Roofs: the memory slope up to each unit's ridge, then flat; the lower roofs dashed.
  const LineStyle roof{"#212529", 2, ""}, lower_roof{"#212529", 1.2, "6,4"}, ridge_line{"#adb5bd", 1, "2,3"};
  for (const auto& [r, acc] : roofs) {
    const double ridge = r.flops / bw;
    const std::string name =
        fmt::format("{} {} ({} acc) {}", r.dtype, compute_unit_name(r.unit), acc, si_number(r.flops, "FLOP/s"));
    plot.polyline({{ai_lo, std::max(ai_lo * bw, f_lo)}, {ridge, r.flops}, {ai_hi, r.flops}},
                  r.flops < f_max ? lower_roof : roof, "roof", name);
    plot.vline(ridge, ridge_line, fmt::format("ridge {:.0f} FLOP/B", ridge), "ridge");
    plot.label(ai_hi, r.flops, name);
  }
  const LineStyle measured{"#e03131", 1.5, "1,3"};
  if (p.peak_measured) {
    const double mf = *p.peak_measured;
    plot.polyline({{mf / bw, mf}, {ai_hi, mf}}, measured, "measured-peak", "measured peak " + si_number(mf, "FLOP/s"));
  }
  // Where the slope enters the plot, named by the bandwidth.
  const double slope_ai = std::max(ai_lo * 3, f_lo * 3 / bw);
  plot.label(slope_ai, slope_ai * bw, "memory " + si_number(bw, "B/s"));

  std::map<Bound, int> counts;
  for (const auto* L : layers) {
    ++counts[L->bound];
    MarkerStyle m;
    m.color = kColors.at(L->bound);
    m.size = 2.5 + 28 * std::sqrt(L->time_share);
    m.fill_opacity = 0.55;
    m.stroke_width = 1;
    plot.point(L->ai, L->achieved_flops, m,
               fmt::format("{} ({}): AI {:.1f}, {}, {:.1f}% of time, {}", L->name, L->op, L->ai,
                           si_number(L->achieved_flops, "FLOP/s"), 100 * L->time_share, bound_name(L->bound)),
               "layer");
  }

  plot.legend_line(roof, "roof: memory bandwidth, then the compute peak");
  plot.legend_line(ridge_line, "ridge: where the roof turns flat");
  if (p.peak_measured) plot.legend_line(measured, "measured peak " + si_number(*p.peak_measured, "FLOP/s"));
  plot.legend_note("bound (layer count):");
  for (const auto& [b, color] : kColors) {
    MarkerStyle m;
    m.color = color;
    m.size = 6;
    m.fill_opacity = 0.55;
    m.stroke_width = 1;
    plot.legend_marker(m, fmt::format("{} ({})", bound_name(b), counts[b]));
  }
  plot.legend_note("circle area ~ share of time");
  plot.legend_note(fmt::format("{:.0f} img/s predicted", p.throughput));
  plot.legend_note(
      fmt::format("utilization {:.1f}% of {}", 100 * p.utilization, si_number(p.peak_datasheet, "FLOP/s")));
  plot.legend_note(fmt::format("aggregate AI {:.1f}, CMR {:.1f}", p.ai, p.cmr));
  return plot.render();
}

}  // namespace rooflens::report
