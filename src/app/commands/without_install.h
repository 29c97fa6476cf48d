// What install, uninstall and archive-info answer in a build without install support
// (CUDNNUP_WITH_INSTALL=OFF, src/CMakeLists.txt; docs/commands/install.md).
#pragma once

namespace cudnnup {

inline constexpr const char* kBuiltWithoutInstall =
    "it was built without install support (CUDNNUP_WITH_INSTALL=OFF, the default where libarchive is not found; "
    "for the Windows cross-build, run scripts/build-windows-deps.sh before configuring)";

}  // namespace cudnnup
