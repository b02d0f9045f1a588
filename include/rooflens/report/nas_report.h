// The NAS report (issue 8; study.md section 4): utilization-aware search on the NATS-Bench
// size space, as one self-contained HTML page (inline SVG and CSS, no script, nothing
// fetched; prints) plus the same plots as standalone SVG files and two tables.
//
//  - Figure 3: throughput (x, log) against utilization for every network of the space, the
//    throughput-utilization Pareto frontier highlighted and joined, networks coloured by
//    final accuracy (quintiles, viridis: the order survives grey print) when it is known.
//  - Figures 5-8: one panel per search run (strategy x seed): the accuracy-throughput
//    frontier the run found against the true one of the space, the networks it evaluated
//    drawn faintly, its hypervolume ratio and IGD in the panel title. One figure per
//    (strategy, reward): 5 = approximate filter, 6 = REINFORCE, 7 = REA, 8 = random search
//    (letters a, b, ... when a strategy ran with several rewards). A figure with one run is
//    one large panel with a legend; with several runs, small multiples (3 per row, shared
//    axes over the whole report and one legend above them).
//  - A summary table (one row per strategy and reward, mean +- sample standard deviation
//    over its runs) and a table of every run.
//
// When the final accuracy does not cover the space there is no true frontier: the panels
// draw the frontier each run found under the accuracy the search saw, and say so.
//
// Size: Figure 3 has 32768 networks. Marks closer than about 2 px are drawn once (the one
// with the highest accuracy, which is what drawing them all would show on top), only the
// frontier networks carry hover titles (and the coloured networks when fewer than 1000 have
// an accuracy), so the page stays near 1 MB. The legend says how many marks were drawn.
//
// Stable hooks for tests and scripts: <svg id="fig3"> (or the id given to sss_figure3_svg);
// NAS panels <svg id="fig<N>[letter]-<strategy>[-<reward>]-seed<S>"> (a suffix -2, -3 on
// repeats; <reward> only when it is not accuracy), e.g. fig6-reinforce-soft-seed3, each inside a
// <figure id="figure-<N>[letter]">. Mark classes: Figure 3 "net" (ordinary network) and
// "frontier" (throughput-utilization frontier, one per frontier network); panels "eval"
// (evaluated networks, deduplicated as above), "true" (true-frontier network, single-run
// figures only), "found" (found-frontier network, one per network) and "found-true" (a found
// network on the true frontier, drawn over its "found" mark); lines "true-frontier" and
// "found-frontier". Tables: <table id="nas-summary-table"> and <table id="nas-runs-table">.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "rooflens/nas/frontier_metrics.h"
#include "rooflens/nas/judge.h"
#include "rooflens/nas/search.h"
#include "rooflens/nas/sss_study.h"
#include "rooflens/report/table.h"
#include "rooflens/util/status.h"

namespace rooflens::report {

// ---------------------------------------------------------------------------------------
// Figure 3 alone (also what `rooflens sss --all --report` draws).

struct Figure3Options {
  std::string id = "fig3";  // the <svg> id
  std::string title;
  // What the throughput numbers are, as a phrase after "throughput ": e.g. "predicted by the
  // rooflens performance model (not measured)".
  std::string source;
  std::string accuracy_label = "accuracy";  // names the colour, e.g. "final accuracy"
};

// `points`: the networks (any order); `frontier`: positions in `points` of the
// throughput-utilization frontier (sss_frontier: throughput ascending); `accuracy`: percent
// per position in `points`, NaN where unknown, or empty when no accuracy is known (then
// every network is grey). Returns one <svg> element (standalone-ready).
std::string sss_figure3_svg(const std::vector<SssPoint>& points, const std::vector<size_t>& frontier,
                            const std::vector<double>& accuracy, const Figure3Options& options);

// ---------------------------------------------------------------------------------------
// The report's input: plain data, filled by the caller (nas::judge_experiment computes the
// judged parts; make_nas_report_input wraps it).

// One search run and how it scored (nas/judge.h).
using NasRunSummary = nas::JudgedRun;

// The judged experiment (nas::judge_experiment: frontiers, scores, correlation; the runs in
// any order, grouped by strategy and reward here) and the words around it.
struct NasReportInput : nas::JudgedExperiment {
  // One line each, shown in the header and under the plots; empty ones are left out.
  std::string oracle;              // the oracle's describe(): what the accuracy a search sees is
  std::string device;              // the device (and dtype, batch) the space table was predicted or measured on
  std::string reward;              // e.g. "accuracy", or "soft (MnasNet), G_T 175000 img/s, w 0.07"
  std::string budget;              // e.g. "20000 simulated seconds per run"
  std::vector<std::string> notes;  // caveats, listed at the end
  std::string title;               // the page's <h1>; a default naming the space and device when empty
};

// The judged experiment (nas::judge_experiment) from a space, the final accuracies (empty when
// not known) and the runs. The description strings are left empty for the caller. `space`
// must outlive the result. Errors as nas::judge_experiment.
Expected<NasReportInput> make_nas_report_input(const nas::SpaceTable& space, std::vector<double> final_accuracy,
                                               std::vector<nas::SearchResult> results);

// ---------------------------------------------------------------------------------------
// Output. Preconditions: input.space is set and every index in the input lies in the space
// (make_nas_report_input checks both).

// The page (<!DOCTYPE html> ... </html>).
std::string nas_report_html(const NasReportInput& input);

// The plots as standalone SVG documents, in page order: (file name "<svg id>.svg", svg).
std::vector<std::pair<std::string, std::string>> nas_report_svgs(const NasReportInput& input);

// One row per (strategy, reward), in figure order: runs, then mean +- sample standard
// deviation (n - 1; the value alone for a single run) of the hypervolume ratio, IGD,
// true-frontier networks found, evaluations, simulated clock and best final accuracy;
// "n/a" where the final accuracy does not cover the space. Plain ASCII.
Table nas_summary_table(const NasReportInput& input);

// One row per run, in input order: strategy, reward, seed, evaluations, clock, score, best
// network and its reward and final accuracy.
Table nas_runs_table(const NasReportInput& input);

}  // namespace rooflens::report
