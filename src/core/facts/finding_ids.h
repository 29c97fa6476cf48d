// Every finding id doctor can report, in one place: the checks that make findings and the
// explain checks that read them use these constants, and docs/json-schema.md lists each one
// (tests/unit/facts/finding_ids_test.cc keeps the two in step). An id never changes meaning.
#pragma once

#include <string_view>
#include <vector>

namespace cudnnup::finding_id {

inline constexpr std::string_view kDriverNotFound = "driver.not_found";
inline constexpr std::string_view kDriverUnusable = "driver.unusable";
inline constexpr std::string_view kDriverJitCacheNotWritable = "driver.jit_cache_not_writable";
inline constexpr std::string_view kToolkitVersionUnknown = "toolkit.version_unknown";
inline constexpr std::string_view kToolkitDriverTooOld = "toolkit.driver_too_old";
inline constexpr std::string_view kToolkitDriverBelowRelease = "toolkit.driver_below_release";

inline constexpr std::string_view kCudnnNotFound = "cudnn.not_found";
inline constexpr std::string_view kCudnnLibraryDamaged = "cudnn.library_damaged";
inline constexpr std::string_view kCudnnDanglingLink = "cudnn.dangling_link";
inline constexpr std::string_view kCudnnSublibraryMissing = "cudnn.sublibrary_missing";
inline constexpr std::string_view kCudnnMixedSublibraryVersions = "cudnn.mixed_sublibrary_versions";
inline constexpr std::string_view kCudnnHeaderLibraryMismatch = "cudnn.header_library_mismatch";
inline constexpr std::string_view kCudnnLoadFailed = "cudnn.load_failed";
inline constexpr std::string_view kCudnnLoadCrashed = "cudnn.load_crashed";
inline constexpr std::string_view kCudnnCudaMajorMismatch = "cudnn.cuda_major_mismatch";
inline constexpr std::string_view kCudnnUnknownBuildVariant = "cudnn.unknown_build_variant";
inline constexpr std::string_view kCudnnDriverTooOld = "cudnn.driver_too_old";
inline constexpr std::string_view kCudnnGpuUnsupported = "cudnn.gpu_unsupported";
inline constexpr std::string_view kCudnnKnownBadRelease = "cudnn.known_bad_release";
inline constexpr std::string_view kCudnnSonameLinkMissing = "cudnn.soname_link_missing";
inline constexpr std::string_view kCudnnNoHeader = "cudnn.no_header";
inline constexpr std::string_view kCudnnMixedMajors = "cudnn.mixed_majors";
inline constexpr std::string_view kCudnnLdconfigStale = "cudnn.ldconfig_stale";
inline constexpr std::string_view kCudnnShadowed = "cudnn.shadowed";
inline constexpr std::string_view kCudnnProbeNotIsolated = "cudnn.probe_not_isolated";

inline constexpr std::string_view kLoaderMixedCopies = "loader.mixed_copies";
inline constexpr std::string_view kEnvRedirectsCudnn = "env.redirects_cudnn";

inline constexpr std::string_view kFrameworkCudnnRejected = "framework.cudnn_rejected";
inline constexpr std::string_view kFrameworkProbeDisagrees = "framework.probe_disagrees";
inline constexpr std::string_view kFrameworkProbeFailed = "framework.probe_failed";

inline constexpr std::string_view kWindowsStaleSessionPath = "windows.stale_session_path";
inline constexpr std::string_view kWindowsPathTruncated = "windows.path_truncated";
inline constexpr std::string_view kWindowsPathTooLong = "windows.path_too_long";
inline constexpr std::string_view kWindowsPathOnlyCopy = "windows.path_only_copy";
inline constexpr std::string_view kWindowsDllLoadFails = "windows.dll_load_fails";
inline constexpr std::string_view kWindowsMixedCudnnDlls = "windows.mixed_cudnn_dlls";
inline constexpr std::string_view kWindowsZlibwapiMissing = "windows.zlibwapi_missing";
inline constexpr std::string_view kWindowsZlibwapiWrongMachine = "windows.zlibwapi_wrong_machine";
inline constexpr std::string_view kWindowsStraySystemDll = "windows.stray_system_dll";
inline constexpr std::string_view kWindowsCudnnNotOnPath = "windows.cudnn_not_on_path";
inline constexpr std::string_view kWindowsUserPathShadowed = "windows.user_path_shadowed";

inline constexpr std::string_view kInstallFilesChanged = "install.files_changed";
inline constexpr std::string_view kInstallManifestUnreadable = "install.manifest_unreadable";

// All of the above.
const std::vector<std::string_view>& all();

}  // namespace cudnnup::finding_id
