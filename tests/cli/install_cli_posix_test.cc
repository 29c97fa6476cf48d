// End-to-end: the cudnnup binary installing archives built at test time, the image's real cuDNN
// shim, the store lock, and downloads from a loopback mirror (tests/support/mirror_server.py).
#if CUDNNUP_HAVE_INSTALL

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <regex>
#include <thread>

#include "facts/known_archives.h"
#include "platform/sha256.h"
#include "platform/file_lock.h"
#include "platform/process.h"
#include "platform/real_filesystem.h"
#include "support/archive_builder.h"
#include "support/fixture_libs.h"

namespace cudnnup {
namespace {

namespace stdfs = std::filesystem;
using testing::ArchiveFormat;
using testing::OfficialLayout;

// Build 99 of 9.19.0 was never published: a name in NVIDIA's table (data/known_archives.json)
// would be checked against the real archive's sha256 and refused.
const std::string kRealCuda = "/usr/local/cuda-13.0";  // this image's toolkit with cuDNN 9.19

class InstallCli : public ::testing::Test {
 protected:
  testing::TempDir tmp;
  std::string store() const { return tmp / "store"; }

  ProcessResult cudnnup(std::vector<std::string> args, std::map<std::string, std::string> extra_env = {},
                        const std::string& cwd = {}) {
    args.insert(args.begin(), CUDNNUP_BINARY);
    ProcessOptions o;
    o.timeout_ms = 120000;
    o.cwd = cwd;
    std::map<std::string, std::string> env = {{"HOME", tmp.path()}, {"PATH", "/usr/bin:/bin"},
                                              {"CUDNNUP_HOME", store()}, {"NO_COLOR", "1"}, {"CUDNNUP_SHELL", "bash"}};
    for (auto& [k, v] : extra_env) env[k] = v;
    o.env = env;
    auto r = run_process(args, o);
    EXPECT_TRUE(r.ok());
    return r.ok() ? *r : ProcessResult{};
  }
  std::string make_toolkit(int cuda_major, const std::string& name = "cuda") {
    std::string root = tmp / name;
    testing::write_text(root + "/include/cuda.h", "#define CUDA_VERSION " + std::to_string(cuda_major * 1000) + "\n");
    testing::make_dirs(root + "/lib64");
    return root;
  }
  // The official layout with the image's real shim and headers; the sub-libraries (~500 MB real)
  // are stubs here to keep CI fast (bench/install_bench.sh packs all of them).
  std::string real_shim_archive() {
    auto entries = testing::official_entries(OfficialLayout{testing::kUnpublishedLinuxTop});
    for (auto& e : entries) {
      if (e.path == testing::kUnpublishedLinuxTop + "/lib/libcudnn.so.9.19.0") e.data = testing::read_file_bytes(kRealCuda + "/lib/libcudnn.so.9");
      std::string base = e.path.substr(e.path.rfind('/') + 1);
      if (e.path.find("/include/") != std::string::npos && stdfs::exists(kRealCuda + "/include/" + base)) {
        e.data = testing::read_file_bytes(kRealCuda + "/include/" + base);
      }
    }
    std::string archive = tmp / (testing::kUnpublishedLinuxTop + ".tar.xz");
    testing::write_archive(archive, entries, ArchiveFormat::kTarXz);
    return archive;
  }
  std::string official_archive(const std::string& dir) {
    std::string path = dir + "/" + testing::kUnpublishedLinuxTop + ".tar.xz";
    testing::write_archive(path, testing::official_entries(OfficialLayout{testing::kUnpublishedLinuxTop}), ArchiveFormat::kTarXz);
    return path;
  }
};

TEST_F(InstallCli, RealCudnnShimMergedIntoAToolkitReports91900AndDoctorSeesIt) {
  if (!stdfs::exists(kRealCuda + "/lib/libcudnn.so.9") || !stdfs::exists(kRealCuda + "/include/cudnn_version.h")) {
    GTEST_SKIP() << "no cuDNN 9 in " << kRealCuda;
  }
  std::string archive = real_shim_archive();
  std::string cuda = make_toolkit(13);

  auto info = cudnnup({"--json", "archive-info", "--no-machine", archive});
  ASSERT_EQ(info.exit_code, 0) << info.out << info.err;
  auto j = nlohmann::json::parse(info.out);
  EXPECT_EQ(j["contents"]["header_version"], "9.19.0");
  EXPECT_EQ(j["archive"]["name"]["cuda_major"], 13);
  EXPECT_TRUE(j["installable"].get<bool>());

  auto r = cudnnup({"install", archive, "--into", cuda});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  nlohmann::json request{{"protocol", "cudnnup.child/1"}, {"task", "probe-cudnn"}, {"events", "-"},
                         {"library", cuda + "/lib64/libcudnn.so.9"}};
  auto probe = cudnnup({"__child", request.dump()});
  ASSERT_EQ(probe.exit_code, 0) << probe.err;
  nlohmann::json p;  // the "result" event's object (core/child/protocol.h)
  for (size_t at = 0, next; at < probe.out.size(); at = next + 1) {
    next = probe.out.find('\n', at);
    if (next == std::string::npos) next = probe.out.size();
    auto e = nlohmann::json::parse(probe.out.substr(at, next - at), nullptr, false);
    if (!e.is_discarded() && e.value("event", "") == "result") p = e["result"];
  }
  ASSERT_TRUE(p.is_object()) << probe.out;
  EXPECT_TRUE(p["loaded"].get<bool>()) << probe.out;
  EXPECT_EQ(p["version"], 91900) << probe.out;

  auto doctor = cudnnup({"--json", "doctor"}, {{"CUDA_HOME", cuda}});
  EXPECT_NE(doctor.out.find(cuda + "/lib64"), std::string::npos) << "doctor does not list the merged copy:\n" << doctor.out.substr(0, 2000);
  EXPECT_NE(doctor.out.find("9.19.0"), std::string::npos);

  auto un = cudnnup({"uninstall", "--into", cuda});
  ASSERT_EQ(un.exit_code, 0) << un.err;
  EXPECT_FALSE(stdfs::exists(cuda + "/lib64/libcudnn.so.9"));
  EXPECT_FALSE(stdfs::exists(cuda + "/.cudnnup"));
}

// The commands install prints around a merge, for the shell the user runs: the undo line after it,
// and the fix of a second merge into the same toolkit (an error's fix steps), into a folder whose
// name breaks a badly quoted line. Each line for fish runs in a real fish and removes the merge.
TEST_F(InstallCli, UndoLinesAndErrorFixesAreWrittenForTheUsersShell) {
  std::string archive = official_archive(tmp.path());
  std::string cuda = make_toolkit(13, "cuda it's & 100%");
  auto merged = cudnnup({"install", archive, "--into", cuda}, {{"CUDNNUP_SHELL", "pwsh"}});
  ASSERT_EQ(merged.exit_code, 0) << merged.out << merged.err;
  EXPECT_NE(merged.out.find("Undo with: cudnnup uninstall --into '" + tmp.path() + "/cuda it''s & 100%'\n"), std::string::npos)
      << merged.out;
  auto again = cudnnup({"--json", "install", archive, "--into", cuda}, {{"CUDNNUP_SHELL", "fish"}});
  ASSERT_NE(again.exit_code, 0);
  auto j = nlohmann::json::parse(again.out);
  EXPECT_EQ(j["error"]["fix_shell"], "fish");
  EXPECT_EQ(j["error"]["fix_commands"], nlohmann::json::array({{"cudnnup", "uninstall", "--into", cuda}}));
  ASSERT_EQ(j["error"]["fix"].size(), 1u);
  std::string line = j["error"]["fix"][0];
  EXPECT_EQ(line, "cudnnup uninstall --into '" + tmp.path() + "/cuda it\\'s & 100%'");
  EXPECT_EQ(j["error"]["message"].get<std::string>().find("cudnnup uninstall"), std::string::npos)
      << "the command is a fix step, not text in the message";
  // The text form prints it under the message; fish runs it as printed.
  auto text = cudnnup({"install", archive, "--into", cuda}, {{"CUDNNUP_SHELL", "fish"}});
  EXPECT_NE(text.err.find("\n  " + line + "\n"), std::string::npos) << text.err;
  if (!stdfs::exists("/usr/bin/fish")) GTEST_SKIP() << "fish is not installed: the line is not run";
  ProcessOptions o;
  o.timeout_ms = 120000;
  testing::make_dirs(tmp / "home/.config/fish");
  o.env = std::map<std::string, std::string>{{"HOME", tmp / "home"}, {"PATH", stdfs::path(CUDNNUP_BINARY).parent_path().string() + ":/usr/bin:/bin"},
                                             {"CUDNNUP_HOME", store()}, {"LANG", "C.UTF-8"}};
  auto ran = run_process({"/usr/bin/fish", "--no-config", "-c", line}, o);
  ASSERT_TRUE(ran.ok());
  EXPECT_EQ(ran->exit_code, 0) << ran->out << ran->err;
  EXPECT_FALSE(stdfs::exists(cuda + "/.cudnnup")) << "the printed undo ran and restored the toolkit";
}

// Files that vanish after install (quarantine, a cleanup script) are found against the manifest:
// in the store and in a toolkit merge, by size on every doctor run, by sha256 with --deep.
TEST_F(InstallCli, DoctorReportsFilesThatVanishedOrChangedAfterInstall) {
  std::string archive = official_archive(tmp.path());
  auto installed = cudnnup({"install", archive});
  ASSERT_EQ(installed.exit_code, 0) << installed.out << installed.err;
  std::string cuda = make_toolkit(13);
  auto merged = cudnnup({"install", archive, "--into", cuda});
  ASSERT_EQ(merged.exit_code, 0) << merged.out << merged.err;

  auto findings_of = [&](const std::vector<std::string>& extra) {
    std::vector<std::string> args = {"--json", "doctor"};
    args.insert(args.end(), extra.begin(), extra.end());
    auto r = cudnnup(args, {{"CUDA_HOME", cuda}});
    auto j = nlohmann::json::parse(r.out);
    std::vector<nlohmann::json> out;
    for (const auto& f : j["findings"]) {
      if (f["id"].get<std::string>().rfind("install.", 0) == 0) out.push_back(f);
    }
    return out;
  };
  EXPECT_TRUE(findings_of({}).empty()) << "a fresh install is whole";

  std::string version_dir = store() + "/versions/9.19.0.99+cuda13";
  ASSERT_TRUE(stdfs::remove(version_dir + "/lib/libcudnn_graph.so.9.19.0"));
  stdfs::resize_file(cuda + "/lib64/libcudnn_ops.so.9.19.0", 0);
  auto f = findings_of({});
  ASSERT_EQ(f.size(), 2u);
  std::string all = f[0].dump() + f[1].dump();
  EXPECT_NE(all.find("vanished or changed after install"), std::string::npos) << all;
  EXPECT_NE(all.find(version_dir + "/lib/libcudnn_graph.so.9.19.0: missing"), std::string::npos) << all;
  EXPECT_NE(all.find(cuda + "/lib64/libcudnn_ops.so.9.19.0: 0 bytes"), std::string::npos) << all;
  EXPECT_EQ(f[0]["severity"], "error");

  // Same size, other bytes: only --deep sees it.
  auto h = version_dir + "/include/cudnn.h";
  std::string text = testing::read_file_bytes(h);
  text[0] = text[0] == 'x' ? 'y' : 'x';
  testing::write_text(h, text);
  auto quick = findings_of({});
  auto deep = findings_of({"--deep"});
  std::string quick_text, deep_text;
  for (const auto& x : quick) quick_text += x.dump();
  for (const auto& x : deep) deep_text += x.dump();
  EXPECT_EQ(quick_text.find("include/cudnn.h"), std::string::npos) << quick_text;
  EXPECT_NE(deep_text.find("include/cudnn.h: same size, different sha256"), std::string::npos) << deep_text;
}

// Install, use and exec through the real commands: the image's real cuDNN 9.19 shim (and headers)
// installed into the store by `install`, selected with `use`, loaded by a program run through
// `exec`. The sub-libraries are stubs (see above); cudnnGetVersion() lives in the real shim.
TEST_F(InstallCli, RealCudnnInstalledIntoTheStoreSelectedWithUseIsWhatExecLoads) {
  if (!stdfs::exists(kRealCuda + "/lib/libcudnn.so.9") || !stdfs::exists(kRealCuda + "/include/cudnn_version.h")) {
    GTEST_SKIP() << "no cuDNN 9 in " << kRealCuda;
  }
  std::string archive = real_shim_archive();
  auto installed = cudnnup({"install", archive});
  ASSERT_EQ(installed.exit_code, 0) << installed.out << installed.err;
  auto use = cudnnup({"use", "9.19"});
  ASSERT_EQ(use.exit_code, 0) << use.out << use.err;
  std::string probe = std::string(CUDNNUP_FIXTURE_DIR) + "/print_cudnn_version";
  // Another copy first on LD_LIBRARY_PATH must not win: exec puts the selected one first.
  auto r = cudnnup({"exec", "--", probe}, {{"LD_LIBRARY_PATH", std::string(CUDNNUP_FIXTURE_DIR) + "/v9.14.0"}});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out, "91900\n") << r.err;
}

TEST_F(InstallCli, Sha256GivenOnTheCommandLineIsCheckedBeforeAnythingIsInstalled) {
  std::string archive = official_archive(tmp.path());
  auto fs = make_real_filesystem();
  std::string real_sha = *sha256_file(*fs, archive);
  std::string wrong_sha = std::string(64, 'a');

  auto bad = cudnnup({"install", archive, "--sha256", wrong_sha});
  EXPECT_EQ(bad.exit_code, 2) << bad.out << bad.err;  // a damaged archive, as for NVIDIA's own hashes
  EXPECT_NE(bad.err.find("the sha256 given with --sha256 is " + wrong_sha), std::string::npos) << bad.err;
  EXPECT_FALSE(stdfs::exists(store() + "/versions/9.19.0.99+cuda13")) << "a refused archive must leave no copy";

  auto malformed = cudnnup({"install", archive, "--sha256", "12ab"});
  EXPECT_EQ(malformed.exit_code, 2) << malformed.out << malformed.err;

  // Upper-case hex as some sites print it.
  std::string upper = real_sha;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  auto good = cudnnup({"--json", "install", archive, "--sha256", upper});
  ASSERT_EQ(good.exit_code, 0) << good.out << good.err;
  auto j = nlohmann::json::parse(good.out);
  EXPECT_EQ(j["archive"]["sha256"], real_sha);
}

TEST_F(InstallCli, WithoutAPublishedSha256TheArchiveIsNotHashedButEveryFileIs) {
  std::string archive = official_archive(tmp.path());
  auto r = cudnnup({"--json", "install", archive});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["archive"]["sha256"], "");
  EXPECT_FALSE(j["source"]["checked_against_known_hash"].get<bool>());
  auto fs = make_real_filesystem();
  std::string target = j["target"];
  auto manifest = nlohmann::json::parse(*fs->read_file(target + "/cudnnup-manifest.json"));
  int files = 0;
  for (const auto& f : manifest["files"]) {
    if (f["type"] != "file") continue;
    ++files;
    std::string path = f["path"];
    if (path.front() != '/') path = target + "/" + path;
    EXPECT_EQ(f["sha256"], *sha256_file(*fs, path)) << path;
  }
  EXPECT_GT(files, 5);
}

