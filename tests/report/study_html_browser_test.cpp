// Renders the study HTML report in headless Chromium: the page must load without script or
// console errors, draw every figure with one mark per model, one arrow per fold, keep a
// tricky model name intact, sort its table on a header click, and leave a screenshot
// (study.png beside study.html in the build tree) for a person to look at.
// Skips, saying why, when no Chromium is installed (scripts/install-deps.sh installs it).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "rooflens/report/study_html.h"
#include "study_fixture.h"

namespace rooflens {
namespace {

namespace fs = std::filesystem;

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write_file(const fs::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary);
  out << text;
}

// The first of ROOFLENS_CHROMIUM, chromium, chromium-browser, google-chrome on PATH.
std::string find_chromium() {
  if (const char* e = std::getenv("ROOFLENS_CHROMIUM"); e && *e) return e;
  for (const char* name : {"chromium", "chromium-browser", "google-chrome"}) {
    const std::string cmd = std::string("command -v ") + name + " >/dev/null 2>&1";
    if (std::system(cmd.c_str()) == 0) return name;
  }
  return "";
}

size_t count(const std::string& hay, const std::string& needle) {
  size_t n = 0;
  for (size_t p = hay.find(needle); p != std::string::npos; p = hay.find(needle, p + needle.size())) ++n;
  return n;
}

// The serialized <svg id="..."> element (empty when absent).
std::string svg_element(const std::string& dom, const std::string& id) {
  const size_t b = dom.find("<svg id=\"" + id + "\"");
  if (b == std::string::npos) return "";
  const size_t e = dom.find("</svg>", b);
  return e == std::string::npos ? "" : dom.substr(b, e - b);
}

class StudyHtmlBrowser : public ::testing::Test {
 protected:
  void SetUp() override {
    chromium_ = find_chromium();
    if (chromium_.empty())
      GTEST_SKIP() << "no Chromium found (chromium, chromium-browser or google-chrome on PATH, or ROOFLENS_CHROMIUM); "
                      "install it with scripts/install-deps.sh to run the browser check of the study report";
    out_ = fs::path(ROOFLENS_REPORT_TEST_OUT);
    fs::create_directories(out_);
    // One profile per test: ctest -j runs these tests at the same time.
    profile_ =
        out_ / (std::string("chromium-profile-") + ::testing::UnitTest::GetInstance()->current_test_info()->name());
  }

  // Runs Chromium headless on a file; returns its exit status. stdout and stderr go to files.
  int chromium(const std::string& args, const fs::path& html, const fs::path& stdout_path,
               const fs::path& stderr_path) {
    fs::remove_all(profile_);
    const std::string cmd = "timeout 120 " + chromium_ +
                            " --headless --no-sandbox --disable-gpu --no-first-run --disable-extensions"
                            " --hide-scrollbars --user-data-dir='" +
                            profile_.string() + "' --enable-logging=stderr --v=0 " + args + " 'file://" +
                            fs::absolute(html).string() + "' >'" + stdout_path.string() + "' 2>'" +
                            stderr_path.string() + "'";
    return std::system(cmd.c_str());
  }

  // The page's console messages as Chromium logs them (INFO:CONSOLE lines on stderr).
  static std::string console_lines(const std::string& err) {
    std::string out, line;
    std::istringstream in(err);
    while (std::getline(in, line))
      if (line.find(":CONSOLE") != std::string::npos) out += line + "\n";
    return out;
  }

