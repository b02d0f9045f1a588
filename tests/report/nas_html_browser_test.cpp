// Renders the NAS report (report/nas_report.h) of the made-up fixture (nas_fixture.h, the
// whole 32768-network space) in headless Chromium: the DOM must hold every figure with its
// marks and both tables, the console must stay quiet, and a screenshot (nas.png beside
// nas.html in <build>/tests/report/) is left for a person to look at. Skips, saying why,
// when no Chromium is installed.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "nas_fixture.h"
#include "rooflens/report/nas_report.h"

namespace rooflens {
namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void spill(const fs::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary);
  out << text;
}

std::string chromium_binary() {
  if (const char* e = std::getenv("ROOFLENS_CHROMIUM"); e && *e) return e;
  for (const char* name : {"chromium", "chromium-browser", "google-chrome"}) {
    const std::string cmd = std::string("command -v ") + name + " >/dev/null 2>&1";
    if (std::system(cmd.c_str()) == 0) return name;
  }
  return "";
}

size_t occurrences(const std::string& hay, const std::string& needle) {
  size_t n = 0;
  for (size_t p = hay.find(needle); p != std::string::npos; p = hay.find(needle, p + needle.size())) ++n;
  return n;
}

std::string svg_in(const std::string& dom, const std::string& id) {
  const size_t b = dom.find("<svg id=\"" + id + "\"");
  if (b == std::string::npos) return "";
  const size_t e = dom.find("</svg>", b);
  return e == std::string::npos ? "" : dom.substr(b, e - b);
}

TEST(NasHtmlBrowser, RendersEveryFigureAndLeavesAScreenshot) {
  const std::string chromium = chromium_binary();
  if (chromium.empty())
    GTEST_SKIP() << "no Chromium found (chromium, chromium-browser or google-chrome on PATH, or ROOFLENS_CHROMIUM); "
                    "install it with scripts/install-deps.sh to run the browser check of the NAS report";
  const fs::path out = fs::path(ROOFLENS_REPORT_TEST_OUT);
  fs::create_directories(out);
  const fs::path profile = out / "chromium-profile-nas";

  const nas::SpaceTable space = test::make_test_nas_space();
  const std::vector<double> acc = test::make_test_final_accuracy(space);
  auto in = report::make_nas_report_input(space, acc, test::make_test_nas_runs(space, acc));
  ASSERT_TRUE(in.has_value()) << in.status().message();
  in->oracle = "FIXTURE: made-up accuracy";
  in->device = "FIXTURE device";
  in->budget = "FIXTURE budget";
  in->notes = {"All numbers in this report are a made-up test fixture."};
  const fs::path html = out / "nas.html";
  spill(html, report::nas_report_html(*in));
  for (const auto& [name, svg] : report::nas_report_svgs(*in)) spill(out / ("nas_" + name), svg);

  auto run = [&](const std::string& args, const std::string& tag) {
    fs::remove_all(profile);
    const std::string cmd = "timeout 120 " + chromium +
                            " --headless --no-sandbox --disable-gpu --no-first-run --disable-extensions"
                            " --hide-scrollbars --user-data-dir='" +
                            profile.string() + "' --enable-logging=stderr --v=0 " + args + " 'file://" +
                            fs::absolute(html).string() + "' >'" + (out / (tag + ".out")).string() + "' 2>'" +
                            (out / (tag + ".err")).string() + "'";
    return std::system(cmd.c_str());
  };
  ASSERT_EQ(run("--dump-dom", "nas.dom"), 0) << slurp(out / "nas.dom.err");
  const std::string dom = slurp(out / "nas.dom.out");
  ASSERT_FALSE(dom.empty());
  std::string console;
  {
    std::istringstream err(slurp(out / "nas.dom.err"));
    for (std::string line; std::getline(err, line);)
      if (line.find(":CONSOLE") != std::string::npos) console += line + "\n";
  }
  EXPECT_EQ(console, "") << "console messages from the page";

  const std::string fig3 = svg_in(dom, "fig3");
  ASSERT_FALSE(fig3.empty());
  EXPECT_EQ(occurrences(fig3, "class=\"frontier\""), in->space_frontier.size());
  EXPECT_FALSE(svg_in(dom, "fig5-filter-seed0").empty());
  for (int s = 0; s < 9; ++s) {
    const std::string panel = svg_in(dom, "fig6-reinforce-soft-seed" + std::to_string(s));
    ASSERT_FALSE(panel.empty()) << s;
    EXPECT_EQ(occurrences(panel, "class=\"true-frontier\""), 1u);
    EXPECT_EQ(occurrences(panel, "class=\"found\""), in->runs[1 + s].found_frontier.size());
  }
  EXPECT_NE(dom.find("<table id=\"nas-summary-table\">"), std::string::npos);
  EXPECT_NE(dom.find("<table id=\"nas-runs-table\">"), std::string::npos);

  const fs::path png = out / "nas.png";
  fs::remove(png);
  EXPECT_EQ(run("--screenshot='" + png.string() + "' --window-size=1400,2600", "nas.shot"), 0)
      << slurp(out / "nas.shot.err");
  ASSERT_TRUE(fs::exists(png));
  EXPECT_GT(fs::file_size(png), 20000u);
  std::cout << "[ report ] screenshot: " << png.string() << "\n";
}

}  // namespace
}  // namespace rooflens
