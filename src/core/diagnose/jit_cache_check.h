// The CUDA JIT cache: where the driver keeps the kernels it compiles at run time for this GPU
// (~/.nv/ComputeCache, or $CUDA_CACHE_PATH). Users report that deleting it cured "could not create
// cudnn handle: CUDNN_STATUS_INTERNAL_ERROR" (argman/EAST#24, CharlesShang/TFFRCNN#97,
// BVLC/caffe#6873); files there that the user cannot update, left by a run as root that kept the
// user's HOME (sudo -E, an older sudo), are one plausible reason, and the one doctor can see.
#pragma once

#include <string>
#include <vector>

#include "base/environment.h"
#include "base/filesystem.h"
#include "base/model.h"

namespace cudnnup {

struct JitCacheDir {
  std::string path;         // absolute and normalized; "" when not judged
  bool user_named = false;  // from $CUDA_CACHE_PATH: a folder that may hold more than the cache
};

// The cache folder CUDA uses under `env`: $CUDA_CACHE_PATH when it is an absolute path, else
// ~/.nv/ComputeCache. Not judged ("") where caching is off ($CUDA_CACHE_DISABLE other than 0),
// where $CUDA_CACHE_PATH is relative (the driver reads it against a working directory doctor does
// not know), on Windows (whose ACLs FileInfo does not model) and without an absolute home.
JitCacheDir cuda_jit_cache_dir(const Environment& env);

// "driver.jit_cache_not_writable" when the user cannot update the cache: the cache folder, or
// (default place only) an entry directly in it, belongs to another user and its mode bits do not
// let this user write it (FileInfo::self_may_write: the group's bit counts for the group's
// members); or ~/.nv does while the cache is missing, so the driver cannot make it. A superuser
// may write every file and gets no finding. Looks at the first 512 entries and stops at 6 foreign.
std::vector<Finding> check_jit_cache(const FileSystem& fs, const Environment& env);

}  // namespace cudnnup
