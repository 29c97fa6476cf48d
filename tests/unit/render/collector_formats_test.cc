// The prometheus and nfd renderers (app/render/report_prometheus.h, report_nfd.h) on reports built
// here: machines the CLI tests cannot make (no cuDNN at all, a version too long for a label,
// discovery returning one copy twice) and the escaping of every byte a path may hold. The output's
// syntax is checked with tests/support/k8s_labels.h (Kubernetes' rules), not with the renderer's
// own sanitiser.
#include <gtest/gtest.h>

#include "app/render/report_nfd.h"
#include "app/render/report_prometheus.h"
#include "base/utf8.h"
#include "support/k8s_labels.h"

namespace cudnnup {
namespace {

using testing::parse_nfd_feature_file;

const std::string kPrefix = "feature.node.kubernetes.io/";

CudnnCopy collector_copy_at(const std::string& lib_dir, Version v, int cuda_major) {
  CudnnCopy c;
  c.root = lib_dir + "/..";
  c.lib_dir = lib_dir;
  c.header_version = v;
  c.library_version = v;
  c.cuda_major = cuda_major;
  c.form = PackageForm::kArchiveTree;
  return c;
}

// A plain program that loads the shim in `lib_dir`.
WhichReport plain_load(const std::string& lib_dir, std::optional<Version> shim_version) {
  WhichReport w;
  w.target_kind = "plain";
  w.library = "libcudnn.so.9";
  w.resolution.found = true;
  w.resolution.path = lib_dir + "/libcudnn.so.9";
  w.resolution.canonical = w.resolution.path;
  CudnnLoad load;
  load.shim_version = shim_version;
  w.cudnn = load;
  return w;
}

Finding finding(Severity s) {
  Finding f;
  f.severity = s;
  f.id = "test.finding";
  return f;
}

TEST(NfdLabelValue, KeepsOnlyWhatKubernetesAccepts) {
  EXPECT_EQ(nfd_label_value(""), "");
  EXPECT_EQ(nfd_label_value("9.19.0.56"), "9.19.0.56");
  EXPECT_EQ(nfd_label_value("a_b-c.d"), "a_b-c.d");
  EXPECT_EQ(nfd_label_value(std::string(63, 'x')), std::string(63, 'x'));
  for (std::string bad : {std::string(64, 'x'), std::string("-9"), std::string("9."), std::string("9 1"),
                          std::string("a/b"), std::string("9\n1"), std::string("9\xff"), std::string("é")}) {
    EXPECT_EQ(nfd_label_value(bad), std::nullopt) << bad;
  }
}

TEST(NfdReport, AMachineWithoutCudnnSaysSoAndNoVersion) {
  DoctorOutcome outcome;
  auto labels = parse_nfd_feature_file(render_report_nfd(outcome, 0));
  EXPECT_EQ(labels[kPrefix + "cudnn.present"], "false");
  EXPECT_EQ(labels[kPrefix + "cudnn.copies"], "0");
  EXPECT_EQ(labels[kPrefix + "cudnn.healthy"], "true");
  EXPECT_EQ(labels.count(kPrefix + "cudnn.version"), 0u);
  EXPECT_EQ(labels.count(kPrefix + "cudnn.cuda-major"), 0u);
}

TEST(NfdReport, LabelsTheLoadedCopyAndErrors) {
  DoctorOutcome outcome;
  outcome.report.copies = {collector_copy_at("/opt/a/lib", Version{9, 14, 0}, 12), collector_copy_at("/opt/b/lib", Version{9, 19, 0}, 13)};
  outcome.plain_program = {plain_load("/opt/b/lib", Version{9, 19, 0, 56})};
  outcome.report.findings = {finding(Severity::kError), finding(Severity::kWarning)};
  auto labels = parse_nfd_feature_file(render_report_nfd(outcome, 1));
  EXPECT_EQ(labels[kPrefix + "cudnn.present"], "true");
  EXPECT_EQ(labels[kPrefix + "cudnn.version"], "9.19.0.56");
  EXPECT_EQ(labels[kPrefix + "cudnn.major"], "9");
  EXPECT_EQ(labels[kPrefix + "cudnn.cuda-major"], "13");
  EXPECT_EQ(labels[kPrefix + "cudnn.copies"], "2");
  EXPECT_EQ(labels[kPrefix + "cudnn.errors"], "1");
  EXPECT_EQ(labels[kPrefix + "cudnn.healthy"], "false");
}

TEST(NfdReport, AVersionTooLongForALabelIsLeftOutNotWrittenInvalid) {
  DoctorOutcome outcome;
  Version huge;
  for (int i = 0; i < 8; ++i) huge.parts.push_back(1999999999);  // 87 characters as text
  outcome.report.copies = {collector_copy_at("/opt/x/lib", huge, 12)};
  outcome.plain_program = {plain_load("/opt/x/lib", huge)};
  std::string file = render_report_nfd(outcome, 0);
  auto labels = parse_nfd_feature_file(file);
  EXPECT_EQ(labels.count(kPrefix + "cudnn.version"), 0u) << file;
  EXPECT_NE(file.find("# cudnn.version left out"), std::string::npos) << file;
  EXPECT_EQ(labels[kPrefix + "cudnn.present"], "true") << file;
}

TEST(PrometheusLabelValue, EscapesWhatTheFormatRequiresAndKeepsTheFileUtf8) {
  EXPECT_EQ(prometheus_label_value("/opt/cudnn/lib"), "/opt/cudnn/lib");
  EXPECT_EQ(prometheus_label_value("a\"b"), "a\\\"b");
  EXPECT_EQ(prometheus_label_value("a\\b"), "a\\\\b");
  EXPECT_EQ(prometheus_label_value("a\nb"), "a\\nb");
  EXPECT_EQ(prometheus_label_value("a\xff" "b"), "a\\\\xffb");
  EXPECT_EQ(prometheus_label_value("caf\xc3\xa9"), "caf\xc3\xa9") << "valid UTF-8 passes as it is";
  EXPECT_EQ(prometheus_label_value("\xc3"), "\\\\xc3") << "a truncated sequence is not UTF-8";
}

TEST(PrometheusReport, EverySeverityAlsoWhenZeroAndEachCopyOnce) {
  DoctorOutcome outcome;
  // Discovery never returns one folder twice, but a duplicate series would make the whole file
  // unreadable to Prometheus: it is written once.
  outcome.report.copies = {collector_copy_at("/opt/a\"\n\xff/lib", Version{9, 1, 0}, 12),
                           collector_copy_at("/opt/a\"\n\xff/lib", Version{9, 1, 0}, 12)};
  outcome.report.findings = {finding(Severity::kWarning), finding(Severity::kWarning)};
  std::string out = render_report_prometheus(outcome, 0, 1700000000);
  EXPECT_TRUE(valid_utf8(out));
  EXPECT_NE(out.find("cudnnup_findings{severity=\"error\"} 0\n"), std::string::npos) << out;
  EXPECT_NE(out.find("cudnnup_findings{severity=\"warning\"} 2\n"), std::string::npos) << out;
  EXPECT_NE(out.find("cudnnup_findings{severity=\"info\"} 0\n"), std::string::npos) << out;
  EXPECT_NE(out.find("cudnnup_doctor_exit_code 0\n"), std::string::npos) << out;
  EXPECT_NE(out.find("cudnnup_last_run_timestamp_seconds 1700000000\n"), std::string::npos) << out;
  std::string series = "cudnnup_copy_info{path=\"/opt/a\\\"\\n\\\\xff/lib\"";
  auto first = out.find(series);
  ASSERT_NE(first, std::string::npos) << out;
  EXPECT_EQ(out.find(series, first + 1), std::string::npos) << out;
  // One HELP and one TYPE line per family, before its samples.
  EXPECT_EQ(out.find("# TYPE cudnnup_copy_info gauge\n"), out.find("# TYPE cudnnup_copy_info"));
  EXPECT_LT(out.find("# TYPE cudnnup_copy_info gauge\n"), first);
}

}  // namespace
}  // namespace cudnnup
