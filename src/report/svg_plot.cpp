// SvgPlot: fits axes to the data, maps data to pixels, places labels greedily where they
// overlap least, and writes one <svg> element.
#include "rooflens/report/svg_plot.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <numbers>

namespace rooflens::report {

std::string xml_escape(std::string_view s) {
  std::string r;
  r.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': r += "&amp;"; break;
      case '<': r += "&lt;"; break;
      case '>': r += "&gt;"; break;
      case '"': r += "&quot;"; break;
      case '\'': r += "&#39;"; break;
      default: r += c;
    }
  }
  return r;
}

namespace {

// Trims "1.500" to "1.5" and "2.000" to "2".
std::string trim_zeros(std::string s) {
  if (s.find('.') == std::string::npos) return s;
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s;
}

}  // namespace

std::string compact_number(double v) {
  if (!std::isfinite(v)) return "n/a";
  const double a = std::fabs(v);
  const char* suffix[] = {"", "k", "M", "G", "T", "P"};
  int i = 0;
  double m = v;
  while (std::fabs(m) >= 1000 && i < 5) {
    m /= 1000;
    ++i;
  }
  if (a == 0) return "0";
  if (i == 0 && a < 1e-3) return fmt::format("{:.2g}", v);
  std::string body;
  if (std::fabs(m) >= 100)
    body = fmt::format("{:.0f}", m);
  else if (std::fabs(m) >= 10)
    body = trim_zeros(fmt::format("{:.1f}", m));
  else
    body = trim_zeros(fmt::format("{:.3f}", m));
  if (body == "-0") body = "0";
  return body + suffix[i];
}

std::string si_number(double v, std::string_view unit) {
  std::string c = compact_number(v);
  if (!c.empty() && std::isalpha(static_cast<unsigned char>(c.back())) && c != "n/a") {
    const char p = c.back();
    c.pop_back();
    return fmt::format("{} {}{}", c, p, unit);
  }
  return fmt::format("{} {}", c, unit);
}

namespace {

constexpr double kFont = 12, kLabelFont = 11, kCharW = 0.58;  // average glyph width, em

struct Box {
  double x0, y0, x1, y1;
};

double overlap(const Box& a, const Box& b) {
  const double w = std::min(a.x1, b.x1) - std::max(a.x0, b.x0);
  const double h = std::min(a.y1, b.y1) - std::max(a.y0, b.y0);
  return (w > 0 && h > 0) ? w * h : 0;
}

double text_width(const std::string& s, double font) {
  // Count UTF-8 code points, not bytes.
  size_t n = 0;
  for (unsigned char c : s)
    if ((c & 0xC0) != 0x80) ++n;
  return static_cast<double>(n) * font * kCharW;
}

std::vector<std::string> wrap(const std::string& text, size_t width) {
  std::vector<std::string> lines;
  std::string cur;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t sp = text.find(' ', pos);
    if (sp == std::string::npos) sp = text.size();
    const std::string word = text.substr(pos, sp - pos);
    if (!cur.empty() && cur.size() + 1 + word.size() > width) {
      lines.push_back(cur);
      cur = word;
    } else {
      cur += (cur.empty() ? "" : " ") + word;
    }
    pos = sp + 1;
  }
  if (!cur.empty()) lines.push_back(cur);
  return lines;
}

std::string attr_list(const std::string& klass, const SvgAttrs& attrs) {
  std::string s;
  if (!klass.empty()) s += fmt::format(" class=\"{}\"", xml_escape(klass));
  for (const auto& [k, v] : attrs) s += fmt::format(" {}=\"{}\"", k, xml_escape(v));
  return s;
}

std::string title_el(const std::string& t) { return t.empty() ? "" : "<title>" + xml_escape(t) + "</title>"; }

std::string dash_attr(const LineStyle& st) {
  return st.dash.empty() ? "" : fmt::format(" stroke-dasharray=\"{}\"", st.dash);
}

// Fitted axis: the range in data units and the ticks (labelled major, unlabelled minor).
struct Fitted {
  bool log = false;
  double lo = 0, hi = 1;
  std::vector<double> major, minor;
};

