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

std::string refresh_manifest(const std::string& release, const std::string& file, const std::string& sha256, uint64_t size) {
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
    fs.add_file("/m/redistrib_9.40.0.json", refresh_manifest("9.40.0", newer, std::string(64, 'a'), 7));
    fs.add_file("/m/redistrib_9.19.0.json", refresh_manifest("9.19.0", built_in, std::string(64, 'c'), 100));
    fs.add_file("/m/redistrib_9.39.0.json", "{not json");
  }
};

TEST_F(KnownRefreshTest, KeepsWhatTheBuiltInTableLacksWithItsManifestAsSource) {
  auto r = refresh_known_archives(fs, mirror_at("/m"), builtin, {}, http);
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->rows.size(), 1u);
  ASSERT_EQ(r->added.size(), 1u);
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
  fs.add_file("/m/redistrib_9.19.0.json", refresh_manifest("9.19.0", built_in, std::string(64, 'b'), 100));
  auto r = refresh_known_archives(fs, mirror_at("/m"), builtin, {}, http);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->conflicts.size(), 1u);
  EXPECT_NE(r->conflicts[0].find("but cudnnup's table has"), std::string::npos) << r->conflicts[0];
  EXPECT_NE(r->conflicts[0].find("that row is kept"), std::string::npos);
  for (const auto& row : r->rows) EXPECT_NE(row.file_name, built_in);
}

// An earlier refresh's rows stay (they may come from another mirror), and one that disagrees
// with them is a conflict; a mirror with no readable manifest writes nothing.
TEST_F(KnownRefreshTest, EarlierRowsStayAndAMirrorWithNothingReadableIsAnError) {
  const std::string other = "cudnn-linux-x86_64-9.35.0.2_cuda13-archive.tar.xz";
  std::vector<KnownArchive> earlier = {{other, std::string(64, 'd'), 9, "https://other.example/redistrib_9.35.0.json", true},
                                       {newer, std::string(64, 'f'), 7, "https://other.example/redistrib_9.40.0.json", true}};
  auto r = refresh_known_archives(fs, mirror_at("/m"), builtin, earlier, http);
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->rows.size(), 2u);
  EXPECT_TRUE(r->added.empty());
  EXPECT_EQ(r->rows[1].sha256, std::string(64, 'f')) << "the earlier row is kept";
  ASSERT_EQ(r->conflicts.size(), 1u);
  EXPECT_NE(r->conflicts[0].find("an earlier refresh read"), std::string::npos) << r->conflicts[0];

  MemoryFileSystem empty;
  empty.add_file("/n/redistrib_9.50.0.json", "{broken");
  auto none = refresh_known_archives(empty, mirror_at("/n"), builtin, {}, http);
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.error().message.find("no manifest on /n/ could be read"), std::string::npos) << none.error().message;
  EXPECT_NE(none.error().message.find("nothing was written"), std::string::npos);
}

TEST_F(KnownRefreshTest, TheRefreshedFileAddsRowsBehindTheBuiltInOnesAndSaysWhatItIs) {
  auto r = refresh_known_archives(fs, mirror_at("/m"), builtin, {}, http);
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
  // A row that is not an official name with a real sha256 makes the file unreadable, not a claim.
  for (const auto& row : {KnownArchive{newer, "ZZ", 1, "s"}, KnownArchive{"my-cudnn.tar.xz", std::string(64, 'a'), 1, "s"}}) {
    fs.add_file("/store/odd.json", refreshed_known_archives_json({row}, "/m/"));
    auto odd = known_archives_with_refreshed(fs, "/store/odd.json", builtin);
    ASSERT_FALSE(odd.ok()) << row.file_name;
    EXPECT_NE(odd.error().message.find("is not an official archive name with a sha256"), std::string::npos) << odd.error().message;
  }
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
  // A disagreement with a refreshed row points at that row, not at the other source.
  req.sha256 = std::string(64, 'b');
  auto disagreeing = resolve_source(fs, StoreLayout{"/store"}, req, table, http, archives.services());
  ASSERT_FALSE(disagreeing.ok());
  EXPECT_NE(disagreeing.error().message.find("the rows `archive-info --update-known` wrote into the store disagree"), std::string::npos)
      << disagreeing.error().message;
}

}  // namespace
}  // namespace cudnnup
