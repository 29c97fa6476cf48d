#include "support/explain_reports.h"

#include <gtest/gtest.h>

namespace cudnnup::testing {

const ErrorCatalogue& catalogue() {
  const auto& c = builtin_error_catalogue();
  EXPECT_TRUE(c.ok()) << (c.ok() ? "" : c.error().message);
  return *c;
}

const Explanation* find_match(const ExplainReport& report, const std::string& id) {
  for (const auto& m : report.matches) {
    if (m.entry->id == id) return &m;
  }
  for (const auto& m : report.matches) {
    for (const auto& [entry, line] : m.folded) {
      if (entry->id == id) return &m;
    }
  }
  return nullptr;
}

}  // namespace cudnnup::testing
