// End-to-end: `cudnnup lock` then `cudnnup check` on a store version installed from an archive
// built at test time (stub libraries from tests/fixtures), and each kind of drift the issue names:
// a changed library, a removed one, a foreign copy earlier on LD_LIBRARY_PATH, another version
// selected. Hostile locks are refused with exit 2 and change nothing.
#if CUDNNUP_HAVE_INSTALL

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include "platform/real_filesystem.h"
#include "platform/sha256.h"
#include "support/archive_builder.h"
#include "support/fixture_libs.h"
#include "support/run_cli.h"
#include "support/tree_snapshot.h"

namespace cudnnup {
namespace {

namespace stdfs = std::filesystem;
using namespace cudnnup::testing;

const std::string kLockedId = "9.19.0.99+cuda13";

class LockCheckCli : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string archive = tmp / (testing::kUnpublishedLinuxTop + ".tar.xz");
    write_archive(archive, official_entries(OfficialLayout{testing::kUnpublishedLinuxTop}), ArchiveFormat::kTarXz);
    // With its sha256, as a download from a mirror has it: install records an archive's sha256
    // only when it checks one, and install --locked needs the lock to name it.
    auto fs = make_real_filesystem();
    auto installed = cli({"install", archive, "--sha256", *sha256_file(*fs, archive)});
    ASSERT_EQ(installed.exit_code, 0) << installed.out << installed.err;
    make_dirs(proj());
    auto pinned = cli({"use", "--local", kLockedId}, {}, proj());
    ASSERT_EQ(pinned.exit_code, 0) << pinned.out << pinned.err;
    auto locked = cli({"lock"}, {}, proj());
    ASSERT_EQ(locked.exit_code, 0) << locked.out << locked.err;
  }

  std::string store() const { return tmp / "store"; }
  std::string proj() const { return tmp / "proj"; }
  std::string lib() const { return store() + "/versions/" + kLockedId + "/lib"; }

  // The environment a project shell has after `eval "$(cudnnup env)"`: the locked copy first.
  CliResult cli(const std::vector<std::string>& args, std::map<std::string, std::string> extra = {}, const std::string& cwd = {}) {
    std::map<std::string, std::string> env = {{"HOME", tmp / "home"}, {"PATH", "/usr/bin:/bin"}, {"CUDNNUP_HOME", store()},
                                              {"NO_COLOR", "1"}, {"LD_LIBRARY_PATH", lib()}};
    for (auto& [k, v] : extra) env[k] = v;
    return run_cli(args, env, cwd.empty() ? tmp.path() : cwd);
  }
  CliResult check(std::map<std::string, std::string> extra = {}, std::vector<std::string> more = {}) {
    std::vector<std::string> args = {"--json", "check"};
    args.insert(args.end(), more.begin(), more.end());
    return cli(args, std::move(extra), proj());
  }
  // The kinds of drift check reported, each with its subject: "changed /x/lib/libcudnn_ops.so.9.19.0".
  static std::vector<std::string> drift(const CliResult& r) {
    std::vector<std::string> out;
    for (const auto& d : r.json["drift"]) out.push_back(d["kind"].get<std::string>() + " " + d["subject"].get<std::string>());
    return out;
  }

  TempDir tmp;
};

TEST_F(LockCheckCli, LockThenCheckPasses) {
  auto lock = nlohmann::json::parse(read_file_bytes(proj() + "/cudnn.lock"));
  EXPECT_EQ(lock["schema"], "cudnnup.lock/1");
  EXPECT_EQ(lock["id"], kLockedId);
  EXPECT_EQ(lock["platform"], "linux-x86_64");
  EXPECT_EQ(lock["archive"]["file_name"], testing::kUnpublishedLinuxTop + ".tar.xz");
  EXPECT_FALSE(lock["files"].empty());
  for (const auto& f : lock["files"]) EXPECT_NE(f["path"].get<std::string>()[0], '/') << "paths are relative";
  auto r = check();
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.json["matches"], true) << r.out;
  EXPECT_EQ(r.json["files_checked"], lock["files"].size());
  auto deep = check({}, {"--deep"});
  EXPECT_EQ(deep.exit_code, 0) << deep.out;
  auto text = cli({"check"}, {}, proj());
  EXPECT_EQ(text.exit_code, 0) << text.out;
  EXPECT_NE(text.out.find("matches"), std::string::npos) << text.out;
}

