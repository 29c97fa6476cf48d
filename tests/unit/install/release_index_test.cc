// Partial versions (core/install/release_index.h, archive_source.h): `install 9`, `9.19` and
// `latest` become the newest release the mirror lists that has an archive for this platform and
// CUDA major; without a readable list, cudnnup's table of NVIDIA archives decides, and says so.
#include "install/release_index.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "install/archive_source.h"
#include "support/fake_archive.h"
#include "support/memory_web.h"

namespace cudnnup {
namespace {

using testing::MemoryFileSystem;

std::vector<std::string> strings(const std::vector<Version>& v) {
  std::vector<std::string> out;
  for (const auto& x : v) out.push_back(x.str());
  return out;
}

TEST(ReleaseSpec, TellsExactReleasesFromPartialOnesAndRefusesAnythingElse) {
  auto latest = parse_release_spec("latest");
  ASSERT_TRUE(latest);
  EXPECT_FALSE(latest->prefix.known());
  EXPECT_FALSE(latest->exact);
  EXPECT_EQ(parse_release_spec("9")->prefix, (Version{9}));
  EXPECT_FALSE(parse_release_spec("9.19")->exact);
  EXPECT_TRUE(parse_release_spec("9.19.0")->exact);
  EXPECT_TRUE(parse_release_spec("9.19.0.56")->exact);
  for (const char* bad : {"", "9.", ".9", "9..1", "9.1.0.70.1", "v9", "9.x", "Latest", "99999", "cudnn.tar.xz", "9 ", "-9"}) {
    EXPECT_FALSE(parse_release_spec(bad)) << bad;
  }
  EXPECT_EQ(describe_release_spec(*parse_release_spec("9")), "the newest cuDNN 9");
  EXPECT_EQ(describe_release_spec(*latest), "the newest cuDNN");
}

// The shape of NVIDIA's redist directory page: one <a> per file, manifests among archives' folders.
TEST(ReleaseListing, ReadsTheManifestsAnIndexPageLinksToNewestFirstAndOnce) {
  std::string page =
      "<html><body><a href='../'>../</a>\n<a href='cudnn/'>cudnn/</a>\n"
      "<a href='redistrib_9.1.0.json'>redistrib_9.1.0.json</a> 2024-04-01\n"
      "<a HREF=\"redistrib_9.10.0.json\">redistrib_9.10.0.json</a>\n"
      "<a href='https://elsewhere.example/redist/redistrib_8.9.7.29.json?x=1'>a link's last component</a>\n"
      "<a href='redistrib_9.2.0.json'>redistrib_9.2.0.json</a><a href='redistrib_9.2.0.json'>again</a>\n"
      "<a href='redistrib_9.50.0.json.bak'>a backup</a> <a href='.redistrib_9.20.0.json.XyZ'>rsync's temp</a>\n"
      "<a href='redistrib_latest.json'>not a release</a> text naming redistrib_9.99.0.json is no link\n"
      "<a href='redistrib_99999999999.0.json'>too long</a> <a href='redistrib_.json'>empty</a>\n";
  EXPECT_EQ(strings(releases_in_index_page(page)), (std::vector<std::string>{"9.10.0", "9.2.0", "9.1.0", "8.9.7.29"}));
  EXPECT_TRUE(releases_in_index_page("").empty());
  EXPECT_TRUE(releases_in_index_page(std::string(100000, '\xff')).empty());
}

TEST(ReleaseListing, AManifestsFileNameIsTheWholeName) {
  EXPECT_EQ(release_of_file_name("redistrib_9.19.0.json"), (Version{9, 19, 0}));
  EXPECT_EQ(release_of_file_name("redistrib_8.9.7.29.json"), (Version{8, 9, 7, 29}));
  for (const char* bad : {"redistrib_9.19.0.json.bak", "xredistrib_9.19.0.json", "redistrib_9.json", "redistrib_9..1.json",
                          "redistrib_9.19.0.json/", "redistrib_latest.json", ""}) {
    EXPECT_FALSE(release_of_file_name(bad)) << bad;
  }
}

TEST(ReleaseListing, APartialVersionMatchesWholePartsOnly) {
  std::vector<Version> listed = {Version{9, 19, 1}, Version{9, 19, 0}, Version{9, 1, 0}, Version{8, 9, 7, 29}};
  EXPECT_EQ(strings(matching_releases(*parse_release_spec("9.1"), listed)), (std::vector<std::string>{"9.1.0"}));
  EXPECT_EQ(strings(matching_releases(*parse_release_spec("9.19"), listed)), (std::vector<std::string>{"9.19.1", "9.19.0"}));
  EXPECT_EQ(strings(matching_releases(*parse_release_spec("8"), listed)), (std::vector<std::string>{"8.9.7.29"}));
  EXPECT_EQ(matching_releases(*parse_release_spec("latest"), listed).size(), 4u);
  EXPECT_TRUE(matching_releases(*parse_release_spec("7"), listed).empty());
}

TEST(KnownReleases, AreThoseOfThePlatformAndCudaMajorNewestFirst) {
  std::vector<KnownArchive> table = {
      {"cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz", "", 0, ""},
      {"cudnn-linux-x86_64-9.19.0.56_cuda12-archive.tar.xz", "", 0, ""},
      {"cudnn-linux-x86_64-9.8.0.87_cuda12-archive.tar.xz", "", 0, ""},
      {"cudnn-linux-sbsa-9.20.0.48_cuda13-archive.tar.xz", "", 0, ""},
      {"cudnn-windows-x86_64-9.20.0.48_cuda12-archive.zip", "", 0, ""},
      {"cudnn-10.2-linux-x64-v7.6.5.32.tgz", "", 0, ""},
  };
  EXPECT_EQ(strings(known_releases(table, "linux-x86_64", 12)), (std::vector<std::string>{"9.19.0", "9.8.0"}));
  EXPECT_EQ(strings(known_releases(table, "linux-sbsa", 13)), (std::vector<std::string>{"9.20.0"}));
  EXPECT_EQ(strings(known_releases(table, "windows-x86_64", 12)), (std::vector<std::string>{"9.20.0"}));
  EXPECT_TRUE(known_releases(table, "linux-x86_64", 11).empty());
}

std::string index_manifest(const std::string& release, const std::string& version, const std::vector<int>& cuda_majors,
                     const std::string& sha256, uint64_t size) {
  nlohmann::json platform = nlohmann::json::object();
  for (int c : cuda_majors) {
    std::string file = "cudnn-linux-x86_64-" + version + "_cuda" + std::to_string(c) + "-archive.tar.xz";
    platform["cuda" + std::to_string(c)] = {{"relative_path", "cudnn/linux-x86_64/" + file}, {"sha256", sha256}, {"size", std::to_string(size)}};
  }
  nlohmann::json m = {{"release_label", release}, {"cudnn", {{"version", version}, {"linux-x86_64", platform}}}};
  return m.dump();
}

class PartialVersion : public ::testing::Test {
 protected:
  MemoryFileSystem fs;
  StoreLayout store{"/home/u/store"};
  testing::FakeArchives archives;
  std::string bytes = "the archive's bytes";
  std::string digest = testing::test_digest(bytes);
  std::vector<KnownArchive> known;
  std::vector<std::string> fetched;
  HttpClient http;

