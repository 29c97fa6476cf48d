// Hostile archives through the real binary, into the store and merged into a toolkit: links that
// leave the tree only once they are followed (a link through an earlier link, `..` after a link,
// chains climbing to / and /tmp), library names on files that are no such library, libraries for
// another CPU, loops, absolute targets, hard links out. Each must exit 2 (never die of a signal)
// with the reason, and leave the whole test tree, store included, byte for byte as it was.
#if CUDNNUP_HAVE_INSTALL

#include <gtest/gtest.h>

#include <filesystem>
#include <functional>

#include "platform/process.h"
#include "support/archive_builder.h"
#include "support/fake_archive.h"
#include "support/fixture_libs.h"
#include "support/tree_snapshot.h"

namespace cudnnup {
namespace {

namespace stdfs = std::filesystem;
using testing::ArchiveFormat;
using testing::FakeEntry;
using testing::OfficialLayout;

// Build 99 of 9.19.0 was never published, so NVIDIA's table (data/known_archives.json) has no
// hash for these hand-made archives.
const std::string kSbsaTop = "cudnn-linux-sbsa-9.19.0.99_cuda13-archive";
constexpr uint16_t kAarch64 = 183;

class HostileArchive : public ::testing::Test {
 protected:
  testing::TempDir tmp;

  void SetUp() override {
    // A toolkit to merge into (x86_64: its runtime library says so), an outside folder the
    // escapes aim at, and the store with its lock file already there.
    testing::write_text(cuda() + "/include/cuda.h", "#define CUDA_VERSION 13000\n");
    testing::copy_file(testing::fixture_lib("v9.19.0", "libcudnn.so.9"), cuda() + "/lib64/libcudart.so.13");
    testing::write_text(tmp / "outside/secret", "outside the target\n");
    testing::write_text(tmp / "outside/evil.so", "not a library\n");
    testing::write_text(tmp / "store/lock", "");
  }
  std::string cuda() const { return tmp / "cuda"; }

  ProcessResult cudnnup(std::vector<std::string> args) {
    args.insert(args.begin(), CUDNNUP_BINARY);
    ProcessOptions o;
    o.timeout_ms = 60000;
    o.env = {{"HOME", tmp.path()}, {"PATH", "/usr/bin:/bin"}, {"CUDNNUP_HOME", tmp / "store"}, {"NO_COLOR", "1"}};
    auto r = run_process(args, o);
    EXPECT_TRUE(r.ok());
    return r.ok() ? *r : ProcessResult{};
  }

  // The official layout of `top` with `change` applied.
  std::string archive(const std::string& name, const std::string& top, const std::function<void(std::vector<FakeEntry>&)>& change) {
    auto entries = testing::official_entries(OfficialLayout{top});
    change(entries);
    // Plain tar: the policy does not care how the archive is compressed, and CI time does.
    std::string path = tmp / ("dl/" + name + "/" + top + ".tar");
    testing::make_dirs(paths_parent(path));
    testing::write_archive(path, entries, ArchiveFormat::kTar);
    return path;
  }
  static std::string paths_parent(const std::string& p) { return p.substr(0, p.rfind('/')); }

