// The catalogue's shared lists: causes and fixes that several entries carry (the CUDNN_STATUS_*
// causes of five status entries) are written once under "shared_causes"/"shared_fixes", and an
// entry names one with a row {"include": "name"}.
#include <gtest/gtest.h>

#include <string>

#include "explain/error_catalogue.h"

namespace cudnnup {
namespace {

// A one-entry catalogue; SHARED and CAUSES/FIXES are replaced by each test.
std::string catalogue_with(const std::string& shared, const std::string& causes, const std::string& fixes) {
  return R"({"schema": 1, "statuses": [],)" + shared + R"( "entries": [{"id": "x", "title": "t", "needles": ["n"],
    "patterns": ["n"], "meaning": "m", "severity": "error", "sources": ["https://e"],
    "causes": [)" + causes + R"(], "fixes": [)" + fixes + R"(]}]})";
}

const char* kShared = R"( "shared_causes": {"two": [{"text": "s1", "check": "driver_absent", "weight": 5},
                                                  {"text": "s2", "check": "no_gpu", "weight": 4}]},
  "shared_fixes": {"one": [{"text": "shared fix"}]},)";

TEST(CatalogueSharedLists, AnIncludeStandsForTheListsRowsAtItsPlace) {
  auto cat = parse_error_catalogue(
      catalogue_with(kShared, R"({"text": "own", "check": "gpu_memory", "weight": 9}, {"include": "two"},
                                 {"text": "last", "check": "not_checkable", "weight": 1})",
                     R"({"include": "one"}, {"text": "own fix"})"),
      "t");
  ASSERT_TRUE(cat.ok()) << cat.error().message;
  const CatalogueEntry* e = cat->entry("x");
  ASSERT_NE(e, nullptr);
  ASSERT_EQ(e->causes.size(), 4u);
  EXPECT_EQ(e->causes[0].text, "own");
  EXPECT_EQ(e->causes[1].text, "s1");
  EXPECT_EQ(e->causes[1].check, "driver_absent");
  EXPECT_EQ(e->causes[1].weight, 5);
  EXPECT_EQ(e->causes[2].text, "s2");
  EXPECT_EQ(e->causes[3].text, "last");
  ASSERT_EQ(e->fixes.size(), 2u);
  EXPECT_EQ(e->fixes[0].text, "shared fix");
  EXPECT_EQ(e->fixes[1].text, "own fix");
}

TEST(CatalogueSharedLists, AnUnknownListIsRefusedByName) {
  auto bad = parse_error_catalogue(catalogue_with(kShared, R"({"include": "three"})", R"({"include": "one"})"), "t");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("'three'"), std::string::npos) << bad.error().message;
  EXPECT_NE(bad.error().message.find("entry 'x'"), std::string::npos) << bad.error().message;
  // A fix list's name is not a cause list's.
  auto crossed = parse_error_catalogue(catalogue_with(kShared, R"({"include": "one"})", R"({"include": "two"})"), "t");
  EXPECT_FALSE(crossed.ok());
}

TEST(CatalogueSharedLists, AnIncludeRowHasNothingElse) {
  auto bad = parse_error_catalogue(
      catalogue_with(kShared, R"({"include": "two", "weight": 50})", R"({"include": "one"})"), "t");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("only the key"), std::string::npos) << bad.error().message;
}

TEST(CatalogueSharedLists, SharedListsDoNotNestAndAreAllUsed) {
  const std::string nested = R"( "shared_causes": {"two": [{"include": "two"}]}, "shared_fixes": {"one": [{"text": "f"}]},)";
  auto bad = parse_error_catalogue(catalogue_with(nested, R"({"include": "two"})", R"({"include": "one"})"), "t");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("cannot include"), std::string::npos) << bad.error().message;

  auto unused = parse_error_catalogue(
      catalogue_with(kShared, R"({"include": "two"})", R"({"text": "own fix"})"), "t");
  ASSERT_FALSE(unused.ok());
  EXPECT_NE(unused.error().message.find("shared_fixes 'one'"), std::string::npos) << unused.error().message;
  EXPECT_NE(unused.error().message.find("no entry includes it"), std::string::npos);

  const std::string empty = R"( "shared_causes": {"two": []},)";
  EXPECT_FALSE(parse_error_catalogue(catalogue_with(empty, R"({"include": "two"})", R"({"text": "f"})"), "t").ok());
}

// A shared cause is checked like an entry's own: an unknown check is refused where it is used.
TEST(CatalogueSharedLists, ASharedCauseIsValidatedLikeAnOwnOne) {
  const std::string wrong = R"( "shared_causes": {"two": [{"text": "s", "check": "no_such_check", "weight": 1}]},)";
  auto bad = parse_error_catalogue(catalogue_with(wrong, R"({"include": "two"})", R"({"text": "f"})"), "t");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("no_such_check"), std::string::npos);
}

// The built-in catalogue's five CUDNN_STATUS_* entries carry the shared status causes in full.
TEST(CatalogueSharedLists, TheStatusEntriesShareOneListOfCauses) {
  const auto& cat = builtin_error_catalogue();
  ASSERT_TRUE(cat.ok()) << cat.error().message;
  const CatalogueEntry* base = cat->entry("cudnn.status");
  ASSERT_NE(base, nullptr);
  for (const char* id : {"pytorch.cudnn_error_status", "paddle.cudnn_error_code", "dlib.cudnn_call_error",
                         "cudnn.python_status_exception"}) {
    SCOPED_TRACE(id);
    const CatalogueEntry* e = cat->entry(id);
    ASSERT_NE(e, nullptr);
    ASSERT_GE(e->causes.size(), 25u);
    for (size_t i = 1; i <= 25; ++i) {
      EXPECT_EQ(e->causes[e->causes.size() - i].text, base->causes[base->causes.size() - i].text);
    }
  }
}

}  // namespace
}  // namespace cudnnup
