// Files that vanished or changed after install, judged against the install manifest.
#include <gtest/gtest.h>

#include "diagnose/install_integrity.h"
#include "install/install_manifest.h"
#include "shell/fix_render.h"
#include "support/memory_fs.h"

namespace cudnnup {
namespace {

using testing::MemoryFileSystem;

const std::string kStore = "/home/u/.local/share/cudnnup";
const std::string kVersion = kStore + "/versions/9.19.0.56+cuda13";

// A stand-in sha256 (64 hex digits, as a manifest must hold) that the fake hasher below repeats.
std::string fake_sum(const std::string& contents) {
  uint64_t h = 1469598103934665603ull;  // FNV-1a
  for (unsigned char c : contents) h = (h ^ c) * 1099511628211ull;
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (int i = 0; i < 64; ++i) out += hex[(h >> ((i % 16) * 4)) & 0xf];
  return out;
}

ManifestFile manifest_file(const std::string& path, const std::string& contents) {
  ManifestFile f;
  f.path = path;
  f.kind = EntryKind::kFile;
  f.size = contents.size();
  f.sha256 = fake_sum(contents);
  return f;
}

// A store version with three files and a link, and its manifest.
void install(MemoryFileSystem& fs) {
  InstallManifest m;
  m.mode = "store";
  m.id = "9.19.0.56+cuda13";
  m.files = {manifest_file("lib/libcudnn.so.9.19.0", "shim-bytes"), manifest_file("lib/libcudnn_graph.so.9.19.0", "graph-bytes"),
             manifest_file("include/cudnn.h", "header")};
  ManifestFile link;
  link.path = "lib/libcudnn.so.9";
  link.kind = EntryKind::kSymlink;
  link.link_target = "libcudnn.so.9.19.0";
  m.files.push_back(link);
  fs.add_file(kVersion + "/lib/libcudnn.so.9.19.0", "shim-bytes");
  fs.add_file(kVersion + "/lib/libcudnn_graph.so.9.19.0", "graph-bytes");
  fs.add_file(kVersion + "/include/cudnn.h", "header");
  fs.add_symlink(kVersion + "/lib/libcudnn.so.9", "libcudnn.so.9.19.0");
  fs.add_file(kVersion + "/cudnnup-manifest.json", manifest_to_json(m));
}

TEST(InstallIntegrity, FindsStoreAndToolkitManifests) {
  MemoryFileSystem fs;
  install(fs);
  fs.add_dir(kStore + "/versions/9.1.0.70+cuda12");  // no manifest: not ours to judge
  fs.add_file("/usr/local/cuda-12.4/.cudnnup/manifest.json", "{}");
  fs.add_dir("/usr/local/cuda-13.0");
  auto refs = find_install_manifests(fs, kStore, {"/usr/local/cuda-12.4", "/usr/local/cuda-13.0"});
  ASSERT_EQ(refs.size(), 2u);
  EXPECT_EQ(refs[0].root, kVersion);
  EXPECT_EQ(refs[0].mode, "store");
  EXPECT_EQ(refs[1].root, "/usr/local/cuda-12.4");
  EXPECT_EQ(refs[1].mode, "merge");
}

TEST(InstallIntegrity, AWholeInstallHasNothingToSay) {
  MemoryFileSystem fs;
  install(fs);
  auto r = check_install_integrity(fs, {kVersion + "/cudnnup-manifest.json", kVersion, "store"}, nullptr);
  EXPECT_TRUE(r.error.empty()) << r.error;
  EXPECT_EQ(r.files_checked, 4u);
  EXPECT_TRUE(r.damaged.empty());
  EXPECT_TRUE(integrity_findings({r}, false).empty());
}

TEST(InstallIntegrity, NamesMissingEmptiedResizedAndRelinkedFiles) {
  MemoryFileSystem fs;
  install(fs);
  ASSERT_TRUE(fs.remove(kVersion + "/lib/libcudnn_graph.so.9.19.0"));
  ASSERT_TRUE(fs.write_file(kVersion + "/lib/libcudnn.so.9.19.0", "", false));
  ASSERT_TRUE(fs.write_file(kVersion + "/include/cudnn.h", "a longer header", false));
  ASSERT_TRUE(fs.remove(kVersion + "/lib/libcudnn.so.9"));
  fs.add_symlink(kVersion + "/lib/libcudnn.so.9", "elsewhere.so");
  auto r = check_install_integrity(fs, {kVersion + "/cudnnup-manifest.json", kVersion, "store"}, nullptr);
  ASSERT_EQ(r.damaged.size(), 4u);
  EXPECT_EQ(r.damaged[0].damage, FileDamage::kEmpty);
  EXPECT_EQ(r.damaged[1].damage, FileDamage::kMissing);
  EXPECT_EQ(r.damaged[1].path, kVersion + "/lib/libcudnn_graph.so.9.19.0");
  EXPECT_EQ(r.damaged[2].damage, FileDamage::kSizeChanged);
  EXPECT_EQ(r.damaged[2].actual_size, 15u);
  EXPECT_EQ(r.damaged[3].damage, FileDamage::kLinkChanged);

  auto linux_findings = integrity_findings({r}, false);
  ASSERT_EQ(linux_findings.size(), 1u);
  const Finding& f = linux_findings[0];
  EXPECT_EQ(f.id, "install.files_changed");
  EXPECT_EQ(f.severity, Severity::kError);
  EXPECT_NE(f.title.find("4 of 4 files"), std::string::npos) << f.title;
  EXPECT_NE(f.title.find("vanished or changed after install"), std::string::npos) << f.title;
  EXPECT_EQ(f.evidence[1], kVersion + "/lib/libcudnn_graph.so.9.19.0: missing");
  EXPECT_EQ(f.detail.find("antivirus"), std::string::npos) << "quarantine is a Windows story";
  EXPECT_EQ(render_fix(f.fix, Shell::kBash).back(), "cudnnup install 9.19.0 --cuda 13");
  EXPECT_EQ(f.fix[f.fix.size() - 2].argv, (std::vector<std::string>{"cudnnup", "uninstall", "9.19.0.56+cuda13"}));
}

TEST(InstallIntegrity, OnWindowsNamesQuarantineAndTheWayBack) {
  MemoryFileSystem fs;
  const std::string root = "C:/Program Files/NVIDIA GPU Computing Toolkit/CUDA/v12.4";
  InstallManifest m;
  m.mode = "merge";
  m.id = "8.9.7.29+cuda12";
  m.toolkit_root = root;
  m.backup_dir = ".cudnnup/backup-tx-1";
  m.files = {manifest_file("bin/cudnn64_8.dll", "dll"), manifest_file("bin/cudnn_cnn_infer64_8.dll", "cnn")};
  fs.add_file(root + "/bin/cudnn64_8.dll", "dll");
  fs.add_file(root + "/.cudnnup/manifest.json", manifest_to_json(m));
  auto refs = find_install_manifests(fs, "", {root});
  ASSERT_EQ(refs.size(), 1u);
  auto f = integrity_findings({check_install_integrity(fs, refs[0], nullptr)}, true);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NE(f[0].detail.find("antivirus"), std::string::npos);
  EXPECT_EQ(f[0].evidence[0],
            "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v12.4\\bin\\cudnn_cnn_infer64_8.dll: missing");
  auto lines = render_fix(f[0].fix, Shell::kCmd);
  ASSERT_EQ(lines.size(), 5u);
  EXPECT_NE(lines[0].find("Protection history"), std::string::npos);
  EXPECT_NE(lines[1].find("exclusion"), std::string::npos);
  EXPECT_EQ(f[0].fix[3].argv[1], "uninstall");
  EXPECT_EQ(f[0].fix[4].argv[1], "install");
  EXPECT_NE(lines[4].find("--into"), std::string::npos) << lines[4];
}

TEST(InstallIntegrity, HashesOnlyWhenAskedAndCatchesSameSizeChanges) {
  MemoryFileSystem fs;
  install(fs);
  ASSERT_TRUE(fs.write_file(kVersion + "/include/cudnn.h", "HEADER", false));  // same size
  ManifestRef ref{kVersion + "/cudnnup-manifest.json", kVersion, "store"};
  auto quick = check_install_integrity(fs, ref, nullptr);
  EXPECT_TRUE(quick.damaged.empty()) << "sizes match: the quick check cannot see it";
  EXPECT_FALSE(quick.hashed);
  int calls = 0;
  FileHasher hasher = [&](const std::string& root, const std::string& rel) -> Result<std::string> {
    ++calls;
    return fake_sum(fs.contents(root + "/" + rel));
  };
  auto deep = check_install_integrity(fs, ref, &hasher);
  EXPECT_TRUE(deep.hashed);
  EXPECT_EQ(calls, 3) << "every regular file, not the link";
  ASSERT_EQ(deep.damaged.size(), 1u);
  EXPECT_EQ(deep.damaged[0].damage, FileDamage::kContentChanged);
  EXPECT_EQ(std::string(file_damage_name(deep.damaged[0].damage)), "content_changed");
}

// A manifest is foreign bytes too: one that names a file outside its version directory (by an
// absolute path, by "..", or through a link planted inside it) is reported as unreadable and
// nothing it names is hashed or even looked at.
TEST(InstallIntegrity, AManifestNamingFilesOutsideItsRootMakesDoctorLookAtNothing) {
  std::vector<std::string> calls;
  MemoryFileSystem* current = nullptr;
  FileHasher hasher = [&](const std::string& root, const std::string& rel) -> Result<std::string> {
    calls.push_back(root + "/" + rel);
    return fake_sum(current->contents(root + "/" + rel));
  };
  for (const std::string bad : {"/etc/shadow", "../../../../../etc/shadow", "lib/../../../etc/shadow", "C:/Windows/win.ini",
                                "lib\\..\\..\\x", "lib/libcudnn.so.9.19.0:stream"}) {
    MemoryFileSystem fs;
    install(fs);
    fs.add_file("/etc/shadow", "root:secret");
    auto m = manifest_from_json(fs.contents(kVersion + "/cudnnup-manifest.json"), "m");
    ASSERT_TRUE(m.ok());
    m->files.push_back(manifest_file(bad, "root:secret"));
    fs.add_file(kVersion + "/cudnnup-manifest.json", manifest_to_json(*m));
    calls.clear();
    current = &fs;
    auto r = check_install_integrity(fs, {kVersion + "/cudnnup-manifest.json", kVersion, "store"}, &hasher);
    EXPECT_FALSE(r.error.empty()) << bad;
    EXPECT_NE(r.error.find("files.path"), std::string::npos) << r.error;
    EXPECT_TRUE(calls.empty()) << bad << ": hashed " << (calls.empty() ? "" : calls[0]);
    EXPECT_EQ(r.files_checked, 0u) << bad;
  }
  // A well-formed path that passes through a link inside the version directory is not followed.
  MemoryFileSystem fs;
  install(fs);
  fs.add_file("/etc/shadow", "header");  // same size and bytes as include/cudnn.h
  ASSERT_TRUE(fs.remove(kVersion + "/include/cudnn.h"));
  ASSERT_TRUE(fs.remove(kVersion + "/include"));
  fs.add_symlink(kVersion + "/include", "/etc");
  fs.add_symlink("/etc/cudnn.h", "/etc/shadow");
  calls.clear();
  current = &fs;
  auto r = check_install_integrity(fs, {kVersion + "/cudnnup-manifest.json", kVersion, "store"}, &hasher);
  EXPECT_TRUE(r.error.empty()) << r.error;
  for (const auto& c : calls) EXPECT_EQ(c.find("include"), std::string::npos) << "hashed through a link: " << c;
  ASSERT_EQ(r.damaged.size(), 1u);
  EXPECT_EQ(r.damaged[0].path, kVersion + "/include/cudnn.h");
  EXPECT_EQ(r.damaged[0].damage, FileDamage::kNotAFile);
}

TEST(InstallIntegrity, UnreadableManifestIsAWarning) {
  MemoryFileSystem fs;
  fs.add_file(kVersion + "/cudnnup-manifest.json", "{not json");
  auto refs = find_install_manifests(fs, kStore, {});
  ASSERT_EQ(refs.size(), 1u);
  auto f = integrity_findings({check_install_integrity(fs, refs[0], nullptr)}, false);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].id, "install.manifest_unreadable");
  EXPECT_EQ(f[0].severity, Severity::kWarning);
}

}  // namespace
}  // namespace cudnnup
