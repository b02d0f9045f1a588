// The NAS report (report/nas_report.h) on the made-up fixture of tests/report/nas_fixture.h:
// the page has every figure and both tables, its numbers are the metrics', nothing is
// fetched, text is escaped, the page stays small with the whole 32768-network space, and
// the no-true-frontier case says so.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <regex>
#include <set>

#include "../report/nas_fixture.h"
#include "rooflens/nas/frontier_metrics.h"
#include "rooflens/report/nas_report.h"
#include "rooflens/report/table.h"

namespace rooflens {
namespace {

size_t count(const std::string& hay, const std::string& needle) {
  size_t n = 0;
  for (size_t p = hay.find(needle); p != std::string::npos; p = hay.find(needle, p + needle.size())) ++n;
  return n;
}

// The serialized <svg id="..."> element (empty when absent).
std::string svg_element(const std::string& page, const std::string& id) {
  const size_t b = page.find("<svg id=\"" + id + "\"");
  if (b == std::string::npos) return "";
  const size_t e = page.find("</svg>", b);
  return e == std::string::npos ? "" : page.substr(b, e - b);
}

struct Fixture {
  nas::SpaceTable space;
  std::vector<double> final_accuracy;
  report::NasReportInput input;
};

// `n` networks of the made-up space; `with_final`: the final accuracy covers the space.
Fixture make_fixture(int64_t n, bool with_final) {
  Fixture f;
  f.space = test::make_test_nas_space(n);
  f.final_accuracy = test::make_test_final_accuracy(f.space);
  auto runs = test::make_test_nas_runs(f.space, f.final_accuracy);
  auto in = report::make_nas_report_input(f.space, with_final ? f.final_accuracy : std::vector<double>{}, runs);
  EXPECT_TRUE(in.has_value()) << in.status().message();
  if (in) f.input = std::move(*in);
  f.input.oracle = "FIXTURE oracle: made-up accuracy";
  f.input.device = "FIXTURE device";
  f.input.reward = "per run";
  f.input.budget = "FIXTURE budget";
  return f;
}

TEST(NasReport, InputScoresEveryRunLikeTheMetrics) {
  Fixture f = make_fixture(4096, true);
  const auto& in = f.input;
  ASSERT_EQ(in.space, &f.space);
  ASSERT_EQ(in.runs.size(), 13u);
  std::vector<double> thr;
  for (const auto& p : f.space.points) thr.push_back(p.throughput);
  EXPECT_EQ(in.true_frontier, *nas::true_frontier(thr, f.final_accuracy));
  EXPECT_FALSE(in.space_frontier.empty());
  for (const auto& run : in.runs) {
    std::vector<int64_t> ev;
    for (const auto& e : run.result.evaluations) ev.push_back(e.arch);
    auto want = nas::score_search(ev, thr, f.final_accuracy);
    ASSERT_TRUE(want.has_value());
    ASSERT_TRUE(run.score.has_value());
    EXPECT_DOUBLE_EQ(run.score->hypervolume_ratio, want->hypervolume_ratio);
    EXPECT_DOUBLE_EQ(run.score->igd, want->igd);
    EXPECT_EQ(run.score->true_frontier_found, want->true_frontier_found);
    EXPECT_EQ(run.found_frontier, *nas::evaluated_frontier(ev, thr, f.final_accuracy));
    ASSERT_TRUE(run.best_final_accuracy.has_value());
    EXPECT_DOUBLE_EQ(*run.best_final_accuracy, f.final_accuracy[run.result.best_arch]);
  }
  // The filter evaluated the whole throughput-utilization frontier.
  EXPECT_EQ(in.runs[0].result.evaluations.size(), in.space_frontier.size());
}

TEST(NasReport, PageHasEveryFigureAndTable) {
  Fixture f = make_fixture(4096, true);
  const std::string page = report::nas_report_html(f.input);
  ASSERT_EQ(page.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(page.find("</html>"), std::string::npos);
  // Figure 3: one frontier mark per frontier network, fewer ordinary marks than networks.
  const std::string fig3 = svg_element(page, "fig3");
  ASSERT_FALSE(fig3.empty());
  EXPECT_EQ(count(fig3, "class=\"frontier\""), f.input.space_frontier.size());
  EXPECT_GT(count(fig3, "class=\"net\""), 100u);
  EXPECT_LE(count(fig3, "class=\"net\""), f.space.points.size() - f.input.space_frontier.size());
  EXPECT_NE(fig3.find("fifth)"), std::string::npos);  // the colour legend
  // Figure 5: the filter (one large panel); Figure 6: nine REINFORCE panels; Figure 8: random.
  for (const char* fig : {"id=\"figure-3\"", "id=\"figure-5\"", "id=\"figure-6\"", "id=\"figure-8\""})
    EXPECT_NE(page.find(fig), std::string::npos) << fig;
  EXPECT_EQ(page.find("id=\"figure-7\""), std::string::npos);  // no REA run
  EXPECT_FALSE(svg_element(page, "fig5-filter-seed0").empty());
  for (int s = 0; s < 9; ++s) {
    const std::string panel = svg_element(page, "fig6-reinforce-soft-seed" + std::to_string(s));
    ASSERT_FALSE(panel.empty()) << "seed " << s;
    EXPECT_EQ(count(panel, "class=\"true-frontier\""), 1u);
    EXPECT_GE(count(panel, "class=\"found\""), 1u);
    EXPECT_GE(count(panel, "class=\"eval\""), 1u);
  }
  EXPECT_EQ(count(page, "class=\"legend-strip\""), 2u);  // REINFORCE and random: small multiples
  // The single panel marks every true-frontier network; its found marks are one per network.
  const std::string f5 = svg_element(page, "fig5-filter-seed0");
  EXPECT_EQ(count(f5, "class=\"true\""), f.input.true_frontier.size());
  EXPECT_EQ(count(f5, "class=\"found\""), f.input.runs[0].found_frontier.size());
  EXPECT_EQ(count(f5, "class=\"found-true\""), static_cast<size_t>(f.input.runs[0].score->true_frontier_found));
  // Tables: one summary row per strategy, one run row per run.
  const size_t s0 = page.find("<table id=\"nas-summary-table\">"), r0 = page.find("<table id=\"nas-runs-table\">");
  ASSERT_NE(s0, std::string::npos);
  ASSERT_NE(r0, std::string::npos);
  EXPECT_EQ(count(page.substr(s0, page.find("</table>", s0) - s0), "<tr>"), 1u + 3u);
  EXPECT_EQ(count(page.substr(r0, page.find("</table>", r0) - r0), "<tr>"), 1u + 13u);
  // Every figure has the source of its numbers underneath.
  EXPECT_EQ(count(page, "Throughput and utilization: FIXTURE: made-up"),
            count(page, "<figcaption>") + 1);  // + the header
}

TEST(NasReport, PanelTitlesAndTablesCarryTheMetrics) {
  Fixture f = make_fixture(4096, true);
  const std::string page = report::nas_report_html(f.input);
  for (size_t r = 1; r <= 9; ++r) {  // REINFORCE runs
    const auto& run = f.input.runs[r];
    const std::string panel = svg_element(page, "fig6-reinforce-soft-seed" + std::to_string(run.result.config.seed));
    EXPECT_NE(panel.find(fmt::format("HV ratio {:.3f}, IGD {:.4f}", run.score->hypervolume_ratio, run.score->igd)),
              std::string::npos)
        << panel.substr(0, 1500);
  }
  // Summary: REINFORCE's HV ratio mean and sample sd, computed here from the scores.
  std::vector<double> hv;
  for (size_t r = 1; r <= 9; ++r) hv.push_back(f.input.runs[r].score->hypervolume_ratio);
  double mean = 0, ss = 0;
  for (double v : hv) mean += v / 9;
  for (double v : hv) ss += (v - mean) * (v - mean);
  const double sd = std::sqrt(ss / 8);
  const report::Table t = report::nas_summary_table(f.input);
  ASSERT_EQ(t.rows.size(), 3u);
  EXPECT_EQ(t.rows[0][0], "filter");
  EXPECT_EQ(t.rows[1][0], "reinforce");
  EXPECT_EQ(t.rows[2][0], "random");
  EXPECT_EQ(t.rows[1][2], "9");
  EXPECT_EQ(t.rows[1][3], report::fmt_fixed(mean, 3) + " +- " + report::fmt_fixed(sd, 3));
  EXPECT_EQ(t.rows[0][2], "1");
  EXPECT_EQ(t.rows[0][3], report::fmt_fixed(f.input.runs[0].score->hypervolume_ratio, 3));  // no sd for one run
  EXPECT_NE(t.rows[0][5].find(fmt::format(" of {}", f.input.true_frontier.size())), std::string::npos);
  EXPECT_NE(page.find(report::fmt_fixed(mean, 3) + " \u00b1 " + report::fmt_fixed(sd, 3)), std::string::npos);
  // Plain ASCII for text and CSV.
  for (const auto& row : t.rows)
    for (const auto& c : row)
      for (unsigned char ch : c) EXPECT_LT(ch, 128u) << c;
  const report::Table runs = report::nas_runs_table(f.input);
  ASSERT_EQ(runs.rows.size(), 13u);
  EXPECT_EQ(runs.rows[1][5], report::fmt_fixed(f.input.runs[1].score->hypervolume_ratio, 3));
  EXPECT_EQ(runs.rows[1][11], report::fmt_fixed(*f.input.runs[1].best_final_accuracy, 2));
  EXPECT_FALSE(report::render_csv(runs).empty());
}

TEST(NasReport, NothingExternalAndTextEscaped) {
  Fixture f = make_fixture(2048, true);
  f.input.oracle = "evil <script>alert(1)</script> & \"quoted\"";
  f.input.notes = {"a <b>note</b> & more"};
  f.input.title = "title <i>x</i>";
  const std::string page = report::nas_report_html(f.input);
  EXPECT_EQ(page.find("<script"), std::string::npos);
  EXPECT_NE(page.find("evil &lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;quoted&quot;"), std::string::npos);
  EXPECT_NE(page.find("a &lt;b&gt;note&lt;/b&gt; &amp; more"), std::string::npos);
  EXPECT_NE(page.find("<h1>title &lt;i&gt;x&lt;/i&gt;</h1>"), std::string::npos);
  // The only URL is the SVG namespace; nothing is loaded.
  const std::regex url(R"((https?:|ftp:|//)[^"' <)]*)");
  std::set<std::string> urls;
  for (auto it = std::sregex_iterator(page.begin(), page.end(), url); it != std::sregex_iterator(); ++it)
    urls.insert(it->str());
  EXPECT_EQ(urls, (std::set<std::string>{"http://www.w3.org/2000/svg"}));
  for (const char* bad : {" src=", "@import", "url(", "<link", "<img", "<iframe"})
    EXPECT_EQ(page.find(bad), std::string::npos) << bad;
}

TEST(NasReport, WholeSpaceStaysSmall) {
  Fixture f = make_fixture(kSssSpaceSize, true);
  const std::string page = report::nas_report_html(f.input);
  EXPECT_LT(page.size(), 2'000'000u) << "the page is " << page.size() << " bytes";
  const std::string fig3 = svg_element(page, "fig3");
  EXPECT_LT(count(fig3, "class=\"net\""), 16000u);
  EXPECT_EQ(count(fig3, "class=\"frontier\""), f.input.space_frontier.size());
  // The standalone plots: Figure 3 and one per run, each a complete <svg>.
  const auto svgs = report::nas_report_svgs(f.input);
  ASSERT_EQ(svgs.size(), 1 + f.input.runs.size());
  EXPECT_EQ(svgs[0].first, "fig3.svg");
  std::set<std::string> names;
  for (const auto& [name, svg] : svgs) {
    names.insert(name);
    EXPECT_EQ(svg.rfind("<svg id=\"" + name.substr(0, name.size() - 4) + "\"", 0), 0u) << name;
    EXPECT_NE(svg.find("xmlns=\"http://www.w3.org/2000/svg\""), std::string::npos);
    EXPECT_EQ(svg.substr(svg.size() - 7), "</svg>\n") << name;
  }
  EXPECT_EQ(names.size(), svgs.size());  // distinct file names
}

TEST(NasReport, WithoutFinalAccuracyThereIsNoTrueFrontier) {
  Fixture f = make_fixture(4096, false);
  const auto& in = f.input;
  EXPECT_TRUE(in.true_frontier.empty());
  for (const auto& run : in.runs) {
    EXPECT_FALSE(run.score.has_value());
    EXPECT_FALSE(run.best_final_accuracy.has_value());
    EXPECT_TRUE(run.found_frontier.empty());
  }
  const std::string page = report::nas_report_html(in);
  EXPECT_NE(page.find("No true frontier"), std::string::npos);
  EXPECT_EQ(page.find("class=\"true-frontier\""), std::string::npos);
  // Each panel draws the frontier the run found under the accuracy it saw.
  const std::string panel = svg_element(page, "fig6-reinforce-soft-seed0");
  EXPECT_EQ(count(panel, "class=\"found\""), in.runs[1].result.frontier.size());
  EXPECT_NE(panel.find("accuracy seen by the search (%)"), std::string::npos);
  const report::Table t = report::nas_summary_table(in);
  EXPECT_EQ(t.rows[1][3], "n/a");
  EXPECT_EQ(t.rows[1][8], "n/a");
  EXPECT_NE(t.rows[1][6], "n/a");  // evaluations are known
  // Figure 3 has no colour scale.
  EXPECT_EQ(svg_element(page, "fig3").find("fifth"), std::string::npos);
}

TEST(NasReport, RewardsOfOneStrategyGetLetteredFigures) {
  Fixture f = make_fixture(1024, true);
  std::vector<nas::SearchResult> runs{
      test::make_test_run(f.space, f.final_accuracy, nas::StrategyKind::kReinforce, 1, {1, 2, 3},
                          nas::RewardKind::kSoft),
      test::make_test_run(f.space, f.final_accuracy, nas::StrategyKind::kReinforce, 1, {4, 5, 6}),
      test::make_test_run(f.space, f.final_accuracy, nas::StrategyKind::kReinforce, 1, {7, 8, 9}),
      test::make_test_run(f.space, f.final_accuracy, nas::StrategyKind::kRea, 3, {10, 11})};
  auto in = report::make_nas_report_input(f.space, f.final_accuracy, runs);
  ASSERT_TRUE(in.has_value()) << in.status().message();
  const std::string page = report::nas_report_html(*in);
  EXPECT_NE(page.find("id=\"figure-6a\""), std::string::npos);
  EXPECT_NE(page.find("id=\"figure-6b\""), std::string::npos);
  EXPECT_NE(page.find("id=\"figure-7\""), std::string::npos);
  EXPECT_FALSE(svg_element(page, "fig6a-reinforce-soft-seed1").empty());
  // Two runs with the same strategy, reward and seed get distinct ids.
  EXPECT_FALSE(svg_element(page, "fig6b-reinforce-seed1").empty());
  EXPECT_FALSE(svg_element(page, "fig6b-reinforce-seed1-2").empty());
  EXPECT_EQ(report::nas_summary_table(*in).rows.size(), 3u);
}

TEST(NasReport, InputErrors) {
  const nas::SpaceTable space = test::make_test_nas_space(64);
  const std::vector<double> acc = test::make_test_final_accuracy(space);
  const auto good = test::make_test_run(space, acc, nas::StrategyKind::kRandom, 0, {1, 2});

  auto short_acc = report::make_nas_report_input(space, std::vector<double>(10, 50.0), {good});
  ASSERT_FALSE(short_acc.has_value());
  EXPECT_EQ(short_acc.status().code(), StatusCode::kInvalidInput);

  auto bad = good;
  bad.evaluations[1].arch = 64;
  auto out_of_space = nas::judge_run(bad, space, acc);
  ASSERT_FALSE(out_of_space.has_value());
  EXPECT_NE(out_of_space.status().message().find("network 64"), std::string::npos) << out_of_space.status().message();
  EXPECT_FALSE(report::make_nas_report_input(space, {}, {bad}).has_value());  // also without final accuracy

  std::vector<double> nan_acc = acc;
  nan_acc[1] = std::nan("");  // an evaluated network without a final accuracy cannot be judged
  auto unknown = report::make_nas_report_input(space, nan_acc, {good});
  ASSERT_FALSE(unknown.has_value());
  EXPECT_NE(unknown.status().message().find("network 1"), std::string::npos) << unknown.status().message();
  nan_acc[1] = std::numeric_limits<double>::infinity();
  EXPECT_FALSE(report::make_nas_report_input(space, nan_acc, {good}).has_value());

  nas::SpaceTable shuffled = space;
  std::swap(shuffled.points[3], shuffled.points[4]);
  auto order = report::make_nas_report_input(shuffled, acc, {good});
  ASSERT_FALSE(order.has_value());
  EXPECT_NE(order.status().message().find("point 3 has index 4"), std::string::npos) << order.status().message();
  EXPECT_FALSE(report::make_nas_report_input(nas::SpaceTable{}, {}, {}).has_value());
}

TEST(NasReport, Figure3AloneWithPartialAccuracy) {
  const nas::SpaceTable space = test::make_test_nas_space(2048);
  auto front = sss_frontier(space.points);
  ASSERT_TRUE(front.has_value());
  std::vector<double> acc(space.points.size(), std::nan(""));
  acc[10] = 91.5;
  acc[20] = 70.25;
  report::Figure3Options o;
  o.id = "sss-figure3";
  o.title = "t <&>";
  o.source = "predicted by the rooflens performance model (not measured)";
  const std::string svg = report::sss_figure3_svg(space.points, *front, acc, o);
  EXPECT_EQ(svg.rfind("<svg id=\"sss-figure3\"", 0), 0u);
  EXPECT_NE(svg.find("t &lt;&amp;&gt;"), std::string::npos);
  EXPECT_NE(svg.find("network (no accuracy)"), std::string::npos);
  // Few coloured networks keep their hover titles.
  EXPECT_NE(svg.find("91.50% accuracy"), std::string::npos);
  EXPECT_NE(svg.find("2048 networks, throughput predicted by the rooflens performance model"), std::string::npos);
  // No accuracy at all: grey only.
  const std::string grey = report::sss_figure3_svg(space.points, *front, {}, o);
  EXPECT_EQ(grey.find("fifth"), std::string::npos);
  EXPECT_EQ(count(grey, "class=\"frontier\""), front->size());
}

}  // namespace
TEST(NasReport, PartialFinalAccuracyGivesAReferenceFrontier) {
  // A training oracle knows only the networks it trained: NaN elsewhere. The report judges
  // against the frontier of the known networks and says so everywhere it says "frontier".
  const nas::SpaceTable space = test::make_test_nas_space(64);
  const std::vector<double> full = test::make_test_final_accuracy(space);
  std::vector<double> acc(full.size(), std::nan(""));
  const std::vector<int64_t> trained{1, 2, 7, 9, 20, 33, 40};
  for (int64_t i : trained) acc[i] = full[i];
  const auto a = test::make_test_run(space, acc, nas::StrategyKind::kRandom, 0, {1, 2, 7, 9});
  const auto b = test::make_test_run(space, acc, nas::StrategyKind::kRandom, 1, {20, 33, 40, 2});
  auto in = report::make_nas_report_input(space, acc, {a, b});
  ASSERT_TRUE(in.has_value()) << in.status().message();
  EXPECT_EQ(in->final_known_networks, 7);
  EXPECT_FALSE(in->true_frontier.empty());
  for (int64_t i : in->true_frontier) EXPECT_FALSE(std::isnan(acc[i])) << i;
  ASSERT_TRUE(in->runs[0].score.has_value());
  EXPECT_LE(in->runs[0].score->hypervolume_ratio, 1.0 + 1e-12);
  // Both runs together evaluated every known network: the union reaches the reference.
  ASSERT_TRUE(in->utilization_accuracy_spearman.has_value());
  EXPECT_EQ(in->correlation_networks, 7);
  const std::string html = report::nas_report_html(*in);
  EXPECT_NE(html.find("Reference frontier"), std::string::npos);
  EXPECT_NE(html.find("known for 7 of the 64 networks"), std::string::npos);
  EXPECT_NE(html.find("Utilization vs accuracy"), std::string::npos);
  EXPECT_EQ(html.find("true accuracy-throughput frontier"), std::string::npos);
}

}  // namespace rooflens
