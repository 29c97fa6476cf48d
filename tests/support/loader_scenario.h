// The differential test against the real loader (tests/disk/loader_differential_test.cc): a
// generator of random but reproducible loader scenarios built from the stub cuDNN copies of
// tests/fixtures/loader.cmake, the oracle (a real process that loads cuDNN as the scenario says
// and prints its /proc/self/maps, the bindings of each sub-library and cuDNN's version check)
// and the comparison with `cudnnup which` (docs/loader-differential.md).
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace cudnnup::testing {

// The building blocks a scenario is made of; the test counts how often each occurred.
enum class Block {
  kVersion9190, kVersion9191, kVersion9140, kVersion910,
  kSameVersionTwice,     // two copies of one version
  kVersionedNames,       // real files libcudnn_X.so.9.19.0 behind .so.9 links
  kBareNames,            // libcudnn_X.so dev links
  kSymlinkedShim,        // libcudnn.so.9 is a link to another copy's shim
  kSymlinkedDir,         // a library directory is a link to another
  kLdLibraryPath,        // any entry
  kEmptyEntry,           // ":x", "x::y", "x:"
  kRelativeEntry,        // "lib" (relative to the working directory)
  kDlopenProgram,        // dlopen("libcudnn.so.9") at run time
  kNeededProgram,        // DT_NEEDED libcudnn.so.9
  kIntermediateLibrary,  // the program needs a library that needs cuDNN
  kExeRpath, kExeRunpath, kLibRpath, kLibRunpath,
  kOriginToken,          // $ORIGIN in a path list
  kPreloadSubLibrary,    // LD_PRELOAD of a sub-library of another copy
  kPreloadShim,          // LD_PRELOAD of another copy's shim
  kHwcapsSubdir,         // a copy's file in glibc-hwcaps/<level>/ or a legacy tls/ subdirectory
  kDirectoryOfTheName,   // a directory named libcudnn.so.9 (ld.so fails there)
  kHeaderOnlyElf,        // an ELF header without the rest, of the shim's name (ld.so fails there)
  kLdSoConf,             // ld.so.conf lists a copy and the cache is rebuilt (private mount namespace)
  kCount,
};
const char* block_name(Block b);

struct ScenarioCopy {
  std::string version;       // "9.19.0"
  std::string dir;           // relative to the scenario root
  bool versioned = false;    // real files carry the full version, SONAME names are links
  bool dev_links = false;    // libcudnn_X.so links
};

struct Scenario {
  uint64_t seed = 0;
  std::vector<ScenarioCopy> copies;
  std::vector<std::string> llp;      // LD_LIBRARY_PATH entries as written; "@ROOT@" = the root
  bool llp_set = false;
  std::string cwd = "work";          // relative to the root
  std::string program = "dlopen";    // "dlopen" | "needed" | "library"
  std::string exe_tag, lib_tag;      // "", "rpath", "runpath"
  std::vector<std::string> exe_paths, lib_paths;
  std::string preload;               // "@ROOT@/..." or ""
  std::vector<std::string> conf_dirs;  // "@ROOT@/..." dirs listed in a private ld.so.conf
  std::vector<std::pair<std::string, std::string>> links;  // (link, target), relative to the root
  std::vector<std::string> odd_dirs;     // relative paths made directories
  std::vector<std::string> header_only;  // relative paths made header-only ELF files
  std::set<Block> blocks;
  std::string describe() const;
};

// A scenario from a seed: the same seed always gives the same scenario.
Scenario generate_scenario(uint64_t seed);

// What the real process did.
struct Truth {
  bool ran = false;                               // the program ran (false: it did not start)
  bool loaded = false;                            // a cuDNN shim was mapped
  std::map<std::string, std::string> files;       // component -> canonical path (the file the stub
                                                  // shim's or graph's dlopen() handle is, else the mapped one)
  std::set<std::string> mapped;                   // every mapped cuDNN file, canonical
  std::map<std::string, std::map<std::string, std::string>> bindings;  // file -> dependency -> canonical
  bool check_fails = false;                       // a sub-library's version check returned 1002
  bool real_shim = false;                         // the shim is the system's real cuDNN, not a stub
  bool mixed = false;
  std::string raw;
};

struct Outcome {
  bool skipped = false;
  std::string skip_reason;
  std::vector<std::string> disagreements;  // "<what>: truth X, prediction Y"
  Truth truth;
  std::string prediction;  // the JSON, for the failure message
};

// Builds the scenario under `root` (an empty directory), runs the oracle and `cudnnup which`
// (`binary`), compares. `can_unshare`: whether a private mount namespace can be made.
Outcome run_scenario(const Scenario& s, const std::string& root, const std::string& binary, bool can_unshare);

// Whether `unshare -m` works here (root, or CAP_SYS_ADMIN).
bool mount_namespace_available();

}  // namespace cudnnup::testing