  void SetUp() override {
    fs.add_dir("/home/u");
    http = testing::memory_web(fs, &fetched);
  }
  // A mirror at ROOT with releases 9.20.0 (CUDA 12 only), 9.19.1 and 9.19.0 (CUDA 12 and 13), 8.9.7.29.
  void publish(const std::string& root) {
    fs.add_file(root + "/redistrib_9.20.0.json", index_manifest("9.20.0", "9.20.0.48", {12}, digest, bytes.size()));
    fs.add_file(root + "/redistrib_9.19.1.json", index_manifest("9.19.1", "9.19.1.2", {12, 13}, digest, bytes.size()));
    fs.add_file(root + "/redistrib_9.19.0.json", index_manifest("9.19.0", "9.19.0.56", {12, 13}, digest, bytes.size()));
    fs.add_file(root + "/redistrib_8.9.7.29.json", index_manifest("8.9.7.29", "8.9.7.29", {12}, digest, bytes.size()));
    for (const char* f : {"cudnn-linux-x86_64-9.20.0.48_cuda12-archive.tar.xz", "cudnn-linux-x86_64-9.19.1.2_cuda13-archive.tar.xz",
                          "cudnn-linux-x86_64-9.19.1.2_cuda12-archive.tar.xz", "cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz"}) {
      fs.add_file(root + "/cudnn/linux-x86_64/" + f, bytes);
    }
  }
  Result<ResolvedSource> resolve(const std::string& spec, int cuda, const std::string& mirror) {
    SourceRequest r;
    r.arg = spec;
    r.cuda_major = cuda;
    r.mirror = mirror;
    r.platform_key = "linux-x86_64";
    return resolve_source(fs, store, r, known, http, archives.services());
  }
};

TEST_F(PartialVersion, TheNewestListedReleaseWithThisCudaBuildIsChosenAndTheSkipIsSaid) {
  publish("/mirror");
  auto nine = resolve("9", 13, "/mirror");
  ASSERT_TRUE(nine.ok()) << nine.error().message;
  EXPECT_EQ(nine->release, "9.19.1");
  EXPECT_EQ(nine->file_name, "cudnn-linux-x86_64-9.19.1.2_cuda13-archive.tar.xz");
  EXPECT_EQ(nine->release_note,
            "'9' is cuDNN 9.19.1: the newest cuDNN 9 that /mirror/ lists for linux-x86_64 and CUDA 13 (skipped 9.20.0 (no such archive))");
  auto twelve = resolve("latest", 12, "/mirror");
  ASSERT_TRUE(twelve.ok()) << twelve.error().message;
  EXPECT_EQ(twelve->release, "9.20.0");
  EXPECT_EQ(resolve("9.19", 13, "/mirror")->release, "9.19.1");
  EXPECT_EQ(resolve("9.19.0", 13, "/mirror")->release, "9.19.0");
  EXPECT_EQ(resolve("9.19.0", 13, "/mirror")->release_note, "") << "a full release needs no choosing";
}

TEST_F(PartialVersion, OverHttpTheIndexPageIsReadAndOnlyTheNeededManifests) {
  publish("/remote/mirror.example");
  auto s = resolve("9", 13, "https://mirror.example/");
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->release, "9.19.1");
  EXPECT_TRUE(s->downloaded);
  EXPECT_EQ(fetched, (std::vector<std::string>{"https://mirror.example/", "https://mirror.example/redistrib_9.20.0.json",
                                               "https://mirror.example/redistrib_9.19.1.json"}));
}

TEST_F(PartialVersion, NothingMatchingIsAnErrorThatNamesWhatIsListed) {
  publish("/mirror");
  auto seven = resolve("7", 12, "/mirror");
  ASSERT_FALSE(seven.ok());
  EXPECT_EQ(seven.error().code, ErrorCode::kNotFound);
  EXPECT_EQ(seven.error().message,
            "no cuDNN release on /mirror/ matches '7' (it lists 9.20.0, 9.19.1, 9.19.0, 8.9.7.29); run `cudnnup list --available` to see them");
  auto cuda11 = resolve("9", 11, "/mirror");
  ASSERT_FALSE(cuda11.ok());
  EXPECT_NE(cuda11.error().message.find("no release matching '9' that /mirror/ lists has an archive for linux-x86_64 and CUDA 11"), std::string::npos)
      << cuda11.error().message;
}

TEST_F(PartialVersion, WithoutAListTheTableOfNvidiaArchivesDecidesAndSaysWhy) {
  publish("/remote/mirror.example");
  ASSERT_TRUE(fs.remove("/remote/mirror.example/redistrib_9.20.0.json").ok());
  known = {{"cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz", digest, bytes.size(), "https://example.invalid/published"}};
  // A server with no index page: the directory URL is a 404.
  http.get_text = [this, inner = http.get_text](const std::string& url) -> Result<std::string> {
    if (url.back() == '/') return make_error(ErrorCode::kNotFound, url + " does not exist (HTTP 404)", url);
    return inner(url);
  };
  auto s = resolve("9", 13, "https://mirror.example/");
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->release, "9.19.0");
  EXPECT_EQ(s->release_note,
            "'9' is cuDNN 9.19.0: the newest cuDNN 9 that cudnnup's table of NVIDIA archives has for linux-x86_64 and CUDA 13; the "
            "mirror's list of releases could not be read (https://mirror.example/ does not exist (HTTP 404))");
  // The table has nothing for CUDA 12 on this platform: the error says so and what to do.
  auto none = resolve("9", 12, "https://mirror.example/");
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.error().message.find("give a full release such as 9.19.0"), std::string::npos) << none.error().message;
}

