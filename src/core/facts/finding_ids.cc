#include "facts/finding_ids.h"

namespace cudnnup::finding_id {

const std::vector<std::string_view>& all() {
  static const std::vector<std::string_view> ids = {
      kDriverNotFound,          kDriverUnusable,
      kDriverJitCacheNotWritable,
      kToolkitVersionUnknown,   kToolkitDriverTooOld,
      kToolkitDriverBelowRelease,
      kCudnnNotFound,           kCudnnLibraryDamaged,
      kCudnnDanglingLink,       kCudnnSublibraryMissing,
      kCudnnMixedSublibraryVersions, kCudnnHeaderLibraryMismatch,
      kCudnnLoadFailed,         kCudnnLoadCrashed,
      kCudnnCudaMajorMismatch,  kCudnnUnknownBuildVariant,
      kCudnnDriverTooOld,       kCudnnGpuUnsupported,
      kCudnnKnownBadRelease,    kCudnnSonameLinkMissing,
      kCudnnNoHeader,           kCudnnMixedMajors,
      kCudnnLdconfigStale,      kCudnnShadowed,
      kCudnnProbeNotIsolated,
      kLoaderMixedCopies,       kEnvRedirectsCudnn,
      kFrameworkCudnnRejected,  kFrameworkProbeDisagrees,
      kFrameworkProbeFailed,
      kWindowsStaleSessionPath, kWindowsPathTruncated,
      kWindowsPathTooLong,      kWindowsPathOnlyCopy,
      kWindowsDllLoadFails,     kWindowsMixedCudnnDlls,
      kWindowsZlibwapiMissing,  kWindowsZlibwapiWrongMachine,
      kWindowsStraySystemDll,   kWindowsCudnnNotOnPath,
      kWindowsUserPathShadowed,
      kInstallFilesChanged,     kInstallManifestUnreadable,
  };
  return ids;
}

}  // namespace cudnnup::finding_id