TEST_F(LockCheckCli, AChangedLibraryFailsNamingIt) {
  std::string ops = lib() + "/libcudnn_ops.so.9.19.0";
  { std::ofstream(ops, std::ios::app) << "patched"; }
  auto r = check();
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_EQ(drift(r), std::vector<std::string>{"changed " + ops}) << r.out;
  auto text = cli({"check"}, {}, proj());
  EXPECT_EQ(text.exit_code, 1);
  EXPECT_NE(text.out.find(ops), std::string::npos) << text.out;
}

TEST_F(LockCheckCli, ASameSizeChangeIsSeenByItsTimeAndByDeepItsSha256) {
  // A header, so that the loader model still reads the libraries: only the file check speaks.
  std::string header = store() + "/versions/" + kLockedId + "/include/cudnn_version.h";
  std::string bytes = read_file_bytes(header);
  ASSERT_FALSE(bytes.empty());
  bytes[0] = bytes[0] == ' ' ? '\t' : ' ';
  { std::ofstream(header, std::ios::binary | std::ios::trunc) << bytes; }
  auto later = stdfs::last_write_time(store() + "/versions/" + kLockedId + "/cudnnup-manifest.json") + std::chrono::seconds(5);
  stdfs::last_write_time(header, later);
  auto fast = check();
  EXPECT_EQ(fast.exit_code, 1) << fast.out;
  EXPECT_EQ(drift(fast), std::vector<std::string>{"modified " + header}) << fast.out;
  auto deep = check({}, {"--deep"});
  EXPECT_EQ(deep.exit_code, 1) << deep.out;
  EXPECT_EQ(drift(deep), std::vector<std::string>{"changed " + header}) << deep.out;
}

TEST_F(LockCheckCli, ARemovedLibraryFailsNamingIt) {
  std::string graph = lib() + "/libcudnn_graph.so.9.19.0";
  stdfs::remove(graph);
  auto r = check();
  EXPECT_EQ(r.exit_code, 1) << r.out;
  auto d = drift(r);
  ASSERT_FALSE(d.empty()) << r.out;
  EXPECT_EQ(d.front(), "missing " + graph) << r.out;
}

TEST_F(LockCheckCli, AnExtraLibraryInTheCopyFailsNamingIt) {
  std::string extra = lib() + "/libcudnn_extra.so.9";
  copy_file(lib() + "/libcudnn_ops.so.9.19.0", extra);
  auto r = check();
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_EQ(drift(r), std::vector<std::string>{"extra " + extra}) << r.out;
}

TEST_F(LockCheckCli, AForeignCopyEarlierOnLdLibraryPathFailsNamingIt) {
  std::string foreign = tmp / "foreign/lib";
  install_stub_set("v9.19.0", foreign);
  auto r = check({{"LD_LIBRARY_PATH", foreign + ":" + lib()}});
  EXPECT_EQ(r.exit_code, 1) << r.out;
  auto d = drift(r);
  ASSERT_EQ(d.size(), 1u) << r.out;
  EXPECT_EQ(d[0].rfind("loads " + foreign, 0), 0u) << r.out;
}

TEST_F(LockCheckCli, AnotherVersionSelectedFailsNamingIt) {
  std::string other = store() + "/versions/9.14.0.64+cuda13";
  install_stub_set("v9.14.0", other + "/lib", true);
  write_text(other + "/include/cudnn_version.h", cudnn_version_header(9, 14, 0));
  auto r = check({{"CUDNNUP_VERSION", "9.14"}});
  EXPECT_EQ(r.exit_code, 1) << r.out;
  auto d = drift(r);
  ASSERT_EQ(d.size(), 1u) << r.out;
  EXPECT_EQ(d[0], "version 9.14.0.64+cuda13") << r.out;
}

