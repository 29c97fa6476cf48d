// cudnn.lock: what the writer writes the reader reads back, and the reader refuses every lock
// the writer would not have written (it arrives in a cloned repository).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "install/cudnn_lock.h"
#include "support/memory_fs.h"

namespace cudnnup {
namespace {

using nlohmann::json;
using testing::MemoryFileSystem;

const std::string kSum(64, 'a');

CudnnLock sample_lock() {
  CudnnLock lock;
  lock.id = "9.19.0.56+cuda13";
  lock.cudnn_version = "9.19.0.56";
  lock.cuda_variant = "13";
  lock.cuda_major = 13;
  lock.platform = "linux-x86_64";
  lock.archive_file_name = "cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz";
  lock.archive_size = 1234;
  lock.archive_sha256 = std::string(64, 'b');
  lock.driver_minimum_linux = "580.65.6";
  lock.driver_minimum_source = "CUDA 13.0 release notes";
  LockedFile shim;
  shim.path = "lib/libcudnn.so.9.19.0";
  shim.size = 10;
  shim.sha256 = kSum;
  LockedFile link;
  link.path = "lib/libcudnn.so.9";
  link.kind = EntryKind::kSymlink;
  link.link_target = "libcudnn.so.9.19.0";
  lock.files = {link, shim};
  return lock;
}

json sample_json() { return json::parse(lock_to_json(sample_lock())); }

// The reader's verdict on a document; "" when it accepts it.
std::string refusal(const json& doc) {
  auto lock = lock_from_json(doc.dump(), "/p/cudnn.lock");
  return lock ? "" : lock.error().message;
}

TEST(CudnnLock, WhatTheWriterWritesReadsBackTheSame) {
  std::string text = lock_to_json(sample_lock());
  auto lock = lock_from_json(text, "/p/cudnn.lock");
  ASSERT_TRUE(lock.ok()) << lock.error().message;
  EXPECT_EQ(lock->id, "9.19.0.56+cuda13");
  EXPECT_EQ(lock->archive_sha256, std::string(64, 'b'));
  ASSERT_EQ(lock->files.size(), 2u);
  EXPECT_EQ(lock->files[0].kind, EntryKind::kSymlink);
  EXPECT_EQ(lock->files[1].size, 10u);
  EXPECT_EQ(lock_to_json(*lock), text);
  EXPECT_EQ(json::parse(text)["schema"], "cudnnup.lock/1");
}

TEST(CudnnLock, AnArchiveThatWasNotKnownIsNull) {
  CudnnLock lock = sample_lock();
  lock.archive_sha256.clear();
  json doc = json::parse(lock_to_json(lock));
  EXPECT_TRUE(doc["archive"].is_null());
  EXPECT_EQ(refusal(doc), "");
}

TEST(CudnnLock, PathsThatLeaveTheCopyAreRefusedNamingTheField) {
  for (const char* path : {"/etc/passwd", "../../.bashrc", "lib/../../x", "C:/Windows/x.dll", "lib\\x.dll", "", "lib//x"}) {
    json doc = sample_json();
    doc["files"][1]["path"] = path;
    std::string why = refusal(doc);
    EXPECT_NE(why, "") << path;
    EXPECT_NE(why.find("/p/cudnn.lock"), std::string::npos) << why;
    EXPECT_NE(why.find("files[1].path"), std::string::npos) << why;
  }
  json doc = sample_json();
  doc["files"][0]["link"] = "../../../etc/passwd";
  EXPECT_NE(refusal(doc).find("files[0].link"), std::string::npos);
}

TEST(CudnnLock, UnknownFieldsAreRefusedNamingThem) {
  json top = sample_json();
  top["postinstall"] = "curl x | sh";
  EXPECT_NE(refusal(top).find("'postinstall' is not a field"), std::string::npos) << refusal(top);
  json nested = sample_json();
  nested["files"][1]["mode"] = 4095;
  EXPECT_NE(refusal(nested).find("files[1].mode"), std::string::npos) << refusal(nested);
  json archive = sample_json();
  archive["archive"]["url"] = "http://elsewhere/x.tar.xz";
  EXPECT_NE(refusal(archive).find("archive.url"), std::string::npos) << refusal(archive);
  json unprintable = sample_json();
  unprintable["a\x1b[2Jb"] = 1;
  std::string why = refusal(unprintable);
  EXPECT_NE(why, "");
  EXPECT_EQ(why.find('\x1b'), std::string::npos) << "the message repeats no control bytes";
}

TEST(CudnnLock, WrongTypesHugeSizesAndBadSumsAreRefused) {
  auto refused = [](const std::function<void(json&)>& edit, const std::string& field) {
    json doc = sample_json();
    edit(doc);
    std::string why = refusal(doc);
    EXPECT_NE(why.find(field), std::string::npos) << field << ": " << why;
  };
  refused([](json& d) { d["files"][1]["size"] = "10"; }, "files[1].size");
  refused([](json& d) { d["files"][1]["size"] = -1; }, "files[1].size");
  refused([](json& d) { d["files"][1]["size"] = uint64_t(1) << 50; }, "files[1].size");
  refused([](json& d) { d["files"][1]["sha256"] = "ABC"; }, "files[1].sha256");
  refused([](json& d) { d["files"][1].erase("sha256"); }, "files[1].sha256");
  refused([](json& d) { d["files"] = json::object(); }, "files");
  refused([](json& d) { d["files"] = json::array(); }, "files");
  refused([](json& d) { d["cuda_major"] = "13"; }, "cuda_major");
  refused([](json& d) { d["schema"] = "cudnnup.lock/2"; }, "schema");
  refused([](json& d) { d["id"] = "../9.19.0.56+cuda13"; }, "id");
  refused([](json& d) { d["id"] = "9.14.0.64+cuda13"; }, "id");  // disagrees with cudnn_version
  refused([](json& d) { d["files"].push_back(d["files"][1]); }, "files[2].path");
  refused([](json& d) { d["driver_minimum"]["linux"] = "$(reboot)"; }, "driver_minimum.linux");
  EXPECT_NE(lock_from_json("[1,2]", "/p/cudnn.lock").ok(), true);
  EXPECT_NE(lock_from_json("{\"schema\":", "/p/cudnn.lock").ok(), true);
  EXPECT_NE(lock_from_json(std::string(kMaxLockBytes + 1, ' '), "/p/cudnn.lock").ok(), true);
}

TEST(CudnnLock, WritingReplacesTheLockWholeAndLeavesNoTemporaryFile) {
  testing::MemoryFileSystem fs;
  fs.add_dir("/p");
  fs.add_file("/p/cudnn.lock", "old");
  ASSERT_TRUE(write_lock_file(fs, "/p/cudnn.lock", sample_lock()).ok());
  EXPECT_EQ(fs.contents("/p/cudnn.lock"), lock_to_json(sample_lock()));
  EXPECT_FALSE(fs.exists("/p/cudnn.lock.tmp"));
  // The rename fails: the old lock stays, whole, and the temporary file is gone.
  fs.add_file("/q/cudnn.lock", "old");
  fs.fail_paths.insert("/q/cudnn.lock");
  EXPECT_FALSE(write_lock_file(fs, "/q/cudnn.lock", sample_lock()).ok());
  EXPECT_EQ(fs.contents("/q/cudnn.lock"), "old");
  EXPECT_FALSE(fs.exists("/q/cudnn.lock.tmp"));
}

TEST(CudnnLock, FromAManifestTakesItsSumsAndHashesOnlyWhatItLacks) {
  InstallManifest m;
  m.mode = "store";
  m.id = "9.19.0.56+cuda13";
  m.cudnn_version = "9.19.0.56";
  m.cuda_variant = "13";
  m.cuda_major = 13;
  m.platform = "linux-x86_64";
  ManifestFile a{"lib/libcudnn.so.9.19.0", "", EntryKind::kFile, 10, kSum, "", ""};
  ManifestFile b{"include/cudnn.h", "", EntryKind::kFile, 3, "", "", ""};
  ManifestFile dir{"lib", "", EntryKind::kDirectory, 0, "", "", ""};
  m.files = {a, b, dir};
  std::vector<std::string> hashed;
  BelowHasher hasher = [&](const std::string&, const std::string& rel) -> Result<std::string> {
    hashed.push_back(rel);
    return std::string(64, 'c');
  };
  auto lock = lock_from_manifest(m, builtin_rules(), &hasher, "/store/versions/9.19.0.56+cuda13", false);
  ASSERT_TRUE(lock.ok()) << lock.error().message;
  EXPECT_EQ(hashed, std::vector<std::string>{"include/cudnn.h"});
  ASSERT_EQ(lock->files.size(), 2u) << "folders are not listed";
  EXPECT_EQ(lock->files[0].path, "include/cudnn.h");  // sorted
  EXPECT_EQ(lock->files[1].sha256, kSum);
  EXPECT_FALSE(lock->driver_minimum_linux.empty()) << "the rules know CUDA 13's driver minimum";
  hashed.clear();
  ASSERT_TRUE(lock_from_manifest(m, builtin_rules(), &hasher, "/r", true).ok());
  EXPECT_EQ(hashed.size(), 2u) << "--deep hashes every file";
}

TEST(CudnnLock, PipAndToolkitFormsReadBackWithFolderPathsOnly) {
  CudnnLock pip = sample_lock();
  pip.form = kLockFormPip;
  pip.archive_sha256.clear();
  for (auto& f : pip.files) f.path = "lib/" + std::string(f.path.substr(f.path.rfind('/') + 1));
  auto back = lock_from_json(lock_to_json(pip), "/p/cudnn.lock");
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->form, "pip");
  EXPECT_EQ(lock_to_json(*back), lock_to_json(pip));
  EXPECT_EQ(pip_install_argv(*back), (std::vector<std::string>{"pip", "install", "nvidia-cudnn-cu13==9.19.0.56"})) << "from the checked version and major";
  CudnnLock three = *back;
  three.cudnn_version = "9.19.0";
  EXPECT_EQ(pip_install_argv(three), (std::vector<std::string>{"pip", "install", "nvidia-cudnn-cu13==9.19.0.*"}))
      << "PEP 440: ==9.19.0 would not match the wheel 9.19.0.56";
  json toolkit = json::parse(lock_to_json(pip));
  toolkit["form"] = "toolkit";
  EXPECT_EQ(refusal(toolkit), "");
  json conda = toolkit;
  conda["form"] = "conda";
  EXPECT_NE(refusal(conda).find("'form'"), std::string::npos) << refusal(conda);
  json package = toolkit;
  package["package"] = "nvidia-cudnn-cu13-evil 1.0";
  EXPECT_NE(refusal(package).find("'package'"), std::string::npos) << "no text of the lock reaches a printed pip command";
  // A pip or toolkit lock names a file of the copy's library or header folder, nothing deeper.
  for (const char* bad : {"targets/x86_64-linux/lib/libcudnn.so.9", "lib/sub/libcudnn.so.9", "bin/libcudnn.so.9"}) {
    json doc = toolkit;
    doc["files"][0]["path"] = bad;
    EXPECT_NE(refusal(doc).find("must be lib/NAME or include/NAME"), std::string::npos) << bad << ": " << refusal(doc);
  }
}

// A pip wheel's copy as discovery reports it, on the in-memory filesystem.
CudnnCopy pip_copy(MemoryFileSystem& fs) {
  const std::string root = "/venv/lib/python3.11/site-packages/nvidia/cudnn";
  fs.add_file(root + "/lib/libcudnn.so.9", "shim");
  fs.add_file(root + "/lib/libcudnn_ops.so.9.19.0", "ops");
  fs.add_symlink(root + "/lib/libcudnn_ops.so.9", "libcudnn_ops.so.9.19.0");
  fs.add_file(root + "/lib/libstdc++.so.6", "not cuDNN's");
  fs.add_file(root + "/include/cudnn_version.h", "#define CUDNN_MAJOR 9");
  fs.add_file(root + "/include/other.h", "not cuDNN's");
  fs.add_file(root + "/__init__.py");
  CudnnCopy c;
  c.root = root;
  c.lib_dir = root + "/lib";
  c.include_dir = root + "/include";
  c.form = PackageForm::kPipWheel;
  c.package = "nvidia-cudnn-cu13 9.19.0.56";  // from the wheel's dist-info
  c.library_version = Version{9, 19, 0};
  c.cuda_major = 13;
  return c;
}

TEST(CudnnLock, FromAPipCopyLocksCudnnsOwnFilesByRelativePathWithTheWheelsVersion) {
  MemoryFileSystem fs;
  CudnnCopy copy = pip_copy(fs);
  std::vector<std::string> hashed;
  BelowHasher hasher = [&](const std::string&, const std::string& rel) -> Result<std::string> {
    hashed.push_back(rel);
    return std::string(64, 'd');
  };
  auto lock = lock_from_copy(fs, copy, "linux-x86_64", builtin_rules(), hasher);
  ASSERT_TRUE(lock.ok()) << lock.error().message;
  EXPECT_EQ(lock->form, "pip");
  EXPECT_EQ(lock->id, "9.19.0.56+cuda13") << "the wheel's whole version, which extends the library's";
  std::vector<std::string> paths;
  for (const auto& f : lock->files) paths.push_back(f.path);
  EXPECT_EQ(paths, (std::vector<std::string>{"include/cudnn_version.h", "lib/libcudnn.so.9", "lib/libcudnn_ops.so.9",
                                             "lib/libcudnn_ops.so.9.19.0"}))
      << "only cuDNN's names, sorted; the wheel's other files are not locked";
  EXPECT_EQ(lock->files[2].kind, EntryKind::kSymlink);
  EXPECT_EQ(lock->files[2].link_target, "libcudnn_ops.so.9.19.0");
  EXPECT_EQ(hashed.size(), 3u) << "every file hashed, no link";
  EXPECT_TRUE(lock_from_json(lock_to_json(*lock), "/p/cudnn.lock").ok()) << "what lock --copy writes, check reads";
}

TEST(CudnnLock, FromACopyRefusesOtherFormsUnknownVersionsAndLinksOutOfTheFolder) {
  BelowHasher hasher = [](const std::string&, const std::string&) -> Result<std::string> { return std::string(64, 'd'); };
  auto refused = [&](MemoryFileSystem& fs, const CudnnCopy& c) {
    auto lock = lock_from_copy(fs, c, "linux-x86_64", builtin_rules(), hasher);
    return lock ? std::string() : lock.error().message;
  };
  {
    MemoryFileSystem fs;
    CudnnCopy c = pip_copy(fs);
    c.form = PackageForm::kConda;
    EXPECT_NE(refused(fs, c).find("its form: conda"), std::string::npos) << refused(fs, c);
  }
  {
    MemoryFileSystem fs;
    CudnnCopy c = pip_copy(fs);
    c.cuda_major = 0;
    EXPECT_NE(refused(fs, c).find("no known CUDA major"), std::string::npos) << refused(fs, c);
  }
  {
    MemoryFileSystem fs;
    CudnnCopy c = pip_copy(fs);
    fs.add_symlink(c.lib_dir + "/libcudnn_cnn.so.9", "../../../evil/libcudnn_cnn.so.9");
    EXPECT_NE(refused(fs, c).find("outside its folder"), std::string::npos) << refused(fs, c);
  }
}

TEST(CudnnLock, AWheelWhoseDistInfoDisagreesWithItsLibraryIsLockedByTheLibrary) {
  MemoryFileSystem fs;
  CudnnCopy c = pip_copy(fs);
  c.package = "nvidia-cudnn-cu13 9.14.0.64";  // a dist-info left behind by another version
  BelowHasher hasher = [](const std::string&, const std::string&) -> Result<std::string> { return std::string(64, 'd'); };
  auto lock = lock_from_copy(fs, c, "linux-x86_64", builtin_rules(), hasher);
  ASSERT_TRUE(lock.ok()) << lock.error().message;
  EXPECT_EQ(lock->cudnn_version, "9.19.0") << "the bytes that load say 9.19.0";
}

TEST(CudnnLock, AToolkitWhoseFoldersAreLinksIsLockedByItsFoldersNotItsLayout) {
  MemoryFileSystem fs;
  // NVIDIA's layout: include and lib64 are links to targets/x86_64-linux/...
  fs.add_file("/usr/local/cuda-13.0/targets/x86_64-linux/lib/libcudnn.so.9", "shim");
  fs.add_file("/usr/local/cuda-13.0/targets/x86_64-linux/lib/libcublas.so.13", "not cuDNN's");
  fs.add_file("/usr/local/cuda-13.0/targets/x86_64-linux/include/cudnn.h", "h");
  fs.add_symlink("/usr/local/cuda-13.0/lib64", "targets/x86_64-linux/lib");
  fs.add_symlink("/usr/local/cuda-13.0/include", "targets/x86_64-linux/include");
  CudnnCopy c;
  c.root = "/usr/local/cuda-13.0";
  c.lib_dir = "/usr/local/cuda-13.0/targets/x86_64-linux/lib";
  c.include_dir = "/usr/local/cuda-13.0/include";
  c.form = PackageForm::kToolkitMerged;
  c.library_version = Version{9, 19, 0};
  c.cuda_major = 13;
  BelowHasher hasher = [](const std::string&, const std::string&) -> Result<std::string> { return std::string(64, 'd'); };
  auto lock = lock_from_copy(fs, c, "linux-x86_64", builtin_rules(), hasher);
  ASSERT_TRUE(lock.ok()) << lock.error().message;
  ASSERT_EQ(lock->files.size(), 2u);
  EXPECT_EQ(lock->files[0].path, "include/cudnn.h");
  EXPECT_EQ(lock->files[1].path, "lib/libcudnn.so.9") << "the same lock as a toolkit laid out as lib/ and include/";
}

}  // namespace
}  // namespace cudnnup