TEST_F(PartialVersion, AnUnreachableManifestStopsTheSearchAtOnce) {
  publish("/remote/mirror.example");
  auto inner = http.get_text;
  http.get_text = [this, inner](const std::string& url) -> Result<std::string> {
    if (url.find("redistrib_") != std::string::npos) {
      fetched.push_back(url);
      return make_error(ErrorCode::kIo, "download of " + url + " failed: Connection reset", url);
    }
    return inner(url);
  };
  auto s = resolve("9", 13, "https://mirror.example/");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, ErrorCode::kIo);
  EXPECT_NE(s.error().message.find("'9' was taken as cuDNN 9.20.0"), std::string::npos) << s.error().message;
  EXPECT_EQ(std::count_if(fetched.begin(), fetched.end(), [](const std::string& u) { return u.find("redistrib_") != std::string::npos; }), 1);
}

// Names that only look like manifests, a listed manifest that is missing, and one that points at
// another release's archive are passed over and named; none stops the walk or is installed.
TEST_F(PartialVersion, StrayNamesMissingAndMisleadingManifestsAreSkipped) {
  publish("/mirror");
  fs.add_file("/mirror/redistrib_9.50.0.json.bak", index_manifest("9.50.0", "9.50.0.1", {13}, digest, bytes.size()));
  fs.add_dir("/mirror/redistrib_9.60.0.json");
  // 9.30.0's manifest names the 9.19.0.56 archive: installing it would report one release and
  // install another.
  nlohmann::json lying = nlohmann::json::parse(index_manifest("9.30.0", "9.30.0.1", {13}, digest, bytes.size()));
  lying["cudnn"]["linux-x86_64"]["cuda13"]["relative_path"] = "cudnn/linux-x86_64/cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz";
  fs.add_file("/mirror/redistrib_9.30.0.json", lying.dump());
  nlohmann::json outside = nlohmann::json::parse(index_manifest("9.29.0", "9.29.0.1", {13}, digest, bytes.size()));
  outside["cudnn"]["linux-x86_64"]["cuda13"]["relative_path"] = "../elsewhere/cudnn-linux-x86_64-9.29.0.1_cuda13-archive.tar.xz";
  fs.add_file("/mirror/redistrib_9.29.0.json", outside.dump());
  auto s = resolve("9", 13, "/mirror");
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->release, "9.19.1");
  EXPECT_EQ(s->file_name, "cudnn-linux-x86_64-9.19.1.2_cuda13-archive.tar.xz");
  EXPECT_NE(s->release_note.find("(skipped 9.30.0 (its manifest cannot be used); 9.29.0 (its manifest cannot be used); 9.20.0 (no such archive))"),
            std::string::npos)
      << s->release_note;
  auto exact = resolve("9.30.0", 13, "/mirror");
  ASSERT_FALSE(exact.ok());
  EXPECT_EQ(exact.error().code, ErrorCode::kCorrupt);
  EXPECT_NE(exact.error().message.find("which is not that release's archive"), std::string::npos) << exact.error().message;
  auto escaping = resolve("9.29.0", 13, "/mirror");
  ASSERT_FALSE(escaping.ok());
  EXPECT_NE(escaping.error().message.find("does not stay below the mirror"), std::string::npos) << escaping.error().message;
  // Over HTTP, an index that links a manifest the server does not have.
  publish("/remote/mirror.example");
  fs.add_file("/remote/mirror.example/redistrib_9.40.0.json.missing", "");
  http.get_text = [inner = http.get_text](const std::string& url) -> Result<std::string> {
    if (url.back() == '/') {
      auto page = inner(url);
      if (page) *page += "<a href='redistrib_9.40.0.json'>gone</a>\n";
      return page;
    }
    return inner(url);
  };
  auto remote = resolve("9", 13, "https://mirror.example/");
  ASSERT_TRUE(remote.ok()) << remote.error().message;
  EXPECT_EQ(remote->release, "9.19.1");
  EXPECT_NE(remote->release_note.find("9.40.0 (no manifest)"), std::string::npos) << remote->release_note;
}

