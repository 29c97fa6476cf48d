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
#include "loader/frameworks.h"

namespace cudnnup {

struct LockDrift {
  // "version" (another version is selected here), "not_installed", "missing", "changed",
  // "modified" (written after install: --deep tells whether its bytes differ), "not_a_file",
  // "link_changed", "extra" (a library file the lock does not name), "archive", "loads" (a plain
  // program loads another copy), "framework_loads" (a framework of the locked pip copy's
  // environment loads another copy), "driver" (below the lock's minimum).
  std::string kind;
  std::string subject;  // the file (absolute) or the version concerned
  std::string message;  // one sentence for people
  std::vector<FixStep> fix = {};  // the commands that end it, if any (printed for the user's shell)
};

struct LockedCopy {
  std::string root;                        // the store version's directory; a pip or toolkit copy's root
  const InstallManifest* manifest = nullptr;  // its install manifest (null: unreadable or none)
  int64_t installed_ns = 0;                // the manifest's modification time (0: unknown)
  // A pip or toolkit lock: where its lib/NAME and include/NAME are (canonical folders).
  std::string lib_dir, include_dir;
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

// A pip or toolkit lock (form "pip", "toolkit") names no place: a project's lock is used on other
// machines, where the venv or toolkit lies elsewhere. Its copy here is one doctor finds of the same
// form and cuDNN major, preferring one of the locked version and CUDA major. For a pip lock only
// copies in `project_env` count when it is given (the Python environment the project runs in: a
// wheel in another venv is not the project's). No copy, or only copies of another version: drift.
struct LocatedCopy {
  const CudnnCopy* copy = nullptr;  // null: none found (drift says so)
  std::optional<LockDrift> drift;   // "not_installed", or "version" (the copy found is another one)
};
struct ProjectEnv {
  std::string prefix;  // canonical
  std::string why;     // "VIRTUAL_ENV", "the project's .venv", "python3 on PATH"
};
LocatedCopy locate_unmanaged_copy(const FileSystem& fs, const CudnnLock& lock, const std::vector<CudnnCopy>& copies,
                                  const std::optional<ProjectEnv>& project_env);

// The copy whose library folder or root is `dir` (both compared resolved), as `lock --copy DIR` and
// `check --copy DIR` name one; null when none is.
const CudnnCopy* copy_at(const FileSystem& fs, const std::vector<CudnnCopy>& copies, const std::string& dir);

// A pip lock: every framework of the Python environment that holds the copy (`root`) must load
// its cuDNN from that copy (each framework's own loading rules, loader/frameworks.h).
std::vector<LockDrift> check_framework_loads(const FileSystem& fs, const std::vector<FrameworkReport>& frameworks,
                                             const std::string& root);
// How many of `frameworks` live in the environment that holds `root` (what check_framework_loads judges).
size_t frameworks_of(const FileSystem& fs, const std::vector<FrameworkReport>& frameworks, const std::string& root);

// `driver_version`: the loaded kernel module's ("580.65.06"; "" when none is seen, which is not
// drift: a build machine without a GPU may check a lock too).
std::optional<LockDrift> check_driver_minimum(const std::string& driver_version, const CudnnLock& lock, bool windows);

}  // namespace cudnnup