double nice_step(double raw) {
  const double e = std::pow(10, std::floor(std::log10(raw)));
  const double f = raw / e;
  const double n = f <= 1 ? 1 : f <= 2 ? 2 : f <= 2.5 ? 2.5 : f <= 5 ? 5 : 10;
  return n * e;
}

Fitted fit_axis(const AxisSpec& a, std::vector<double> vals) {
  Fitted f;
  f.log = a.scale == AxisScale::kLog;
  if (f.log) {
    vals.erase(std::remove_if(vals.begin(), vals.end(), [](double v) { return !(v > 0) || !std::isfinite(v); }),
               vals.end());
    double lo = vals.empty() ? 1 : *std::min_element(vals.begin(), vals.end());
    double hi = vals.empty() ? 10 : *std::max_element(vals.begin(), vals.end());
    if (hi <= lo) {
      lo /= 2;
      hi *= 2;
    }
    const double pad = std::max(0.04 * std::log10(hi / lo), 0.03);
    f.lo = a.min && *a.min > 0 ? *a.min : lo / std::pow(10, pad);
    f.hi = a.max && *a.max > f.lo ? *a.max : hi * std::pow(10, pad);
    const double decades = std::log10(f.hi / f.lo);
    std::vector<double> mant = decades <= 0.8   ? std::vector<double>{1, 1.5, 2, 3, 4, 5, 6, 7, 8, 9}
                               : decades <= 2.6 ? std::vector<double>{1, 2, 5}
                                                : std::vector<double>{1};
    // A fitted end close to a labelled tick moves out to it, so both ends are labelled.
    const double snap = std::max(0.08, 0.1 * decades);
    auto snap_to = [&](double v, bool down) {
      std::optional<double> best;  // the nearest labelled tick beyond v, within `snap` decades
      const int e = static_cast<int>(std::floor(std::log10(v)));
      for (int k = e - 1; k <= e + 1; ++k)
        for (double m : mant) {
          const double t = m * std::pow(10, k);
          const double d = down ? std::log10(v / t) : std::log10(t / v);
          if (d >= 0 && d <= snap && (!best || (down ? t > *best : t < *best))) best = t;
        }
      return best.value_or(v);
    };
    if (!a.min) f.lo = snap_to(f.lo, true);
    if (!a.max) f.hi = snap_to(f.hi, false);
    const int e0 = static_cast<int>(std::floor(std::log10(f.lo))) - 1;
    const int e1 = static_cast<int>(std::ceil(std::log10(f.hi))) + 1;
    for (int e = e0; e <= e1; ++e) {
      const double p = std::pow(10, e);
      for (double m : mant) {
        const double v = m * p;
        if (v >= f.lo * 0.999 && v <= f.hi * 1.001) f.major.push_back(v);
      }
      if (decades <= 6)
        for (int m = 2; m <= 9; ++m) {
          const double v = m * p;
          if (v >= f.lo && v <= f.hi && std::find(mant.begin(), mant.end(), m) == mant.end()) f.minor.push_back(v);
        }
    }
    return f;
  }
  vals.erase(std::remove_if(vals.begin(), vals.end(), [](double v) { return !std::isfinite(v); }), vals.end());
  double lo = vals.empty() ? 0 : *std::min_element(vals.begin(), vals.end());
  double hi = vals.empty() ? 1 : *std::max_element(vals.begin(), vals.end());
  if (a.include_zero) {
    lo = std::min(lo, 0.0);
    hi = std::max(hi, 0.0);
  }
  if (hi - lo <= 0) {
    const double d = lo == 0 ? 1 : std::fabs(lo) * 0.1;
    lo -= d;
    hi += d;
  }
  const double pad = 0.06 * (hi - lo);
  if (!(a.include_zero && lo == 0)) lo -= pad;
  if (!(a.include_zero && hi == 0)) hi += pad;
  f.lo = a.min ? *a.min : lo;
  f.hi = a.max && *a.max > f.lo ? *a.max : hi;
  const double step = nice_step((f.hi - f.lo) / 5);
  for (double v = std::ceil(f.lo / step - 1e-9) * step; v <= f.hi + step * 1e-9; v += step)
    f.major.push_back(std::fabs(v) < step * 1e-9 ? 0 : v);
  return f;
}

