// The fleet reduction (core/fleet/): one report's reading, and many hosts into groups, majority,
// drift, errors and the reports that are not counted.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "fleet/fleet_summary.h"
#include "fleet/report_summary.h"

namespace cudnnup {
namespace {

using nlohmann::json;

// A doctor report as `cudnnup --json doctor` prints it, with only the fields fleet reads plus a
// few it must skip (nested which reports with candidates of their own).
json doctor_report(const std::string& host, const std::string& version, int cuda_major, const std::string& form,
                   int errors = 0) {
  std::string lib_dir = "/opt/" + form + "/cudnn-" + version + "/lib";
  json findings = json::array();
  for (int i = 0; i < errors; ++i) findings.push_back({{"id", "cudnn.library_damaged"}, {"severity", "error"}, {"fix_steps", json::array({{{"step", "x"}}})}});
  findings.push_back({{"id", "driver.not_found"}, {"severity", "warning"}});
  return {{"schema", "cudnnup.doctor/1"},
          {"cudnnup_version", "0.1.0"},
          {"os", "linux"},
          {"host", host},
          {"copies", json::array({{{"root", "/opt"}, {"lib_dir", "/elsewhere/lib"}, {"form", "system"}, {"version", "8.9.7"}, {"cuda_major", 12}},
                                  {{"root", "/opt"}, {"lib_dir", lib_dir}, {"form", form}, {"version", version},
                                   {"cuda_major", cuda_major}, {"libraries", json::array({{{"path", lib_dir + "/libcudnn.so.9"}}})}}})},
          {"findings", findings},
          {"summary", {{"errors", errors}, {"warnings", 1}, {"infos", 0}, {"exit_code", errors ? 1 : 0}}},
          {"plain_program", json::array({{{"resolution", {{"found", true}, {"path", lib_dir + "/libcudnn.so.9"},
                                                          {"canonical", lib_dir + "/libcudnn.so.9.1.0"},
                                                          {"candidates", json::array({{{"path", "/elsewhere/lib/libcudnn.so.9"}}})}}},
                                          {"cudnn", {{"version", version}, {"sub_libraries", json::array({{{"resolution", {{"found", false}}}}})}}}}})}};
}

ReportReading read_fixture(const json& doc) { return read_doctor_report(doc.dump()); }

TEST(FleetReport, ReadsHostWhatLoadsAndCounts) {
  auto r = read_fixture(doctor_report("node01", "9.19.0", 13, "pip", 2));
  ASSERT_EQ(r.problem, ReportProblem::kNone) << r.detail;
  EXPECT_EQ(r.summary.host, "node01");
  ASSERT_EQ(r.summary.loads.size(), 1u);
  EXPECT_EQ(r.summary.loads[0], (FleetLoadedCopy{"9.19.0", 13, PackageForm::kPipWheel})) << "the copy of the resolved file's directory";
  EXPECT_EQ(r.summary.errors, 2);
  EXPECT_EQ(r.summary.warnings, 1);
  EXPECT_EQ(r.summary.error_ids, std::vector<std::string>{"cudnn.library_damaged"}) << "distinct error ids only";
  EXPECT_EQ(describe_loads(r.summary.loads), "cuDNN 9.19.0 for CUDA 13 (pip)");
}

TEST(FleetReport, NothingFoundLoadsNoCudnn) {
  auto doc = doctor_report("node01", "9.19.0", 13, "pip");
  doc["plain_program"] = json::array();
  auto r = read_fixture(doc);
  ASSERT_EQ(r.problem, ReportProblem::kNone) << r.detail;
  EXPECT_TRUE(r.summary.loads.empty());
  EXPECT_EQ(describe_loads(r.summary.loads), "no cuDNN");
  doc["plain_program"] = json::array({{{"resolution", {{"found", false}, {"canonical", nullptr}}}, {"cudnn", nullptr}}});
  EXPECT_TRUE(read_fixture(doc).summary.loads.empty()) << "a major whose plain program finds nothing loads nothing";
}

TEST(FleetReport, AFileNoCopyHoldsIsOfUnknownForm) {
  auto doc = doctor_report("node01", "9.19.0", 13, "pip");
  doc["plain_program"][0]["resolution"]["canonical"] = "/somewhere/else/libcudnn.so.9";
  doc["plain_program"][0]["resolution"]["path"] = "/somewhere/else/libcudnn.so.9";
  auto r = read_fixture(doc);
  ASSERT_EQ(r.summary.loads.size(), 1u);
  EXPECT_EQ(r.summary.loads[0], (FleetLoadedCopy{"9.19.0", 0, PackageForm::kUnknown}));
}

TEST(FleetReport, WindowsLoadsStandInForThePlainProgram) {
  auto doc = doctor_report("win01", "9.19.0", 13, "store");
  doc["windows_loads"] = doc["plain_program"];
  doc["plain_program"] = json::array();
  auto r = read_fixture(doc);
  ASSERT_EQ(r.summary.loads.size(), 1u);
  EXPECT_EQ(r.summary.loads[0].form, PackageForm::kStore);
}

TEST(FleetReport, WindowsLoadsWinWhicheverComesFirst) {
  auto doc = doctor_report("win01", "9.19.0", 13, "store");
  nlohmann::ordered_json ordered;
  ordered["windows_loads"] = doc["plain_program"];
  for (auto& [key, value] : doc.items()) {
    if (key != "plain_program") ordered[key] = value;
  }
  ordered["plain_program"] = json::array({{{"resolution", {{"found", true}, {"path", "/elsewhere/lib/libcudnn.so.9"}}},
                                           {"cudnn", {{"version", "8.9.7"}}}}});
  auto r = read_doctor_report(ordered.dump());
  ASSERT_EQ(r.problem, ReportProblem::kNone) << r.detail;
  ASSERT_EQ(r.summary.loads.size(), 1u);
  EXPECT_EQ(r.summary.loads[0], (FleetLoadedCopy{"9.19.0", 13, PackageForm::kStore}));
}

TEST(FleetReport, FieldsFromElsewhereAreCheckedNotTrusted) {
  auto odd_form = doctor_report("node01", "9.19.0", 13, "<b>pip</b>");
  auto r = read_fixture(odd_form);
  ASSERT_EQ(r.problem, ReportProblem::kNone) << r.detail;
  EXPECT_EQ(r.summary.loads[0].form, PackageForm::kUnknown) << "a form name cudnnup does not know";
  auto odd_version = doctor_report("node01", "9.19.0", 13, "pip");
  odd_version["copies"][1]["version"] = "9.19\x1b[2J";
  r = read_fixture(odd_version);
  EXPECT_EQ(r.problem, ReportProblem::kMalformed);
  EXPECT_NE(r.detail.find("copies[].version"), std::string::npos) << r.detail;
  // Arrays where objects belong are skipped, not read as an element's fields.
  auto nested = doctor_report("node01", "9.19.0", 13, "pip");
  nested["copies"] = json::array({json::array({"x", 1}), json::array({json::array({"y"})})});
  nested["plain_program"].push_back(json::array({json::array({json::array({"z"})})}));
  nested["findings"] = json::array({json::array({"error"})});
  r = read_fixture(nested);
  ASSERT_EQ(r.problem, ReportProblem::kNone) << r.detail;
  EXPECT_EQ(r.summary.loads[0].form, PackageForm::kUnknown) << "no copy holds the file";
}

TEST(FleetReport, BrokenReportsAreNamedNeverThrown) {
  std::string whole = doctor_report("node01", "9.19.0", 13, "pip").dump();
  EXPECT_EQ(read_doctor_report("").problem, ReportProblem::kEmpty);
  EXPECT_EQ(read_doctor_report(" \n").problem, ReportProblem::kEmpty);
  EXPECT_EQ(read_doctor_report(whole.substr(0, whole.size() / 2)).problem, ReportProblem::kTruncated);
  EXPECT_EQ(read_doctor_report(whole + whole).problem, ReportProblem::kMalformed) << "two outputs in one file";
  EXPECT_EQ(read_doctor_report("{\"schema\": \"cudnnup.doctor/1\",, }").problem, ReportProblem::kMalformed);
  EXPECT_EQ(read_doctor_report("[1, 2]").problem, ReportProblem::kNotDoctor);
  EXPECT_EQ(read_doctor_report("\"text\"").problem, ReportProblem::kNotDoctor);
  EXPECT_EQ(read_doctor_report("{\"schema\": \"cudnnup.which/1\"}").problem, ReportProblem::kNotDoctor);
  EXPECT_EQ(read_doctor_report("{\"a\": 1}").problem, ReportProblem::kNotDoctor);
  EXPECT_EQ(read_doctor_report("{\"schema\": \"cudnnup.error/1\", \"error\": {}}").problem, ReportProblem::kDoctorFailed);
  auto newer = doctor_report("node01", "9.19.0", 13, "pip");
  newer["schema"] = "cudnnup.doctor/2";
  EXPECT_EQ(read_fixture(newer).problem, ReportProblem::kUnknownSchema);
  auto older = doctor_report("node01", "9.19.0", 13, "pip");
  older.erase("host");
  EXPECT_EQ(read_fixture(older).problem, ReportProblem::kOlderSchema);
  auto no_summary = doctor_report("node01", "9.19.0", 13, "pip");
  no_summary.erase("summary");
  EXPECT_EQ(read_fixture(no_summary).problem, ReportProblem::kMalformed);
  auto wrong_type = doctor_report("node01", "9.19.0", 13, "pip");
  wrong_type["summary"]["errors"] = "2";
  auto r = read_fixture(wrong_type);
  EXPECT_EQ(r.problem, ReportProblem::kMalformed);
  EXPECT_NE(r.detail.find("summary.errors"), std::string::npos) << r.detail;
  for (const char* host : {"", "node 01", "node\x1b[31m", "../../etc"}) {
    auto bad = doctor_report(host, "9.19.0", 13, "pip");
    EXPECT_EQ(read_fixture(bad).problem, ReportProblem::kBadHost) << host;
  }
  EXPECT_EQ(read_doctor_report(std::string(kMaxReportBytes + 1, ' ') + "{}").problem, ReportProblem::kTooLarge);
}

TEST(FleetReport, EveryPrefixOfAReportIsTruncatedOrEmpty) {
  std::string whole = doctor_report("node01", "9.19.0", 13, "pip", 1).dump(1);
  for (size_t n = 0; n < whole.size(); n += 7) {
    auto p = read_doctor_report(whole.substr(0, n)).problem;
    EXPECT_TRUE(p == ReportProblem::kTruncated || p == ReportProblem::kEmpty) << n << ": " << report_problem_name(p);
  }
}

FleetSummary reduce(const std::vector<std::pair<std::string, json>>& files) {
  FleetReducer fleet;
  for (const auto& [file, doc] : files) fleet.add(file, read_fixture(doc));
  return std::move(fleet).finish();
}

TEST(FleetSummaryTest, GroupsByWhatLoadsAndNamesTheHostsThatDiffer) {
  auto f = reduce({{"c.json", doctor_report("node03", "9.14.0", 13, "store")},
                   {"a.json", doctor_report("node01", "9.19.0", 13, "pip")},
                   {"b.json", doctor_report("node02", "9.19.0", 13, "pip")},
                   {"d.json", doctor_report("node04", "9.19.0", 12, "pip")}});
  ASSERT_EQ(f.groups.size(), 3u);
  EXPECT_EQ(f.groups[0].label, "cuDNN 9.19.0 for CUDA 13 (pip)");
  EXPECT_EQ(f.groups[0].hosts.size(), 2u);
  EXPECT_TRUE(f.has_majority());
  auto differ = f.differing();
  ASSERT_EQ(differ.size(), 2u);
  EXPECT_EQ(f.hosts[differ[0]].host, "node03");
  EXPECT_EQ(f.hosts[differ[0]].file, "c.json");
  EXPECT_EQ(f.hosts[differ[1]].host, "node04") << "another CUDA major is drift too";
  EXPECT_EQ(f.exit_code(), 1);
}

TEST(FleetSummaryTest, AFleetThatAgreesAndIsHealthyExitsZero) {
  auto f = reduce({{"a.json", doctor_report("node01", "9.19.0", 13, "pip")}, {"b.json", doctor_report("node02", "9.19.0", 13, "pip")}});
  EXPECT_EQ(f.groups.size(), 1u);
  EXPECT_TRUE(f.differing().empty());
  EXPECT_TRUE(f.problems.empty());
  EXPECT_EQ(f.exit_code(), 0);
  auto sick = reduce({{"a.json", doctor_report("node01", "9.19.0", 13, "pip", 1)}, {"b.json", doctor_report("node02", "9.19.0", 13, "pip")}});
  ASSERT_EQ(sick.with_errors().size(), 1u);
  EXPECT_EQ(sick.hosts[sick.with_errors()[0]].host, "node01");
  EXPECT_EQ(sick.exit_code(), 1) << "errors on one host fail the fleet";
}

TEST(FleetSummaryTest, ATieHasNoMajority) {
  auto f = reduce({{"a.json", doctor_report("node01", "9.19.0", 13, "pip")}, {"b.json", doctor_report("node02", "9.14.0", 13, "pip")}});
  EXPECT_TRUE(f.majority_tied);
  EXPECT_FALSE(f.has_majority());
  EXPECT_TRUE(f.differing().empty());
  EXPECT_EQ(f.exit_code(), 1);
}

TEST(FleetSummaryTest, DuplicatesAndBrokenReportsAreListedNotCounted) {
  FleetReducer fleet;
  fleet.add("a.json", read_fixture(doctor_report("node01", "9.19.0", 13, "pip")));
  fleet.add("b.json", read_fixture(doctor_report("node01", "9.14.0", 13, "pip")));
  fleet.add("c.json", read_fixture(doctor_report("node01", "9.14.0", 13, "pip")));
  fleet.add("t.json", read_doctor_report("{\"schema\": \"cudnnup.doc"));
  fleet.add_problem("fifo.json", ReportProblem::kUnreadable, "not a regular file");
  auto f = std::move(fleet).finish();
  EXPECT_EQ(f.reports, 5u);
  ASSERT_EQ(f.hosts.size(), 1u);
  EXPECT_EQ(f.hosts[0].file, "a.json") << "the first report of a host counts";
  ASSERT_EQ(f.groups.size(), 1u) << "a duplicate does not add its group";
  ASSERT_EQ(f.problems.size(), 3u);
  EXPECT_EQ(f.problems[0].kind, ReportProblem::kTruncated);
  EXPECT_EQ(f.problems[0].files, std::vector<std::string>{"t.json"});
  EXPECT_EQ(f.problems[1].kind, ReportProblem::kUnreadable);
  EXPECT_EQ(f.problems[2].kind, ReportProblem::kDuplicate);
  EXPECT_EQ(f.problems[2].host, "node01");
  EXPECT_EQ(f.problems[2].files, (std::vector<std::string>{"a.json", "b.json", "c.json"}));
  EXPECT_EQ(f.exit_code(), 1);
}

TEST(FleetSummaryTest, TheOrderOfTheFilesDoesNotChangeTheSummary) {
  std::vector<std::pair<std::string, json>> files;
  for (int i = 0; i < 30; ++i) {
    std::string host = "node" + std::to_string(100 + i);
    files.push_back({host + ".json", doctor_report(host, i % 3 ? "9.19.0" : "9.14.0", 13, "pip")});
  }
  auto forward = reduce(files);
  std::reverse(files.begin(), files.end());
  auto backward = reduce(files);
  ASSERT_EQ(forward.groups.size(), backward.groups.size());
  for (size_t g = 0; g < forward.groups.size(); ++g) {
    EXPECT_EQ(forward.groups[g].label, backward.groups[g].label);
    EXPECT_EQ(forward.groups[g].hosts, backward.groups[g].hosts);
  }
  EXPECT_EQ(forward.groups[0].hosts.size(), 20u);
  EXPECT_EQ(forward.hosts[0].host, "node100") << "hosts by name";
}

TEST(FleetLockTest, ALockMatchesItsVersionOrAPrefixOfItWithItsCudaMajor) {
  FleetLockTarget lock{"cudnn.lock", "9.19.0.56", 13};
  EXPECT_TRUE(lock.matches(FleetLoadedCopy{"9.19.0.56", 13, PackageForm::kStore}));
  EXPECT_TRUE(lock.matches(FleetLoadedCopy{"9.19.0", 13, PackageForm::kPipWheel})) << "a report may know only major.minor.patch";
  EXPECT_TRUE(lock.matches(FleetLoadedCopy{"9.19.0", 13, PackageForm::kToolkitMerged})) << "the form is not compared";
  EXPECT_FALSE(lock.matches(FleetLoadedCopy{"9.19.0.57", 13, PackageForm::kStore}));
  EXPECT_FALSE(lock.matches(FleetLoadedCopy{"9.19.1", 13, PackageForm::kStore}));
  EXPECT_FALSE(lock.matches(FleetLoadedCopy{"9.19", 13, PackageForm::kStore})) << "too short to say";
  EXPECT_TRUE((FleetLockTarget{"cudnn.lock", "9.19.0", 13}.matches(FleetLoadedCopy{"9.19.0.56", 13, PackageForm::kStore})))
      << "a toolkit's lock may know only 9.19.0, a host's store copy 9.19.0.56";
  EXPECT_FALSE(lock.matches(FleetLoadedCopy{"9.19.0.56", 12, PackageForm::kStore})) << "another CUDA major";
  EXPECT_FALSE(lock.matches(FleetLoadedCopy{"9.19.0.56", 0, PackageForm::kStore})) << "a CUDA major the report does not know";
  EXPECT_FALSE(lock.matches(FleetLoadedCopy{"", 13, PackageForm::kStore}));
  EXPECT_FALSE(lock.matches(std::vector<FleetLoadedCopy>{})) << "a host that loads no cuDNN";
  EXPECT_TRUE(lock.matches(std::vector<FleetLoadedCopy>{{"8.9.7", 12, PackageForm::kPipWheel}, {"9.19.0", 13, PackageForm::kPipWheel}}))
      << "a host that loads cuDNN 8 for one program and the locked 9 for another";
}

TEST(FleetLockTest, HostsThatLoadAnotherCopyThanTheLockFailTheFleetEvenWhenAllAgree) {
  FleetReducer fleet(FleetLockTarget{"cudnn.lock", "9.19.0.56", 13});
  fleet.add("a.json", read_fixture(doctor_report("node01", "9.14.0", 13, "pip")));
  fleet.add("b.json", read_fixture(doctor_report("node02", "9.14.0", 13, "pip")));
  auto f = std::move(fleet).finish();
  ASSERT_TRUE(f.lock.has_value());
  EXPECT_TRUE(f.differing().empty()) << "they agree with each other";
  ASSERT_EQ(f.differing_from_lock().size(), 2u);
  EXPECT_EQ(f.hosts[f.differing_from_lock()[0]].host, "node01");
  EXPECT_EQ(f.exit_code(), 1);

  FleetReducer good(FleetLockTarget{"cudnn.lock", "9.19.0.56", 13});
  good.add("a.json", read_fixture(doctor_report("node01", "9.19.0", 13, "pip")));
  good.add("b.json", read_fixture(doctor_report("node02", "9.19.0", 13, "store")));
  auto g = std::move(good).finish();
  EXPECT_TRUE(g.differing_from_lock().empty());
  EXPECT_EQ(g.groups.size(), 2u) << "the forms differ, so the groups do; the lock holds for both";

  EXPECT_TRUE(reduce({{"a.json", doctor_report("node01", "9.14.0", 13, "pip")}}).differing_from_lock().empty())
      << "no lock, no host differs from one";
}

}  // namespace
}  // namespace cudnnup
