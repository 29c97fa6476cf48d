// One answer type for "which file does this process get for NAME, and why", shared by the glibc
// model (loader/glibc_resolver.h) and the Windows model (loader/windows/windows_loader.h), and
// rendered by one renderer (app/render/which_render.h). A resolution names the winner (the file
// that loads), or the file that makes the load fail, and every other candidate with the rule that
// reached it and why it lost.
#pragma once

#include <string>
#include <vector>

namespace cudnnup {

// Where a candidate came from: the search step of either loader.
enum class SearchRule {
  kPath,           // the name is a path
  kAlreadyLoaded,  // a loaded object has that SONAME / module name
  // glibc ld.so
  kPreload,        // LD_PRELOAD (the object was mapped because of it)
  kRpath,          // DT_RPATH of some object in the loader chain
  kLdLibraryPath,
  kRunpath,
  kCache,          // /etc/ld.so.cache
  kDefault,        // the default directories compiled into ld.so
  // Windows
  kKnownDll,
  kApplicationDir,
  kDllLoadDir,       // LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR: the folder of the module being loaded
  kSetDllDirectory,
  kAddDllDirectory,  // AddDllDirectory / os.add_dll_directory
  kSystem32,
  kSystem16,
  kWindowsDir,
  kCurrentDir,
  kPathVariable,     // an entry of PATH
  kNotSearched,      // a copy outside the search (listed so people see why it lost)
  kNone,             // not found
};
// Stable names for JSON and text: "DT_RPATH", "LD_LIBRARY_PATH", "PATH", "System32", ...
const char* search_rule_name(SearchRule rule);

// Why a file of the right name cannot be the answer, or makes the load fail.
enum class LoadProblem {
  kNone,
  kUnreadable,         // glibc skips it (EACCES) and searches on; Windows: error 5
  kDirectory,          // glibc: "cannot read file data: Is a directory"; the load fails
  kFifo,               // glibc's open() blocks until a writer comes: the process hangs (a hazard)
  kSpecialFile,        // a socket or device: the load fails
  kEmpty,              // 0 bytes: glibc "file too short"; Windows 193
  kNotBinary,          // not ELF / PE: glibc "invalid ELF header"; Windows 193
  kTruncated,          // the header is there, the rest is not: the load fails
  kWrongClass,         // glibc passes over an object of the other ELF class
  kWrongMachine,       // glibc passes over it; Windows fails with 193
  kMissingDependency,  // Windows 126
  kBrokenDependency,   // an import is found but cannot load itself
};
const char* load_problem_name(LoadProblem problem);  // "none", "unreadable", "directory", "fifo", ...

struct Candidate {
  std::string path;     // as the loader builds it: dir + "/" + name
  SearchRule rule = SearchRule::kNone;
  std::string source;   // the entry that produced it: "DT_RPATH of X ($ORIGIN/.. = /y)", "PATH entry 2"
  std::string outcome;  // for people: "loads", "missing", "loses: DT_RPATH found X first", ...
  bool exists = false;  // a usable file was there (the winner, or one that lost to an earlier rule)
  LoadProblem problem = LoadProblem::kNone;
  std::string problem_detail;
  int entry_index = -1;      // 0-based index in LD_LIBRARY_PATH / PATH when the rule is one of those
  std::string entry;         // that entry as the user wrote it ("" = the current directory)
  int search_position = -1;  // Windows: index in Resolution::search_dirs; -1 outside the search
  std::string file_version;  // Windows: the PE file version, when the file has one
};

struct SearchDir {
  std::string dir;
  SearchRule rule = SearchRule::kNone;
  std::string source;  // "PATH entry 3", "application directory", ...
};

// The answer for one request.
struct Resolution {
  std::string name;       // as requested: "libcudnn.so.9", "cudnn64_9.dll"
  std::string requester;  // the object whose search paths were used
  std::string kind;       // "DT_NEEDED", "dlopen", "LD_PRELOAD", "LoadLibrary"
  bool found = false;     // a file is chosen and it loads
  std::string path;       // that file (as the loader names it, e.g. with $ORIGIN expanded)
  std::string canonical;  // the same with links resolved
  SearchRule rule = SearchRule::kNone;
  std::string rule_detail;   // which RPATH/RUNPATH entry, which cache entry, which PATH entry, ...
  std::string error;         // why it fails, when it fails
  std::string failed_at;     // the file that makes the load fail (the search stops there), if any
  int win32_error = 0;       // Windows: what GetLastError() would say (0, 5, 126, 193)
  std::vector<Candidate> candidates;   // in search order, winner included
  std::vector<SearchDir> search_dirs;  // Windows: the directories this mode searches, in order
  std::vector<std::string> hazards;    // files that would hang or break a real process (a FIFO)
  std::vector<std::string> notes;      // modelling limits that apply to this answer
};

}  // namespace cudnnup
