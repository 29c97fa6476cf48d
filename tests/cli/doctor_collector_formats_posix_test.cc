// `doctor --format prometheus` and `--format nfd` run for real on a fixture machine: cuDNN copies
// on LD_LIBRARY_PATH in an ordinary folder and in folders whose names hold `"`, `\`, a newline and
// a byte that is not UTF-8 (paths are whatever bytes the machine has). Prometheus output must pass
// Debian's `promtool check metrics` (package prometheus, scripts/install-deps.sh: the tests fail
// without it, they do not skip); NFD output must pass tests/support/k8s_labels.h, written from
// Kubernetes' label rules. The machine's own copies may be found too, so counts are compared with
// `doctor --json` of the same machine, not with constants. POSIX only: such folder names and
// LD_LIBRARY_PATH are Linux's.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <regex>

#include "base/utf8.h"
#include "platform/process.h"
#include "support/fixture_libs.h"
#include "support/k8s_labels.h"
#include "support/run_cli.h"

namespace cudnnup {
namespace {

using namespace cudnnup::testing;

const std::string kPromtool = "/usr/bin/promtool";

std::string single_quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

int64_t unix_now() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

class CollectorFormats : public ::testing::Test {
 protected:
  void SetUp() override {
    install_forwarding_set("9.19.0", plain_dir());
    install_forwarding_set("9.14.0", odd_dir());
    install_forwarding_set("9.14.0", backslash_dir());
  }
  std::string plain_dir() const { return tmp / "gpu/lib"; }
  // `"`, a newline and 0xff: discovery finds this copy, so it appears in cudnnup_copy_info.
  std::string odd_dir() const { return tmp / "od\"d\nna\xffme/lib"; }
  // All four, `\` included. Discovery does not list a copy whose path holds `\` (base/paths.h
  // splits at it, as on Windows), but the loader model does load from it: it is first on
  // LD_LIBRARY_PATH in hostile(), so it is what cudnnup_loaded_copy_info names.
  std::string backslash_dir() const { return tmp / "ba\\ck\"sl\nash\xff/lib"; }

