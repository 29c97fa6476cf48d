// Where an archive's sha256 comes from (core/install/archive_source.h): NVIDIA's published one
// wins over a mirror's manifest and --sha256, a disagreement is an error naming both, and every
// claim is reported with its source. Mirrors here are folders and a fake HTTP client.
#include "install/archive_source.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/fake_archive.h"
#include "support/memory_web.h"

namespace cudnnup {
namespace {

using testing::MemoryFileSystem;

const std::string kFile = "cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz";
const std::string kPublishedAt = "https://developer.download.nvidia.com/compute/cudnn/redist/redistrib_9.19.0.json";

std::string manifest(const std::string& sha256, uint64_t size) {
  nlohmann::json m = {{"release_label", "9.19.0"},
                      {"cudnn",
                       {{"version", "9.19.0.56"},
                        {"linux-x86_64",
                         {{"cuda13", {{"relative_path", "cudnn/linux-x86_64/" + kFile}, {"sha256", sha256}, {"size", std::to_string(size)}}}}}}}};
  return m.dump();
}

class ArchiveSource : public ::testing::Test {
 protected:
  MemoryFileSystem fs;
  StoreLayout store{"/home/u/store"};
  testing::FakeArchives archives;
  std::string bytes = "the archive's bytes";
  std::string digest = testing::test_digest(bytes);
  std::vector<KnownArchive> known{{kFile, digest, bytes.size(), kPublishedAt}};
  std::vector<std::string> downloads;
  HttpClient http;

  void SetUp() override {
    fs.add_dir("/home/u");
    http = testing::memory_web(fs, nullptr, &downloads);
  }
  SourceRequest version_request(const std::string& mirror) {
    SourceRequest r;
    r.arg = "9.19.0";
    r.cuda_major = 13;
    r.mirror = mirror;
    r.platform_key = "linux-x86_64";
    return r;
  }
  Result<ResolvedSource> resolve(const SourceRequest& r) {
    return resolve_source(fs, store, r, known, http, archives.services());
  }
  std::vector<std::string> sources(const ResolvedSource& s) {
    std::vector<std::string> out;
    for (const auto& h : s.hashes) out.push_back(h.source + (h.used ? "*" : ""));
    return out;
  }
};

TEST_F(ArchiveSource, ALocalFileIsCheckedAgainstNvidiasPublishedHashAndSaysSo) {
  fs.add_file("/dl/" + kFile, bytes);
  SourceRequest r;
  r.arg = "/dl/" + kFile;
  r.sha256 = digest;
  auto s = resolve(r);
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->expected_sha256, digest);
  EXPECT_EQ(s->expected_from, "NVIDIA's published sha256 (" + kPublishedAt + ")");
  EXPECT_EQ(sources(*s), (std::vector<std::string>{"known-archives*", "command-line"}));

  r.sha256 = std::string(64, 'a');
  auto wrong = resolve(r);
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.error().code, ErrorCode::kUsage);
  EXPECT_NE(wrong.error().message.find("NVIDIA's published sha256 (" + kPublishedAt + ") is " + digest), std::string::npos)
      << wrong.error().message;
  EXPECT_NE(wrong.error().message.find("the sha256 given with --sha256 is " + r.sha256), std::string::npos);
}

// The issue this guards against: a mirror whose manifest carries another hash for a published
// archive must not get that archive installed, and must be named.
TEST_F(ArchiveSource, AMirrorThatDisagreesWithNvidiaIsAnErrorNamingBoth) {
  fs.add_file("/mirror/redistrib_9.19.0.json", manifest(std::string(64, 'b'), bytes.size()));
  fs.add_file("/mirror/cudnn/linux-x86_64/" + kFile, "a different file");
  auto s = resolve(version_request("/mirror"));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, ErrorCode::kCorrupt);
  const std::string& m = s.error().message;
  EXPECT_NE(m.find("NVIDIA's published sha256 (" + kPublishedAt + ") is " + digest), std::string::npos) << m;
  EXPECT_NE(m.find("the mirror's manifest (/mirror/redistrib_9.19.0.json) is " + std::string(64, 'b')), std::string::npos) << m;
  EXPECT_NE(m.find("use another mirror"), std::string::npos) << m;

  // Over HTTP too, and nothing is downloaded.
  fs.add_file("/remote/mirror.example/redistrib_9.19.0.json", manifest(std::string(64, 'b'), bytes.size()));
  auto remote = resolve(version_request("https://mirror.example/"));
  ASSERT_FALSE(remote.ok());
  EXPECT_NE(remote.error().message.find("the mirror's manifest (https://mirror.example/redistrib_9.19.0.json)"), std::string::npos);
  EXPECT_TRUE(downloads.empty());
}

TEST_F(ArchiveSource, AnAgreeingMirrorIsListedAndNvidiasHashIsTheOneUsed) {
  fs.add_file("/remote/mirror.example/redistrib_9.19.0.json", manifest(digest, bytes.size()));
  fs.add_file("/remote/mirror.example/cudnn/linux-x86_64/" + kFile, bytes);
  auto s = resolve(version_request("https://mirror.example/"));
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(sources(*s), (std::vector<std::string>{"known-archives*", "mirror-manifest"}));
  EXPECT_EQ(downloads, (std::vector<std::string>{"https://mirror.example/cudnn/linux-x86_64/" + kFile}));
  EXPECT_TRUE(s->downloaded);
  EXPECT_EQ(s->archive_path, store.cache_dir() + "/" + kFile);
  EXPECT_EQ(fs.contents(s->archive_path), bytes);
}

TEST_F(ArchiveSource, WithoutAPublishedHashTheMirrorsManifestIsUsedAndADownloadMustMatchIt) {
  known.clear();
  fs.add_file("/remote/mirror.example/redistrib_9.19.0.json", manifest(digest, bytes.size()));
  std::string tampered = bytes;
  tampered[0] = 'T';  // same size: only the hash can tell
  fs.add_file("/remote/mirror.example/cudnn/linux-x86_64/" + kFile, tampered);
  auto s = resolve(version_request("https://mirror.example/"));
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("but the mirror's manifest (https://mirror.example/redistrib_9.19.0.json) is " + digest),
            std::string::npos)
      << s.error().message;
  EXPECT_FALSE(fs.exists(store.cache_dir() + "/" + kFile + ".part")) << "a wrong file is not kept to resume";
}

}  // namespace
}  // namespace cudnnup
