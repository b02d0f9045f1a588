// The study report formats: rooflens.study/1 JSON, CSV, summary text, and the HTML page's
// structure without a browser (tests/report checks it in Chromium).
#include <gtest/gtest.h>

#include <regex>
#include <sstream>

#include "../report/study_fixture.h"
#include "rooflens/report/study_html.h"
#include "rooflens/report/study_report.h"
#include "rooflens/report/svg_plot.h"

namespace rooflens {
namespace {

size_t count(const std::string& hay, const std::string& needle) {
  size_t n = 0;
  for (size_t p = hay.find(needle); p != std::string::npos; p = hay.find(needle, p + needle.size())) ++n;
  return n;
}

std::string svg_element(const std::string& html, const std::string& id) {
  const size_t b = html.find("<svg id=\"" + id + "\"");
  if (b == std::string::npos) return "";
  return html.substr(b, html.find("</svg>", b) - b);
}

size_t models_with_accuracy(const Study& s) {
  size_t n = 0;
  for (const auto& m : s.models) n += m.acc1.has_value();
  return n;
}

TEST(StudyReport, JsonHasSchemaEveryModelAndNamedFrontiers) {
  const Study s = test::make_test_study();
  const nlohmann::json j = report::study_json(s);
  EXPECT_EQ(j["schema"], "rooflens.study/1");
  EXPECT_EQ(j["source"], "predicted");
  EXPECT_EQ(j["device"]["id"], s.device_id);
  EXPECT_EQ(j["batch"], "max");
  EXPECT_DOUBLE_EQ(j["cmr"].get<double>(), s.cmr);
  EXPECT_DOUBLE_EQ(j["peak_flops_measured"].get<double>(), 100e12);
  ASSERT_EQ(j["models"].size(), s.models.size());
  for (size_t i = 0; i < s.models.size(); ++i) EXPECT_EQ(j["models"][i]["name"], s.models[i].name);
  // The model without accuracy: nulls, and on no accuracy frontier.
  const auto& custom = j["models"][7];
  ASSERT_EQ(custom["name"], "custom_net");
  EXPECT_TRUE(custom["acc1"].is_null());
  EXPECT_TRUE(custom["acc5"].is_null());
  for (const auto& f : custom["frontiers"]) EXPECT_EQ(std::string(f).rfind("acc", 0), std::string::npos);
  EXPECT_EQ(j["models"][0]["layers"].size(), s.models[0].layers.size());
  EXPECT_FALSE(report::study_json(s, false)["models"][0].contains("layers"));
  // Frontiers as names, in the study's order.
  ASSERT_EQ(j["frontiers"]["all_three"].size(), s.frontiers.all_three.size());
  for (size_t k = 0; k < s.frontiers.acc_throughput.size(); ++k)
    EXPECT_EQ(j["frontiers"]["acc_throughput"][k], s.models[s.frontiers.acc_throughput[k]].name);
  ASSERT_EQ(j["folds"].size(), 2u);
  EXPECT_EQ(j["folds"][0]["factor"], 4);
  EXPECT_EQ(j["frontier_after_fold"].size(), s.frontier_after_fold.size());
  EXPECT_EQ(j["units"]["throughput"], "images/s");
  // Round-trips through text (the tricky name included).
  const auto again = nlohmann::json::parse(j.dump());
  EXPECT_EQ(again["models"][6]["name"], test::kTrickyName);
}

TEST(StudyReport, CsvHasUnitsInHeaderAndOneQuotedRowPerModel) {
  const Study s = test::make_test_study();
  const std::string csv = report::study_csv(s);
  std::istringstream in(csv);
  std::string header, line;
  std::getline(in, header);
  for (const char* h :
       {"throughput (img/s)", "acc@1 (%)", "utilization datasheet peak (%)", "utilization measured peak (%)",
        "AI (FLOP/B)", "params (M)", "MACs/image (G)", "batch (images)"})
    EXPECT_NE(header.find(h), std::string::npos) << h;
  std::vector<std::string> rows;
  while (std::getline(in, line)) rows.push_back(line);
  ASSERT_EQ(rows.size(), s.models.size());
  EXPECT_EQ(rows[0].rfind("resnet50,80.40,96.40,256,256,2600.0,", 0), 0u) << rows[0];
  // RFC 4180: the name with a comma and quotes is quoted, quotes doubled.
  EXPECT_EQ(rows[6].rfind("\"evil<net> & \"\"co\"\", x\",75.00,", 0), 0u) << rows[6];
  // Missing accuracy leaves empty cells.
  EXPECT_EQ(rows[7].rfind("custom_net,,,", 0), 0u) << rows[7];
  // Every row has as many cells as the header (counting commas outside quotes).
  auto cells = [](const std::string& r) {
    size_t n = 1;
    bool q = false;
    for (char c : r) {
      if (c == '"')
        q = !q;
      else if (c == ',' && !q)
        ++n;
    }
    return n;
  };
  for (const auto& r : rows) EXPECT_EQ(cells(r), cells(header)) << r;
}

TEST(StudyReport, SummaryNamesSourceFrontiersAndFolds) {
  const Study s = test::make_test_study();
  const std::string t = report::study_summary_text(s);
  EXPECT_NE(t.find("Study of 10 models on NVIDIA V100 SXM2 16GB"), std::string::npos) << t;
  EXPECT_NE(t.find("predicted by the rooflens performance model"), std::string::npos) << t;
  EXPECT_NE(t.find("CMR 138.9 FLOP/B"), std::string::npos) << t;
  EXPECT_NE(t.find("9 of 10 models have top-1 accuracy (from models/zoo.json)"), std::string::npos) << t;
  ASSERT_FALSE(s.frontiers.all_three.empty());
  EXPECT_NE(t.find("On all three frontiers: " + s.models[s.frontiers.all_three[0]].name), std::string::npos) << t;
  EXPECT_NE(t.find("Folded (FoldedCNN, f = 4): 2 models"), std::string::npos) << t;
  Study m = s;
  m.source = StudySource::kMeasurements;
  m.source_detail = "timm-benchmark.csv";
  EXPECT_NE(report::study_summary_text(m).find("taken from a measurements file (timm-benchmark.csv)"),
            std::string::npos);
}

TEST(StudyReport, HtmlIsSelfContainedWithOneMarkPerModelAndEscapedNames) {
  const Study s = test::make_test_study();
  const std::string h = report::study_html(s);
  // Nothing fetched: the only URL is the SVG namespace.
  EXPECT_EQ(count(h, "http"), count(h, "http://www.w3.org/2000/svg")) << "external reference";
  for (const char* bad : {"<link", " src=", "@import", "url(", "<img", "<iframe"})
    EXPECT_EQ(h.find(bad), std::string::npos) << bad;
  // The name is escaped everywhere it appears.
  EXPECT_EQ(h.find("<net>"), std::string::npos);
  EXPECT_EQ(h.find("\"co\""), std::string::npos);
  EXPECT_NE(h.find("evil&lt;net&gt; &amp; &quot;co&quot;, x"), std::string::npos);
  const size_t acc = models_with_accuracy(s);
  EXPECT_EQ(count(svg_element(h, "fig1a"), "class=\"pt\""), s.models.size());
  EXPECT_EQ(count(svg_element(h, "fig1b"), "class=\"pt\""), acc);
  EXPECT_EQ(count(svg_element(h, "fig1c"), "class=\"pt\""), acc);
  EXPECT_EQ(count(svg_element(h, "fig2a"), "class=\"pt\""), acc);
  EXPECT_EQ(count(svg_element(h, "fig2b"), "class=\"pt\""), s.models.size());
  EXPECT_EQ(count(svg_element(h, "fig2b"), "class=\"fold-arrow\""), s.folds.size());
  // Every mark has hover text naming its model.
  const std::string f1 = svg_element(h, "fig1a");
  EXPECT_EQ(count(f1, "<title>resnet50\n"), 1u);
  // The source is in the header and in every plot's subtitle.
  for (const char* id : {"fig1a", "fig1b", "fig1c", "fig2a", "fig2b"})
    EXPECT_NE(svg_element(h, id).find("predicted by the rooflens performance model"), std::string::npos) << id;
  EXPECT_NE(h.find("1 model without accuracy is left out of (b) and (c)"), std::string::npos);
  EXPECT_NE(h.find("@media print"), std::string::npos);
  EXPECT_EQ(count(h, "<tr data-model="), s.models.size() + s.folds.size());  // models table + folds table
}

TEST(StudyReport, HtmlCopesWithAnEmptyStudyAndNoFolds) {
  Study s;
  s.device_name = "nothing";
  s.dtype = "fp32";
  s.batch_spec = "1";
  s.cmr = 10;
  const std::string h = report::study_html(s);
  for (const char* id : {"fig1a", "fig1b", "fig1c", "fig2a", "fig2b", "fig-ai-hist"})
    EXPECT_FALSE(svg_element(h, id).empty()) << id;
  EXPECT_FALSE(std::regex_search(h, std::regex("\\b(nan|inf)\\b"))) << "a non-finite number was written";
  EXPECT_NE(h.find("No model was folded"), std::string::npos);
  EXPECT_EQ(report::study_json(s)["models"].size(), 0u);
  EXPECT_EQ(report::study_csv(s).find('\n'), report::study_csv(s).size() - 1);  // header only
}

TEST(SvgPlot, NumbersEscapingAndAxes) {
  EXPECT_EQ(report::compact_number(1200), "1.2k");
  EXPECT_EQ(report::compact_number(10000), "10k");
  EXPECT_EQ(report::compact_number(2e6), "2M");
  EXPECT_EQ(report::compact_number(0.25), "0.25");
  EXPECT_EQ(report::compact_number(72.5), "72.5");
  EXPECT_EQ(report::si_number(125e12, "FLOP/s"), "125 TFLOP/s");
  EXPECT_EQ(report::si_number(900e9, "B/s"), "900 GB/s");
  EXPECT_EQ(report::xml_escape("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&#39;");

  report::SvgPlot p("t", 600, 400);
  p.x_axis().label = "throughput (images/s)";
  p.x_axis().scale = report::AxisScale::kLog;
  p.y_axis().label = "utilization (%)";
  p.y_axis().tick_factor = 100;
  p.y_axis().tick_suffix = "%";
  p.y_axis().include_zero = true;
  p.point(1000, 0.1, {}, "a<1>", "pt", {{"data-model", "a\"1"}});
  p.point(50000, 0.4, {}, "b", "pt");
  p.arrow(1000, 0.1, 2000, 0.3, {}, "fold", "fold-arrow");
  p.label(50000, 0.4, "b & c");
  p.legend_marker({}, "model");
  const std::string svg = p.render();
  EXPECT_EQ(svg.rfind("<svg id=\"t\"", 0), 0u);
  EXPECT_EQ(count(svg, "class=\"pt\""), 2u);
  EXPECT_EQ(count(svg, "class=\"fold-arrow\""), 1u);
  EXPECT_NE(svg.find(">1k</text>"), std::string::npos);
  EXPECT_NE(svg.find(">10k</text>"), std::string::npos);
  EXPECT_NE(svg.find(">0%</text>"), std::string::npos);
  EXPECT_NE(svg.find("throughput (images/s), log scale"), std::string::npos);
  EXPECT_NE(svg.find("<title>a&lt;1&gt;</title>"), std::string::npos);
  EXPECT_NE(svg.find("data-model=\"a&quot;1\""), std::string::npos);
  EXPECT_NE(svg.find(">b &amp; c</text>"), std::string::npos);
  EXPECT_FALSE(std::regex_search(svg, std::regex("\\b(nan|inf)\\b")));
}

}  // namespace
}  // namespace rooflens