TEST_F(InstallCli, ASecondInstallFailsCleanlyWhileTheLockIsHeld) {
  std::string archive = official_archive(tmp.path());
  testing::make_dirs(store());
  {
    auto lock = FileLock::acquire(store() + "/lock", false);
    ASSERT_TRUE(lock.ok());
    auto r = cudnnup({"install", archive, "--no-wait"});
    EXPECT_EQ(r.exit_code, 4) << r.err;
    EXPECT_NE(r.err.find("another cudnnup"), std::string::npos) << r.err;
    EXPECT_FALSE(stdfs::exists(store() + "/versions/9.19.0.99+cuda13"));
  }
  auto r = cudnnup({"install", archive, "--no-wait"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(stdfs::exists(store() + "/versions/9.19.0.99+cuda13/lib/libcudnn.so.9"));
}

TEST_F(InstallCli, AWaitingInstallProceedsWhenTheLockIsReleased) {
  std::string archive = official_archive(tmp.path());
  testing::make_dirs(store());
  auto acquired = FileLock::acquire(store() + "/lock", false);
  ASSERT_TRUE(acquired.ok());
  auto lock = std::make_unique<FileLock>(std::move(acquired.value()));
  std::thread release([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(700));
    lock.reset();
  });
  auto r = cudnnup({"install", archive});
  release.join();
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("waiting for another cudnnup"), std::string::npos) << r.err;
}

