// A small SVG plot writer for reports: linear or log axes with "nice" ticks and unit
// labels, marks (several shapes, filled or hollow) with <title> hover text, polylines,
// arrows, text labels placed so they avoid each other and the marks, histogram bars,
// vertical reference lines, and a legend in its own column right of the plot area (so it
// never covers data). Drawing order, back to front: bars, vertical lines, arrows,
// polylines, marks, labels.
//
// Coordinates passed in are data values; the writer fits the axes and maps them when
// render() is called. render() returns one <svg> element without an XML prolog, ready to
// inline into HTML (it also opens standalone: it carries the SVG namespace). All text and
// attribute values are escaped. The plot id becomes the <svg> id; nothing else gets an id,
// so several plots can share one page.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rooflens::report {

// Escapes &, <, >, " and ' for XML/HTML text and attribute values.
std::string xml_escape(std::string_view s);

// Compact number for tick labels and captions: 1200 -> "1.2k", 2e6 -> "2M", 0.25 -> "0.25".
std::string compact_number(double v);
// A value with an SI prefix and unit: (1.25e14, "FLOP/s") -> "125 TFLOP/s".
std::string si_number(double v, std::string_view unit);

enum class AxisScale { kLinear, kLog };

struct AxisSpec {
  std::string label;  // names the unit, e.g. "throughput (images/s)"
  AxisScale scale = AxisScale::kLinear;
  std::optional<double> min, max;  // fixed ends; otherwise fitted to the data with a margin
  double tick_factor = 1;          // a tick label shows value * tick_factor (100: fraction as %)
  std::string tick_suffix;         // appended to every tick label, e.g. "%"
  bool include_zero = false;       // linear only: a fitted range always reaches 0
};

enum class MarkerShape { kCircle, kSquare, kTriangleUp, kTriangleDown, kDiamond, kCross, kStar };

struct MarkerStyle {
  MarkerShape shape = MarkerShape::kCircle;
  std::string color = "#0072b2";  // stroke, and fill unless hollow
  bool filled = true;
  double size = 4.5;  // half the marker's extent in px
  double fill_opacity = 0.8;
  double stroke_width = 1.3;
};

struct LineStyle {
  std::string color = "#000000";
  double width = 1.5;
  std::string dash;  // an SVG stroke-dasharray ("6,4"); empty for a solid line
};

// Extra attributes on a mark element: (name, value); values are escaped on output.
using SvgAttrs = std::vector<std::pair<std::string, std::string>>;

class SvgPlot {
 public:
  // `width` x `height` px is the whole figure, the legend column included.
  explicit SvgPlot(std::string id, double width = 660, double height = 470);

  AxisSpec& x_axis() { return x_; }
  AxisSpec& y_axis() { return y_; }
  void set_title(std::string t) { title_ = std::move(t); }
  void set_subtitle(std::string t) { subtitle_ = std::move(t); }  // word-wrapped to the width
  void set_legend_width(double px) { legend_width_ = px; }

  // One mark at (x, y). `klass` becomes its class attribute, `title` its hover text.
  void point(double x, double y, const MarkerStyle& style, std::string title, std::string klass = "",
             SvgAttrs attrs = {});
  // A line through the points in the order given.
  void polyline(std::vector<std::pair<double, double>> pts, const LineStyle& style, std::string klass = "",
                std::string title = "");
  // A straight arrow from (x0, y0) to (x1, y1) with its head at the end, drawn as a <g>
  // with class `klass`; `gap` px are left free at both ends (room for the markers).
  void arrow(double x0, double y0, double x1, double y1, const LineStyle& style, std::string title,
             std::string klass = "", double gap = 4);
  // A bar over [x0, x1] from the bottom of the plot (0 on a linear y axis) to `height`.
  void bar(double x0, double x1, double height, std::string fill, std::string title, std::string klass = "",
           double fill_opacity = 0.75);
  // A vertical line across the plot at x with a label near its top.
  void vline(double x, const LineStyle& style, std::string label, std::string klass = "");
  // A text label for the data point (x, y), placed around it where it overlaps least with
  // other labels and marks; a thin leader line joins it to the point when placed far off.
  void label(double x, double y, std::string text);

  // Legend entries, listed top to bottom in the legend column.
  void legend_marker(const MarkerStyle& style, std::string text);
  void legend_line(const LineStyle& style, std::string text);
  void legend_arrow(const LineStyle& style, std::string text);
  void legend_bar(std::string fill, std::string text);
  void legend_note(std::string text);  // plain text (wrapped)

  std::string render() const;

 private:
  enum class Kind { kPoint, kPolyline, kArrow, kBar, kVline };
  struct Item {
    Kind kind;
    std::vector<std::pair<double, double>> pts;  // data coordinates
    MarkerStyle marker;
    LineStyle line;
    std::string fill, title, klass, text;
    SvgAttrs attrs;
    double gap = 0, fill_opacity = 1;
  };
  struct Label {
    double x, y;
    std::string text;
  };
  enum class LegendKind { kMarker, kLine, kArrow, kBar, kNote };
  struct LegendEntry {
    LegendKind kind;
    MarkerStyle marker;
    LineStyle line;
    std::string fill, text;
  };

  struct Frame;  // the plot area in pixels, the fitted axes, what labels must avoid
  Frame frame() const;
  void render_header(std::string& s, const Frame& f) const;
  void render_axes(std::string& s, const Frame& f) const;
  void render_item(std::string& s, Frame& f, const Item& it) const;
  void render_labels(std::string& s, Frame& f) const;
  void render_legend(std::string& s, const Frame& f) const;

  std::string id_, title_, subtitle_;
  double width_, height_, legend_width_ = 180;
  AxisSpec x_, y_;
  std::vector<Item> items_;
  std::vector<Label> labels_;
  std::vector<LegendEntry> legend_;
};

// The SVG shape of one marker centred at (cx, cy) in pixels, with extra attributes and an
// optional <title> child. Used by SvgPlot and by legends drawn elsewhere.
std::string svg_marker(double cx, double cy, const MarkerStyle& style, const std::string& klass, const SvgAttrs& attrs,
                       const std::string& title);

}  // namespace rooflens::report