std::string tick_text(const AxisSpec& a, double v) {
  const double t = v * a.tick_factor;
  // Round away binary noise (0.30000000004) before formatting.
  const double r = std::round(t * 1e6) / 1e6;
  return compact_number(r) + a.tick_suffix;
}

// Where v lies along a fitted axis, from 0 at its low end to 1 at its high end.
double axis_fraction(const Fitted& f, double v) {
  if (f.log) {
    const double c = v > 0 ? v : f.lo;
    return (std::log10(c) - std::log10(f.lo)) / (std::log10(f.hi) - std::log10(f.lo));
  }
  return (v - f.lo) / (f.hi - f.lo);
}

}  // namespace

std::string svg_marker(double cx, double cy, const MarkerStyle& st, const std::string& klass, const SvgAttrs& attrs,
                       const std::string& title) {
  const double s = st.size;
  const std::string paint =
      st.shape == MarkerShape::kCross
          ? fmt::format("fill=\"none\" stroke=\"{}\" stroke-width=\"{:.2g}\"", st.color, st.stroke_width + 0.6)
      : st.filled ? fmt::format("fill=\"{}\" fill-opacity=\"{:.2g}\" stroke=\"{}\" stroke-width=\"{:.2g}\"", st.color,
                                st.fill_opacity, st.color, st.stroke_width)
                  : fmt::format("fill=\"#ffffff\" fill-opacity=\"0.7\" stroke=\"{}\" stroke-width=\"{:.2g}\"", st.color,
                                st.stroke_width + 0.3);
  const std::string extra = attr_list(klass, attrs);
  const std::string t = title_el(title);
  auto close = [&](const std::string& open, const char* tag) {
    return t.empty() ? open + "/>" : fmt::format("{}>{}</{}>", open, t, tag);
  };
  switch (st.shape) {
    case MarkerShape::kCircle:
      return close(fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"{:.1f}\" {}{}", cx, cy, s, paint, extra),
                   "circle");
    case MarkerShape::kSquare:
      return close(fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" {}{}", cx - 0.9 * s,
                               cy - 0.9 * s, 1.8 * s, 1.8 * s, paint, extra),
                   "rect");
    default: break;
  }
  std::string d;
  switch (st.shape) {
    case MarkerShape::kTriangleUp:
      d = fmt::format("M{:.1f},{:.1f}L{:.1f},{:.1f}L{:.1f},{:.1f}Z", cx, cy - 1.25 * s, cx + 1.15 * s, cy + 0.8 * s,
                      cx - 1.15 * s, cy + 0.8 * s);
      break;
    case MarkerShape::kTriangleDown:
      d = fmt::format("M{:.1f},{:.1f}L{:.1f},{:.1f}L{:.1f},{:.1f}Z", cx, cy + 1.25 * s, cx + 1.15 * s, cy - 0.8 * s,
                      cx - 1.15 * s, cy - 0.8 * s);
      break;
    case MarkerShape::kDiamond:
      d = fmt::format("M{:.1f},{:.1f}L{:.1f},{:.1f}L{:.1f},{:.1f}L{:.1f},{:.1f}Z", cx, cy - 1.3 * s, cx + 1.05 * s, cy,
                      cx, cy + 1.3 * s, cx - 1.05 * s, cy);
      break;
    case MarkerShape::kCross:
      d = fmt::format("M{:.1f},{:.1f}L{:.1f},{:.1f}M{:.1f},{:.1f}L{:.1f},{:.1f}", cx - s, cy - s, cx + s, cy + s,
                      cx - s, cy + s, cx + s, cy - s);
      break;
    case MarkerShape::kStar: {
      for (int k = 0; k < 10; ++k) {
        const double ang = -std::numbers::pi / 2 + k * std::numbers::pi / 5;
        const double r = (k % 2 == 0) ? 1.45 * s : 0.62 * s;
        d += fmt::format("{}{:.1f},{:.1f}", k == 0 ? "M" : "L", cx + r * std::cos(ang), cy + r * std::sin(ang));
      }
      d += "Z";
      break;
    }
    default: break;
  }
  return close(fmt::format("<path d=\"{}\" {}{}", d, paint, extra), "path");
}