// --- Mirrors: NVIDIA's redistrib layout in a directory and over loopback HTTP. ---

class MirrorCli : public InstallCli {
 protected:
  std::string mirror() const { return tmp / "mirror"; }
  std::string archive_rel = "cudnn/linux-x86_64/" + testing::kUnpublishedLinuxTop + ".tar.xz";
  uint64_t size = 0;
  std::string sha;

  void SetUp() override {
    testing::make_dirs(mirror() + "/cudnn/linux-x86_64");
    std::string archive = official_archive(mirror() + "/cudnn/linux-x86_64");
    size = stdfs::file_size(archive);
    auto fs = make_real_filesystem();
    sha = *sha256_file(*fs, archive);
    write_manifest("9.19.0", sha);
  }
  void write_manifest(const std::string& label, const std::string& hash) {
    nlohmann::json m = {{"release_label", label}, {"release_date", "2026-01-01"}, {"release_product", "cudnn"},
                        {"cudnn", {{"name", "NVIDIA CUDA Deep Neural Network library"}, {"version", "9.19.0.99"},
                                   {"cuda_variant", {"13"}},
                                   {"linux-x86_64", {{"cuda13", {{"relative_path", archive_rel}, {"sha256", hash},
                                                                 {"md5", "0"}, {"size", std::to_string(size)}}}}}}}};
    testing::write_text(mirror() + "/redistrib_" + label + ".json", m.dump(1));
  }
  // Starts the loopback server; returns its base URL.
  std::string serve(const std::string& flags) {
    std::string port_file = tmp / "port";
    std::string cmd = "python3 " + std::string(CUDNNUP_SOURCE_DIR) + "/tests/support/mirror_server.py --root " + mirror() +
                      " --port-file " + port_file + " --log " + (tmp / "requests.log") + " --lifetime 60 " + flags + " &";
    EXPECT_EQ(std::system(cmd.c_str()), 0);
    for (int i = 0; i < 100 && !stdfs::exists(port_file); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    base_url = "http://127.0.0.1:" + testing::read_file_bytes(port_file) + "/";
    return base_url;
  }
  void TearDown() override {
    if (!base_url.empty()) (void)std::system(("python3 -c \"import urllib.request as u; u.urlopen('" + base_url + "__quit', timeout=5)\" >/dev/null 2>&1").c_str());
  }
  std::string base_url;
};

TEST_F(MirrorCli, VersionResolvesThroughTheRedistribManifestInALocalMirror) {
  auto r = cudnnup({"--json", "install", "9.19.0", "--cuda", "13", "--mirror", mirror()});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["id"], "9.19.0.99+cuda13");
  EXPECT_TRUE(j["source"]["checked_against_known_hash"].get<bool>());
  EXPECT_TRUE(stdfs::exists(store() + "/versions/9.19.0.99+cuda13/lib/libcudnn.so.9"));