TEST_F(PartialVersion, MoreMatchingReleasesThanAreReadIsSaidAsSuch) {
  publish("/mirror");
  for (int minor = 21; minor <= 61; ++minor) {
    std::string v = "9." + std::to_string(minor) + ".0";
    fs.add_file("/mirror/redistrib_" + v + ".json", index_manifest(v, v + ".1", {12}, digest, bytes.size()));
  }
  auto s = resolve("9", 13, "/mirror");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("the newest 40 of 44 matching releases have none; give a narrower version (e.g. 9.19)"), std::string::npos)
      << s.error().message;
  EXPECT_EQ(resolve("9.19", 13, "/mirror")->release, "9.19.1");
}

// Offline, only the rows NVIDIA published stand in for the mirror's list, never ones a mirror gave.
TEST_F(PartialVersion, WithoutAListRefreshedRowsDoNotStandInForNvidias) {
  known = {{"cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz", digest, bytes.size(), "https://example.invalid/published"},
           {"cudnn-linux-x86_64-9.99.0.1_cuda13-archive.tar.xz", std::string(64, 'a'), 1, "http://evil.example/redistrib_9.99.0.json", true}};
  http.get_text = [inner = http.get_text](const std::string& url) -> Result<std::string> {
    if (url.back() == '/') return make_error(ErrorCode::kNotFound, url + " does not exist (HTTP 404)", url);
    return inner(url);
  };
  fs.add_file("/remote/m.example/redistrib_9.19.0.json", index_manifest("9.19.0", "9.19.0.56", {13}, digest, bytes.size()));
  fs.add_file("/remote/m.example/cudnn/linux-x86_64/cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz", bytes);
  auto s = resolve("9", 13, "https://m.example/");
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->release, "9.19.0");
  auto offered = available_releases(fs, "https://m.example/", "linux-x86_64", known, http, 0);
  ASSERT_TRUE(offered.ok());
  ASSERT_EQ(offered->releases.size(), 1u);
  EXPECT_EQ(offered->releases[0].release, "9.19.0");
}

