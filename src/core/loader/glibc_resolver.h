// Which file glibc's ld.so maps for a library name, without running anything: a simulation of
// one process's link map over the FileSystem interface, following glibc elf/dl-load.c
// (_dl_map_object, open_path, open_verify) and experiments with the real loader
// (docs/loader-differential.md):
//
//   0. a name with a '/' is a path (after $ORIGIN/$LIB/$PLATFORM expansion);
//   1. already loaded: a mapped object whose load name or DT_SONAME equals the name wins;
//   2. DT_RPATH of the requesting object, then of its loader, and on up the chain, then of the
//      executable; skipped entirely when the requesting object has DT_RUNPATH (and an object with
//      DT_RUNPATH contributes no DT_RPATH of its own);
//   3. LD_LIBRARY_PATH (not in secure-execution mode); an empty entry (":x", "x::y", "x:") is the
//      current directory, a relative entry is relative to it;
//   4. DT_RUNPATH of the requesting object only;
//   5. /etc/ld.so.cache;
//   6. the default directories compiled into ld.so (discover/loader_config.h).
// In every directory of 2-4 and 6 ld.so first tries the hardware-capability subdirectories of
// the glibc it is (glibc-hwcaps/<level>/ from 2.33, the legacy tls/<platform>/... set before 2.37).
// LD_PRELOAD objects are mapped right after the executable.
//
// Files of the right name are judged as open_verify() does: another ELF class or machine, a
// missing or unreadable file (ENOENT, EACCES) are passed over; a directory, a file that is not
// ELF, an ELF whose program headers are not all there, or a socket/device stop the search with
// an error; a FIFO would block the process in open() (a hazard: it is never opened here).
//
// The simulation also keeps glibc's symbol lookup scopes: the global scope (the executable, the
// preloads, their DT_NEEDED trees, anything dlopen()ed with RTLD_GLOBAL) and each dlopen()ed
// object's local scope, so `symbol_provider` says which object a symbol reference binds to.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/environment.h"
#include "base/filesystem.h"
#include "base/result.h"
#include "binfmt/elf.h"
#include "binfmt/ld_so_cache.h"
#include "discover/loader_config.h"
#include "facts/machines.h"
#include "loader/resolution.h"

namespace cudnnup {

// What the simulated loader knows about the machine besides files.
struct LoaderSystem {
  std::vector<std::string> ld_library_path;  // split on ':' and ';', empty entries kept (= current directory)
  std::vector<std::string> ld_preload;       // LD_PRELOAD entries then /etc/ld.so.preload entries
  bool secure = false;                       // AT_SECURE: LD_LIBRARY_PATH ignored
  std::shared_ptr<const LdCache> cache;      // null: no cache (or unreadable)
  std::vector<std::string> default_dirs;     // "system search path"
  std::string lib_token = "lib";             // $LIB
  std::string platform_token = elf_machine_name(kElfMachineX86_64);  // $PLATFORM
  std::string cwd = "/";
  std::vector<std::string> hwcaps;           // supported glibc-hwcaps subdirectories, best first
  std::vector<std::string> legacy_hwcaps;    // legacy subdirectories (glibc < 2.37), in search order
  bool is_64bit = true;                      // the class/machine of the process (from the executable)
  uint16_t machine = kElfMachineX86_64;
  std::string description;                   // "glibc 2.36 (/lib64/ld-linux-x86-64.so.2)", for people
  std::vector<std::string> notes;            // what had to be assumed about the machine
};

// Fills LoaderSystem from the environment and files: LD_LIBRARY_PATH, LD_PRELOAD,
// /etc/ld.so.preload, /etc/ld.so.cache, and this machine's ld.so configuration (default
// directories, glibc release, hardware-capability subdirectories; discover/loader_config.h).
// `problems` receives cache read errors (the search then runs without the cache, like ld.so).
LoaderSystem loader_system_from(const FileSystem& fs, const Environment& env, bool is_64bit, uint16_t machine,
                                std::vector<std::string>* problems);

// LD_LIBRARY_PATH as ld.so splits it: on ':' and ';', empty entries kept.
std::vector<std::string> split_ld_library_path(const std::string& value);

struct MappedObject {
  std::string path;       // the name ld.so gives it (l_name)
  std::string canonical;
  ElfInfo elf;
  int loader = -1;        // index of the object that caused the load (l_loader); -1 for the executable
  std::vector<std::string> load_names;  // names it was requested by
  std::string how;        // "executable", "LD_PRELOAD", "DT_NEEDED of X", "dlopen from X"
  bool global = false;    // in the global lookup scope
  int scope_root = -1;    // the dlopen()ed object whose local scope it joined (-1: none)
  std::vector<int> needed;  // per DT_NEEDED entry, the object it resolved to (-1: not found)
};

class LoaderSimulation {
 public:
  LoaderSimulation(const FileSystem& fs, LoaderSystem system);