  std::map<std::string, std::string> env(const std::string& ld_library_path) const {
    return {{"HOME", tmp / "home"}, {"CUDNNUP_HOME", tmp / "store"}, {"LD_LIBRARY_PATH", ld_library_path}};
  }
  std::string ordinary() const { return plain_dir() + ":" + odd_dir(); }
  std::string hostile() const { return backslash_dir() + ":" + odd_dir() + ":" + plain_dir(); }
  CliResult doctor(const std::string& format, const std::string& ld_library_path) const {
    return run_cli({"doctor", "--format", format}, env(ld_library_path));
  }
  // promtool's verdict on `metrics`: its exit code and what it said.
  ProcessResult promtool(const std::string& metrics) const {
    EXPECT_TRUE(std::filesystem::exists(kPromtool))
        << "promtool is missing: run scripts/install-deps.sh (Debian package prometheus)";
    std::string file = tmp / "metrics.prom";
    write_text(file, metrics);
    ProcessOptions o;
    o.timeout_ms = 60000;
    // promtool check metrics reads the metrics on its standard input.
    auto r = run_process({"/bin/sh", "-c", kPromtool + " check metrics < " + single_quoted(file)}, o);
    EXPECT_TRUE(r.ok());
    return r.value_or(ProcessResult{});
  }
  TempDir tmp;
};

TEST_F(CollectorFormats, PrometheusPassesPromtoolAndAgreesWithTheJsonReport) {
  auto before = unix_now();
  auto r = doctor("prometheus", ordinary());
  auto after = unix_now();
  EXPECT_EQ(r.exit_code, 0) << r.err;
  auto check = promtool(r.out);
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err << "\n" << r.out;

  auto json = run_cli({"--json", "doctor"}, env(ordinary()));
  ASSERT_TRUE(json.json.is_object()) << json.out;
  EXPECT_NE(r.out.find("cudnnup_copies " + std::to_string(json.json["copies"].size()) + "\n"), std::string::npos) << r.out;
  std::map<std::string, int> severities = {{"error", 0}, {"warning", 0}, {"info", 0}};
  for (const auto& f : json.json["findings"]) severities[f["severity"].get<std::string>()]++;
  for (const auto& [severity, n] : severities) {
    std::string line = "cudnnup_findings{severity=\"" + severity + "\"} " + std::to_string(n) + "\n";
    EXPECT_NE(r.out.find(line), std::string::npos) << line << r.out;
  }
  // doctor's own verdict, which the metric carries while the command exits 0.
  EXPECT_NE(r.out.find("cudnnup_doctor_exit_code " + std::to_string(json.exit_code) + "\n"), std::string::npos) << r.out;

  // The first directory on LD_LIBRARY_PATH wins for a plain program.
  std::smatch m;
  ASSERT_TRUE(std::regex_search(
      r.out, m, std::regex("cudnnup_loaded_copy_info\\{library=\"libcudnn.so.9\",path=\"([^\"]*)\",version=\"9\\.19\\.0[^\"]*\",cuda_major=\"13\"\\} 1\n")))
      << r.out;
  EXPECT_EQ(m[1].str(), std::filesystem::canonical(plain_dir() + "/libcudnn.so.9").string());
  ASSERT_TRUE(std::regex_search(r.out, m, std::regex("cudnnup_last_run_timestamp_seconds ([0-9]+)\n"))) << r.out;
  EXPECT_GE(std::stoll(m[1].str()), before);
  EXPECT_LE(std::stoll(m[1].str()), after);
}

TEST_F(CollectorFormats, PrometheusEscapesHostileFolderNamesAndStaysValid) {
  auto r = doctor("prometheus", hostile());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(valid_utf8(r.out)) << "a byte that is not UTF-8 reached the file";
  // The exposition format's escapes for \, " and newline; the byte 0xff as the text \xff (its
  // backslash escaped in turn), so the file is UTF-8.
  std::string odd = tmp.path() + "/od\\\"d\\nna\\\\xffme/lib";
  EXPECT_NE(r.out.find("cudnnup_copy_info{path=\"" + odd + "\""), std::string::npos) << r.out;
  std::string backslash = tmp.path() + "/ba\\\\ck\\\"sl\\nash\\\\xff/lib/libcudnn.so.9";
  EXPECT_NE(r.out.find("cudnnup_loaded_copy_info{library=\"libcudnn.so.9\",path=\"" + backslash + "\""), std::string::npos)
      << r.out;
  auto check = promtool(r.out);
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err << "\n" << r.out;
}

TEST_F(CollectorFormats, NfdLabelsWhatAPlainProgramLoads) {
  auto r = doctor("nfd", ordinary());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  auto labels = parse_nfd_feature_file(r.out);
  auto json = run_cli({"--json", "doctor"}, env(ordinary()));
  ASSERT_TRUE(json.json.is_object()) << json.out;
  const std::string p = "feature.node.kubernetes.io/";
  EXPECT_EQ(labels[p + "cudnn.present"], "true") << r.out;
  EXPECT_EQ(labels[p + "cudnn.version"].rfind("9.19.0", 0), 0u) << r.out;
  EXPECT_EQ(labels[p + "cudnn.major"], "9") << r.out;
  EXPECT_EQ(labels[p + "cudnn.cuda-major"], "13") << r.out;
  EXPECT_EQ(labels[p + "cudnn.copies"], std::to_string(json.json["copies"].size())) << r.out;
  EXPECT_EQ(labels[p + "cudnn.healthy"], json.exit_code == 0 ? "true" : "false") << r.out;
}

TEST_F(CollectorFormats, NfdStaysValidOnHostileFolderNames) {
  auto r = doctor("nfd", hostile());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  auto labels = parse_nfd_feature_file(r.out);
  EXPECT_EQ(labels["feature.node.kubernetes.io/cudnn.present"], "true") << r.out;
  EXPECT_EQ(r.out.find(tmp.path()), std::string::npos) << "no path reaches a label: " << r.out;
}

// `doctor --format F > f.tmp && mv f.tmp f` must not put a truncated file in place (html too): a write
// that fails (here /dev/full, as a full disk) is exit 2 with the reason on stderr.
TEST_F(CollectorFormats, AFailedWriteIsExit2SoTheCollectorKeepsItsOldFile) {
  for (const char* format : {"prometheus", "nfd", "html"}) {
    ProcessOptions o;
    o.timeout_ms = 60000;
    o.env = env(ordinary());
    auto r = run_process({"/bin/sh", "-c", single_quoted(cudnnup_binary()) + " doctor --format " + format + " > /dev/full"}, o);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->exit_code, 2) << format << ": " << r->err;
    EXPECT_NE(r->err.find("could not write the output"), std::string::npos) << r->err;
  }
}

TEST_F(CollectorFormats, OtherCommandsRefuseTheseFormats) {
  for (const char* format : {"prometheus", "nfd", "html"}) {
    for (const char* command : {"list", "which", "current"}) {
      auto r = run_cli({command, "--format", format}, env(ordinary()));
      EXPECT_EQ(r.exit_code, 2) << command << " --format " << format << "\n" << r.out << r.err;
      EXPECT_NE(r.err.find(std::string("not ") + format), std::string::npos) << r.err;
      EXPECT_TRUE(r.out.empty()) << r.out;
    }
  }
}

TEST_F(CollectorFormats, JsonAndAnotherFormatDisagree) {
  auto r = run_cli({"--json", "doctor", "--format", "prometheus"}, env(ordinary()));
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
}

}  // namespace
}  // namespace cudnnup
