// Loading a shared library by absolute path and finding its symbols. Only probe children call
// this for NVIDIA libraries (see app/probe_*.cc).
#pragma once

#include <string>

#include "base/result.h"

namespace cudnnup {

// For a child that loads a cuDNN copy. Windows: takes the current directory out of the DLL search
// (SetDllDirectoryW(L"")), so a by-name load finds the copy's directory (first on the PATH its
// parent gave it) and the system, never a stray DLL where the user stands. POSIX: nothing to do;
// the parent sets LD_LIBRARY_PATH (core/child/loader_environment.h).
void use_safe_library_search();

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
