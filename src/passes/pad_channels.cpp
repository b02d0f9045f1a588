// Channel padding (see pad_channels.h): one WidthRule over the fold machinery.
#include "rooflens/passes/pad_channels.h"

#include <numeric>
#include <string>

#include "rooflens/passes/folded_cnn.h"

namespace rooflens {

Expected<Graph> pad_channels(const Graph& g, int multiple) {
  if (multiple < 1)
    return Status::invalid("pad-channels multiple must be a positive integer, got " + std::to_string(multiple));
  const int64_t m = multiple;
  auto up = [](int64_t v, int64_t k) { return k <= 1 ? v : (v + k - 1) / k * k; };
  WidthRule rule;
  rule.what = "pad";
  rule.input_shape = [m, up](const Shape& s) -> Expected<Shape> {
    if (s.size() < 2)
      return Status::unsupported("pad needs an input of rank >= 2 (batch, channels, ...), got " + shape_str(s));
    Shape r = s;
    r[1] = up(s[1], m);
    return r;
  };
  rule.output_width = [m, up](int64_t w, bool /*classifier*/, int64_t group_multiple) {
    return up(w, std::lcm(m, group_multiple));
  };
  auto h = rewrite_widths(g, rule);
  if (!h) return h.status();
  h->name = g.name + "_pad" + std::to_string(multiple);
  return h;
}

}  // namespace rooflens