SvgPlot::SvgPlot(std::string id, double width, double height) : id_(std::move(id)), width_(width), height_(height) {}

void SvgPlot::point(double x, double y, const MarkerStyle& style, std::string title, std::string klass,
                    SvgAttrs attrs) {
  Item it{Kind::kPoint, {{x, y}}, style, {}, "", std::move(title), std::move(klass), "", std::move(attrs)};
  items_.push_back(std::move(it));
}

void SvgPlot::polyline(std::vector<std::pair<double, double>> pts, const LineStyle& style, std::string klass,
                       std::string title) {
  Item it{Kind::kPolyline, std::move(pts), {}, style, "", std::move(title), std::move(klass), "", {}};
  items_.push_back(std::move(it));
}

void SvgPlot::arrow(double x0, double y0, double x1, double y1, const LineStyle& style, std::string title,
                    std::string klass, double gap) {
  Item it{Kind::kArrow, {{x0, y0}, {x1, y1}}, {}, style, "", std::move(title), std::move(klass), "", {}};
  it.gap = gap;
  items_.push_back(std::move(it));
}

void SvgPlot::bar(double x0, double x1, double height, std::string fill, std::string title, std::string klass,
                  double fill_opacity) {
  Item it{Kind::kBar, {{x0, 0}, {x1, height}}, {}, {}, std::move(fill), std::move(title), std::move(klass), "", {}};
  it.fill_opacity = fill_opacity;
  items_.push_back(std::move(it));
}

void SvgPlot::vline(double x, const LineStyle& style, std::string label, std::string klass) {
  Item it{Kind::kVline, {{x, 0}}, {}, style, "", label, std::move(klass), label, {}};
  items_.push_back(std::move(it));
}

void SvgPlot::label(double x, double y, std::string text) { labels_.push_back({x, y, std::move(text)}); }

void SvgPlot::legend_marker(const MarkerStyle& style, std::string text) {
  legend_.push_back({LegendKind::kMarker, style, {}, "", std::move(text)});
}
void SvgPlot::legend_line(const LineStyle& style, std::string text) {
  legend_.push_back({LegendKind::kLine, {}, style, "", std::move(text)});
}
void SvgPlot::legend_arrow(const LineStyle& style, std::string text) {
  legend_.push_back({LegendKind::kArrow, {}, style, "", std::move(text)});
}
void SvgPlot::legend_bar(std::string fill, std::string text) {
  legend_.push_back({LegendKind::kBar, {}, {}, std::move(fill), std::move(text)});
}
void SvgPlot::legend_note(std::string text) { legend_.push_back({LegendKind::kNote, {}, {}, "", std::move(text)}); }

// The plot area in pixels and the fitted axes. Marks and placed labels collect in
// `obstacles` as they are drawn, so that labels drawn later avoid them.
struct SvgPlot::Frame {
  std::vector<std::string> subtitle;  // wrapped lines
  double top = 0, left = 66, pw = 0, ph = 0;
  Fitted fx, fy;
  std::vector<Box> obstacles;

  double X(double v) const { return left + axis_fraction(fx, v) * pw; }
  double Y(double v) const { return top + ph - axis_fraction(fy, v) * ph; }
};

