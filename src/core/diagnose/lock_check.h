// `cudnnup check` (docs/commands/check.md): how this machine differs from a cudnn.lock. Each
// difference is one LockDrift naming the file or version, so a CI log says what to fix.
//
// Cost: the default reads no file's contents. Per file it makes one lstat and compares type,
// size and modification time with what the install recorded (the lock's sha256 must equal the
// install manifest's, and a file written after the manifest was changed after install); that is
// a few milliseconds for a 1 GB copy. `--deep` hashes every file instead (about 1 GB read).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/environment.h"
#include "base/filesystem.h"
#include "diagnose/install_integrity.h"
#include "install/cudnn_lock.h"
#include "install/install_manifest.h"

namespace cudnnup {

struct LockDrift {
  // "version" (another version is selected here), "not_installed", "missing", "changed",
  // "modified" (written after install: --deep tells whether its bytes differ), "not_a_file",
  // "link_changed", "extra" (a library file the lock does not name), "archive", "loads" (a plain
  // program loads another copy), "driver" (below the lock's minimum).
  std::string kind;
  std::string subject;  // the file (absolute) or the version concerned
  std::string message;  // one sentence for people
};

struct LockedCopy {
  std::string root;                        // the store version's directory
  const InstallManifest* manifest = nullptr;  // its install manifest (null: unreadable or none)
  int64_t installed_ns = 0;                // the manifest's modification time (0: unknown)
};

struct FileCheck {
  size_t files_checked = 0;
  std::vector<LockDrift> drift;
};

// Every file of the lock against the copy; `hasher` non-null: --deep. Paths are reached only
// through the *_below calls, so a lock cannot make check look outside the copy.
FileCheck check_locked_files(const FileSystem& fs, const CudnnLock& lock, const LockedCopy& copy,
                             const FileHasher* hasher, bool windows);

// The copy of the lock's cuDNN major that a plain program started with `env` loads (the loader
// model, loader/which.h), and every cuDNN file it maps, must lie in the locked copy.
std::optional<LockDrift> check_plain_program_load(const FileSystem& fs, const Environment& env, const CudnnLock& lock,
                                                  const std::string& root);

// `driver_version`: the loaded kernel module's ("580.65.06"; "" when none is seen, which is not
// drift: a build machine without a GPU may check a lock too).
std::optional<LockDrift> check_driver_minimum(const std::string& driver_version, const CudnnLock& lock, bool windows);

}  // namespace cudnnup
