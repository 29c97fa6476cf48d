// The OS-dependent parts of --help (app/cli/help_words.h): a Windows help names Windows places and
// variables only, a Linux help Linux ones only.
#include <gtest/gtest.h>

#include "app/cli/help_words.h"
#include "platform/system.h"

namespace cudnnup {
namespace {

std::vector<std::string> all(const HelpWords& w) {
  return {w.store, w.store_versions, w.no_privileges, w.toolkit_search, w.verify_copy_example, w.pip_copy_example,
          w.default_copy_places, w.env_variables, w.archive_kinds, w.archive_example, w.merge_example};
}

TEST(HelpWords, WindowsHelpSpeaksOfWindowsPlacesOnly) {
  for (const std::string& text : all(help_words(true))) {
    EXPECT_TRUE(!text.empty());
    for (const char* linux_word : {"$XDG", "/usr/", "~/", "LD_LIBRARY_PATH", "CPATH", "LIBRARY_PATH", "sudo", "root", ".tar.xz"}) {
      EXPECT_EQ(text.find(linux_word), std::string::npos) << "'" << linux_word << "' in: " << text;
    }
  }
  EXPECT_NE(help_words(true).store.find("%LOCALAPPDATA%"), std::string::npos);
  EXPECT_NE(help_words(true).env_variables.find("INCLUDE"), std::string::npos);
  EXPECT_NE(help_words(true).merge_example.find("administrator"), std::string::npos);
}

TEST(HelpWords, LinuxHelpSpeaksOfLinuxPlacesOnly) {
  for (const std::string& text : all(help_words(false))) {
    for (const char* windows_word : {"%", "C:\\", "Program Files", "INCLUDE", "administrator"}) {
      EXPECT_EQ(text.find(windows_word), std::string::npos) << "'" << windows_word << "' in: " << text;
    }
  }
  EXPECT_NE(help_words(false).store.find("$XDG_DATA_HOME"), std::string::npos);
}

TEST(HelpWords, TheHostsWordsAreTheOnesOfItsSystem) {
  EXPECT_EQ(&help_words(), &help_words(host_os() == OsKind::kWindows));
}

}  // namespace
}  // namespace cudnnup
