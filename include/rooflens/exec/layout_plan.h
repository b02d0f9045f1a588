// Choice of activation layout per layer (what TensorRT calls format selection): each layer
// runs in channels-last or in oneDNN's blocked layout, at a measured cost for each, and a
// value crossing from a layer of one layout to a layer of the other pays a reorder. With
// two layouts and costs that only add, the cheapest assignment is a minimum s-t cut
// (Kolmogorov and Zabih, "What energy functions can be minimized via graph cuts?", 2004):
// exact, not a heuristic.
#pragma once

#include <array>
#include <vector>

namespace rooflens {

struct LayoutEdge {
  int from = 0, to = 0;           // a value from layer `from` read by layer `to`
  double to_blocked_s = 0;        // the reorder when `from` is channels-last and `to` blocked
  double to_channels_last_s = 0;  // the reorder when `from` is blocked and `to` channels-last
};

struct LayoutProblem {
  std::vector<std::array<double, 2>> cost_s;  // per layer: seconds in [channels-last, blocked]
  std::vector<LayoutEdge> edges;
};

// Per layer: 0 channels-last, 1 blocked. Among assignments of equal cost, the one with the
// fewest blocked layers. Costs must be finite and not negative.
std::vector<int> choose_layouts(const LayoutProblem& p);

// The total seconds of an assignment (layer costs plus the reorders it needs).
double layout_cost(const LayoutProblem& p, const std::vector<int>& blocked);

}  // namespace rooflens
