// Refreshing the table of NVIDIA archives from a mirror (core/install/known_refresh.h): rows the
// built-in table lacks are kept with their manifest as source; a mirror that disagrees with a
// built-in row is reported and never overrides it; an unreadable refreshed file is an error that
// names it.
#include "install/known_refresh.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "install/archive_source.h"
#include "support/fake_archive.h"

namespace cudnnup {
namespace {

using testing::MemoryFileSystem;

std::string manifest(const std::string& release, const std::string& file, const std::string& sha256, uint64_t size) {
  nlohmann::json m = {{"release_label", release},
                      {"cudnn", {{"version", release + ".1"},
                                 {"linux-x86_64", {{"cuda13", {{"relative_path", "cudnn/linux-x86_64/" + file}, {"sha256", sha256},
                                                               {"size", std::to_string(size)}}}}}}}};
  return m.dump();
}

class KnownRefreshTest : public ::testing::Test {
 protected:
  MemoryFileSystem fs;
  HttpClient http;  // a directory mirror needs none
  const std::string newer = "cudnn-linux-x86_64-9.40.0.1_cuda13-archive.tar.xz";
  const std::string built_in = "cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz";
  std::vector<KnownArchive> builtin{{built_in, std::string(64, 'c'), 100, "https://developer.download.nvidia.com/x.json"}};

  void SetUp() override {
    fs.add_file("/m/redistrib_9.40.0.json", manifest("9.40.0", newer, std::string(64, 'a'), 7));
    fs.add_file("/m/redistrib_9.19.0.json", manifest("9.19.0", built_in, std::string(64, 'c'), 100));
    fs.add_file("/m/redistrib_9.39.0.json", "{not json");
  }
};

TEST_F(KnownRefreshTest, KeepsWhatTheBuiltInTableLacksWithItsManifestAsSource) {
  auto r = refresh_known_archives(fs, mirror_at("/m"), builtin, http);
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->rows.size(), 1u);
  EXPECT_EQ(r->rows[0].file_name, newer);
  EXPECT_EQ(r->rows[0].sha256, std::string(64, 'a'));
  EXPECT_EQ(r->rows[0].size, 7u);
  EXPECT_EQ(r->rows[0].source, "/m/redistrib_9.40.0.json");
  EXPECT_EQ(r->manifests, 2u);
  EXPECT_EQ(r->already_known, 1u);
  EXPECT_TRUE(r->conflicts.empty());
  ASSERT_EQ(r->problems.size(), 1u) << "the unreadable manifest is named, the others still read";
  EXPECT_NE(r->problems[0].find("redistrib_9.39.0.json"), std::string::npos) << r->problems[0];
}

TEST_F(KnownRefreshTest, AMirrorThatDisagreesWithABuiltInRowIsReportedAndNotKept) {
  fs.add_file("/m/redistrib_9.19.0.json", manifest("9.19.0", built_in, std::string(64, 'b'), 100));
  auto r = refresh_known_archives(fs, mirror_at("/m"), builtin, http);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->conflicts.size(), 1u);
  EXPECT_NE(r->conflicts[0].find("the table's row is kept"), std::string::npos);
  for (const auto& row : r->rows) EXPECT_NE(row.file_name, built_in);
}

TEST_F(KnownRefreshTest, TheRefreshedFileAddsRowsBehindTheBuiltInOnesAndSaysWhatItIs) {
  auto r = refresh_known_archives(fs, mirror_at("/m"), builtin, http);
  std::vector<KnownArchive> rows = r->rows;
  rows.push_back({built_in, std::string(64, 'e'), 100, "/elsewhere.json"});  // a hand-edited row for a built-in name
  fs.add_file("/store/known_archives.json", refreshed_known_archives_json(rows, "/m/"));
  auto table = known_archives_with_refreshed(fs, "/store/known_archives.json", builtin);
  ASSERT_TRUE(table.ok()) << table.error().message;
  ASSERT_EQ(table->size(), 2u);
  EXPECT_EQ((*table)[0].sha256, std::string(64, 'c')) << "the built-in row wins";
  EXPECT_FALSE((*table)[0].refreshed);
  EXPECT_EQ((*table)[1].file_name, newer);
  EXPECT_TRUE((*table)[1].refreshed);
  auto check = check_known_archive(*table, newer, std::string(64, 'a'), 7);
  EXPECT_EQ(check.match, KnownMatch::kMatches);
  EXPECT_EQ(check.message.find("NVIDIA's"), std::string::npos) << "a mirror's row is not NVIDIA's word: " << check.message;

  EXPECT_EQ(known_archives_with_refreshed(fs, "/store/none.json", builtin)->size(), 1u) << "no file: the built-in table";
  fs.add_file("/store/bad.json", "[1, 2");
  auto bad = known_archives_with_refreshed(fs, "/store/bad.json", builtin);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("/store/bad.json is not a table of archives"), std::string::npos) << bad.error().message;
  EXPECT_NE(bad.error().message.find("archive-info --update-known"), std::string::npos);
}

TEST_F(KnownRefreshTest, AnInstallCheckedAgainstARefreshedRowSaysWhereItCameFrom) {
  testing::FakeArchives archives;
  std::string bytes = "archive bytes";
  std::vector<KnownArchive> table = {{newer, testing::test_digest(bytes), bytes.size(), "/m/redistrib_9.40.0.json", true}};
  fs.add_file("/dl/" + newer, bytes);
  SourceRequest req;
  req.arg = "/dl/" + newer;
  auto s = resolve_source(fs, StoreLayout{"/store"}, req, table, http, archives.services());
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->expected_from, "the sha256 that `archive-info --update-known` read from /m/redistrib_9.40.0.json");
}

}  // namespace
}  // namespace cudnnup