SvgPlot::Frame SvgPlot::frame() const {
  Frame f;
  const size_t sub_chars = static_cast<size_t>(std::max(20.0, (width_ - 20) / (11 * kCharW)));
  f.subtitle = wrap(subtitle_, sub_chars);
  f.top = 16 + (title_.empty() ? 0 : 20) + 14.0 * static_cast<double>(f.subtitle.size()) + 12;
  const double bottom = 52;
  const double right = legend_.empty() ? 20 : legend_width_ + 24;
  f.pw = std::max(50.0, width_ - f.left - right);
  f.ph = std::max(50.0, height_ - f.top - bottom);

  std::vector<double> xs, ys;
  for (const auto& it : items_) {
    for (const auto& [x, y] : it.pts) {
      xs.push_back(x);
      if (it.kind != Kind::kVline) ys.push_back(y);
    }
  }
  for (const auto& l : labels_) {
    xs.push_back(l.x);
    ys.push_back(l.y);
  }
  AxisSpec ya = y_;
  if (ya.scale == AxisScale::kLinear)
    for (const auto& it : items_)
      if (it.kind == Kind::kBar) ya.include_zero = true;
  f.fx = fit_axis(x_, xs);
  f.fy = fit_axis(ya, ys);
  return f;
}

void SvgPlot::render_header(std::string& s, const Frame& f) const {
  s += fmt::format(
      "<svg id=\"{}\" class=\"plot\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {:.0f} {:.0f}\" "
      "width=\"{:.0f}\" "
      "height=\"{:.0f}\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\" font-size=\"{}\">\n",
      xml_escape(id_), width_, height_, width_, height_, kFont);
  s += fmt::format("<rect width=\"{:.0f}\" height=\"{:.0f}\" fill=\"#ffffff\"/>\n", width_, height_);
  double ty = 16;
  if (!title_.empty()) {
    ty += 4;
    s += fmt::format("<text x=\"10\" y=\"{:.0f}\" font-size=\"14\" font-weight=\"bold\">{}</text>\n", ty,
                     xml_escape(title_));
    ty += 16;
  }
  for (const auto& line : f.subtitle) {
    s += fmt::format("<text x=\"10\" y=\"{:.0f}\" font-size=\"11\" fill=\"#495057\">{}</text>\n", ty, xml_escape(line));
    ty += 14;
  }
}

void SvgPlot::render_axes(std::string& s, const Frame& f) const {
  const double left = f.left, top = f.top, pw = f.pw, ph = f.ph;
  const Fitted &fx = f.fx, &fy = f.fy;
  auto X = [&f](double v) { return f.X(v); };
  auto Y = [&f](double v) { return f.Y(v); };
  s += "<g class=\"grid\">\n";
  for (double v : fx.major)
    s += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" stroke=\"#e9ecef\"/>\n", X(v),
                     top, top + ph);
  for (double v : fy.major)
    s += fmt::format("<line x1=\"{1:.1f}\" y1=\"{0:.1f}\" x2=\"{2:.1f}\" y2=\"{0:.1f}\" stroke=\"#e9ecef\"/>\n", Y(v),
                     left, left + pw);
  s += "</g>\n<g class=\"ticks\">\n";
  for (double v : fx.major) {
    s += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" stroke=\"#495057\"/>\n", X(v),
                     top + ph, top + ph + 5);
    s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>\n", X(v), top + ph + 18,
                     xml_escape(tick_text(x_, v)));
  }
  for (double v : fx.minor)
    s += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" stroke=\"#868e96\"/>\n", X(v),
                     top + ph, top + ph + 3);
  for (double v : fy.major) {
    s += fmt::format("<line x1=\"{1:.1f}\" y1=\"{0:.1f}\" x2=\"{2:.1f}\" y2=\"{0:.1f}\" stroke=\"#495057\"/>\n", Y(v),
                     left - 5, left);
    s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>\n", left - 8, Y(v) + 4,
                     xml_escape(tick_text(y_, v)));
  }
  for (double v : fy.minor)
    s += fmt::format("<line x1=\"{1:.1f}\" y1=\"{0:.1f}\" x2=\"{2:.1f}\" y2=\"{0:.1f}\" stroke=\"#868e96\"/>\n", Y(v),
                     left - 3, left);
  s += "</g>\n";
  s += fmt::format(
      "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"none\" stroke=\"#495057\"/>\n", left,
      top, pw, ph);
  s += fmt::format("<text class=\"axis-label\" x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>\n",
                   left + pw / 2, top + ph + 40, xml_escape(x_.label + (fx.log ? ", log scale" : "")));
  s += fmt::format(
      "<text class=\"axis-label\" transform=\"translate(16,{:.1f}) rotate(-90)\" text-anchor=\"middle\">{}</text>\n",
      top + ph / 2, xml_escape(y_.label + (fy.log ? ", log scale" : "")));
}

