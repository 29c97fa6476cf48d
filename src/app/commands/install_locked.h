// `cudnnup install --locked` (docs/commands/lock.md): the install of exactly what cudnn.lock
// names. Before: the release, CUDA major and archive sha256 come from the lock, the archive from
// the configured mirror (--mirror, CUDNNUP_MIRROR, else NVIDIA's), never from the lock. After:
// the new install manifest must record exactly the locked files, and the version is selected.
#pragma once

#include <string>

#include "app/cli/app_context.h"
#include "app/commands/store_access.h"
#include "install/cudnn_lock.h"

namespace cudnnup {

struct LockedRequest {
  std::string lock_path;
  CudnnLock lock;
  std::string release;  // "9.19.0": what the mirror's redistrib manifests are named by
};

// Reads the lock (--lock FILE or the nearest cudnn.lock) and checks it fits this machine: an
// archive sha256 is named, the platform is this one. kUsage / kCorrupt naming the lock otherwise.
Result<LockedRequest> locked_request(const AppContext& ctx, const std::string& given, const std::string& platform_key);

// After the install of `installed_id`: its manifest must equal the lock, file by file
// (manifest_differences), then the project selects it: the .cudnn-version beside the lock is
// written (a recorded change, `use --undo` reverts it) unless the selection here is already the
// locked version. Returns what it did, for the text output.
Result<std::string> finish_locked_install(AppContext& ctx, LockedStore& store, const LockedRequest& request,
                                          const std::string& installed_id);

}  // namespace cudnnup