TEST_F(PartialVersion, AvailableReleasesListEachReleasesBuildsForThePlatform) {
  publish("/mirror");
  auto a = available_releases(fs, "/mirror", "linux-x86_64", known, http, 0);
  ASSERT_TRUE(a.ok()) << a.error().message;
  EXPECT_EQ(a->listed_by, "mirror");
  ASSERT_EQ(a->releases.size(), 4u);
  EXPECT_EQ(a->releases[0].release, "9.20.0");
  ASSERT_EQ(a->releases[0].archives.size(), 1u);
  EXPECT_EQ(a->releases[0].archives[0].cuda_variant, "12");
  EXPECT_EQ(a->releases[1].archives.size(), 2u);
  auto two = available_releases(fs, "/mirror", "linux-x86_64", known, http, 2);
  EXPECT_EQ(two->releases.size(), 2u);
  EXPECT_EQ(two->not_shown, 2u);
  // No list: the table, with the reason.
  known = {{"cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz", digest, 0, ""},
           {"cudnn-linux-x86_64-9.19.0.56_cuda12-archive.tar.xz", digest, 0, ""}};
  auto offline = available_releases(fs, "/nowhere", "linux-x86_64", known, http, 0);
  ASSERT_TRUE(offline.ok());
  EXPECT_EQ(offline->listed_by, "known-archives");
  EXPECT_NE(offline->note.find("could not be read"), std::string::npos);
  ASSERT_EQ(offline->releases.size(), 1u);
  EXPECT_EQ(offline->releases[0].archives.size(), 2u);
}

}  // namespace
}  // namespace cudnnup
