// fleet --format html (app/render/fleet_html.h): what the page says, and that every string from a
// report is escaped. The page in a browser is tests/html/fleet_html_chromium_test.py.
#include <gtest/gtest.h>

#include "app/render/fleet_html.h"

namespace cudnnup {
namespace {

ReportReading host(const std::string& name, const std::string& version, int errors = 0) {
  ReportReading r;
  r.summary.host = name;
  r.summary.loads = {FleetLoadedCopy{version, 13, PackageForm::kPipWheel}};
  r.summary.errors = errors;
  if (errors) r.summary.error_ids = {"cudnn.library_damaged"};
  return r;
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(FleetHtml, NamesTheGroupsTheHostsThatDifferAndTheReportsNotCounted) {
  FleetReducer fleet(FleetLockTarget{"proj/cudnn.lock", "9.19.0.56", 13});
  fleet.add("a.json", host("node01", "9.19.0"));
  fleet.add("b.json", host("node02", "9.19.0"));
  fleet.add("c.json", host("node03", "9.14.0", 1));
  fleet.add_problem("<img src=x onerror=alert(1)>.json", ReportProblem::kMalformed, "not JSON: \"<b>\"");
  std::string page = render_fleet_html(std::move(fleet).finish(), "2026-12-04 02:10 UTC");
  EXPECT_NE(page.find("<h1>cuDNN on 3 hosts</h1>"), std::string::npos);
  EXPECT_NE(page.find("cuDNN 9.19.0 for CUDA 13 (pip) <span class=\"dim\">(the majority)</span>"), std::string::npos);
  EXPECT_NE(page.find("id=\"differing\""), std::string::npos);
  EXPECT_NE(page.find("id=\"lock\""), std::string::npos) << "node03 loads another version than the lock";
  EXPECT_NE(page.find("1 host loads something other than what proj/cudnn.lock (cuDNN 9.19.0.56 for CUDA 13) names"),
            std::string::npos);
  EXPECT_NE(page.find("cudnn.library_damaged"), std::string::npos);
  EXPECT_NE(page.find("&lt;img src=x onerror=alert(1)&gt;.json"), std::string::npos) << "a file name is text";
  EXPECT_NE(page.find("not JSON: &quot;&lt;b&gt;&quot;"), std::string::npos);
  EXPECT_EQ(page.find("<img"), std::string::npos);
  EXPECT_EQ(page.find("<script"), std::string::npos);
  EXPECT_NE(page.find("default-src 'none'"), std::string::npos);
  EXPECT_NE(page.find("<svg"), std::string::npos) << "the bar chart of the groups";
}

TEST(FleetHtml, AHealthyFleetSaysSoAndHasNoDriftSections) {
  FleetReducer fleet;
  fleet.add("a.json", host("node01", "9.19.0"));
  fleet.add("b.json", host("node02", "9.19.0"));
  std::string page = render_fleet_html(std::move(fleet).finish(), "");
  EXPECT_NE(page.find("every host loads cuDNN 9.19.0 for CUDA 13 (pip)"), std::string::npos);
  EXPECT_EQ(page.find("id=\"differing\""), std::string::npos);
  EXPECT_EQ(page.find("id=\"errors\""), std::string::npos);
  EXPECT_EQ(page.find("id=\"problems\""), std::string::npos);
  EXPECT_EQ(page.find("id=\"lock\""), std::string::npos);
  EXPECT_EQ(count(page, "mark bad"), 0u);
}

TEST(FleetHtml, ThousandsOfHostsAreListedUpToALimitAndCounted) {
  FleetReducer fleet;
  for (int i = 0; i < 1000; ++i) fleet.add("h" + std::to_string(i) + ".json", host("n" + std::to_string(10000 + i), "9.19.0"));
  for (int i = 0; i < 500; ++i) fleet.add("o" + std::to_string(i) + ".json", host("o" + std::to_string(10000 + i), "9.14.0"));
  std::string page = render_fleet_html(std::move(fleet).finish(), "");
  EXPECT_NE(page.find("500 hosts differ from the majority"), std::string::npos);
  EXPECT_NE(page.find("and 300 more"), std::string::npos) << "the differing table lists 200 of 500";
  EXPECT_LT(page.size(), size_t{1} << 20) << "a page for 1,500 hosts stays small";
}

TEST(FleetHtml, ManyGroupsShareTheLastBar) {
  FleetReducer fleet;
  for (int i = 0; i < 20; ++i) fleet.add(std::to_string(i) + ".json", host("n" + std::to_string(i), "9." + std::to_string(i) + ".0"));
  std::string page = render_fleet_html(std::move(fleet).finish(), "");
  EXPECT_EQ(count(page, "<rect "), 13u) << "12 groups, then one bar for the rest";
  EXPECT_NE(page.find("8 more groups"), std::string::npos);
}

}  // namespace
}  // namespace cudnnup
