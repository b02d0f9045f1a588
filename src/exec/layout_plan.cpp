// Minimum-cut layout choice (see layout_plan.h). Layer i is a graph node; the source side
// of the cut is channels-last, the sink side blocked. s -> i carries i's blocked cost (cut
// when i is blocked), i -> t its channels-last cost; an edge from -> to carries the reorder
// into blocked (cut when `from` is channels-last and `to` blocked), to -> from the reorder
// back. Max flow by shortest augmenting paths (Edmonds-Karp): a network has at most a few
// hundred layers.
#include "rooflens/exec/layout_plan.h"

#include <algorithm>
#include <limits>
#include <queue>

namespace rooflens {

namespace {

struct Arc {
  int to;
  double cap;
  int rev;  // index of the reverse arc in arcs[to]
};

struct FlowGraph {
  std::vector<std::vector<Arc>> arcs;
  explicit FlowGraph(int n) : arcs(static_cast<size_t>(n)) {}
  void add(int a, int b, double cap) {
    if (cap <= 0) return;
    arcs[static_cast<size_t>(a)].push_back({b, cap, static_cast<int>(arcs[static_cast<size_t>(b)].size())});
    arcs[static_cast<size_t>(b)].push_back({a, 0, static_cast<int>(arcs[static_cast<size_t>(a)].size()) - 1});
  }
  void max_flow(int s, int t) {
    const size_t n = arcs.size();
    for (;;) {
      std::vector<std::pair<int, int>> via(n, {-1, -1});  // node -> (previous node, arc index)
      std::queue<int> q;
      q.push(s);
      via[static_cast<size_t>(s)] = {s, -1};
      while (!q.empty() && via[static_cast<size_t>(t)].first < 0) {
        const int u = q.front();
        q.pop();
        for (size_t k = 0; k < arcs[static_cast<size_t>(u)].size(); ++k) {
          const Arc& a = arcs[static_cast<size_t>(u)][k];
          if (a.cap > kEps && via[static_cast<size_t>(a.to)].first < 0) {
            via[static_cast<size_t>(a.to)] = {u, static_cast<int>(k)};
            q.push(a.to);
          }
        }
      }
      if (via[static_cast<size_t>(t)].first < 0) return;
      double push = std::numeric_limits<double>::infinity();
      for (int v = t; v != s; v = via[static_cast<size_t>(v)].first) {
        const auto [u, k] = via[static_cast<size_t>(v)];
        push = std::min(push, arcs[static_cast<size_t>(u)][static_cast<size_t>(k)].cap);
      }
      for (int v = t; v != s; v = via[static_cast<size_t>(v)].first) {
        const auto [u, k] = via[static_cast<size_t>(v)];
        Arc& a = arcs[static_cast<size_t>(u)][static_cast<size_t>(k)];
        a.cap -= push;
        arcs[static_cast<size_t>(v)][static_cast<size_t>(a.rev)].cap += push;
      }
    }
  }
  // Nodes that still reach `t` through arcs with capacity left.
  std::vector<char> reaching(int t) const {
    std::vector<char> seen(arcs.size(), 0);
    std::vector<int> stack{t};
    seen[static_cast<size_t>(t)] = 1;
    while (!stack.empty()) {
      const int v = stack.back();
      stack.pop_back();
      for (const Arc& a : arcs[static_cast<size_t>(v)]) {  // a reverse arc u -> v has capacity left
        const Arc& back = arcs[static_cast<size_t>(a.to)][static_cast<size_t>(a.rev)];
        if (back.cap > kEps && !seen[static_cast<size_t>(a.to)]) {
          seen[static_cast<size_t>(a.to)] = 1;
          stack.push_back(a.to);
        }
      }
    }
    return seen;
  }
  static constexpr double kEps = 1e-15;
};

}  // namespace

std::vector<int> choose_layouts(const LayoutProblem& p) {
  const int n = static_cast<int>(p.cost_s.size());
  const int s = n, t = n + 1;
  FlowGraph fg(n + 2);
  for (int i = 0; i < n; ++i) {
    const auto& c = p.cost_s[static_cast<size_t>(i)];
    const double base = std::min(c[0], c[1]);
    fg.add(s, i, c[1] - base);
    fg.add(i, t, c[0] - base);
  }
  for (const LayoutEdge& e : p.edges) {
    if (e.from == e.to) continue;
    fg.add(e.from, e.to, e.to_blocked_s);
    fg.add(e.to, e.from, e.to_channels_last_s);
  }
  fg.max_flow(s, t);
  // The sink side closest to t: a layer is blocked only when the cut forces it there.
  const std::vector<char> sink = fg.reaching(t);
  std::vector<int> out(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) out[static_cast<size_t>(i)] = sink[static_cast<size_t>(i)] ? 1 : 0;
  return out;
}

double layout_cost(const LayoutProblem& p, const std::vector<int>& blocked) {
  double total = 0;
  for (size_t i = 0; i < p.cost_s.size(); ++i) total += p.cost_s[i][blocked[i] ? 1 : 0];
  for (const LayoutEdge& e : p.edges) {
    const int a = blocked[static_cast<size_t>(e.from)], b = blocked[static_cast<size_t>(e.to)];
    if (a == 0 && b == 1) total += e.to_blocked_s;
    if (a == 1 && b == 0) total += e.to_channels_last_s;
  }
  return total;
}

}  // namespace rooflens
