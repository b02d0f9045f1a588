// The zoo study as one self-contained HTML page: a header saying what was measured and
// how, Figure 1 (a-c: the three 2-D Pareto frontiers), Figure 2 (a: accuracy-throughput by
// AI against the CMR; b: the FoldedCNN what-if as arrows), a histogram of per-layer AI with
// the CMR, and a sortable table of every model. Inline SVG and CSS, one small inline
// script (sortable columns); nothing is fetched, so it reads offline and prints.
//
// Stable hooks for tests and scripts: each plot is <svg id="fig1a|fig1b|fig1c|fig2a|fig2b|
// fig-ai-hist">; every model mark has class "pt" and data-model="<name>" (one per model and
// plot; accuracy plots omit models without accuracy); fig2b's folded end points have class
// "pt-folded" and each FoldResult one <g class="fold-arrow">; the table is
// <table id="models-table">. The page's script sets data-report-ready="1" on <html> when it
// ran, and an error handler installed first records any script error or console.error as
// data-js-errors="<count>" (with the messages in data-js-error-log).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "rooflens/analysis/study.h"

namespace rooflens::report {

// `sections`: further HTML sections placed after the models table (the doctor's, from
// doctor_section_html), so every command adds to one page.
std::string study_html(const Study& s, const std::string& sections = "");

// The plots alone as standalone SVG documents: (id, svg), in page order.
std::vector<std::pair<std::string, std::string>> study_svgs(const Study& s);

}  // namespace rooflens::report