  auto wrong_cuda = cudnnup({"install", "9.19.0", "--cuda", "12", "--mirror", mirror()});
  EXPECT_EQ(wrong_cuda.exit_code, 2);
  EXPECT_NE(wrong_cuda.err.find("CUDA 13"), std::string::npos) << wrong_cuda.err;
}

// Without --cuda the toolkit the environment names first decides, and install says so.
TEST_F(MirrorCli, WithoutCudaTheToolkitOfCudaHomeDecidesAndIsNamed) {
  std::string cuda12 = make_toolkit(12);
  auto twelve = cudnnup({"install", "9.19.0", "--mirror", mirror()}, {{"CUDA_HOME", cuda12}});
  EXPECT_EQ(twelve.exit_code, 2);
  EXPECT_NE(twelve.err.find("cudnnup: --cuda 12 assumed from the CUDA 12.0 toolkit at " + cuda12 +
                            " (found through CUDA_HOME); pass --cuda N for another build"),
            std::string::npos)
      << twelve.err;
  EXPECT_NE(twelve.err.find("is built for CUDA 13, not CUDA 12"), std::string::npos) << twelve.err;
  EXPECT_FALSE(stdfs::exists(store() + "/versions"));
  // In JSON the failure carries the choice that led to it.
  auto twelve_json = cudnnup({"--json", "install", "9.19.0", "--mirror", mirror()}, {{"CUDA_HOME", cuda12}});
  EXPECT_EQ(twelve_json.exit_code, 2);
  auto e = nlohmann::json::parse(twelve_json.out);
  EXPECT_EQ(e["schema"], "cudnnup.error/1");
  EXPECT_EQ(e["error"]["notes"], nlohmann::json::array({"--cuda 12 assumed from the CUDA 12.0 toolkit at " + cuda12 +
                                                        " (found through CUDA_HOME); pass --cuda N for another build"}))
      << twelve_json.out;
  EXPECT_EQ(twelve_json.err, "") << "--json: the note is in the document, not on stderr";

  stdfs::remove_all(cuda12);
  std::string cuda13 = make_toolkit(13);
  auto thirteen = cudnnup({"--json", "install", "9.19", "--mirror", mirror()}, {{"CUDA_HOME", cuda13}});
  ASSERT_EQ(thirteen.exit_code, 0) << thirteen.out << thirteen.err;
  auto j = nlohmann::json::parse(thirteen.out);
  EXPECT_EQ(j["request"]["requested"], "9.19");
  EXPECT_EQ(j["request"]["release"], "9.19.0");
  EXPECT_EQ(j["request"]["cuda_major"], 13);
  EXPECT_EQ(j["request"]["cuda_note"], "--cuda 13 assumed from the CUDA 13.0 toolkit at " + cuda13 +
                                           " (found through CUDA_HOME); pass --cuda N for another build");
  EXPECT_EQ(j["request"]["release_note"], "'9.19' is cuDNN 9.19.0: the newest cuDNN 9.19 that " + mirror() +
                                              "/ lists for linux-x86_64 and CUDA 13");
  EXPECT_TRUE(stdfs::exists(store() + "/versions/9.19.0.99+cuda13/lib/libcudnn.so.9"));
}

