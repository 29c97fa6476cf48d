// Builds small, valid PE32+ images in memory (headers, one section with an import table), so
// logic tests can put "DLLs" of any machine type and import list into the in-memory filesystem
// without a cross compiler. Real DLLs built by mingw are used by tests/unit/pe_test.cc.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace cudnnup::testing {

std::string build_pe_dll(uint16_t machine, const std::vector<std::string>& imports);

}  // namespace cudnnup::testing
