// Input that once crashed cudnnup (found by an adversarial review: SIGSEGV, or abort on an uncaught
// exception) now ends with the documented exit code, and every JSON document is valid UTF-8 with
// the original bytes kept (docs/json-schema.md, "Text that is not UTF-8"). Each case ran against
// the binary before these fixes and died on a signal (noted per test). POSIX only: non-UTF-8 file
// names and LD_LIBRARY_PATH are Linux's.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>

#include "base/json_text.h"
#include "base/utf8.h"
#include "support/archive_builder.h"
#include "support/fixture_libs.h"
#include "support/run_cli.h"
#include "support/tree_snapshot.h"

namespace cudnnup {
namespace {

using namespace cudnnup::testing;

class HostileInput : public ::testing::Test {
 protected:
  std::map<std::string, std::string> env(std::map<std::string, std::string> extra = {}) const {
    std::map<std::string, std::string> e = {{"HOME", tmp / "home"}, {"CUDNNUP_HOME", tmp / "store"}};
    for (auto& [k, v] : extra) e[k] = v;
    return e;
  }
  // Exited by itself with one of `codes` (run_cli gives -1 for a signal).
  static void expect_exit(const CliResult& r, std::initializer_list<int> codes) {
    EXPECT_NE(std::find(codes.begin(), codes.end(), r.exit_code), codes.end())
        << "exit " << r.exit_code << " (-1 = killed by a signal)\nstdout: " << r.out.substr(0, 2000) << "\nstderr: " << r.err;
  }
  // Every command here only reads (or is refused): the whole test directory, cudnnup's own
  // state included, is byte-identical afterwards, but for doctor's probe cache in HOME/.cache.
  CliResult run_cli(const std::vector<std::string>& args, const std::map<std::string, std::string>& e) const {
    auto before = without_probe_cache(disk_tree(tmp.path()));
    CliResult r = testing::run_cli(args, e);
    EXPECT_EQ(tree_changes(before, without_probe_cache(disk_tree(tmp.path()))), "")
        << "cudnnup " << args.front() << " changed files on disk";
    return r;
  }
  static void expect_json_utf8(const CliResult& r) {
    EXPECT_TRUE(valid_utf8(r.out)) << "stdout is not UTF-8";
    EXPECT_FALSE(r.json.is_null()) << "stdout is not JSON: " << r.out.substr(0, 2000);
  }
  TempDir tmp;
};

// Was: SIGSEGV (a 10-digit version part dereferenced an empty std::optional).
#if CUDNNUP_HAVE_INSTALL  // archive-info is built with install
TEST_F(HostileInput, ArchiveNameWithATenDigitVersion) {
  std::string archive = tmp / "cudnn-linux-x86_64-99999999999.1.0.70_cuda12-archive.tar.xz";
  write_text(archive, "");
  // archive-info reports the name as not official and goes on to the contents (exit 1).
  auto text = run_cli({"archive-info", archive}, env());
  expect_exit(text, {1});
  EXPECT_NE(text.out.find("not an official cuDNN archive name"), std::string::npos) << text.out;
  auto json = run_cli({"--json", "install", "--dry-run", archive}, env());
  expect_exit(json, {2});
  expect_json_utf8(json);
}
#endif  // CUDNNUP_HAVE_INSTALL

// Was: abort (std::out_of_range from std::stoi) wherever doctor scans.
TEST_F(HostileInput, DllNameWithATenDigitMajorWhereDoctorLooks) {
  make_dirs(tmp / "libs");
  write_text(tmp / "libs/cudnn64_99999999999.dll", "x");
  write_text(tmp / "libs/libcudnn.so.99999999999", "x");
  auto r = run_cli({"--json", "doctor"}, env({{"LD_LIBRARY_PATH", tmp / "libs"}}));
  expect_exit(r, {0, 1});
  expect_json_utf8(r);
}

// Was: abort (std::out_of_range), the same name inside a message given to explain.
TEST_F(HostileInput, TheSameNameInAnExplainText) {
  auto r = run_cli({"explain", "Could not load library cudnn64_99999999999.dll. Error code 126"}, env());
  expect_exit(r, {0, 1});
  auto linux_name = run_cli({"explain", "libcudnn_ops.so.99999999999: cannot open shared object file"}, env());
  expect_exit(linux_name, {0, 1});
}

// Was: abort (std::invalid_argument from std::stoi on a "cuda<X>" variant of a redistrib manifest).
TEST_F(HostileInput, MalformedRedistribVariant) {
  make_dirs(tmp / "mirror");
  write_text(tmp / "mirror/redistrib_9.1.0.json", R"({"release_label": "9.1.0", "cudnn": {"version": "9.1.0.70",
    "linux-x86_64": {"cudaXYZ": {"relative_path": "cudnn/x.tar.xz", "sha256": "00", "size": "12"},
                     "cuda99999999999": {"relative_path": "cudnn/y.tar.xz", "size": "not a size"}},
    "linux-sbsa": {"cuda12": {"relative_path": "cudnn/z.tar.xz", "size": 99999999999999999999}}}})");
  for (const char* platform_cuda : {"12", "13"}) {
    auto r = run_cli({"install", "9.1.0", "--cuda", platform_cuda, "--mirror", tmp / "mirror", "--dry-run"}, env());
    expect_exit(r, {2});
  }
}