// A mirror folder given relative to the working directory is recorded by its full path: the
// refreshed rows are read later from anywhere, and `archive-info` names where each row came from.
TEST_F(MirrorCli, UpdateKnownFromARelativeMirrorFolderRecordsItsFullPath) {
  auto r = cudnnup({"--json", "archive-info", "--update-known", "--mirror", "./mirror"}, {}, tmp.path());
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  auto j = nlohmann::json::parse(r.out);
  std::string full = stdfs::canonical(mirror()).string() + "/";
  EXPECT_EQ(j["mirror"], full);
  ASSERT_EQ(j["added"].size(), 1u) << r.out;
  EXPECT_EQ(j["added"][0]["source"], full + "redistrib_9.19.0.json");
  auto table = nlohmann::json::parse(testing::read_file_bytes(store() + "/known_archives.json"));
  EXPECT_EQ(table.dump().find("\"./mirror"), std::string::npos) << table.dump();
  EXPECT_NE(table.dump().find(full + "redistrib_9.19.0.json"), std::string::npos) << table.dump();
}

// `install 9` and `install latest` over HTTP read the mirror's index page; with no index the
// table of NVIDIA archives decides, which a mirror without that release then refuses by name.
TEST_F(MirrorCli, PartialVersionsResolveThroughTheMirrorsIndexPage) {
  write_manifest("9.18.1", sha);  // an older release with the same archive name: not chosen
  std::string url = serve("");
  auto latest = cudnnup({"install", "latest", "--cuda", "13", "--mirror", url, "--dry-run"});
  ASSERT_EQ(latest.exit_code, 0) << latest.err;
  EXPECT_NE(latest.err.find("cudnnup: 'latest' is cuDNN 9.19.0: the newest cuDNN that " + url + " lists for linux-x86_64 and CUDA 13"),
            std::string::npos)
      << latest.err;
  EXPECT_NE(latest.out.find("Would download " + url + archive_rel), std::string::npos) << latest.out;
  auto nine = cudnnup({"install", "9", "--cuda", "13", "--mirror", url});
  ASSERT_EQ(nine.exit_code, 0) << nine.err;
  EXPECT_TRUE(stdfs::exists(store() + "/versions/9.19.0.99+cuda13/lib/libcudnn.so.9"));
  auto quiet = cudnnup({"-q", "install", "9", "--cuda", "13", "--mirror", url});
  EXPECT_EQ(quiet.err, "") << "-q prints no notes";
}

