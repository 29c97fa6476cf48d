#include "install/redistrib.h"

#include <gtest/gtest.h>

#include "facts/known_archives.h"

namespace cudnnup {
namespace {

// Excerpt of NVIDIA's redistrib_9.1.0.json (values verbatim;
// https://developer.download.nvidia.com/compute/cudnn/redist/redistrib_9.1.0.json).
const char* kManifest910 = R"({
  "release_date": "2024-04-12", "release_label": "9.1.0", "release_product": "cudnn",
  "cudnn": {
    "name": "NVIDIA CUDA Deep Neural Network library", "license": "cudnn",
    "license_path": "cudnn/LICENSE.txt", "version": "9.1.0.70",
    "linux-x86_64": {
      "cuda11": {"relative_path": "cudnn/linux-x86_64/cudnn-linux-x86_64-9.1.0.70_cuda11-archive.tar.xz",
                 "sha256": "8210dc5f0d6a04ce20ebfeb39e41e56e22e77a298b1657f9e3db80c650110310",
                 "md5": "a9feda485fa5bf167a37eebd0c2dc07d", "size": "860293208"},
      "cuda12": {"relative_path": "cudnn/linux-x86_64/cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz",
                 "sha256": "fdc6d6f28217b82c400adfdae8f0364fa36c5fb6cb683933e8900a748e70b263",
                 "md5": "105585f6dd62cc013354d81a2a692d2e", "size": "862715244"}},
    "cuda_variant": ["11", "12"],
    "linux-aarch64": {
      "cuda12": {"relative_path": "cudnn/linux-aarch64/cudnn-linux-aarch64-9.1.0.70_cuda12-archive.tar.xz",
                 "sha256": "2dbdd8bf373969c07e17929b9390c1c67b1acfb0838286ba6a4fb3cdf1c47130",
                 "md5": "c0003d3da32170f250dc59ac3d6b0c0a", "size": "891331976"}}
  },
  "cudnn_samples": { "name": "NVIDIA cuDNN samples", "version": "9.1.0.70",
    "source": {"relative_path": "cudnn_samples/source/cudnn_samples-source-9.1.0.70-archive.tar.xz",
               "sha256": "0ba18bfdc20ad716177d6dec179afa64558d009e90a2336fca1ae6027f712e1f", "size": "1666592"} }
})";

TEST(Redistrib, SelectsThePlatformAndCudaMajorFromANestedManifest) {
  auto m = parse_redistrib(kManifest910, "redistrib_9.1.0.json");
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m->entries.size(), 3u);  // samples are not the cudnn component
  auto e = select_redistrib(*m, "linux-x86_64", 12);
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->version, "9.1.0.70");
  EXPECT_EQ(e->size, 862715244u);
  EXPECT_EQ(e->sha256, "fdc6d6f28217b82c400adfdae8f0364fa36c5fb6cb683933e8900a748e70b263");
  EXPECT_EQ(e->relative_path, "cudnn/linux-x86_64/cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz");

  auto missing = select_redistrib(*m, "linux-aarch64", 11);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("CUDA 12"), std::string::npos) << missing.error().message;
  auto no_platform = select_redistrib(*m, "windows-arm64", 12);
  ASSERT_FALSE(no_platform.ok());
  EXPECT_NE(no_platform.error().message.find("linux-x86_64"), std::string::npos);
}