TEST_F(LockCheckCli, HostileLocksAreRefusedWithExit2AndChangeNothing) {
  auto good = nlohmann::json::parse(read_file_bytes(proj() + "/cudnn.lock"));
  std::vector<std::pair<std::string, nlohmann::json>> hostile;
  auto edit = [&](const std::string& what, const std::function<void(nlohmann::json&)>& f) {
    nlohmann::json doc = good;
    f(doc);
    hostile.emplace_back(what, doc);
  };
  edit("absolute path", [](auto& d) { d["files"][0]["path"] = "/etc/passwd"; });
  edit("climbing path", [](auto& d) { d["files"][0]["path"] = "../../../../etc/passwd"; });
  edit("huge size", [](auto& d) { d["files"][0]["size"] = uint64_t(1) << 62; });
  edit("wrong type", [](auto& d) { d["files"] = "lib"; });
  edit("unknown field", [](auto& d) { d["download_from"] = "http://elsewhere/"; });
  edit("id that climbs", [](auto& d) { d["id"] = "../../x"; });
  for (const auto& [what, doc] : hostile) {
    write_text(proj() + "/cudnn.lock", doc.dump(1));
    auto before = disk_tree(tmp.path());
    auto r = check();
    EXPECT_EQ(r.exit_code, 2) << what << "\n" << r.out;
    EXPECT_EQ(r.json["schema"], "cudnnup.error/1") << what;
    EXPECT_NE(r.json["error"]["message"].get<std::string>().find(proj() + "/cudnn.lock"), std::string::npos) << what << r.out;
    EXPECT_EQ(tree_changes(before, disk_tree(tmp.path())), "") << what;
  }
}

TEST_F(LockCheckCli, LockNeedsAProjectAndCheckNeedsALock) {
  auto global = cli({"use", kLockedId});
  ASSERT_EQ(global.exit_code, 0) << global.err;
  make_dirs(tmp / "elsewhere");
  auto r = cli({"lock"}, {}, tmp / "elsewhere");
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("--dir"), std::string::npos) << r.err;
  EXPECT_FALSE(stdfs::exists(tmp / "elsewhere/cudnn.lock"));
  auto with_dir = cli({"lock", "--dir", tmp / "elsewhere"}, {}, tmp / "elsewhere");
  EXPECT_EQ(with_dir.exit_code, 0) << with_dir.err;
  EXPECT_TRUE(stdfs::exists(tmp / "elsewhere/cudnn.lock"));
  make_dirs(tmp / "nolock");
  auto none = cli({"check"}, {}, tmp / "nolock");
  EXPECT_EQ(none.exit_code, 2) << none.out << none.err;
  EXPECT_NE(none.err.find("cudnnup lock"), std::string::npos) << none.err;
}

// --- install --locked: another machine (an empty store) makes the locked copy from a mirror. ---