// Without an index page the table of NVIDIA's archives stands in: its releases newest first, each
// the mirror has no manifest of skipped and named, down to 9.19.0, which this mirror holds.
TEST_F(MirrorCli, WithoutAnIndexPageTheTableOfNvidiaArchivesDecidesAndSaysSo) {
  std::string url = serve("--no-index");
  auto r = cudnnup({"install", "9", "--cuda", "13", "--mirror", url, "--dry-run"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto newest = newest_known_release(builtin_known_archives(), 9, 13, false);
  ASSERT_TRUE(newest);
  ASSERT_NE(newest->str(), "9.19.0") << "the table has releases newer than the mirror's";
  EXPECT_NE(r.err.find("cudnnup: '9' is cuDNN 9.19.0: the newest cuDNN 9 that cudnnup's table of NVIDIA archives has for linux-x86_64 "
                       "and CUDA 13 (skipped " + newest->str() + " (no manifest);"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("; the mirror's list of releases could not be read"), std::string::npos) << r.err;
  EXPECT_FALSE(stdfs::exists(store() + "/versions"));
}

TEST_F(MirrorCli, ListAvailableShowsTheMirrorsReleasesForThisPlatform) {
  write_manifest("9.18.1", sha);
  auto text = cudnnup({"list", "--available", "--mirror", mirror()});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("cuDNN releases on " + mirror() + "/ for linux-x86_64:\n  9.19.0  2026-01-01  CUDA 13 ("), std::string::npos)
      << text.out;
  EXPECT_LT(text.out.find("9.19.0"), text.out.find("9.18.1"));
  auto none = cudnnup({"list", "--available", "--mirror", mirror(), "--cuda", "12"});
  EXPECT_NE(none.out.find("  (none)"), std::string::npos) << none.out;
  auto misuse = cudnnup({"list", "--cuda", "12"});
  EXPECT_EQ(misuse.exit_code, 2);
  EXPECT_NE(misuse.err.find("--mirror, --cuda and --all go with --available"), std::string::npos) << misuse.err;
}

TEST_F(MirrorCli, ADroppedDownloadResumesOnTheNextRun) {
  uint64_t half = size / 2;
  std::string url = serve("--drop-after " + std::to_string(half));
  auto first = cudnnup({"install", "9.19.0", "--cuda", "13", "--mirror", url});
  EXPECT_EQ(first.exit_code, 2) << first.err;
  EXPECT_NE(first.err.find("again"), std::string::npos) << first.err;
  EXPECT_FALSE(stdfs::exists(store() + "/versions/9.19.0.99+cuda13"));
  std::string part = store() + "/cache/" + testing::kUnpublishedLinuxTop + ".tar.xz.part";
  ASSERT_TRUE(stdfs::exists(part));
  EXPECT_EQ(stdfs::file_size(part), half);

  auto second = cudnnup({"install", "9.19.0", "--cuda", "13", "--mirror", url});
  ASSERT_EQ(second.exit_code, 0) << second.err;
  EXPECT_TRUE(stdfs::exists(store() + "/versions/9.19.0.99+cuda13/lib/libcudnn.so.9"));
  EXPECT_NE(testing::read_file_bytes(tmp / "requests.log").find("range=bytes=" + std::to_string(half) + "-"), std::string::npos)
      << "the second run asked only for the rest";
  EXPECT_TRUE(stdfs::exists(store() + "/cache/" + testing::kUnpublishedLinuxTop + ".tar.xz"));
}

TEST_F(MirrorCli, AWrongSha256IsRefusedAndNothingIsInstalled) {
  std::string url = serve("--corrupt " + testing::kUnpublishedLinuxTop + ".tar.xz");
  auto r = cudnnup({"install", "9.19.0", "--cuda", "13", "--mirror", url});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("sha256"), std::string::npos) << r.err;
  EXPECT_FALSE(stdfs::exists(store() + "/versions"));
  EXPECT_FALSE(stdfs::exists(store() + "/cache/" + testing::kUnpublishedLinuxTop + ".tar.xz.part")) << "a wrong file is not kept for resuming";
}

// Where each hash came from: without a published one the mirror's manifest is used and named.
TEST_F(MirrorCli, TheOutputSaysWhichHashTheArchiveWasCheckedAgainst) {
  auto r = cudnnup({"--json", "install", "9.19.0", "--cuda", "13", "--mirror", mirror()});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  auto j = nlohmann::json::parse(r.out);
  std::string manifest = mirror() + "/redistrib_9.19.0.json";
  EXPECT_EQ(j["source"]["sha256_from"], "the mirror's manifest (" + manifest + ")");
  ASSERT_EQ(j["source"]["hashes"].size(), 1u);
  EXPECT_EQ(j["source"]["hashes"][0]["source"], "mirror-manifest");
  EXPECT_EQ(j["source"]["hashes"][0]["where"], manifest);
  EXPECT_EQ(j["source"]["hashes"][0]["sha256"], sha);
  EXPECT_TRUE(j["source"]["hashes"][0]["used"].get<bool>());
  EXPECT_EQ(j["archive"]["sha256"], sha);

  ASSERT_EQ(cudnnup({"uninstall", "9.19.0.99+cuda13"}).exit_code, 0);
  auto text = cudnnup({"install", "9.19.0", "--cuda", "13", "--mirror", mirror(), "--sha256", sha});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("matches the mirror's manifest (" + manifest + "); the sha256 given with --sha256 agrees"), std::string::npos)
      << text.out;
}

