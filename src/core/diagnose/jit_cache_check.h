// The CUDA JIT cache: where the driver keeps the kernels it compiles at run time for this GPU
// (~/.nv/ComputeCache, or $CUDA_CACHE_PATH). A run under sudo leaves files there that belong to
// root; the user's next run cannot update them, and "could not create cudnn handle:
// CUDNN_STATUS_INTERNAL_ERROR" is the message that users then report, cured by deleting the cache
// (argman/EAST#24, CharlesShang/TFFRCNN#97, BVLC/caffe#6873; docs/json-schema.md).
#pragma once

#include <string>
#include <vector>

#include "base/environment.h"
#include "base/filesystem.h"
#include "base/model.h"

namespace cudnnup {

// The cache directory CUDA uses under `env`: $CUDA_CACHE_PATH when it is an absolute path, else
// ~/.nv/ComputeCache; "" where it is off ($CUDA_CACHE_DISABLE=1), on Windows (whose ACLs
// FileInfo does not model) and without a home.
std::string cuda_jit_cache_dir(const Environment& env);

// "driver.jit_cache_not_writable" when the cache directory, the ~/.nv above the default one, or
// an entry directly in the cache belongs to another user and only its owner may write it. A
// superuser may write every file, so it gets no finding. Reads at most a few hundred entries.
std::vector<Finding> check_jit_cache(const FileSystem& fs, const Environment& env);

}  // namespace cudnnup