// Was: abort (nlohmann type_error 302) on a --db file with a wrongly typed field.
TEST_F(HostileInput, RulesFileWithAWronglyTypedField) {
  std::string db = tmp / "rules.json";
  write_text(db, R"({"schema": 1, "driver_minimums": [{"cuda": "13.0", "linux": 580}]})");
  auto r = run_cli({"--db", db, "doctor"}, env());
  expect_exit(r, {2});
  EXPECT_NE(r.err.find(db), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("driver_minimums[0].linux"), std::string::npos) << r.err;
  write_text(db, R"({"schema": "1"})");
  auto j = run_cli({"--json", "--db", db, "doctor"}, env());
  expect_exit(j, {2});
  expect_json_utf8(j);
  EXPECT_NE(j.json["error"]["message"].get<std::string>().find("field 'schema'"), std::string::npos) << j.out;
  EXPECT_EQ(j.json["error"]["path"], db);
}

// Was: abort (nlohmann type_error 316: invalid UTF-8) for each of these.
TEST_F(HostileInput, NonUtf8DirectoryOnLdLibraryPath) {
  std::string dir = tmp / "gpu\xff\xfe";
  make_dirs(dir);
  copy_file(fixture_lib("v9.1.0", "libcudnn.so.9"), dir + "/libcudnn.so.9");
  auto r = run_cli({"--json", "doctor"}, env({{"LD_LIBRARY_PATH", dir}}));
  expect_exit(r, {0, 1});
  expect_json_utf8(r);
  EXPECT_NE(r.out.find(hex_bytes(dir)), std::string::npos) << "the directory's bytes are kept in a _bytes field";
  auto which = run_cli({"--json", "which"}, env({{"LD_LIBRARY_PATH", dir}}));
  expect_exit(which, {0, 1, 2});
  expect_json_utf8(which);
  auto text = run_cli({"doctor"}, env({{"LD_LIBRARY_PATH", dir}}));
  expect_exit(text, {0, 1});
  EXPECT_TRUE(valid_utf8(text.out)) << "text output shows the bytes escaped";
  EXPECT_NE(text.out.find("gpu\\xff\\xfe"), std::string::npos) << text.out;
}

TEST_F(HostileInput, NonUtf8StorePath) {
  std::string store = tmp / "store\xfe";
  auto r = run_cli({"--json", "list"}, env({{"CUDNNUP_HOME", store}}));
  expect_exit(r, {0});
  expect_json_utf8(r);
  EXPECT_NE(r.out.find(hex_bytes(store)), std::string::npos) << r.out;
}

TEST_F(HostileInput, GbkEncodedLogGivenToExplain) {
  // "libcudnn_ops.so.9: cannot open shared object file" followed by GBK text (错误: error).
  std::string log = tmp / "train.log";
  write_text(log, "Could not load library libcudnn_ops.so.9. Error: \xb4\xed\xce\xf3 libcudnn_ops.so.9: cannot open shared "
                  "object file: No such file or directory\n");
  auto r = run_cli({"--json", "explain", "--file", log}, env());
  expect_exit(r, {0, 1});
  expect_json_utf8(r);
  auto text = run_cli({"explain", "--file", log}, env());
  expect_exit(text, {0, 1});
  EXPECT_TRUE(valid_utf8(text.out)) << text.out;
}

#if CUDNNUP_HAVE_INSTALL  // archive-info is built with install
TEST_F(HostileInput, NonUtf8NameInsideAnArchive) {
  OfficialLayout layout;
  layout.top = "cudnn-linux-x86_64-9.19.0.56_cuda13-archive";
  auto entries = official_entries(layout);
  entries.emplace_back(layout.top + "/include/notes\xff\xfe.h", EntryKind::kFile, "x");
  entries.emplace_back(layout.top + "\xff/LICENSE", EntryKind::kFile, "x");
  std::string archive = tmp / (layout.top + ".tar.xz");
  write_archive(archive, entries, ArchiveFormat::kTarXz);
  auto r = run_cli({"--json", "archive-info", archive}, env());
  expect_exit(r, {0, 1, 2});
  expect_json_utf8(r);
}

#endif  // CUDNNUP_HAVE_INSTALL

}  // namespace
}  // namespace cudnnup
