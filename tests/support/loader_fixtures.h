// Trees for the loader tests: cuDNN copies whose shim loads its sub-libraries like cuDNN 9
// (tests/fixtures/loader_shim.c), probe programs and chain libraries (tests/fixtures/loader.cmake).
#pragma once

#include <string>

namespace cudnnup::testing {

// Path of a built loader fixture: loader_fixture("bin/probe_rpath").
std::string loader_fixture(const std::string& rel);

// A cuDNN 9 copy in `lib_dir`: the stub sub-libraries of `version` ("9.19.0" or "9.14.0") under
// SONAME names, the loading shim as libcudnn.so.9, and, with `header`, a cudnn_version.h in
// lib_dir/../include so the copy's version is known from files.
void make_loading_copy(const std::string& version, const std::string& lib_dir, bool header = true);

}  // namespace cudnnup::testing