void SvgPlot::render_item(std::string& s, Frame& f, const Item& it) const {
  const double left = f.left, top = f.top, pw = f.pw, ph = f.ph;
  const Fitted& fy = f.fy;
  auto X = [&f](double v) { return f.X(v); };
  auto Y = [&f](double v) { return f.Y(v); };
  std::vector<Box>& obstacles = f.obstacles;
  switch (it.kind) {
    case Kind::kBar: {
      const double x0 = X(it.pts[0].first), x1 = X(it.pts[1].first);
      const double y0 = Y(fy.log ? fy.lo : std::max(0.0, fy.lo)), y1 = Y(it.pts[1].second);
      s += fmt::format(
          "<rect{} x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"{}\" fill-opacity=\"{:.2g}\" "
          "stroke=\"#343a40\" stroke-width=\"0.6\">{}</rect>\n",
          attr_list(it.klass, it.attrs), std::min(x0, x1) + 0.5, std::min(y0, y1),
          std::max(0.5, std::fabs(x1 - x0) - 1), std::fabs(y1 - y0), it.fill, it.fill_opacity, title_el(it.title));
      break;
    }
    case Kind::kVline: {
      const double x = X(it.pts[0].first);
      s += fmt::format(
          "<g{}>{}<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"{}\" "
          "stroke-width=\"{:.2g}\"{}/>",
          attr_list(it.klass, it.attrs), title_el(it.title), x, top, x, top + ph, it.line.color, it.line.width,
          dash_attr(it.line));
      if (!it.text.empty()) {
        // Right of the line if it fits, else left; lower when an earlier line's label is there.
        const double w = text_width(it.text, kLabelFont);
        bool right = x + 4 + w <= left + pw;
        double y = top + 14;
        for (int k = 0; k < 12; ++k) {
          const bool r = (k % 2 == 0) == (x + 4 + w <= left + pw);
          const double yy = top + 14 + 14.0 * (k / 2);
          const Box b{r ? x + 4 : x - 4 - w, yy - 11, r ? x + 4 + w : x - 4, yy + 3};
          bool clear = b.x0 >= left && b.x1 <= left + pw;
          for (const auto& o : obstacles) clear = clear && overlap(b, o) == 0;
          if (clear || k == 11) {
            right = r;
            y = yy;
            break;
          }
        }
        s += fmt::format(
            "<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"{}\" text-anchor=\"{}\" fill=\"{}\" stroke=\"#ffffff\" "
            "stroke-width=\"3\" paint-order=\"stroke\">{}</text>",
            right ? x + 4 : x - 4, y, kLabelFont, right ? "start" : "end", it.line.color, xml_escape(it.text));
        obstacles.push_back({right ? x + 4 : x - 4 - w, y - 11, right ? x + 4 + w : x - 4, y + 3});
      }
      s += "</g>\n";
      break;
    }
    case Kind::kPolyline: {
      std::string pts;
      for (const auto& [x, y] : it.pts) pts += fmt::format("{:.1f},{:.1f} ", X(x), Y(y));
      s += fmt::format(
          "<polyline{} points=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"{:.2g}\"{} "
          "stroke-linejoin=\"round\">{}</polyline>\n",
          attr_list(it.klass, it.attrs), pts, it.line.color, it.line.width, dash_attr(it.line), title_el(it.title));
      break;
    }
    case Kind::kArrow: {
      const double ax = X(it.pts[0].first), ay = Y(it.pts[0].second);
      const double bx = X(it.pts[1].first), by = Y(it.pts[1].second);
      const double len = std::hypot(bx - ax, by - ay);
      const double ux = len > 0 ? (bx - ax) / len : 1, uy = len > 0 ? (by - ay) / len : 0;
      const double gap = std::min(it.gap, len / 3);
      const double sx = ax + ux * gap, sy = ay + uy * gap, ex = bx - ux * gap, ey = by - uy * gap;
      const double head = std::min(9.0, std::max(3.0, (len - 2 * gap) * 0.6)), hw = head * 0.45;
      const double hx = ex - ux * head, hy = ey - uy * head;
      s += fmt::format(
          "<g{}>{}<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"{}\" "
          "stroke-width=\"{:.2g}\"{}/><polygon points=\"{:.1f},{:.1f} {:.1f},{:.1f} {:.1f},{:.1f}\" "
          "fill=\"{}\"/></g>\n",
          attr_list(it.klass, it.attrs), title_el(it.title), sx, sy, hx + ux * 1, hy + uy * 1, it.line.color,
          it.line.width, dash_attr(it.line), ex, ey, hx - uy * hw, hy + ux * hw, hx + uy * hw, hy - ux * hw,
          it.line.color);
      break;
    }
    case Kind::kPoint: {
      const double px = X(it.pts[0].first), py = Y(it.pts[0].second);
      s += svg_marker(px, py, it.marker, it.klass, it.attrs, it.title) + "\n";
      const double r = it.marker.size * 1.3;
      obstacles.push_back({px - r, py - r, px + r, py + r});
      break;
    }
  }
}

