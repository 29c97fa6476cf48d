// End-to-end: `cudnnup fleet` over real `cudnnup --json doctor` reports of fixture machines (stub
// cuDNN 9.19 or 9.14 first on LD_LIBRARY_PATH), copied as many hosts, with the broken reports a
// real gathering produces (empty, cut short, two hosts' outputs in one file, a duplicate host), a
// lock to compare with, and the HTML page. Bad arguments are exit 2 with nothing on stdout.
#if CUDNNUP_HAVE_INSTALL

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

#include "platform/process.h"
#include "support/fixture_libs.h"
#include "support/run_cli.h"

namespace cudnnup {
namespace {

namespace stdfs = std::filesystem;
using namespace cudnnup::testing;
using nlohmann::json;

class FleetCli : public ::testing::Test {
 protected:
  void SetUp() override {
    make_dirs(tmp / "home");
    make_dirs(tmp / "reports");
    install_stub_set("v9.19.0", tmp / "new/lib");
    install_stub_set("v9.14.0", tmp / "old/lib");
    healthy = doctor_of(tmp / "new/lib");
    drifted = doctor_of(tmp / "old/lib");
  }

  // This machine's doctor report with `lib_dir` first on LD_LIBRARY_PATH.
  json doctor_of(const std::string& lib_dir) {
    auto r = cli({"--json", "doctor"}, {{"LD_LIBRARY_PATH", lib_dir}});
    EXPECT_TRUE(r.json.is_object()) << r.out << r.err;
    return r.json;
  }
  CliResult cli(const std::vector<std::string>& args, std::map<std::string, std::string> extra = {}) {
    std::map<std::string, std::string> env = {{"HOME", tmp / "home"}, {"PATH", "/usr/bin:/bin"},
                                              {"CUDNNUP_HOME", tmp / "store"}, {"NO_COLOR", "1"}};
    for (auto& [k, v] : extra) env[k] = v;
    return run_cli(args, env, tmp.path());
  }
  // `report` as host `host`, saved as reports/FILE.
  void save(const std::string& file, json report, const std::string& host) {
    report["host"] = host;
    write_text(tmp / ("reports/" + file), report.dump(2));
  }
  std::string reports() const { return tmp / "reports"; }

