// Which file glibc's ld.so maps for a library name, without running anything: a simulation of
// one process's link map over the FileSystem interface, following glibc elf/dl-load.c
// (_dl_map_object) and the facts in shared/facts/loaders-and-managers.md §B.1:
//
//   0. a name with a '/' is a path (after $ORIGIN/$LIB/$PLATFORM expansion);
//   1. already loaded: a mapped object whose load name or DT_SONAME equals the name wins;
//   2. DT_RPATH of the requesting object, then of its loader, and on up the chain, then of the
//      executable; skipped entirely when the requesting object has DT_RUNPATH (and an object with
//      DT_RUNPATH contributes no DT_RPATH of its own);
//   3. LD_LIBRARY_PATH (not in secure-execution mode);
//   4. DT_RUNPATH of the requesting object only;
//   5. /etc/ld.so.cache;
//   6. the default directories.
// LD_PRELOAD objects are mapped right after the executable. Candidates of another ELF class or
// machine are passed over; a candidate that exists but is not ELF stops the search with an
// error, as ld.so does ("invalid ELF header"). A dlopen() searches with the caller's paths.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "binfmt/elf.h"
#include "base/environment.h"
#include "base/filesystem.h"
#include "binfmt/ld_so_cache.h"
#include "base/result.h"

namespace cudnnup {

// Where a winning or losing candidate came from.
enum class SearchRule {
  kPath,          // the name contains '/'
  kAlreadyLoaded, // SONAME / load-name match with a mapped object
  kPreload,       // LD_PRELOAD (the object was mapped because of it)
  kRpath,         // DT_RPATH of some object in the loader chain
  kLdLibraryPath,
  kRunpath,
  kCache,         // /etc/ld.so.cache
  kDefault,       // default directories
  kNone,          // not found
};
const char* search_rule_name(SearchRule rule);  // "DT_RPATH", "LD_LIBRARY_PATH", ...

struct Candidate {
  std::string path;    // as ld.so would build it: dir + "/" + name
  SearchRule rule = SearchRule::kNone;
  std::string source;  // "DT_RPATH of /x/libtorch_cuda.so ($ORIGIN/../../nvidia/cudnn/lib)"
  std::string outcome; // "missing", "wrong ELF class (32-bit)", "loses: DT_RPATH found it first", ...
  bool exists = false; // a usable file was there (it lost to an earlier rule, or it is the winner)
};

// The answer for one request.
struct Resolution {
  std::string name;          // as requested: "libcudnn.so.9"
  std::string requester;     // the object whose search paths were used
  std::string kind;          // "DT_NEEDED", "dlopen", "LD_PRELOAD"
  bool found = false;
  std::string path;          // the file that loads (as ld.so names it, e.g. with $ORIGIN expanded)
  std::string canonical;     // the same with links resolved
  SearchRule rule = SearchRule::kNone;
  std::string rule_detail;   // which RPATH/RUNPATH entry, which cache entry, ...
  std::string error;         // why it fails, when it fails
  std::vector<Candidate> candidates;  // every candidate in search order, winner included
  std::vector<std::string> notes;     // modelling limits that apply to this answer
};

// What the simulated loader knows about the machine besides files.
struct LoaderSystem {
  std::vector<std::string> ld_library_path;  // split, empty entries kept (= current directory)
  std::vector<std::string> ld_preload;       // LD_PRELOAD entries then /etc/ld.so.preload entries
  bool secure = false;                       // AT_SECURE: LD_LIBRARY_PATH ignored
  std::optional<LdCache> cache;              // nullopt: no cache (or unreadable)
  std::vector<std::string> default_dirs;     // "system search path"
  std::string lib_token = "lib";             // $LIB
  std::string platform_token = elf_machine_name(kElfMachineX86_64);  // $PLATFORM, of `machine`
  std::string cwd = "/";
  std::vector<std::string> hwcaps;           // supported glibc-hwcaps subdirectories, best first
  bool is_64bit = true;                      // the class/machine of the process (from the executable)
  uint16_t machine = kElfMachineX86_64;
};

// Fills LoaderSystem from the environment and files: LD_LIBRARY_PATH, LD_PRELOAD,
// /etc/ld.so.preload, /etc/ld.so.cache, and the default directories for this distro layout
// (Debian multiarch /lib/<triplet>:/usr/lib/<triplet>:/lib:/usr/lib, or /lib64:/usr/lib64).
// `problems` receives cache read errors (the search then runs without the cache, like ld.so).
LoaderSystem loader_system_from(const FileSystem& fs, const Environment& env, bool is_64bit, uint16_t machine,
                                std::vector<std::string>* problems);

struct MappedObject {
  std::string path;       // the name ld.so gives it (l_name)
  std::string canonical;
  ElfInfo elf;
  int loader = -1;        // index of the object that caused the load (l_loader); -1 for the executable
  std::vector<std::string> load_names;  // names it was requested by
  std::string how;        // "executable", "LD_PRELOAD", "DT_NEEDED of X", "dlopen from X"
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

  // dlopen(name) called from object `caller`: resolves, maps it and its dependencies.
  // Returns the resolution of `name` itself; every resolution made is appended to log().
  Resolution dlopen(const std::string& name, int caller);

  // Only searches (maps nothing): what `name` requested by `requester` would resolve to now.
  Resolution locate(const std::string& name, int requester, const std::string& kind) const;

  const std::vector<MappedObject>& objects() const { return objects_; }
  const std::vector<Resolution>& log() const { return log_; }
  // The mapped object with this SONAME or load name, or -1.
  int find_loaded(const std::string& name) const;
  const LoaderSystem& system() const { return system_; }

 private:
  // Resolves and maps `name` for `requester`; maps its DT_NEEDED breadth-first.
  Resolution map_with_deps(const std::string& name, int requester, const std::string& kind);
  std::optional<int> map_one(const Resolution& r, int requester, const std::string& how);
  void map_needed_breadth_first(std::vector<int> queue);
  std::string expand_tokens(const std::string& text, int object) const;
  Result<ElfInfo> elf_of(const std::string& path) const;

  const FileSystem& fs_;
  LoaderSystem system_;
  std::vector<MappedObject> objects_;
  std::vector<Resolution> log_;
  mutable std::map<std::string, Result<ElfInfo>> elf_cache_;
};

// Expands $ORIGIN, ${ORIGIN}, $LIB, ${LIB}, $PLATFORM, ${PLATFORM} in one search-path entry or
// name, the way ld.so does (textually; $ORIGIN is the directory of the object's path).
std::string expand_dynamic_string_tokens(const std::string& text, const std::string& origin_dir,
                                         const std::string& lib_token, const std::string& platform_token);

}  // namespace cudnnup