// Greedy placement, least overlap first.
void SvgPlot::render_labels(std::string& s, Frame& f) const {
  const double left = f.left, top = f.top, pw = f.pw, ph = f.ph;
  auto X = [&f](double v) { return f.X(v); };
  auto Y = [&f](double v) { return f.Y(v); };
  const Box area{left, top, left + pw, top + ph};
  std::vector<Box>& obstacles = f.obstacles;
  s += "<g class=\"labels\" font-size=\"11\">\n";
  struct Cand {
    double dx, dy;
    int anchor;  // -1 end, 0 middle, 1 start
    bool far;
  };
  std::vector<Cand> cands;
  const double r = 9;
  const Cand near[] = {{r, 4, 1, false},         {-r, 4, -1, false},        {0, -r - 1, 0, false},
                       {0, r + 10, 0, false},    {r - 2, -r + 1, 1, false}, {-r + 2, -r + 1, -1, false},
                       {r - 2, r + 7, 1, false}, {-r + 2, r + 7, -1, false}};
  for (const auto& c : near) cands.push_back(c);
  for (double d : {14.0, 28.0, 44.0}) {
    const double e = d * 0.7;
    const Cand far[] = {{r + d, 4, 1, true},         {-r - d, 4, -1, true},        {0, -r - 1 - d, 0, true},
                        {0, r + 10 + d, 0, true},    {r + e, -r - e, 1, true},     {-r - e, -r - e, -1, true},
                        {r + e, r + 7 + e, 1, true}, {-r - e, r + 7 + e, -1, true}};
    for (const auto& c : far) cands.push_back(c);
  }
  for (const auto& l : labels_) {
    const double px = X(l.x), py = Y(l.y);
    const double w = text_width(l.text, kLabelFont);
    double best = std::numeric_limits<double>::max();
    Box best_box{};
    Cand best_c{};
    for (size_t ci = 0; ci < cands.size(); ++ci) {
      const auto& c = cands[ci];
      const double bx = px + c.dx, by = py + c.dy;
      const double x0 = c.anchor == 1 ? bx : c.anchor == -1 ? bx - w : bx - w / 2;
      const Box b{x0 - 1, by - 9, x0 + w + 1, by + 2};
      const double inside = overlap(b, area);
      const double full = (b.x1 - b.x0) * (b.y1 - b.y0);
      // Prefer near places (in list order); a far place needs a leader line and must buy
      // a real reduction in overlap.
      double score = (full - inside) * 20 + static_cast<double>(ci) * 0.8 + (c.far ? 40 : 0);
      for (const auto& o : obstacles) score += overlap(b, o) * 4;
      if (score < best) {
        best = score;
        best_box = b;
        best_c = c;
      }
    }
    const double bx = px + best_c.dx, by = py + best_c.dy;
    if (best_c.far) {
      // Leader from the point's edge to the nearest point of the label box.
      const double qx = std::clamp(px, best_box.x0, best_box.x1), qy = std::clamp(py, best_box.y0, best_box.y1);
      const double d = std::hypot(qx - px, qy - py);
      if (d > 6)
        s += fmt::format(
            "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#868e96\" "
            "stroke-width=\"0.7\"/>\n",
            px + (qx - px) / d * 5, py + (qy - py) / d * 5, qx, qy);
    }
    s += fmt::format(
        "<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"{}\" stroke=\"#ffffff\" stroke-width=\"3\" "
        "paint-order=\"stroke\">{}</text>\n",
        bx, by,
        best_c.anchor == 1    ? "start"
        : best_c.anchor == -1 ? "end"
                              : "middle",
        xml_escape(l.text));
    obstacles.push_back(best_box);
  }
  s += "</g>\n";
}

