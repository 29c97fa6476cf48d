// `cudnnup --version`: the release, the commit and commit date it was built from, and the
// versions of the data built into it (rules, error catalogue).
#pragma once

#include "app/cli/app_context.h"

namespace cudnnup {

// From cmake/build_info.cmake (generated build_info.cc): "" when the build did not know.
const char* build_commit();
const char* build_commit_date();

int print_version(const AppContext& ctx);

}  // namespace cudnnup