  TempDir tmp;
  json healthy, drifted;
};

TEST_F(FleetCli, GroupsRealReportsAndListsEveryBrokenOne) {
  for (int i = 1; i <= 6; ++i) save("node0" + std::to_string(i) + ".json", healthy, "node0" + std::to_string(i));
  save("node07.json", drifted, "node07");
  save("zz-node01-again.json", drifted, "node01");  // a second report for node01, read later: not counted
  write_text(reports() + "/empty.json", "");
  std::string whole = healthy.dump();
  write_text(reports() + "/cut.json", whole.substr(0, whole.size() / 2));
  write_text(reports() + "/twice.json", whole + "\n" + whole);
  write_text(reports() + "/notes.txt", "not a report: ignored, it is not *.json");

  auto r = cli({"--json", "fleet", reports()});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  ASSERT_TRUE(r.json.is_object()) << r.out;
  EXPECT_EQ(r.json["schema"], "cudnnup.fleet/1");
  EXPECT_EQ(r.json["summary"]["reports"], 11);
  EXPECT_EQ(r.json["summary"]["hosts"], 7);
  ASSERT_EQ(r.json["groups"].size(), 2u) << r.out;
  EXPECT_EQ(r.json["groups"][0]["hosts"].size(), 6u);
  EXPECT_EQ(r.json["groups"][0]["majority"], true);
  EXPECT_NE(r.json["groups"][0]["label"].get<std::string>().find("9.19.0"), std::string::npos) << r.out;
  ASSERT_EQ(r.json["differing_hosts"].size(), 1u);
  EXPECT_EQ(r.json["differing_hosts"][0]["host"], "node07");
  EXPECT_NE(r.json["differing_hosts"][0]["loads"].get<std::string>().find("9.14.0"), std::string::npos);
  std::map<std::string, std::string> kinds;
  for (const auto& p : r.json["problems"]) kinds[stdfs::path(p["files"][0].get<std::string>()).filename()] = p["kind"];
  EXPECT_EQ(kinds["empty.json"], "empty");
  EXPECT_EQ(kinds["cut.json"], "truncated");
  EXPECT_EQ(kinds["twice.json"], "malformed");
  EXPECT_EQ(kinds["node01.json"], "duplicate") << "the duplicate names the counted file first";
  EXPECT_EQ(kinds.size(), 4u) << r.out;

  auto text = cli({"fleet", reports()});
  EXPECT_EQ(text.exit_code, 1);
  EXPECT_NE(text.out.find("Differ from the majority: 1 host"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("node07"), std::string::npos);
  EXPECT_NE(text.out.find("Reports not counted: 4"), std::string::npos) << text.out;
}

TEST_F(FleetCli, AnAgreeingHealthyFleetExitsZero) {
  save("a.json", healthy, "a");
  save("b.json", healthy, "b");
  auto r = cli({"fleet", reports() + "/a.json", reports() + "/b.json"});
  // This machine's own report may carry error-level findings (no driver is a warning, not an
  // error); the fleet is healthy exactly when the report is.
  int expected = healthy["summary"]["errors"].get<int>() > 0 ? 1 : 0;
  EXPECT_EQ(r.exit_code, expected) << r.out << r.err;
  EXPECT_NE(r.out.find("2 hosts counted, 1 group"), std::string::npos) << r.out;
}

TEST_F(FleetCli, ALockListsTheHostsThatLoadAnotherVersion) {
  save("a.json", drifted, "a");
  save("b.json", drifted, "b");
  json lock = {{"schema", "cudnnup.lock/1"}, {"form", "store"}, {"id", "9.19.0.56+cuda13"},
               {"cudnn_version", "9.19.0.56"}, {"cuda_variant", "13"}, {"cuda_major", 13},
               {"platform", "linux-x86_64"}, {"archive", nullptr},
               {"driver_minimum", {{"linux", "580.65.06"}, {"windows", "580.88"}, {"source", "https://docs.nvidia.com/"}}},
               {"files", json::array({{{"path", "lib/libcudnn.so.9"}, {"size", 1}, {"sha256", std::string(64, 'a')}}})}};
  write_text(tmp / "cudnn.lock", lock.dump(2));
  // The stub reports CUDA 12 for 9.14 and 13 for 9.19 (tests/fixtures): the lock names 9.19/13.
  auto r = cli({"--json", "fleet", "--lock", tmp / "cudnn.lock", reports()});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  ASSERT_TRUE(r.json["lock"].is_object()) << r.out;
  EXPECT_EQ(r.json["lock"]["cudnn_version"], "9.19.0.56");
  EXPECT_EQ(r.json["lock"]["differing_hosts"].size(), 2u) << "both hosts agree with each other, not with the lock";
  EXPECT_TRUE(r.json["differing_hosts"].empty());
  EXPECT_EQ(r.json["summary"]["differing_from_lock"], 2);
  auto text = cli({"fleet", "--lock", tmp / "cudnn.lock", reports()});
  EXPECT_NE(text.out.find("Differ from the lock"), std::string::npos) << text.out;

  // The lock is untrusted: one that climbs out of its copy is refused, naming the file and field.
  lock["files"][0]["path"] = "../../etc/passwd";
  write_text(tmp / "bad.lock", lock.dump(2));
  auto bad = cli({"fleet", "--lock", tmp / "bad.lock", reports()});
  EXPECT_EQ(bad.exit_code, 2) << bad.out << bad.err;
  EXPECT_EQ(bad.out, "");
  EXPECT_NE(bad.err.find("bad.lock"), std::string::npos) << bad.err;
  EXPECT_NE(bad.err.find("files[0].path"), std::string::npos) << bad.err;
  lock["files"][0]["path"] = "lib/libcudnn.so.9";
  lock["form"] = "pip";
  write_text(tmp / "pip.lock", lock.dump(2));
  auto pip = cli({"fleet", "--lock", tmp / "pip.lock", reports()});
  EXPECT_EQ(pip.exit_code, 2) << "a report cannot show what frameworks load: " << pip.out << pip.err;
  EXPECT_NE(pip.err.find("cudnnup check"), std::string::npos) << pip.err;
  auto missing = cli({"fleet", "--lock", tmp / "no-such.lock", reports()});
  EXPECT_EQ(missing.exit_code, 2) << missing.err;
  EXPECT_NE(missing.err.find("no-such.lock"), std::string::npos) << missing.err;
}

TEST_F(FleetCli, TheHtmlPageExitsLikeTheTextAndAFailedWriteIsExitTwo) {
  save("a.json", healthy, "a");
  save("b.json", drifted, "b");
  save("c.json", healthy, "c");
  write_text(reports() + "/<img src=x onerror=alert(1)>.json", "{");
  auto page = cli({"fleet", "--format", "html", reports()});
  EXPECT_EQ(page.exit_code, 1) << page.err;
  EXPECT_EQ(page.out.rfind("<!DOCTYPE html>", 0), 0u) << page.out.substr(0, 200);
  EXPECT_NE(page.out.find("&lt;img src=x onerror=alert(1)&gt;.json"), std::string::npos);
  EXPECT_EQ(page.out.find("<img"), std::string::npos);
  // `fleet --format html > page.tmp && mv page.tmp page.html` must not put half a page in place.
  ProcessOptions o;
  o.timeout_ms = 60000;
  o.env = std::map<std::string, std::string>{{"PATH", "/usr/bin:/bin"}, {"HOME", tmp / "home"}};
  auto full = run_process({"/bin/sh", "-c", "\"$0\" fleet --format html \"$1\" > /dev/full", cudnnup_binary(), reports()}, o);
  ASSERT_TRUE(full.ok());
  EXPECT_EQ(full->exit_code, 2) << full->err;
  EXPECT_NE(full->err.find("could not write the output"), std::string::npos) << full->err;
}

TEST_F(FleetCli, ArgumentsThatNameNoReportsAreUsageErrors) {
  auto none = cli({"fleet", tmp / "nowhere"});
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_EQ(none.out, "");
  EXPECT_NE(none.err.find("nowhere"), std::string::npos) << none.err;
  make_dirs(tmp / "empty");
  auto empty = cli({"fleet", tmp / "empty"});
  EXPECT_EQ(empty.exit_code, 2);
  EXPECT_NE(empty.err.find("no *.json"), std::string::npos) << empty.err;
  auto pdf = cli({"fleet", "--format", "prometheus", reports()});
  EXPECT_EQ(pdf.exit_code, 2) << "fleet offers text, json and html only";
}

}  // namespace
}  // namespace cudnnup

#endif  // CUDNNUP_HAVE_INSTALL
