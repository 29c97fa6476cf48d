#include "install/archive_policy.h"

#include <gtest/gtest.h>

namespace cudnnup {
namespace {

ArchiveEntryInfo file(const std::string& p, uint64_t size = 10) { return {p, EntryKind::kFile, size, true, {}}; }
ArchiveEntryInfo dir(const std::string& p) { return {p, EntryKind::kDirectory, 0, true, {}}; }
ArchiveEntryInfo link(const std::string& p, const std::string& t) { return {p, EntryKind::kSymlink, 0, true, t}; }

// Every refusal names the entry and the reason.
void expect_refused(EntryPolicy& policy, const ArchiveEntryInfo& e, const std::string& why) {
  auto r = policy.admit(e);
  ASSERT_FALSE(r.ok()) << e.path << " was admitted";
  EXPECT_EQ(r.error().code, ErrorCode::kCorrupt);
  EXPECT_NE(r.error().message.find(e.path), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find(why), std::string::npos) << r.error().message;
}

TEST(ArchivePolicy, AdmitsAnOfficialLayoutAndStripsTheTopFolder) {
  EntryPolicy p{ExtractionLimits{}};
  EXPECT_EQ(*p.admit(dir("top/")), "");
  EXPECT_EQ(*p.admit(file("top/include/cudnn.h")), "include/cudnn.h");
  EXPECT_EQ(*p.admit(file("./top/lib/libcudnn.so.9.1.0")), "lib/libcudnn.so.9.1.0");
  EXPECT_EQ(*p.admit(link("top/lib/libcudnn.so.9", "libcudnn.so.9.1.0")), "lib/libcudnn.so.9");
  EXPECT_EQ(*p.admit(link("top/lib/libcudnn.so", "./libcudnn.so.9")), "lib/libcudnn.so");
  EXPECT_EQ(p.top_dir(), "top");
}

// Found by fuzz/archive_policy_fuzz.cc: a 300-byte folder name passed the policy and then failed
// mkdir (ENAMETOOLONG) half-way through the extraction.
TEST(ArchivePolicy, RefusesNamesNoFileSystemAllowsBeforeWritingAnything) {
  EntryPolicy p{ExtractionLimits{}};
  ASSERT_TRUE(p.admit(dir("top/")).ok());
  EXPECT_TRUE(p.admit(file("top/" + std::string(255, 'a'))).ok());
  expect_refused(p, file("top/" + std::string(256, 'b') + "/x.h"), "longer than 255 bytes");
  expect_refused(p, link("top/lib/l", std::string(1025, 'c')), "symlink target longer than 1024");
}

TEST(ArchivePolicy, RefusesTraversalAbsolutePathsAndDriveLetters) {
  EntryPolicy p{ExtractionLimits{}};
  ASSERT_TRUE(p.admit(dir("top/")).ok());
  expect_refused(p, file("top/../../etc/passwd"), "path traversal");
  expect_refused(p, file("/etc/passwd"), "absolute");
  expect_refused(p, file("C:/Windows/System32/x.dll"), "drive letter");
  expect_refused(p, file("C:evil.dll"), "drive letter");
  expect_refused(p, file("top\\..\\..\\evil"), "path traversal");
  expect_refused(p, file("\\\\server\\share\\x"), "absolute");
  expect_refused(p, file("other/x.h"), "single top folder");
}

// Names Windows would not store as given: each could land on another file or on a device.
TEST(ArchivePolicy, RefusesNamesWindowsWouldRewrite) {
  EntryPolicy p{ExtractionLimits{}};
  ASSERT_TRUE(p.admit(dir("top/")).ok());
  ASSERT_TRUE(p.admit(file("top/bin/cudnn64_9.dll")).ok());
  expect_refused(p, file("top/bin/cudnn64_9.dll:evil"), "alternate data stream");
  expect_refused(p, file("top/bin/cudnn64_9.dll."), "ending in '.'");
  expect_refused(p, file("top/bin/cudnn64_9.dll "), "ending in '.' or ' '");
  expect_refused(p, file("top/bin/nul"), "device name");
  expect_refused(p, file("top/bin/COM1.txt"), "device name");
  // Windows ignores spaces between a device name and its extension, and counts the
  // superscript digits (COM\u00b9, LPT\u00b3) as device numbers too.
  expect_refused(p, file("top/bin/CON .txt"), "device name");
  expect_refused(p, file("top/bin/nul  .tar.gz"), "device name");
  expect_refused(p, file("top/bin/LPT1 .dll"), "device name");
  expect_refused(p, file("top/bin/COM\xc2\xb9.txt"), "device name");
  expect_refused(p, file("top/bin/lpt\xc2\xb3"), "device name");
  expect_refused(p, file("top/bin/a?b.dll"), "does not allow");
  expect_refused(p, file(std::string("top/bin/a\x01b.dll")), "does not allow");
  EXPECT_TRUE(p.admit(file("top/bin/console.dll")).ok()) << "only the exact device names";
  EXPECT_TRUE(p.admit(file("top/lib/x64/cudnn.lib")).ok());
}

TEST(ArchivePolicy, RefusesSpecialFilesHardLinksAndDuplicates) {
  EntryPolicy p{ExtractionLimits{}};
  ASSERT_TRUE(p.admit(dir("top/")).ok());
  ASSERT_TRUE(p.admit(file("top/lib/a.so")).ok());
  expect_refused(p, {"top/lib/b.so", EntryKind::kHardlink, 0, true, "top/lib/a.so"}, "hard link");
  expect_refused(p, {"top/dev/null", EntryKind::kDevice, 0, true, {}}, "device node");
  expect_refused(p, {"top/fifo", EntryKind::kFifo, 0, true, {}}, "fifo");
  expect_refused(p, file("top/lib/a.so"), "duplicate");
  expect_refused(p, file("top/LIB/A.so"), "letter case");
  expect_refused(p, file("top/lib/a.so/inner"), "parent");
}

// Absolute targets are refused at once; where a relative one leads is decided on the whole tree
// (resolved_tree_test.cc), since an earlier or later link can change it.
TEST(ArchivePolicy, RefusesAbsoluteLinkTargetsAndWritesThroughLinks) {
  EntryPolicy p{ExtractionLimits{}};
  ASSERT_TRUE(p.admit(dir("top/")).ok());
  expect_refused(p, link("top/lib/x", "/etc/shadow"), "absolute path '/etc/shadow'");
  expect_refused(p, link("top/lib/w", "C:\\Windows\\System32\\x.dll"), "absolute path");
  expect_refused(p, link("top/lib/e", ""), "empty target");
  EXPECT_TRUE(p.admit(link("top/lib/y", "../../../etc")).ok()) << "judged on the final tree";
  ASSERT_TRUE(p.admit(link("top/d", "lib")).ok());
  expect_refused(p, file("top/d/evil.so"), "symlink");
}

// Windows and macOS match names without case: "D/x" is written through the link "d", so the
// parent check must not be fooled by letter case. With d -> "." the link "D/l" -> ".." resolves
// inside the tree by name but is top/l -> ".." on disk, above the top folder; "D/L/evil.dll"
// would then land outside the target.
TEST(ArchivePolicy, WritesThroughLinksAreRefusedWhateverTheLetterCase) {
  EntryPolicy p{ExtractionLimits{}};
  ASSERT_TRUE(p.admit(dir("top/")).ok());
  ASSERT_TRUE(p.admit(link("top/d", ".")).ok());
  expect_refused(p, link("top/D/l", ".."), "symlink");
  expect_refused(p, file("top/D/evil.so"), "symlink");
  ASSERT_TRUE(p.admit(file("top/sub/x.dll")).ok());
  ASSERT_TRUE(p.admit(link("top/s", "sub")).ok());
  expect_refused(p, file("top/S/x.dll"), "symlink");
  ASSERT_TRUE(p.admit(file("top/f")).ok());
  expect_refused(p, file("top/F/inner"), "parent");
}

TEST(ArchivePolicy, RefusesSetUserAndGroupIdBits) {
  EntryPolicy p{ExtractionLimits{}};
  ASSERT_TRUE(p.admit(dir("top/")).ok());
  ArchiveEntryInfo suid = file("top/lib/libcudnn.so.9.1.0");
  suid.mode = 04755;
  expect_refused(p, suid, "set-user-ID");
  ArchiveEntryInfo sgid = file("top/lib/libcudnn_ops.so.9.1.0");
  sgid.mode = 02755;
  expect_refused(p, sgid, "set-group-ID");
  ArchiveEntryInfo plain = file("top/lib/libcudnn_cnn.so.9.1.0");
  plain.mode = 0755;
  EXPECT_TRUE(p.admit(plain).ok());
}

TEST(ArchivePolicy, SizeBoundFollowsTheCompressedSize) {
  ExtractionLimits limits;
  limits.archive_bytes = 500ull << 20;  // half a real cuDNN archive
  EXPECT_EQ(limits.bound(), (500ull << 20) * 20);
  limits.archive_bytes = 40 << 10;      // a tiny archive still gets the floor
  EXPECT_EQ(limits.bound(), 256ull << 20);
  limits.archive_bytes = 1ull << 40;    // never past the cap
  EXPECT_EQ(limits.bound(), 16ull << 30);

  ExtractionLimits small;
  small.floor_bytes = 1000;
  small.archive_bytes = 10;
  EntryPolicy p{small};
  ASSERT_TRUE(p.admit(dir("top/")).ok());
  expect_refused(p, file("top/huge", 5000), "bomb");
  EXPECT_TRUE(p.count_bytes(900).ok());
  auto over = p.count_bytes(200);
  ASSERT_FALSE(over.ok());
  EXPECT_NE(over.error().message.find("decompression bomb"), std::string::npos);
}

}  // namespace
}  // namespace cudnnup