// The legend column right of the plot.
void SvgPlot::render_legend(std::string& s, const Frame& f) const {
  const double left = f.left, top = f.top, pw = f.pw;
  const double lx = left + pw + 18;
  double ly = top + 6;
  const size_t chars = static_cast<size_t>(std::max(8.0, (legend_width_ - 30) / (kLabelFont * kCharW)));
  s += "<g class=\"legend\" font-size=\"11\">\n";
  for (const auto& e : legend_) {
    const auto lines = wrap(e.text, e.kind == LegendKind::kNote ? chars + 4 : chars);
    const double cy = ly + 6;
    switch (e.kind) {
      case LegendKind::kMarker: s += svg_marker(lx + 9, cy, e.marker, "", {}, "") + "\n"; break;
      case LegendKind::kLine:
        s += fmt::format(
            "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"{}\" stroke-width=\"{:.2g}\"{}/>\n",
            lx, cy, lx + 22, cy, e.line.color, e.line.width, dash_attr(e.line));
        break;
      case LegendKind::kArrow:
        s += fmt::format(
            "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"{}\" stroke-width=\"{:.2g}\"/>"
            "<polygon points=\"{:.1f},{:.1f} {:.1f},{:.1f} {:.1f},{:.1f}\" fill=\"{}\"/>\n",
            lx, cy, lx + 16, cy, e.line.color, e.line.width, lx + 23, cy, lx + 15, cy - 4, lx + 15, cy + 4,
            e.line.color);
        break;
      case LegendKind::kBar:
        s += fmt::format(
            "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"18\" height=\"10\" fill=\"{}\" fill-opacity=\"0.75\" "
            "stroke=\"#343a40\" stroke-width=\"0.6\"/>\n",
            lx + 2, cy - 5, e.fill);
        break;
      case LegendKind::kNote: break;
    }
    const double tx = e.kind == LegendKind::kNote ? lx : lx + 30;
    for (size_t i = 0; i < lines.size(); ++i)
      s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\"{}>{}</text>\n", tx, cy + 4 + 13.0 * static_cast<double>(i),
                       e.kind == LegendKind::kNote ? " fill=\"#495057\"" : "", xml_escape(lines[i]));
    ly += 13.0 * static_cast<double>(std::max<size_t>(1, lines.size())) + 9;
  }
  s += "</g>\n";
}

std::string SvgPlot::render() const {
  Frame f = frame();
  std::string s;
  render_header(s, f);
  render_axes(s, f);
  // Data, back to front: bars, reference lines, arrows, lines (frontiers stay visible), marks.
  for (Kind k : {Kind::kBar, Kind::kVline, Kind::kArrow, Kind::kPolyline, Kind::kPoint})
    for (const auto& it : items_)
      if (it.kind == k) render_item(s, f, it);
  if (!labels_.empty()) render_labels(s, f);
  if (!legend_.empty()) render_legend(s, f);
  s += "</svg>\n";
  return s;
}

}  // namespace rooflens::report