  // Maps the executable at `path`, then the LD_PRELOAD objects, then its DT_NEEDED tree (breadth
  // first, as _dl_map_object_deps does). Fails when the executable cannot be read as ELF.
  Result<int> start_executable(const std::string& path);
  // The same for a program that exists only as a description: a plain program linked with
  // `-lcudnn` has needed = {"libcudnn.so.9"} and no RPATH/RUNPATH.
  int start_synthetic(const std::string& label, const ElfInfo& elf, const std::string& origin_dir);

  // dlopen(name) called from object `caller`: resolves, maps it and its dependencies
  // (RTLD_GLOBAL when `global`). Returns the resolution of `name` itself; every resolution made
  // is appended to log().
  Resolution dlopen(const std::string& name, int caller, bool global = false);

  // Only searches (maps nothing): what `name` requested by `requester` would resolve to now.
  Resolution locate(const std::string& name, int requester, const std::string& kind) const;

  const std::vector<MappedObject>& objects() const { return objects_; }
  const std::vector<Resolution>& log() const { return log_; }
  // The mapped object with this SONAME or load name (the first in load order, as ld.so checks
  // them), or -1.
  int find_loaded(const std::string& name) const;
  // The mapped object with this canonical path, or -1.
  int find_mapped_file(const std::string& canonical) const;
  // Which object a symbol reference from `object` binds to: the first object that `defines` in
  // the global scope, then in the local scope of the dlopen() that brought `object` in (that
  // object and its DT_NEEDED tree, breadth first). -1 when none defines it.
  int symbol_provider(int object, const std::function<bool(const MappedObject&)>& defines) const;
  const LoaderSystem& system() const { return system_; }

 private:
  friend class CandidateSearch;
  // Resolves and maps `name` for `requester`; maps its DT_NEEDED breadth-first.
  Resolution map_with_deps(const std::string& name, int requester, const std::string& kind, bool global);
  std::optional<int> map_one(const Resolution& r, int requester, const std::string& how, bool global, int root);
  void map_needed_breadth_first(std::vector<int> queue);
  std::string expand_tokens(const std::string& text, int object) const;
  Result<ElfInfo> elf_of(const std::string& path) const;
  bool dir_exists(const std::string& dir) const;
  // The hwcaps subdirectories (glibc-hwcaps/<level>, then the legacy ones) of `dir` that exist,
  // in search order, as full paths: worked out once per directory, since every library searched
  // asks again (ld.so remembers missing subdirectories the same way).
  const std::vector<std::string>& existing_subdirs(const std::string& dir) const;

  const FileSystem& fs_;
  LoaderSystem system_;
  std::vector<MappedObject> objects_;
  std::vector<Resolution> log_;
  mutable std::map<std::string, Result<ElfInfo>> elf_cache_;
  mutable std::map<std::string, bool> dir_cache_;
  mutable std::map<std::string, std::vector<std::string>> subdir_cache_;
};

// Expands $ORIGIN, ${ORIGIN}, $LIB, ${LIB}, $PLATFORM, ${PLATFORM} in one search-path entry or
// name, the way ld.so does (textually; $ORIGIN is the directory of the object's path).
std::string expand_dynamic_string_tokens(const std::string& text, const std::string& origin_dir,
                                         const std::string& lib_token, const std::string& platform_token);

}  // namespace cudnnup
