// Links followed on the final tree (core/install/resolved_tree.h): the shapes a textual check
// misses, in store mode (below the version directory) and merge mode (real toolkit paths).
#include "install/resolved_tree.h"

#include <gtest/gtest.h>

namespace cudnnup {
namespace {

ArchiveItem file_entry(const std::string& rel) { return {rel, EntryKind::kFile, 10, {}, {}, {}}; }
ArchiveItem dir_entry(const std::string& rel) { return {rel, EntryKind::kDirectory, 0, {}, {}, {}}; }
ArchiveItem link_entry(const std::string& rel, const std::string& target) { return {rel, EntryKind::kSymlink, 0, target, {}, {}}; }

// The official shape: real file, SONAME link, dev link.
std::vector<ArchiveItem> official() {
  return {dir_entry("include"), file_entry("include/cudnn.h"), dir_entry("lib"), file_entry("lib/libcudnn.so.9.19.0"),
          link_entry("lib/libcudnn.so.9", "libcudnn.so.9.19.0"), link_entry("lib/libcudnn.so", "libcudnn.so.9"), file_entry("LICENSE")};
}

std::vector<ArchiveItem> with(std::vector<ArchiveItem> extra) {
  auto items = official();
  items.insert(items.end(), extra.begin(), extra.end());
  return items;
}

void expect_tree_refused(const std::vector<ArchiveItem>& items, const std::string& entry, const std::string& why,
                    const TreeLayout& layout = store_layout()) {
  auto s = FinalTree(items, layout).check();
  ASSERT_FALSE(s.ok()) << entry << " was accepted";
  EXPECT_EQ(s.error().code, ErrorCode::kCorrupt);
  EXPECT_NE(s.error().message.find("'" + entry + "'"), std::string::npos) << s.error().message;
  EXPECT_NE(s.error().message.find(why), std::string::npos) << s.error().message;
}

TEST(ResolvedTree, TheOfficialLayoutResolvesAndChainsEndOnTheRealFile) {
  auto items = official();
  FinalTree tree(items, store_layout());
  EXPECT_TRUE(tree.check().ok());
  auto r = tree.resolve("lib/libcudnn.so");
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_NE(r->item, nullptr);
  EXPECT_EQ(r->item->rel, "lib/libcudnn.so.9.19.0");
}

// lib/s -> ../include, lib/x -> s/../../outside: read as text, s/.. cancels and x stays inside;
// walked, s is include, include/.. is the top and the last .. leaves it.
TEST(ResolvedTree, DotDotAfterALinkClimbsFromWhereTheLinkLeads) {
  auto items = with({link_entry("lib/s", "../include"), link_entry("lib/x", "s/../../outside"), file_entry("outside")});
  expect_tree_refused(items, "lib/x", "resolves above the version directory (through lib/x -> s/../../outside, lib/s -> ../include)");
}

TEST(ResolvedTree, ALinkThroughAnEarlierLinkIsFollowed) {
  auto items = with({link_entry("lib/d", "../include"), link_entry("lib/h", "d/cudnn.h")});
  FinalTree tree(items, store_layout());
  ASSERT_TRUE(tree.check().ok());
  EXPECT_EQ(tree.resolve("lib/h")->item->rel, "include/cudnn.h");
}

// Ten folders down, a link up to the top; through it, ten more `..` reach the filesystem root.
TEST(ResolvedTree, DeepChainsThatClimbOutAreRefusedAtAnyDepth) {
  std::string deep = "d1/d2/d3/d4/d5/d6/d7/d8/d9/d10";
  std::string up = "../../../../../../../../../..";
  auto items = with({file_entry("d1/etc/passwd"), link_entry(deep + "/top", up), link_entry(deep + "/out", "top/" + up + "/etc/passwd"),
                     link_entry("lib/libcudnn_ops.so.9", "../" + deep + "/out")});
  expect_tree_refused(items, deep + "/out", "resolves above the version directory");
  expect_tree_refused(with({link_entry("a", "."), link_entry("b", "a/a/a/../../../etc")}), "b", "above the version directory");
}

TEST(ResolvedTree, LoopsAbsoluteTargetsAndWalksThroughFilesAreRefused) {
  expect_tree_refused(with({link_entry("a", "b"), link_entry("b", "a")}), "a", "symlink loop");
  expect_tree_refused(with({link_entry("self", "self")}), "self", "symlink loop");
  expect_tree_refused(with({link_entry("lib/x", "y"), link_entry("lib/y", "/etc/passwd")}), "lib/x", "absolute path '/etc/passwd'");
  expect_tree_refused(with({link_entry("lib/z", "../LICENSE/inner")}), "lib/z", "which is a file");
  expect_tree_refused(with({link_entry("lib/gone", "libcudnn.so.8")}), "lib/gone", "dangling");
}

TEST(ResolvedTree, ALibraryNameMustEndOnThatLibrary) {
  auto to_license = official();
  to_license[4] = link_entry("lib/libcudnn.so.9", "../LICENSE");
  expect_tree_refused(to_license, "lib/libcudnn.so.9", "resolves to 'LICENSE', which is not a cuDNN library");
  expect_tree_refused(with({file_entry("lib/libcudnn_ops.so.9.19.0"), link_entry("lib/libcudnn_cnn.so.9", "libcudnn_ops.so.9.19.0")}),
                 "lib/libcudnn_cnn.so.9", "another library");
  expect_tree_refused(with({link_entry("lib/libcudnn_adv.so.9", "../include")}), "lib/libcudnn_adv.so.9", "not a cuDNN library");
  // A static library's two names are one library.
  EXPECT_TRUE(FinalTree(with({file_entry("lib/libcudnn_adv_static.a"), link_entry("lib/libcudnn_adv_static_v9.a", "libcudnn_adv_static.a")}),
                        store_layout())
                  .check()
                  .ok());
}

// Merge mode: the final paths are real toolkit paths, lib64 being the link a CUDA toolkit has.
TreeLayout merge_layout(const std::string& lib_real, const std::string& include_real) {
  TreeLayout l;
  l.merge = true;
  l.where = "the cuDNN files it installs into /usr/local/cuda";
  l.place = [=](const ArchiveItem& item) -> std::string {
    if (item.kind == EntryKind::kDirectory) return {};
    if (item.rel.rfind("lib/", 0) == 0) return lib_real + item.rel.substr(3);
    if (item.rel.rfind("include/", 0) == 0) return include_real + item.rel.substr(7);
    return {};  // LICENSE stays out
  };
  return l;
}

TEST(ResolvedTree, InAMergeLinksMustEndOnFilesThisInstallPutsThere) {
  auto layout = merge_layout("/usr/local/cuda/targets/x86_64-linux/lib", "/usr/local/cuda/targets/x86_64-linux/include");
  EXPECT_TRUE(FinalTree(official(), layout).check().ok());
  EXPECT_TRUE(FinalTree(with({link_entry("lib/h", "../include/cudnn.h")}), layout).check().ok());
  // LICENSE is in the archive but not in the toolkit: there, ../LICENSE is some other file.
  expect_tree_refused(with({link_entry("lib/l", "../LICENSE")}), "lib/l", "outside the cuDNN files it installs", layout);
  expect_tree_refused(with({link_entry("lib/up", "../../../../../../etc/passwd")}), "lib/up", "/etc/passwd, outside", layout);
  // Where lib64 and include are plain folders, the archive's lib/ lands in lib64: ../lib/... from
  // include/ then names a file of the toolkit, not one of this install.
  auto plain = merge_layout("/usr/local/cuda/lib64", "/usr/local/cuda/include");
  expect_tree_refused(with({link_entry("include/x.h", "../lib/libcudnn.so.9.19.0")}), "include/x.h",
                 "/usr/local/cuda/lib/libcudnn.so.9.19.0, outside the cuDNN files", plain);
  EXPECT_TRUE(FinalTree(with({link_entry("include/x.h", "../lib/libcudnn.so.9.19.0")}), layout).check().ok())
      << "with lib64 -> targets/x86_64-linux/lib and include -> targets/x86_64-linux/include they are siblings";
}

// When the toolkit's lib64 is a link but include/ is a real folder beside it, `..` from lib64
// lands in targets/x86_64-linux, not in the toolkit root: ../include/cudnn.h is not ours there.
TEST(ResolvedTree, DotDotAfterAToolkitLinkIsTakenFromTheRealFolder) {
  auto layout = merge_layout("/usr/local/cuda/targets/x86_64-linux/lib", "/usr/local/cuda/include");
  expect_tree_refused(with({link_entry("lib/h", "../include/cudnn.h")}), "lib/h", "targets/x86_64-linux/include/cudnn.h, outside", layout);
}

}  // namespace
}  // namespace cudnnup
