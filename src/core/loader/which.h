// `cudnnup which`: the copy of a library that a given program (or a plain one) would load, the
// rule that chose it, the candidates that lost, and for cuDNN the sub-library loads.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "loader/cudnn_load_model.h"
#include "base/environment.h"
#include "base/filesystem.h"
#include "loader/glibc_resolver.h"

namespace cudnnup {

// The one answer `which`, doctor's "What loads", env/exec and explain share, on Linux and on
// Windows (loader/windows/which_windows.h fills the same type).
struct WhichReport {
  std::string target;        // "a plain program linked with -lcudnn", "/path/prog", "torch in /venv"
  std::string target_kind;   // "plain", "executable", "library", "framework"; Windows: "python", "torch"
  std::string library;       // the name asked about: "libcudnn.so.9", "cudnn64_9.dll"
  std::string how_requested; // "DT_NEEDED", "dlopen from X", ...
  std::string loader;        // "glibc 2.36, default directories compiled into ld.so", "Windows LoadLibrary"
  std::string search_mode;   // Windows: "standard (SafeDllSearchMode)" | "LOAD_LIBRARY_SEARCH_DEFAULT_DIRS"
  bool windows = false;      // paths are Windows paths (rendered with '\\')
  Resolution resolution;
  std::optional<CudnnLoad> cudnn;   // when `library` is a cuDNN shim that loads
  std::vector<std::string> loaded_cudnn_files;  // every cuDNN file the model maps, in load order
  std::vector<std::string> hazards;  // files that would hang or break a real process (a FIFO)
  std::vector<std::string> notes;
  std::vector<std::string> problems;
};

// "libcudnn.so.9" for "cudnn", "9", "libcudnn", "" (the default major is 9).
std::string normalize_library_name(const std::string& lib);
bool is_cudnn_shim_name(const std::string& name);

// As a plain program linked with -l<lib> (NEEDED lib, no RPATH/RUNPATH, this machine's class).
WhichReport which_plain_program(const FileSystem& fs, const Environment& env, const std::string& lib);

// As the executable or shared object at `path`: an executable is started (preload, NEEDED
// tree); a shared object is dlopen()ed by path from a plain program. When neither maps `lib`,
// the answer models dlopen(lib) called from that file (how cuDNN users load it at run time).
Result<WhichReport> which_for_file(const FileSystem& fs, const Environment& env, const std::string& path,
                                   const std::string& lib);

// After the simulation in `sim` (whatever started it): finds how `lib` was or would be loaded
// (mapped already, else dlopen from `fallback_caller`), models cuDNN sub-libraries. Used by the
// framework models too.
WhichReport finish_which(const FileSystem& fs, LoaderSimulation& sim, const std::string& lib, int fallback_caller,
                         WhichReport report);

// The rest of an answer whose `resolution` (and `how_requested`) the caller has set, e.g. after
// a framework's dlopen by path: cuDNN's sub-libraries, the cuDNN files mapped, hazards, notes.
WhichReport complete_which(const FileSystem& fs, LoaderSimulation& sim, WhichReport report);

}  // namespace cudnnup
