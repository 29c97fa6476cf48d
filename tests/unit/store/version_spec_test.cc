#include "store/version_spec.h"

#include <gtest/gtest.h>

#include "support/memory_fs.h"

namespace cudnnup {
namespace {

using testing::MemoryFileSystem;

std::vector<StoreVersionId> store_of(MemoryFileSystem& fs, const StoreLayout& layout, std::vector<std::string> ids) {
  for (const auto& id : ids) fs.add_dir(layout.version_dir(id) + "/lib");
  auto installed = list_installed(fs, layout);
  EXPECT_TRUE(installed.ok());
  return installed.value_or({});
}

std::string resolve(const std::vector<StoreVersionId>& installed, const std::string& text) {
  auto spec = VersionSpec::parse(text);
  if (!spec) return "bad spec";
  auto id = resolve_spec(*spec, installed);
  return id ? id->id : "error: " + id.error().message;
}

TEST(VersionSpec, ParsesEveryForm) {
  auto full = VersionSpec::parse("9.1.0.70");
  ASSERT_TRUE(full.ok());
  EXPECT_EQ(full->prefix.str(), "9.1.0.70");
  EXPECT_FALSE(full->cuda_major);
  auto cuda_only = VersionSpec::parse("+cuda12");
  ASSERT_TRUE(cuda_only.ok());
  EXPECT_FALSE(cuda_only->prefix.known());
  EXPECT_EQ(cuda_only->cuda_major, 12);
  auto both = VersionSpec::parse(" 9.1+cuda12 ");
  ASSERT_TRUE(both.ok());
  EXPECT_EQ(both->prefix.str(), "9.1");
  EXPECT_EQ(both->cuda_major, 12);
}

TEST(VersionSpec, RejectsMalformedSpecsWithAHint) {
  for (const char* bad : {"", "+", "9.", "v9", "9+cuda", "9+cu12", "9.1.0.70.1", "latest", "9+cuda12x"}) {
    auto spec = VersionSpec::parse(bad);
    ASSERT_FALSE(spec.ok()) << bad;
    EXPECT_EQ(spec.error().code, ErrorCode::kUsage);
    EXPECT_NE(spec.error().message.find("9.1+cuda12"), std::string::npos) << spec.error().message;
  }
}

TEST(VersionSpec, StoreIdsParseAndSkipForeignDirs) {
  MemoryFileSystem fs;
  StoreLayout layout{"/s"};
  fs.add_dir("/s/versions/9.19.0.56+cuda13.partial-install");  // an interrupted install's temp dir
  fs.add_file("/s/versions/9.1.0.70+cuda11");                 // a file, not a version dir
  auto installed = store_of(fs, layout, {"9.1.0.70+cuda12", "9.19.0.56+cuda13", "8.9.7.29+cuda12"});
  ASSERT_EQ(installed.size(), 3u);
  EXPECT_EQ(installed[0].id, "9.19.0.56+cuda13");  // best first
  EXPECT_EQ(installed[1].id, "9.1.0.70+cuda12");
  EXPECT_EQ(installed[2].id, "8.9.7.29+cuda12");
  EXPECT_EQ(installed[0].cuda_major, 13);
}

TEST(VersionSpec, PartialSpecsPickTheHighestMatch) {
  MemoryFileSystem fs;
  StoreLayout layout{"/s"};
  auto installed = store_of(fs, layout,
                            {"9.1.0.70+cuda12", "9.1.0.70+cuda11", "9.19.0.56+cuda13", "9.19.0.56+cuda12",
                             "9.14.0.64+cuda13", "8.9.7.29+cuda12", "9.10.2.21+cuda12"});
  EXPECT_EQ(resolve(installed, "9"), "9.19.0.56+cuda13");
  EXPECT_EQ(resolve(installed, "9.1"), "9.1.0.70+cuda12");  // 9.1 is not a prefix of 9.10 or 9.19
  EXPECT_EQ(resolve(installed, "9.1+cuda11"), "9.1.0.70+cuda11");
  EXPECT_EQ(resolve(installed, "9.1.0.70"), "9.1.0.70+cuda12");
  EXPECT_EQ(resolve(installed, "+cuda12"), "9.19.0.56+cuda12");
  EXPECT_EQ(resolve(installed, "9.19+cuda12"), "9.19.0.56+cuda12");
  EXPECT_EQ(resolve(installed, "8"), "8.9.7.29+cuda12");
  EXPECT_EQ(resolve(installed, "9.10"), "9.10.2.21+cuda12");
}

TEST(VersionSpec, MissingVersionListsWhatIsInstalled) {
  MemoryFileSystem fs;
  StoreLayout layout{"/s"};
  auto installed = store_of(fs, layout, {"9.1.0.70+cuda12", "9.19.0.56+cuda13"});
  auto spec = VersionSpec::parse("9.2");
  ASSERT_TRUE(spec.ok());
  auto id = resolve_spec(*spec, installed);
  ASSERT_FALSE(id.ok());
  EXPECT_EQ(id.error().code, ErrorCode::kNotFound);
  EXPECT_NE(id.error().message.find("9.19.0.56+cuda13, 9.1.0.70+cuda12"), std::string::npos) << id.error().message;
  EXPECT_TRUE(id.error().fix.empty()) << "no CUDA major named: no install to print";
  auto with_cuda = resolve_spec(*VersionSpec::parse("9.2+cuda13"), installed);
  ASSERT_FALSE(with_cuda.ok());
  EXPECT_EQ(with_cuda.error().fix, std::vector<FixStep>{fix::cudnnup({"install", "9.2", "--cuda", "13"})})
      << "the install, as a fix step";
  EXPECT_EQ(resolve(installed, "9.19+cuda12").substr(0, 6), "error:");
}

TEST(VersionSpec, EmptyStoreSaysSo) {
  MemoryFileSystem fs;
  auto installed = list_installed(fs, StoreLayout{"/nowhere"});
  ASSERT_TRUE(installed.ok());
  EXPECT_TRUE(installed->empty());
  auto id = resolve_spec(*VersionSpec::parse("9"), *installed);
  ASSERT_FALSE(id.ok());
  EXPECT_NE(id.error().message.find("no cuDNN is installed"), std::string::npos);
}

}  // namespace
}  // namespace cudnnup
