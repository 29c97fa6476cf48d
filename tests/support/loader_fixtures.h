// Trees for the loader tests: cuDNN copies whose shim loads its sub-libraries like cuDNN 9
// (tests/fixtures/loader_shim.c), probe programs and chain libraries (tests/fixtures/loader.cmake).
#pragma once

#include <string>
#include <vector>

namespace cudnnup::testing {

// Path of a built loader fixture: loader_fixture("bin/probe_rpath").
std::string loader_fixture(const std::string& rel);

// The versions the loader fixtures are built in: "9.19.0", "9.19.1", "9.14.0", "9.1.0".
const std::vector<std::string>& loader_versions();

// A cuDNN 9 copy in `lib_dir`: the stub sub-libraries of `version` (tests/fixtures/loader_sub.c,
// with the real SONAMEs, DT_NEEDED and DT_RUNPATH $ORIGIN) under SONAME names, the loading shim
// as libcudnn.so.9, and, with `header`, a cudnn_version.h in lib_dir/../include so the copy's
// version is known from files.
void make_loading_copy(const std::string& version, const std::string& lib_dir, bool header = true);

}  // namespace cudnnup::testing
