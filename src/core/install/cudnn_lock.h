// cudnn.lock (`cudnnup lock`, schema cudnnup.lock/1, docs/commands/lock.md): the cuDNN a project
// was made with, file by file, so `cudnnup check` can say whether a machine still has it and
// `cudnnup install --locked` can make it again.
//
// A lock arrives in a cloned repository: it is untrusted input. The reader accepts only what
// the writer writes (every field known, of its type and within its bounds, every path relative
// and below the copy's root, base/relative_path.h), and names the file and the field otherwise.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "base/filesystem.h"
#include "base/model.h"
#include "base/result.h"
#include "facts/rules.h"
#include "install/archive_policy.h"
#include "install/install_manifest.h"

namespace cudnnup {

inline constexpr const char* kLockFileName = "cudnn.lock";
inline constexpr const char* kLockSchema = "cudnnup.lock/1";
// Bounds that no real copy comes near (cuDNN 9 has ~40 files, the largest under 1 GB), so a
// hostile lock cannot make a reader allocate or a check wait without end.
inline constexpr size_t kMaxLockBytes = 4 << 20;
inline constexpr size_t kMaxLockedFiles = 10000;
inline constexpr uint64_t kMaxLockedFileSize = uint64_t(64) << 30;

struct LockedFile {
  std::string path;         // relative to the copy's root ("lib/libcudnn.so.9.19.0")
  EntryKind kind = EntryKind::kFile;  // kFile or kSymlink
  uint64_t size = 0;        // files
  std::string sha256;       // files: lower-case hex
  std::string link_target;  // symlinks: a file name in the link's own folder
};

// The copies a lock can name: a cudnnup store version, a pip wheel's nvidia/cudnn folder, or the
// cuDNN files merged into a CUDA toolkit.
inline constexpr const char* kLockFormStore = "store";
inline constexpr const char* kLockFormPip = "pip";
inline constexpr const char* kLockFormToolkit = "toolkit";

struct CudnnLock {
  std::string form = kLockFormStore;  // kLockForm*
  std::string id;              // "9.19.0.56+cuda13": the store version, or what a store version of it is called
  std::string cudnn_version;   // "9.19.0.56"
  std::string cuda_variant;    // "13"
  int cuda_major = 0;
  std::string platform;        // "linux-x86_64"
  // The archive the copy came from, when the install knew it ("" / 0 otherwise).
  std::string archive_file_name;
  uint64_t archive_size = 0;
  std::string archive_sha256;
  // From the rules (data/rules.json): the lowest driver that runs this CUDA major.
  std::string driver_minimum_linux, driver_minimum_windows, driver_minimum_source;
  // Sorted by path. A store lock's paths are relative to the version's directory. A pip or toolkit
  // lock's are "lib/NAME" and "include/NAME": NAME in the copy's library folder and in its header
  // folder, wherever those lie (a toolkit's may be lib/, lib64/ or targets/x86_64-linux/lib/).
  std::vector<LockedFile> files;
};

// `pip install nvidia-cudnn-cu13==9.19.0.56` (`==9.19.0.*` for a lock that knows three parts) as
// an argument vector (its * is pip's, not a glob: the renderer quotes it): the wheel a pip lock
// names, built from the lock's checked version and CUDA major (nothing of the lock's own text
// reaches the command).
std::vector<std::string> pip_install_argv(const CudnnLock& lock);

// The document, two-space indented, ending in a newline.
std::string lock_to_json(const CudnnLock& lock);

// Parses and checks a lock (`origin` names it in messages). kCorrupt naming the field for
// anything the writer would not have written: an unknown field, a wrong type, a path that is
// absolute or climbs out, a size over kMaxLockedFileSize, a sum that is not 64 hex digits.
Result<CudnnLock> lock_from_json(std::string_view text, const std::string& origin);

// The lock of a store version from its install manifest. The manifest's sha256 of each file is
// reused; `hasher` (null: none) is asked only for files the manifest has none for, or for every
// file when `rehash` (lock --deep).
Result<CudnnLock> lock_from_manifest(const InstallManifest& manifest, const Rules& rules, const BelowHasher* hasher,
                                     const std::string& root, bool rehash);

// The lock of a pip-wheel or toolkit copy as discovery found it (`lock --copy DIR`). These have no
// install manifest to vouch for their files, so every file is hashed now (`hasher`). The lock names
// the copy's cuDNN files only (facts/cudnn_files.h names: libraries, static and import libraries,
// headers) in its library and header folders, as lib/NAME and include/NAME; a toolkit's other
// files are not cuDNN's. The version is the whole one (9.19.0.56) when the copy's package says it
// and agrees with the library. kUsage for a copy of another form, of an unknown version or CUDA
// major, or with a link that leaves its folder.
Result<CudnnLock> lock_from_copy(const FileSystem& fs, const CudnnCopy& copy, const std::string& platform,
                                 const Rules& rules, const BelowHasher& hasher);

// The whole version a copy says: its package's (9.19.0.56, a wheel's dist-info or a system
// package) when that extends the library's (9.19.0), else the library's, else the header's.
Version copy_full_version(const CudnnCopy& copy);

// How an install manifest differs from the lock, one line per file ("lib/x: sha256 differs",
// "lib/y: not in the lock"); empty when the manifest records exactly the locked files, sizes,
// sums and links. What `install --locked` checks before it selects the copy.
std::vector<std::string> manifest_differences(const CudnnLock& lock, const InstallManifest& manifest);

// The lock a command acts on: `given` (--lock FILE) when not empty, else the nearest cudnn.lock
// at or above `cwd`. kUsage when there is none.
Result<std::string> locate_lock_file(const FileSystem& fs, const std::string& cwd, const std::string& given);

// Reads and checks the lock at `path`: a regular file (or a link to one) of at most
// kMaxLockBytes, never a FIFO or device. kUsage when it cannot be read, kCorrupt when it is not
// a lock cudnnup wrote (both name the file).
Result<CudnnLock> read_lock_file(const FileSystem& fs, const std::string& path);

// Writes the lock at `path` whole or not at all: a temporary file beside it, synced, then
// renamed over it. A failure leaves the old lock (or none) and no temporary file.
Status write_lock_file(FileSystem& fs, const std::string& path, const CudnnLock& lock);

}  // namespace cudnnup
