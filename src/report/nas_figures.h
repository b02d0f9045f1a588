// Internal to the NAS report (nas_report.cpp, nas_figures.cpp): how runs are grouped into
// figures, the shared axes, and the per-run panels. Not a public header.
#pragma once

#include <string>
#include <vector>

#include "rooflens/report/nas_report.h"

namespace rooflens::report::nas_detail {

// The runs of one (strategy, reward): one figure and one summary-table row.
struct Group {
  nas::StrategyKind strategy = nas::StrategyKind::kRandom;
  nas::RewardSpec reward;
  std::vector<size_t> runs;      // positions in NasReportInput::runs, input order
  std::vector<std::string> ids;  // the panel <svg> id of each run (same order)
  int figure = 0;                // 5 filter, 6 REINFORCE, 7 REA, 8 random
  std::string letter;            // "", or "a", "b", ... when a strategy has several rewards
  std::string name;              // "REINFORCE, soft reward (G_T 175k img/s, w = 0.07)"
};

// Groups in figure order (figure, then first appearance).
std::vector<Group> groups(const NasReportInput& in);

const char* strategy_display_name(nas::StrategyKind k);
// "accuracy", "soft (G_T 175k img/s, w = 0.07)", "hard (G_T 175k img/s)".
std::string reward_words(const nas::RewardSpec& r);

// Whether a final accuracy is known (a true or reference frontier exists).
inline bool final_known(const NasReportInput& in) { return !in.final_accuracy.empty() && in.space != nullptr; }
// Whether it is known for part of the space only (the frontier is a reference frontier).
inline bool final_partial(const NasReportInput& in) {
  return final_known(in) && in.final_known_networks < static_cast<int64_t>(in.final_accuracy.size());
}
// "true frontier", or "reference frontier" when the final accuracy is partial.
inline const char* frontier_noun(const NasReportInput& in) {
  return final_partial(in) ? "reference frontier" : "true frontier";
}

// The panel of run `k` of group `g`: one large panel with a legend when the group has one run,
// else a small multiple without legend (nas_legend_strip_svg goes above them).
std::string panel_svg(const NasReportInput& in, const Group& g, size_t k);

// The legend shared by a figure's small multiples, as one short inline <svg>.
std::string legend_strip_svg(const NasReportInput& in);

}  // namespace rooflens::report::nas_detail
