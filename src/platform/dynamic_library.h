// Loading a shared library by absolute path and finding its symbols. Only probe children call
// this for NVIDIA libraries (see app/probe_*.cc).
#pragma once

#include <string>

#include "base/result.h"

namespace cudnnup {

// Probe children only, before loading anything: makes `dir` the one place besides the system
// folders where libraries loaded by name are looked for. Windows: the safe DLL search mode
// (SetDefaultDllDirectories(LOAD_LIBRARY_SEARCH_DEFAULT_DIRS) + AddDllDirectory(dir)), and every
// later DynamicLibrary::open searches that way. POSIX: nothing to do in the process; the parent
// starts the child with LD_LIBRARY_PATH=dir and no LD_PRELOAD (ld.so reads them at start).
Status restrict_library_search(const std::string& dir);

class DynamicLibrary {
 public:
  static Result<DynamicLibrary> open(const std::string& absolute_path);
  DynamicLibrary(DynamicLibrary&& other) noexcept : handle_(other.handle_) { other.handle_ = nullptr; }
  DynamicLibrary& operator=(DynamicLibrary&&) = delete;
  DynamicLibrary(const DynamicLibrary&) = delete;
  ~DynamicLibrary();

  void* symbol(const char* name) const;  // nullptr when absent
  template <typename Fn>
  Fn function(const char* name) const {
    return reinterpret_cast<Fn>(symbol(name));
  }
  // Keeps the library loaded for the life of the process (probes exit right after).
  void leak() { handle_ = nullptr; }

 private:
  explicit DynamicLibrary(void* handle) : handle_(handle) {}
  void* handle_ = nullptr;
};

}  // namespace cudnnup