// A mirror whose manifest gives another sha256 for an archive NVIDIA published (a row of
// data/known_archives.json) is refused before anything is downloaded, naming both sources.
TEST_F(MirrorCli, AMirrorThatDisagreesWithNvidiasPublishedHashIsRefused) {
  const std::string published = "cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz";
  nlohmann::json m = {{"release_label", "9.19.0"},
                      {"cudnn", {{"version", "9.19.0.56"},
                                 {"linux-x86_64", {{"cuda13", {{"relative_path", "cudnn/linux-x86_64/" + published},
                                                               {"sha256", sha}, {"size", std::to_string(size)}}}}}}}};
  testing::write_text(mirror() + "/redistrib_9.19.0.json", m.dump(1));
  stdfs::copy_file(mirror() + "/" + archive_rel, mirror() + "/cudnn/linux-x86_64/" + published);
  auto r = cudnnup({"install", "9.19.0", "--cuda", "13", "--mirror", mirror()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("NVIDIA's published sha256 (https://developer.download.nvidia.com/compute/cudnn/redist/redistrib_9.19.0.json)"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("the mirror's manifest (" + mirror() + "/redistrib_9.19.0.json) is " + sha), std::string::npos) << r.err;
  EXPECT_FALSE(stdfs::exists(store() + "/versions"));
}

// A browser's "cudnn (1).tar.xz" of a known archive is checked against the row its top folder
// names (here the store's refreshed row for build 99): the real bytes install and say what they
// matched; other bytes under that top folder are refused and leave no copy.
TEST_F(MirrorCli, ARenamedKnownArchiveIsCheckedAgainstTheRowItsTopFolderNames) {
  auto update = cudnnup({"archive-info", "--update-known", "--mirror", mirror()});
  ASSERT_EQ(update.exit_code, 0) << update.out << update.err;
  std::string top = testing::kUnpublishedLinuxTop;

  std::string tampered = tmp / "downloads/cudnn (2).tar.xz";
  testing::make_dirs(tmp / "downloads");
  auto entries = testing::official_entries(OfficialLayout{top});
  entries.push_back(testing::FakeEntry(top + "/include/extra.h", EntryKind::kFile, "// not NVIDIA's\n"));
  testing::write_archive(tampered, entries, ArchiveFormat::kTarXz);
  auto refused = cudnnup({"install", tampered});
  EXPECT_EQ(refused.exit_code, 2) << refused.out << refused.err;
  EXPECT_NE(refused.err.find("the store's refreshed known-archives row for " + top + ".tar.xz (the archive's top folder) is " + sha),
            std::string::npos)
      << refused.err;
  EXPECT_FALSE(stdfs::exists(store() + "/versions/9.19.0.99+cuda13")) << "a refused archive must leave no copy";

  std::string renamed = tmp / "downloads/cudnn (1).tar.xz";
  stdfs::copy_file(mirror() + "/" + archive_rel, renamed);
  auto r = cudnnup({"--json", "install", renamed});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["archive"]["sha256"], sha);
  EXPECT_TRUE(j["source"]["checked_against_known_hash"].get<bool>());
  EXPECT_EQ(j["source"]["sha256_from"], "the store's refreshed known-archives row for " + top + ".tar.xz (the archive's top folder)");
}

TEST_F(MirrorCli, AMissingVersionSaysWhereItLooked) {
  std::string url = serve("");
  auto r = cudnnup({"install", "9.99.0", "--cuda", "13", "--mirror", url});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("redistrib_9.99.0.json"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace cudnnup

#endif  // CUDNNUP_HAVE_INSTALL

#if CUDNNUP_HAVE_INSTALL
namespace cudnnup {
namespace {

std::map<std::string, std::string> tree_of(const std::string& root) {
  std::map<std::string, std::string> out;
  if (!stdfs::exists(root)) return out;
  for (auto it = stdfs::recursive_directory_iterator(root); it != stdfs::recursive_directory_iterator(); ++it) {
    std::string rel = it->path().lexically_relative(root).generic_string();
    // Backup folders and the manifest carry each run's transaction id and time; compare shapes.
    rel = std::regex_replace(rel, std::regex("backup-tx-[0-9-]+"), "backup-TX");
    if (it->is_symlink()) out[rel] = "link:" + stdfs::read_symlink(it->path()).generic_string();
    else if (it->is_directory()) out[rel] = "dir";
    else if (rel == ".cudnnup/manifest.json") out[rel] = "manifest";
    else out[rel] = "file:" + testing::read_file_bytes(it->path().string());
  }
  return out;
}

// A real SIGKILL at many points of a toolkit merge: afterwards the next run repairs from the
// journal, and the toolkit is exactly the old or the new tree, never a mix.
TEST_F(InstallCli, SigkillAtAnyMomentIsRepairedByTheNextRun) {
  auto entries = testing::official_entries(OfficialLayout{testing::kUnpublishedLinuxTop});
  std::string filler(16u << 20, '\0');
  for (size_t i = 0; i < filler.size(); i += 4096) filler[i] = char(i * 2654435761u >> 24);
  entries.push_back(testing::FakeEntry(testing::kUnpublishedLinuxTop + "/lib/zz_filler.bin", EntryKind::kFile, filler));  // makes the install last
  std::string archive = tmp / (testing::kUnpublishedLinuxTop + ".tar");
  testing::write_archive(archive, entries, ArchiveFormat::kTar);
  std::string cuda = make_toolkit(13);
  testing::write_text(cuda + "/include/cudnn.h", "old header");
  auto old_tree = tree_of(cuda);

  // The kill points are spread over the time a whole install takes here; the faster of two full
  // installs sets the scale, so the kills land inside even a run that is quicker than the first
  // (a cold page cache made the first one slow and the kills late: the test then killed nothing).
  int full_ms = 1 << 30;
  std::map<std::string, std::string> new_tree;
  for (int i = 0; i < 2; ++i) {
    auto started = std::chrono::steady_clock::now();
    auto ok = cudnnup({"install", archive, "--into", cuda});
    full_ms = std::min(full_ms, int(std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started).count()));
    ASSERT_EQ(ok.exit_code, 0) << ok.err;
    new_tree = tree_of(cuda);
    ASSERT_EQ(cudnnup({"uninstall", "--into", cuda}).exit_code, 0);
    ASSERT_EQ(tree_of(cuda), old_tree);
  }

  int killed = 0;
  for (int step = 1; step <= 6; ++step) {
    int ms = std::max(5, full_ms * step / 7);
    ProcessOptions o;
    o.timeout_ms = ms;  // SIGKILL at the deadline
    o.env = std::map<std::string, std::string>{{"HOME", tmp.path()}, {"PATH", "/usr/bin:/bin"}, {"CUDNNUP_HOME", store()}};
    auto r = run_process({CUDNNUP_BINARY, "install", archive, "--into", cuda}, o);
    ASSERT_TRUE(r.ok());
    killed += r->timed_out;
    // The next cudnnup run that takes the lock repairs first; here one that then has nothing to do.
    auto repair = cudnnup({"uninstall", "0.0.0"});
    EXPECT_NE(repair.err.find("not installed"), std::string::npos) << repair.err;
    auto repaired = tree_of(cuda);
    EXPECT_TRUE(repaired == old_tree || repaired == new_tree) << "after a kill at " << ms << " ms and recovery";
    EXPECT_TRUE(!stdfs::exists(store() + "/journal") || stdfs::is_empty(store() + "/journal")) << ms;
    // Installing again completes (or finds it complete).
    auto again = cudnnup({"install", archive, "--into", cuda});
    EXPECT_TRUE(again.exit_code == 0 || (repaired == new_tree && again.exit_code == 4)) << ms << ": " << again.err;
    EXPECT_EQ(tree_of(cuda), new_tree) << "after a kill at " << ms << " ms";
    auto un = cudnnup({"uninstall", "--into", cuda});
    EXPECT_EQ(un.exit_code, 0) << "after a kill at " << ms << " ms: " << un.err;
    EXPECT_EQ(tree_of(cuda), old_tree) << "after a kill at " << ms << " ms";
    EXPECT_TRUE(!stdfs::exists(store() + "/journal") || stdfs::is_empty(store() + "/journal")) << ms;
  }
  EXPECT_GE(killed, 2) << "most runs should have been killed mid-way (a full install took " << full_ms << " ms)";
}

}  // namespace
}  // namespace cudnnup
#endif