TEST(Redistrib, ReadsFlatEntriesAndTheMixed927Shape) {
  const char* flat = R"({"release_label": "8.9.7.29", "cudnn": {"version": "8.9.7.29",
    "linux-x86_64": {"relative_path": "cudnn/linux-x86_64/cudnn-linux-x86_64-8.9.7.29_cuda12-archive.tar.xz",
                     "sha256": "aa", "size": "10"}}})";
  auto m = parse_redistrib(flat, "x");
  ASSERT_TRUE(m.ok());
  auto e = select_redistrib(*m, "linux-x86_64", 12);
  ASSERT_TRUE(e.ok()) << e.error().message;
  EXPECT_EQ(e->cuda_variant, "12");

  const char* mixed = R"({"release_label": "9.27.0", "cudnn": {"version": "9.27.0.42",
    "windows-arm64": {"relative_path": "cudnn/windows-arm64/cudnn-windows-arm64-9.27.0.42_cuda13.4-archive.zip", "sha256": "f", "size": "5",
                      "cuda13": {"relative_path": "cudnn/windows-arm64/cudnn-windows-arm64-9.27.0.42_cuda13-archive.zip", "sha256": "n", "size": "6"}}}})";
  auto mm = parse_redistrib(mixed, "y");
  ASSERT_TRUE(mm.ok());
  auto pick = select_redistrib(*mm, "windows-arm64", 13);
  ASSERT_TRUE(pick.ok());
  EXPECT_EQ(pick->sha256, "n") << "the nested entry wins";

  EXPECT_FALSE(parse_redistrib("not json", "z").ok());
  EXPECT_FALSE(parse_redistrib("{}", "z").ok());
  EXPECT_EQ(redistrib_file_names("9.1.0"), (std::vector<std::string>{"redistrib_9.1.0.json"}));
  EXPECT_EQ(redistrib_file_names("8.9.7.29"), (std::vector<std::string>{"redistrib_8.9.7.json", "redistrib_8.9.7.29.json"}));
}

TEST(KnownArchives, BuiltInTableRecognisesOfficialFilesAndRenamedCopies) {
  const auto& table = builtin_known_archives();
  ASSERT_GE(table.size(), 20u);
  const std::string name = "cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz";
  const std::string sha = "fdc6d6f28217b82c400adfdae8f0364fa36c5fb6cb683933e8900a748e70b263";
  EXPECT_EQ(check_known_archive(table, name, sha, 862715244).match, KnownMatch::kMatches);
  auto bad = check_known_archive(table, name, std::string(64, 'a'), 862715244);
  EXPECT_EQ(bad.match, KnownMatch::kMismatch);
  EXPECT_NE(bad.message.find(sha), std::string::npos);
  EXPECT_EQ(check_known_archive(table, "renamed.tar.xz", sha, 862715244).match, KnownMatch::kRenamedCopy);
  EXPECT_EQ(check_known_archive(table, "cudnn-linux-x86_64-9.19.0.99_cuda13-archive.tar.xz", sha, 1).match,
            KnownMatch::kRenamedCopy);
  EXPECT_EQ(check_known_archive(table, "cudnn-linux-x86_64-9.19.0.99_cuda13-archive.tar.xz", std::string(64, 'b'), 1).match,
            KnownMatch::kUnknown);
}

// The redistrib fuzz target's find on the code before checked numbers: a variant key "cuda*6"
// made select_redistrib throw (std::invalid_argument from std::stoi). A variant that is not
// "cuda<N>" offers nothing; the error lists what the manifest does offer.
TEST(Redistrib, AMalformedVariantIsNoOfferAndNoCrash) {
  auto m = parse_redistrib(R"({"release_label": "9.19.0", "cudnn": {"version": "9.19.0.99",
    "linux-x86_64": {"cuda*6": {"relative_path": "cudnn/linux-x86_64/x.tar.xz", "sha256": "00", "size": "3608"},
                     "cuda99999999999": {"relative_path": "cudnn/linux-x86_64/y.tar.xz", "sha256": "00", "size": "1"},
                     "cuda13": {"relative_path": "cudnn/linux-x86_64/z.tar.xz", "sha256": "00", "size": "1"}}}})",
                           "redistrib_9.19.0.json");
  ASSERT_TRUE(m.ok()) << m.error().message;
  auto twelve = select_redistrib(*m, "linux-x86_64", 12);
  ASSERT_FALSE(twelve.ok());
  EXPECT_NE(twelve.error().message.find("CUDA 13"), std::string::npos) << twelve.error().message;
  auto thirteen = select_redistrib(*m, "linux-x86_64", 13);
  ASSERT_TRUE(thirteen.ok()) << thirteen.error().message;
  EXPECT_EQ(thirteen->relative_path, "cudnn/linux-x86_64/z.tar.xz");
}

}  // namespace
}  // namespace cudnnup
