// The finding ids live in one place (facts/finding_ids.h): docs/json-schema.md lists exactly
// those, and no source file outside the facts module spells one out in code.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "facts/finding_ids.h"

namespace cudnnup {
namespace {

std::string read(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

const std::regex& id_pattern() {
  static const std::regex re(R"(\b(driver|toolkit|cudnn|framework|windows|install|loader|env)\.[a-z_]+[a-z]\b)");
  return re;
}

TEST(FindingIds, TheSchemaDocumentListsExactlyTheConstants) {
  std::string doc = read(std::filesystem::path(CUDNNUP_SOURCE_DIR) / "docs/json-schema.md");
  size_t start = doc.find("### Finding ids");
  ASSERT_NE(start, std::string::npos);
  size_t end = doc.find("\n#", start + 4);
  std::string table = doc.substr(start, end == std::string::npos ? std::string::npos : end - start);
  std::set<std::string> documented;
  std::istringstream lines(table);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("| `", 0) != 0) continue;
    std::string first_cell = line.substr(0, line.find('|', 1));
    static const std::regex tick(R"(`([a-z_]+\.[a-z_]+)`)");
    for (std::sregex_iterator it(first_cell.begin(), first_cell.end(), tick), e; it != e; ++it) documented.insert((*it)[1]);
  }
  std::set<std::string> constants;
  for (auto id : finding_id::all()) EXPECT_TRUE(constants.insert(std::string(id)).second) << id << " listed twice";
  EXPECT_EQ(documented, constants);
}

TEST(FindingIds, NoSourceOutsideTheFactsModuleSpellsOne) {
  std::set<std::string> ids;
  for (auto id : finding_id::all()) ids.insert(std::string(id));
  std::filesystem::path src = std::filesystem::path(CUDNNUP_SOURCE_DIR) / "src";
  for (const auto& entry : std::filesystem::recursive_directory_iterator(src)) {
    if (!entry.is_regular_file()) continue;
    auto ext = entry.path().extension();
    if (ext != ".cc" && ext != ".h") continue;
    if (entry.path().filename().string().rfind("finding_ids.", 0) == 0) continue;
    std::istringstream lines(read(entry.path()));
    for (std::string line; std::getline(lines, line);) {
      std::string code = line.substr(0, line.find("//"));  // comments may name an id
      for (std::sregex_iterator it(code.begin(), code.end(), id_pattern()), e; it != e; ++it) {
        std::string quoted = "\"" + (*it)[0].str() + "\"";
        EXPECT_FALSE(ids.count((*it)[0].str()) && code.find(quoted) != std::string::npos)
            << entry.path() << " spells " << quoted << "; use the finding_id constant";
      }
    }
  }
}

}  // namespace
}  // namespace cudnnup