  std::string chromium_;
  fs::path out_, profile_;
};

TEST_F(StudyHtmlBrowser, LoadsWithoutErrorsAndDrawsEveryMark) {
  const Study s = test::make_test_study();
  const fs::path html = out_ / "study.html";
  write_file(html, report::study_html(s));
  for (const auto& [id, svg] : report::study_svgs(s)) write_file(out_ / (id + ".svg"), svg);  // to look at
  ASSERT_EQ(chromium("--dump-dom", html, out_ / "study.dom.html", out_ / "study.dom.err"), 0)
      << read_file(out_ / "study.dom.err");
  const std::string dom = read_file(out_ / "study.dom.html");
  const std::string err = read_file(out_ / "study.dom.err");
  ASSERT_FALSE(dom.empty()) << err;

  // Script errors: the page's own hook records them on <html>; Chromium logs console output.
  EXPECT_NE(dom.find("data-report-ready=\"1\""), std::string::npos) << "the page script did not run to the end";
  EXPECT_EQ(dom.find(" data-js-errors=\""), std::string::npos) << dom.substr(0, 2000);
  EXPECT_EQ(console_lines(err), "") << "console messages from the page";

  size_t with_acc = 0;
  for (const auto& m : s.models)
    if (m.acc1) ++with_acc;
  ASSERT_LT(with_acc, s.models.size());  // the fixture has a model without accuracy
  const std::pair<const char*, size_t> figs[] = {{"fig1a", s.models.size()},
                                                 {"fig1b", with_acc},
                                                 {"fig1c", with_acc},
                                                 {"fig2a", with_acc},
                                                 {"fig2b", s.models.size()}};
  for (const auto& [id, n] : figs) {
    const std::string svg = svg_element(dom, id);
    ASSERT_FALSE(svg.empty()) << id << " missing";
    EXPECT_EQ(count(svg, "class=\"pt\""), n) << id;
  }
  const std::string f2b = svg_element(dom, "fig2b");
  EXPECT_EQ(count(f2b, "class=\"fold-arrow\""), s.folds.size());
  EXPECT_EQ(count(f2b, "class=\"pt-folded\""), s.folds.size());
  EXPECT_FALSE(svg_element(dom, "fig-ai-hist").empty());

  // The tricky name survives as text: no element was made of it, one mark per plot.
  EXPECT_EQ(dom.find("</net>"), std::string::npos);
  EXPECT_EQ(count(svg_element(dom, "fig1a"), "data-model=\"evil"), 1u);
  EXPECT_NE(dom.find("evil&lt;net&gt; &amp; \"co\", x</td>"), std::string::npos);
  // Every model has a table row.
  const size_t tb = dom.find("<table id=\"models-table\"");
  ASSERT_NE(tb, std::string::npos);
  EXPECT_EQ(count(dom.substr(tb, dom.find("</table>", tb) - tb), "<tr data-model="), s.models.size());

  // Screenshot for a person to look at.
  const fs::path png = out_ / "study.png";
  fs::remove(png);
  EXPECT_EQ(chromium("--screenshot='" + png.string() + "' --window-size=1400,4200", html, out_ / "shot.out",
                     out_ / "shot.err"),
            0)
      << read_file(out_ / "shot.err");
  ASSERT_TRUE(fs::exists(png)) << read_file(out_ / "shot.err");
  EXPECT_GT(fs::file_size(png), 20000u);
  std::cout << "[ report ] screenshot: " << png.string() << "\n";
}

// A zoo-sized study (110 models, one fold per model below the CMR): still no errors, every
// mark drawn, and a screenshot (study_large.png) to judge the clutter.
TEST_F(StudyHtmlBrowser, LargeStudyRendersEveryMark) {
  const Study s = test::make_large_test_study(110);
  const fs::path html = out_ / "study_large.html";
  write_file(html, report::study_html(s));
  for (const auto& [id, svg] : report::study_svgs(s)) write_file(out_ / ("large_" + id + ".svg"), svg);
  ASSERT_EQ(chromium("--dump-dom", html, out_ / "large.dom.html", out_ / "large.dom.err"), 0);
  const std::string dom = read_file(out_ / "large.dom.html");
  EXPECT_NE(dom.find("data-report-ready=\"1\""), std::string::npos);
  EXPECT_EQ(dom.find(" data-js-errors=\""), std::string::npos);
  EXPECT_EQ(console_lines(read_file(out_ / "large.dom.err")), "");
  EXPECT_EQ(count(svg_element(dom, "fig1a"), "class=\"pt\""), s.models.size());
  EXPECT_EQ(count(svg_element(dom, "fig2b"), "class=\"fold-arrow\""), s.folds.size());
  const fs::path png = out_ / "study_large.png";
  fs::remove(png);
  EXPECT_EQ(chromium("--screenshot='" + png.string() + "' --window-size=1400,4200", html, out_ / "shot_large.out",
                     out_ / "shot_large.err"),
            0);
  EXPECT_TRUE(fs::exists(png));
}

// The error detection itself: a page with a failing script must be caught by both the
// page's hook (data-js-errors on <html>) and Chromium's console log.
TEST_F(StudyHtmlBrowser, DetectsAScriptError) {
  std::string page = report::study_html(test::make_test_study());
  const size_t at = page.rfind("</body>");
  ASSERT_NE(at, std::string::npos);
  page.replace(at, 7, "<script>undefinedFunctionForTheTest();</script></body>");
  const fs::path html = out_ / "study_broken.html";
  write_file(html, page);
  ASSERT_EQ(chromium("--dump-dom", html, out_ / "broken.dom.html", out_ / "broken.dom.err"), 0);
  const std::string dom = read_file(out_ / "broken.dom.html");
  EXPECT_NE(dom.find(" data-js-errors=\"1\""), std::string::npos) << dom.substr(0, 600);
  EXPECT_NE(dom.find("undefinedFunctionForTheTest"), std::string::npos);
  EXPECT_NE(console_lines(read_file(out_ / "broken.dom.err")).find("undefinedFunctionForTheTest"), std::string::npos);
}

TEST_F(StudyHtmlBrowser, TableSortsOnHeaderClick) {
  const Study s = test::make_test_study();
  std::string page = report::study_html(s);
  // Click the throughput header twice; after each click the column must be ordered.
  const std::string probe = R"(<script>
(function () {
  var t = document.getElementById('models-table');
  var heads = t.tHead.rows[0].cells, col = -1;
  for (var i = 0; i < heads.length; i++) if (heads[i].getAttribute('data-key') === 'throughput') col = i;
  function values() {
    var v = [];
    for (var r = 0; r < t.tBodies[0].rows.length; r++) v.push(parseFloat(t.tBodies[0].rows[r].cells[col].getAttribute('data-v')));
    return v;
  }
  function ordered(v, asc) { for (var i = 1; i < v.length; i++) if (asc ? v[i] < v[i-1] : v[i] > v[i-1]) return false; return true; }
  heads[col].click();
  var a = ordered(values(), true);
  heads[col].click();
  var d = ordered(values(), false);
  document.documentElement.setAttribute('data-sort-check', (a && d) ? 'ok' : 'bad:' + values().join(','));
})();
</script>
</body>)";
  const size_t at = page.rfind("</body>");
  ASSERT_NE(at, std::string::npos);
  page.replace(at, 7, probe);
  const fs::path html = out_ / "study_sort_probe.html";
  write_file(html, page);
  ASSERT_EQ(chromium("--dump-dom", html, out_ / "sort.dom.html", out_ / "sort.dom.err"), 0);
  const std::string dom = read_file(out_ / "sort.dom.html");
  EXPECT_NE(dom.find("data-sort-check=\"ok\""), std::string::npos) << dom.substr(0, 600);
  EXPECT_EQ(dom.find(" data-js-errors=\""), std::string::npos);
  EXPECT_EQ(console_lines(read_file(out_ / "sort.dom.err")), "");
}

}  // namespace
}  // namespace rooflens
