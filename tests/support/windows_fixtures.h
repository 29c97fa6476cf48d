// Finds the stub Windows DLLs built by tests/fixtures/windows/CMakeLists.txt (with mingw-w64,
// in the native build too when the cross compiler is installed).
#pragma once

#include <optional>
#include <string>

namespace cudnnup::testing {

// Path of a built stub DLL: windows_fixture_dll("v9.19.0.56", "cudnn64_9.dll"), or nullopt when
// this build has no mingw-w64 (tests then GTEST_SKIP with the reason).
inline std::optional<std::string> windows_fixture_dll(const std::string& variant, const std::string& file_name) {
#ifdef CUDNNUP_WINDOWS_FIXTURE_DIR
  return std::string(CUDNNUP_WINDOWS_FIXTURE_DIR) + "/" + variant + "/" + file_name;
#else
  (void)variant;
  (void)file_name;
  return std::nullopt;
#endif
}

inline constexpr const char* kNoWindowsFixtures =
    "no mingw-w64 in this build: run scripts/install-deps.sh --windows to build the stub DLLs";

}  // namespace cudnnup::testing
