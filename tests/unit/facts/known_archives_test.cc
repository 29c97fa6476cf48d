// data/known_archives.json as a whole: what makes a row trustworthy (an official name, a real
// sha256, a public source) and what makes the table complete (every release it lists has an
// archive, or an 'unsourced' entry, for each platform and CUDA variant the release ships).
#include "facts/known_archives.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>

#include "install/archive_name.h"

namespace cudnnup {
namespace {

nlohmann::json table_file() {
  std::ifstream in(std::filesystem::path(CUDNNUP_SOURCE_DIR) / "data/known_archives.json", std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return nlohmann::json::parse(text.str());
}

bool is_public_url(const std::string& s) { return std::regex_match(s, std::regex(R"(https://[^\s()]+)")); }

// A vendored copy names the repository, the path and the commit it was read at.
bool is_vendored_copy(const std::string& s) {
  return std::regex_match(s, std::regex(R"([\w.-]+/[\w.-]+ \S+@[0-9a-f]{40})"));
}

TEST(KnownArchivesTable, EveryRowIsAnOfficialNameWithARealHashAndAPublicSource) {
  auto doc = table_file();
  ASSERT_TRUE(doc.contains("archives"));
  std::set<std::string> names, hashes;
  for (const auto& row : doc["archives"]) {
    std::string name = row.value("file_name", "");
    SCOPED_TRACE(name);
    auto parsed = parse_archive_name(name);
    ASSERT_TRUE(parsed.ok()) << parsed.error().message;
    EXPECT_TRUE(parsed->canonical) << "NVIDIA's spelling is " << parsed->canonical_name;
    EXPECT_TRUE(names.insert(name).second) << "a second row for the same archive";
    std::string sha = row.value("sha256", "");
    EXPECT_TRUE(std::regex_match(sha, std::regex("[0-9a-f]{64}"))) << sha;
    // Two archives never share a sha256; a shared one is a row copied under the wrong name.
    EXPECT_TRUE(hashes.insert(sha).second) << "sha256 " << sha << " is on two rows";
    ASSERT_TRUE(row.contains("size"));
    EXPECT_TRUE(row["size"].is_null() || (row["size"].is_number_unsigned() && row["size"].get<uint64_t>() > 0));
    EXPECT_TRUE(is_public_url(row.value("source", ""))) << row.value("source", "");
    for (const char* also : {"manifest", "corroborated_by"}) {
      if (row.contains(also)) {
        EXPECT_TRUE(is_public_url(row[also].get<std::string>())) << also;
      }
    }
    if (row.contains("vendored_in")) {
      EXPECT_TRUE(is_vendored_copy(row["vendored_in"].get<std::string>()));
    }
  }
  EXPECT_EQ(names.size(), builtin_known_archives().size()) << "the embedded table is this file";
}

// The platforms cudnnup installs from and the CUDA majors each release ships, per release.
struct ReleaseCoverage {
  std::set<int> cuda_majors;
  std::set<std::pair<std::string, int>> present;  // (platform key, CUDA major)
};

TEST(KnownArchivesTable, EveryListedReleaseCoversEachPlatformOrSaysWhyNot) {
  const std::set<std::string> platforms = {"linux-x86_64", "linux-sbsa", "windows-x86_64"};
  auto doc = table_file();
  std::map<Version, ReleaseCoverage> releases;
  std::set<std::string> rows;
  for (const auto& row : doc["archives"]) {
    auto parsed = parse_archive_name(row.value("file_name", ""));
    ASSERT_TRUE(parsed.ok());
    rows.insert(parsed->file_name);
    // From 8.9.7 on, the table holds whole releases; older rows are single archives seen in guides.
    if (parsed->version < Version{8, 9, 7, 29} || !platforms.count(parsed->platform_key())) continue;
    auto& r = releases[parsed->version];
    r.cuda_majors.insert(parsed->cuda_major);
    r.present.insert({parsed->platform_key(), parsed->cuda_major});
  }
  std::set<std::string> unsourced;
  for (const auto& n : doc.value("unsourced", nlohmann::json::array())) {
    std::string name = n.get<std::string>();
    SCOPED_TRACE(name);
    auto parsed = parse_archive_name(name);
    ASSERT_TRUE(parsed.ok());
    EXPECT_TRUE(parsed->canonical);
    EXPECT_FALSE(rows.count(name)) << "listed as unsourced but the table has a row for it";
    EXPECT_TRUE(releases.count(parsed->version)) << "unsourced names belong to releases the table lists";
    unsourced.insert(name);
  }
  ASSERT_GE(releases.size(), 40u);
  for (const auto& [version, r] : releases) {
    for (const auto& platform : platforms) {
      for (int cuda : r.cuda_majors) {
        if (r.present.count({platform, cuda})) continue;
        std::string name = "cudnn-" + platform + "-" + version.str() + "_cuda" + std::to_string(cuda) + "-archive" +
                           (platform == "windows-x86_64" ? ".zip" : ".tar.xz");
        EXPECT_TRUE(unsourced.count(name)) << name << " is neither a row nor listed as unsourced";
      }
    }
  }
}

TEST(KnownArchivesTable, CoversTheReleasesOfTheLastTwoYearsOnLinux) {
  // Every cuDNN 9 release from 9.0.0 to 9.28.0 has its linux-x86_64 archives in the table, and
  // the cuDNN 8 one that frameworks still pin (8.9.7 for CUDA 12) too.
  const auto& table = builtin_known_archives();
  auto has = [&](const std::string& name) {
    for (const auto& k : table)
      if (k.file_name == name) return true;
    return false;
  };
  EXPECT_TRUE(has("cudnn-linux-x86_64-8.9.7.29_cuda12-archive.tar.xz"));
  for (const char* release : {"9.0.0.312", "9.1.1.17", "9.2.0.82", "9.2.1.18", "9.4.0.58", "9.5.0.50", "9.5.1.17",
                              "9.21.0.82", "9.21.1.3", "9.23.0.39", "9.23.1.3", "9.23.2.1", "9.24.0.43", "9.24.1.1",
                              "9.25.1.1", "9.26.0.51", "9.26.1.1", "9.28.0.42"}) {
    EXPECT_TRUE(has(std::string("cudnn-linux-x86_64-") + release + "_cuda12-archive.tar.xz")) << release;
  }
  EXPECT_EQ(newest_known_release(table, 8, 12, false), (Version{8, 9, 7}));
}

}  // namespace
}  // namespace cudnnup