class LockedInstallCli : public LockCheckCli {
 protected:
  std::string store2() const { return tmp / "store2"; }
  std::string mirror() const { return tmp / "mirror"; }
  // Serves `archive` under NVIDIA's layout with its redistrib manifest (tests/support/mirror_server.py).
  std::string serve(const std::string& archive) {
    std::string rel = "cudnn/linux-x86_64/" + testing::kUnpublishedLinuxTop + ".tar.xz";
    make_dirs(mirror() + "/cudnn/linux-x86_64");
    stdfs::copy_file(archive, mirror() + "/" + rel, stdfs::copy_options::overwrite_existing);
    auto fs = make_real_filesystem();
    std::string sha = *sha256_file(*fs, mirror() + "/" + rel);
    nlohmann::json m = {{"release_label", "9.19.0"}, {"release_product", "cudnn"},
                        {"cudnn", {{"name", "cuDNN"}, {"version", "9.19.0.99"}, {"cuda_variant", {"13"}},
                                   {"linux-x86_64", {{"cuda13", {{"relative_path", rel}, {"sha256", sha}, {"md5", "0"},
                                                                 {"size", std::to_string(stdfs::file_size(archive))}}}}}}}};
    write_text(mirror() + "/redistrib_9.19.0.json", m.dump(1));
    std::string port_file = tmp / "port";
    std::string cmd = "python3 " + std::string(CUDNNUP_SOURCE_DIR) + "/tests/support/mirror_server.py --root " + mirror() +
                      " --port-file " + port_file + " --log " + (tmp / "requests.log") + " --lifetime 60 &";
    EXPECT_EQ(std::system(cmd.c_str()), 0);
    for (int i = 0; i < 200 && !stdfs::exists(port_file); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    base_url = "http://127.0.0.1:" + read_file_bytes(port_file) + "/";
    return base_url;
  }
  void TearDown() override {
    if (!base_url.empty()) {
      (void)std::system(("python3 -c \"import urllib.request as u; u.urlopen('" + base_url + "__quit', timeout=5)\" >/dev/null 2>&1").c_str());
    }
  }
  std::string base_url;
};

TEST_F(LockedInstallCli, InstallLockedFromTheLoopbackMirrorReproducesTheCopyByteForByte) {
  std::string url = serve(tmp / (testing::kUnpublishedLinuxTop + ".tar.xz"));
  std::string lib2 = store2() + "/versions/" + kLockedId + "/lib";
  auto r = cli({"install", "--locked", "--mirror", url}, {{"CUDNNUP_HOME", store2()}}, proj());
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(read_file_bytes(tmp / "requests.log").find(testing::kUnpublishedLinuxTop + ".tar.xz"), std::string::npos) << "downloaded from the mirror";
  auto lock = nlohmann::json::parse(read_file_bytes(proj() + "/cudnn.lock"));
  std::string root = store2() + "/versions/" + kLockedId;
  auto fs = make_real_filesystem();
  for (const auto& f : lock["files"]) {
    std::string path = root + "/" + f["path"].get<std::string>();
    if (f.contains("link")) {
      EXPECT_EQ(stdfs::read_symlink(path).string(), f["link"].get<std::string>()) << path;
    } else {
      EXPECT_EQ(*sha256_file(*fs, path), f["sha256"].get<std::string>()) << path;
      EXPECT_EQ(stdfs::file_size(path), f["size"].get<uint64_t>()) << path;
    }
  }
  // Selected there, and check agrees the other machine now matches the lock.
  auto current = cli({"current", "--bare"}, {{"CUDNNUP_HOME", store2()}}, proj());
  EXPECT_EQ(current.out, kLockedId + "\n") << current.err;
  auto check2 = check({{"CUDNNUP_HOME", store2()}, {"LD_LIBRARY_PATH", lib2}});
  EXPECT_EQ(check2.exit_code, 0) << check2.out;
}

TEST_F(LockedInstallCli, AnArchiveOtherThanTheLockedOneIsRefusedAndNothingIsInstalled) {
  auto entries = official_entries(OfficialLayout{testing::kUnpublishedLinuxTop});
  entries.push_back({testing::kUnpublishedLinuxTop + "/include/cudnn_extra.h", EntryKind::kFile, "/* not in the locked archive */\n"});
  std::string other = std::string(tmp / "other") + "/" + testing::kUnpublishedLinuxTop + ".tar.xz";
  make_dirs(tmp / "other");
  write_archive(other, entries, ArchiveFormat::kTarXz);
  std::string url = serve(other);
  auto r = cli({"--json", "install", "--locked", "--mirror", url}, {{"CUDNNUP_HOME", store2()}}, proj());
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_EQ(r.json["schema"], "cudnnup.error/1") << r.out;
  EXPECT_FALSE(stdfs::exists(store2() + "/versions/" + kLockedId));
}

TEST_F(LockedInstallCli, AHostileLockInstallsNothing) {
  auto doc = nlohmann::json::parse(read_file_bytes(proj() + "/cudnn.lock"));
  doc["files"][0]["path"] = "../../../../../tmp/x";
  write_text(proj() + "/cudnn.lock", doc.dump());
  auto before = disk_tree(tmp.path());
  auto r = cli({"install", "--locked", "--mirror", mirror()}, {{"CUDNNUP_HOME", store2()}}, proj());
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("files[0].path"), std::string::npos) << r.err;
  EXPECT_EQ(tree_changes(before, disk_tree(tmp.path())), "");
}

}  // namespace
}  // namespace cudnnup

#endif  // CUDNNUP_HAVE_INSTALL
