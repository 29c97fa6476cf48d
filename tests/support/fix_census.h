// Every fix cudnnup can print, gathered in one list so that tests can check each one in every
// shell (tests/unit/shell/fix_census_test.cc, and with real shells in
// tests/disk/shell_round_trip_posix_test.cc and, under Wine, tests/disk/cmd_round_trip_test.cc):
//   * the explain catalogue's steps, Linux and Windows, with every placeholder filled;
//   * the install steps doctor and verify offer (facts/install_fix.h), into hostile toolkits;
//   * the findings of doctor's checks on hand-built Linux and Windows machines whose copies and
//     toolkits sit in hostile folders (a space, ', $, `, &, %, ^, !, non-ASCII): every copy
//     check with its problem, copies together, the driver, toolkits, Windows PATH, installs
//     whose files changed;
//   * the fix steps of errors: a toolkit cudnnup may not write to (Linux and Windows), a version
//     that is not installed, elevation.
// The census also says which finding ids it reached, so a test can insist on the list.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "base/fix_step.h"

namespace cudnnup::testing {

struct CensusEntry {
  std::string origin;  // "catalogue cudnn.version_mismatch (linux)", "finding cudnn.library_damaged (windows)"
  bool windows = false;
  FixStep step;
};

struct FixCensus {
  std::vector<CensusEntry> entries;
  std::set<std::string> finding_ids;  // the findings that produced steps
};

const FixCensus& fix_census();

// The folders the census puts copies and toolkits in.
extern const char* const kHostileLinuxRoot;    // "/opt/my cuda/it's $(x) `y` & 100% ^!ü"
extern const char* const kHostileWindowsRoot;  // "C:/a&b/%PATH%/it's ^! ü"

}  // namespace cudnnup::testing