  void expect_refused(const std::string& label, const std::vector<std::string>& args, const std::string& why) {
    auto before = testing::disk_tree(tmp.path());
    auto r = cudnnup(args);
    EXPECT_TRUE(r.exited_normally()) << label << ": " << r.describe_failure();
    EXPECT_EQ(r.exit_code, 2) << label << "\n" << r.out << r.err;
    EXPECT_NE(r.err.find(why), std::string::npos) << label << ": " << r.err;
    EXPECT_EQ(testing::disk_tree(tmp.path()), before) << label << ": the tree changed";
  }
};

void replace(std::vector<FakeEntry>& e, const std::string& path, FakeEntry with) {
  for (auto& x : e) {
    if (x.path == path) x = std::move(with);
  }
}

struct Case {
  std::string label;
  std::string top = testing::kUnpublishedLinuxTop;
  std::function<void(std::vector<FakeEntry>&)> change;
  std::string why;              // in stderr, both modes
  bool store = true, merge = true;
};

TEST_F(HostileArchive, EveryShapeIsRefusedWithExitTwoAndNothingChanges) {
  const std::string t = testing::kUnpublishedLinuxTop + "/";
  const std::string deep = "d1/d2/d3/d4/d5/d6/d7/d8/d9/d10";
  const std::string up10 = "../../../../../../../../../..";
  const std::string up9 = "../../../../../../../../..";
  // A link ten folders down that leads up to the top, and one that climbs nine more through it:
  // each reads as inside when its own text is checked. `aim` is where the climb should end.
  auto climbing_chain = [&](std::vector<FakeEntry>& e, const std::string& aim) {
    e.push_back({t + deep + "/u0", EntryKind::kSymlink, {}, up10});
    e.push_back({t + deep + "/u1", EntryKind::kSymlink, {}, "u0/" + up9});
    e.push_back({t + deep + "/u2", EntryKind::kSymlink, {}, "u1/.." + aim});
    e.push_back({t + deep + aim, EntryKind::kFile, "decoy, so the text alone resolves to something\n"});
  };
  std::string stub = testing::read_file_bytes(testing::fixture_lib("v9.19.0", "libcudnn_adv.so.9"));
  std::vector<Case> cases = {
      {"sibling link and .. through it",
       testing::kUnpublishedLinuxTop,
       [&](auto& e) {
         e.push_back({t + "lib/s", EntryKind::kSymlink, {}, "../include"});
         e.push_back({t + "lib/x", EntryKind::kSymlink, {}, "s/../../outside"});
         e.push_back({t + "outside", EntryKind::kFile, "decoy\n"});
       },
       "refusing archive entry 'lib/x'"},
      {"a chain climbing to /etc/passwd",
       testing::kUnpublishedLinuxTop,
       [&](auto& e) {
         climbing_chain(e, "/etc/passwd");
         replace(e, t + "lib/libcudnn_ops.so.9", {t + "lib/libcudnn_ops.so.9", EntryKind::kSymlink, {}, "../" + deep + "/u2"});
       },
       "refusing archive entry 'lib/libcudnn_ops.so.9'"},
      {"libcudnn.so.9 resolving to a file in /tmp",
       testing::kUnpublishedLinuxTop,
       [&](auto& e) {
         climbing_chain(e, tmp / "outside/evil.so");
         replace(e, t + "lib/libcudnn.so.9", {t + "lib/libcudnn.so.9", EntryKind::kSymlink, {}, "../" + deep + "/u2"});
       },
       "refusing archive entry 'lib/libcudnn.so.9'"},
      {"a library name linked to ../LICENSE",
       testing::kUnpublishedLinuxTop,
       [&](auto& e) { replace(e, t + "lib/libcudnn.so.9", {t + "lib/libcudnn.so.9", EntryKind::kSymlink, {}, "../LICENSE"}); },
       "refusing archive entry 'lib/libcudnn.so.9'"},
      {"a library name linked to another sub-library",
       testing::kUnpublishedLinuxTop,
       [&](auto& e) { replace(e, t + "lib/libcudnn.so.9", {t + "lib/libcudnn.so.9", EntryKind::kSymlink, {}, "libcudnn_ops.so.9.19.0"}); },
       "another library"},
      {"an executable under a library's name",
       testing::kUnpublishedLinuxTop,
       [&](auto& e) { replace(e, t + "lib/libcudnn_adv.so.9.19.0", {t + "lib/libcudnn_adv.so.9.19.0", EntryKind::kFile, testing::with_elf_type(stub, 2)}); },
       "not a shared library"},
      {"an aarch64 library set on x86_64",
       kSbsaTop,
       [&](auto& e) {
         for (auto& x : e) {
           if (x.kind == EntryKind::kFile && x.path.find("/lib/") != std::string::npos) x.data = testing::with_elf_machine(x.data, kAarch64);
         }
       },
       "built for aarch64 but"},
      {"a mixed-architecture set",
       testing::kUnpublishedLinuxTop,
       [&](auto& e) {
         for (auto& x : e) {
           if (x.path == t + "lib/libcudnn_cnn.so.9.19.0") x.data = testing::with_elf_machine(x.data, kAarch64);
         }
       },
       "several machines"},
      {"a link loop",
       testing::kUnpublishedLinuxTop,
       [&](auto& e) {
         e.push_back({t + "lib/a", EntryKind::kSymlink, {}, "b"});
         e.push_back({t + "lib/b", EntryKind::kSymlink, {}, "../lib/a"});
       },
       "symlink loop"},
      {"a chain of 45 links",
       testing::kUnpublishedLinuxTop,
       [&](auto& e) {
         for (int i = 0; i < 45; ++i) e.push_back({t + "lib/l" + std::to_string(i), EntryKind::kSymlink, {}, "l" + std::to_string(i + 1)});
         e.push_back({t + "lib/l45", EntryKind::kFile, "end\n"});
       },
       "symlink loop"},
      {"an absolute link target",
       testing::kUnpublishedLinuxTop,
       [&](auto& e) { replace(e, t + "lib/libcudnn.so.9", {t + "lib/libcudnn.so.9", EntryKind::kSymlink, {}, "/usr/lib/x86_64-linux-gnu/libc.so.6"}); },
       "absolute path"},
      {"a hard link to /etc/passwd",
       testing::kUnpublishedLinuxTop,
       [&](auto& e) { e.push_back({t + "lib/passwd", EntryKind::kHardlink, {}, "/etc/passwd"}); },
       "hard link"},
      {"a hard link out of the folder",
       testing::kUnpublishedLinuxTop,
       [&](auto& e) { e.push_back({t + "lib/secret", EntryKind::kHardlink, {}, "../../outside/secret"}); },
       "hard link"},
      {"a link through a file",
       testing::kUnpublishedLinuxTop,
       [&](auto& e) { e.push_back({t + "lib/z", EntryKind::kSymlink, {}, "../LICENSE/x"}); },
       "which is a file"},
      {"a set-user-ID library",
       testing::kUnpublishedLinuxTop,
       [&](auto& e) {
         for (auto& x : e) {
           if (x.path == t + "lib/libcudnn_ops.so.9.19.0") x.mode = 04755;
         }
       },
       "set-user-ID"},
      {"a library name linked to a toolkit's old file",
       testing::kUnpublishedLinuxTop,
       [&](auto& e) { e.push_back({t + "lib/libcudnn_ops.so.8", EntryKind::kSymlink, {}, "libcudnn_ops_infer.so.8"}); },
       "dangling"},
      {"a header linking to ../lib, which lands in lib64",
       testing::kUnpublishedLinuxTop,
       [&](auto& e) { e.push_back({t + "include/cudnn_lib.h", EntryKind::kSymlink, {}, "../lib/libcudnn.so.9.19.0"}); },
       "outside the cuDNN files it installs",
       /*store=*/false},
  };
  for (const auto& c : cases) {
    std::string file = archive(c.label, c.top, c.change);
    if (c.store) expect_refused(c.label + " (store)", {"install", file}, c.why);
    if (c.merge) expect_refused(c.label + " (--into)", {"install", file, "--into", cuda()}, c.why);
  }
  EXPECT_FALSE(stdfs::exists(tmp / "store/versions"));
}

// `..` after the toolkit's own link: lib64 -> targets/x86_64-linux/lib with include/ a folder of
// its own, so ../include from lib64 is targets/x86_64-linux/include, which this install does not fill.
TEST_F(HostileArchive, DotDotAfterTheToolkitsOwnLinkIsTakenFromWhereTheLinkLeads) {
  stdfs::remove_all(cuda() + "/lib64");
  testing::copy_file(testing::fixture_lib("v9.19.0", "libcudnn.so.9"), cuda() + "/targets/x86_64-linux/lib/libcudart.so.13");
  testing::make_symlink("targets/x86_64-linux/lib", cuda() + "/lib64");
  const std::string t = testing::kUnpublishedLinuxTop + "/";
  std::string file = archive("toolkit link", testing::kUnpublishedLinuxTop, [&](auto& e) {
    e.push_back({t + "lib/libcudnn_graph.so.9.19", EntryKind::kSymlink, {}, "../include/../lib/libcudnn_graph.so.9"});
  });
  expect_refused("`..` after lib64", {"install", file, "--into", cuda()}, "targets/x86_64-linux/include/../lib/libcudnn_graph.so.9");
  // Into the store the same archive is sound: there include/ and lib/ are siblings.
  auto r = cudnnup({"install", file});
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

// A cross-install is a decision: with --cross-arch the sbsa archive goes into the store.
TEST_F(HostileArchive, CrossArchInstallsAnotherArchitectureOnPurpose) {
  std::string file = archive("sbsa", kSbsaTop, [&](auto& e) {
    for (auto& x : e) {
      if (x.kind == EntryKind::kFile && x.path.find("/lib/") != std::string::npos) x.data = testing::with_elf_machine(x.data, kAarch64);
    }
  });
  auto refused = cudnnup({"install", file});
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.err.find("--cross-arch"), std::string::npos) << refused.err;
  auto r = cudnnup({"install", file, "--cross-arch"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(stdfs::exists(tmp / "store/versions/9.19.0.99+cuda13/lib/libcudnn.so.9.19.0"));
}

}  // namespace
}  // namespace cudnnup

#endif  // CUDNNUP_HAVE_INSTALL
